// The `store` suite's full-text search row: a search through the store (`list` with `search`, a page of 20 in
// relevance order) against the same FTS5 query written by hand on the same SQLite file (the MATCH, the join to
// the records, ORDER BY the token count and id, LIMIT 20), in interleaved rounds of the same run, best round of
// each (the machine is shared, and load only ever slows a round down).
//
// The records have a title and a body of words drawn from a 5,000-word vocabulary, skewed so that some words are
// common; each query is a common word and a prefix of a rarer one, as a search box sends while typing.
// VELLUM_BENCH_SEARCH_RECORDS sets how many records (default 1,000,000).

import { join } from 'node:path';
import { Bench } from 'tinybench';
import { checkSchema } from '../src/lang/index.ts';
import { layoutOf, openSqliteStore, type JsonObject, type RecordStore, type SqliteKv } from '../src/store/index.ts';
import { searchTableId } from '../src/store/search-layout.ts';
import { row, type BenchRow } from './harness.ts';

const SUITE = 'store';
const COLLECTION = 'bench/Doc';
const RECORDS = Number(process.env.VELLUM_BENCH_SEARCH_RECORDS ?? 1_000_000);
const VOCABULARY = 5000;
const PAGE = 20;

const layout = layoutOf(
  checkSchema(`
collection Doc {
  id: string; title: string; body: string;
  @search(title, body);
  constructor (id: string, title: string, body: string) { this.id = id; this.title = title; this.body = body; }
}`).program!.collections[0]!,
);

/** A deterministic, skewed word: low numbers far more often than high ones. */
function word(seed: number): string {
  const x = ((seed * 2654435761) >>> 0) / 2 ** 32;
  return `w${Math.floor(VOCABULARY * x * x * x)}`;
}

function doc(n: number): JsonObject {
  const words = (from: number, count: number) => Array.from({ length: count }, (_, k) => word(n * 31 + from + k)).join(' ');
  return { id: `d${String(n).padStart(8, '0')}`, title: words(0, 3 + (n % 4)), body: words(7, 5 + (n % 9)) };
}

/** The queries: a common word, then the first two characters of a rarer one (a prefix, as typed). */
const QUERIES = Array.from({ length: 50 }, (_, i) => `w${i % 7} w${(97 + i * 13) % 900}`.slice(0, -1));

async function build(path: string): Promise<RecordStore> {
  const store = openSqliteStore(path);
  await store.defineCollection(COLLECTION, layout);
  for (let start = 0; start < RECORDS; start += 2000) {
    const writes = [];
    for (let n = start; n < Math.min(RECORDS, start + 2000); n++) writes.push({ kind: 'put' as const, collectionId: COLLECTION, record: doc(n) });
    await store.commit({ writes });
  }
  return store;
}

export async function searchRows(dir: string): Promise<BenchRow[]> {
  const started = Date.now();
  const store = await build(join(dir, 'search.db'));
  const buildSeconds = (Date.now() - started) / 1000;
  const db = (store.kv as SqliteKv).db;
  const index = searchTableId(COLLECTION, layout.search!);
  // The hand-written query: the tokens are plain ASCII words already, so the MATCH text is written directly. It is
  // the statement the store runs (with the first page's position bound, which the store's statement always has):
  // written without that bound (and with a literal LIMIT) it measured about twice as slow as the store's, with the
  // same query plan, so the statement itself is the fair baseline.
  const byHand = db.prepare(
    `SELECT d.len, d.rid, CAST(substr(kv.value, 9) AS TEXT) AS text FROM search_${index} f JOIN search_${index}_docs d ON d.rowid = f.rowid ` +
      `JOIN kv ON kv.key = d.rkey WHERE search_${index} MATCH ? AND (d.len > -1 OR (d.len = -1 AND d.rid > '')) ORDER BY d.len, d.rid LIMIT CAST(? AS INTEGER)`,
  );
  const matchOf = (query: string) => {
    const words = query.split(' ');
    return [...words.slice(0, -1).map((w) => `"${w}"`), `"${words.at(-1)}"*`].join(' AND ');
  };
  // Both answer the same records (checked once per query before timing).
  for (const query of QUERIES) {
    const ours = (await store.listJson(COLLECTION, { search: query, limit: PAGE })).records;
    const theirs = (byHand.all(matchOf(query), PAGE) as { text: string }[]).map((r) => r.text);
    if (JSON.stringify(ours) !== JSON.stringify(theirs)) throw new Error(`search "${query}" differs from the hand-written query`);
  }
  let bestStore = Infinity;
  let bestHand = Infinity;
  for (let round = 0; round < 3; round++) {
    let i = 0;
    let j = 0;
    const bench = new Bench({ time: 1500, warmupTime: 200 });
    bench
      .add('hand-written FTS5', () => {
        byHand.all(matchOf(QUERIES[i++ % QUERIES.length]!), PAGE);
      })
      .add('store search', async () => {
        await store.listJson(COLLECTION, { search: QUERIES[j++ % QUERIES.length]!, limit: PAGE });
      });
    await bench.run();
    const [hand, ours] = bench.tasks.map((task) => {
      if (task.result.state !== 'completed') throw new Error(`benchmark task ${task.name} did not complete`);
      return task.result.latency.p50;
    });
    bestHand = Math.min(bestHand, hand!);
    bestStore = Math.min(bestStore, ours!);
  }
  await store.close();
  const name = RECORDS >= 1e6 ? `${RECORDS / 1e6}M` : `${RECORDS / 1000}k`;
  return [
    row(SUITE, `search, 2 words (last a prefix), page of ${PAGE}, ${name} records`, {
      value: bestStore * 1000,
      unit: 'µs (median)',
      baseline: bestHand * 1000,
      ratio: bestStore / bestHand,
      goal: `<= 1.5x the same FTS5 query by hand (built in ${buildSeconds.toFixed(1)} s)`,
    }),
  ];
}
