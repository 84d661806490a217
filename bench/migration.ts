// The schema-change migration rows of `npm run bench -- store` (issue 22): casting every stored record of a
// collection to a changed schema (`defineCollection` with `conform`, as the service's update runs it: each record
// through the runtime's cast, rewritten with its index entries and a change-log entry, 500 records a transaction)
// against writing the same records, already in the new form, fresh into an empty collection of the new schema
// (`store.commit` of 500 records a commit) in the same run. Memory: the heap's and the resident set's growth over
// their size before the pass (after a collection when node runs with --expose-gc), at their largest (sampled after
// each batch, garbage included), for the full size and for a quarter of it: a pass holds one batch at a time, so
// the heap should not grow with the collection. The resident set also holds SQLite's page cache and the pages of
// the database file it maps, which grow with the file up to the store's cacheMiB and mmapMiB: the rows split the
// RSS into anonymous memory (the heap and SQLite's page cache) and mapped file pages, and measure the same passes
// with a 2 MiB page cache and no mmap. The get path (docs/store.md, "Reads during a cast pass"): the service's get
// with no pass running against the store's read alone, and a get of a record not yet cast during a pass against
// the get with none running.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkSchema } from '../src/lang/index.ts';
import { castDropping, compileCollection } from '../src/runtime/index.ts';
import { layoutOf, openSqliteStore, type JsonObject, type RecordStore } from '../src/store/index.ts';
import { createRecordService, type RecordService } from '../src/service/index.ts';
import { row, type BenchRow } from './harness.ts';

const SUITE = 'store';
const COLLECTION = 'bench/Member';
export const MIGRATION_RECORDS = Number(process.env.VELLUM_BENCH_MIGRATION_RECORDS ?? 100_000);
const BATCH = 500;

const schema = (age: 'number' | 'string') => `@public collection Member { id: string; name: string; city: string; age: ${age}; @index(city, [age, desc]); }`;

function compiled(age: 'number' | 'string') {
  const checked = checkSchema(schema(age), 'Member');
  if (!checked.program || !checked.checked) throw new Error('the bench schema does not check');
  const node = checked.program.collections[0]!;
  return { layout: layoutOf(node), collection: compileCollection(checked.checked, 'Member', { collectionId: COLLECTION }) };
}

function member(n: number, age: (n: number) => number | string): JsonObject {
  return { id: `m${String(n).padStart(8, '0')}`, name: `name ${(n * 7919) % 100_003}`, city: `city${n % 100}`, age: age((n * 31) % 97) };
}

async function write(store: RecordStore, count: number, age: (n: number) => number | string): Promise<void> {
  for (let start = 0; start < count; start += BATCH) {
    const writes = [];
    for (let n = start; n < Math.min(count, start + BATCH); n++) writes.push({ kind: 'put' as const, collectionId: COLLECTION, record: member(n, age) });
    await store.commit({ writes });
  }
}

/**
 * The resident set split by what backs it (Linux's /proc/self/status, in bytes): `anon`, the process's own memory
 * (V8's heap, Node's buffers, and SQLite's page cache, which it allocates), and `file`, pages of mapped files
 * (above all the database file, which SQLite reads through mmap) and shared memory (the WAL index). Elsewhere
 * both are the RSS and 0.
 */
function residentSplit(): { anon: number; file: number } {
  try {
    const status = readFileSync('/proc/self/status', 'utf8');
    const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
    return { anon: kb('RssAnon'), file: kb('RssFile') + kb('RssShmem') };
  } catch {
    return { anon: process.memoryUsage().rss, file: 0 };
  }
}

interface Measured {
  fresh: number;
  migrate: number;
  heapGrowthMb: number;
  rssGrowthMb: number;
  /** The peak growth of the anonymous resident set (heap, SQLite's page cache) and of mapped files' pages (the database file). */
  anonGrowthMb: number;
  fileGrowthMb: number;
  /** The anonymous resident set and the heap left after the pass, once collected (with --expose-gc; else uncollected). */
  retainedAnonMb: number;
  retainedHeapMb: number;
}

/**
 * Seconds to write `count` records of the new form fresh, and to migrate as many from the old form; the heap's and
 * RSS's peak growth (MB) during the migration, the RSS split as `residentSplit`. `sqlite`: the migrated store's
 * page cache and mmap sizes (the store's defaults unless given).
 */
export async function measure(dir: string, count: number, sqlite: { cacheMiB?: number; mmapMiB?: number } = {}): Promise<Measured> {
  const before = compiled('number');
  const after = compiled('string');
  const fresh = openSqliteStore(join(dir, `fresh-${count}.db`));
  await fresh.defineCollection(COLLECTION, after.layout);
  let started = performance.now();
  await write(fresh, count, String);
  const freshSeconds = (performance.now() - started) / 1000;
  await fresh.close();

  const store = openSqliteStore(join(dir, `migrate-${count}-${sqlite.cacheMiB ?? 'default'}.db`), sqlite);
  await store.defineCollection(COLLECTION, before.layout);
  await write(store, count, (age) => age);
  globalThis.gc?.();
  const base = process.memoryUsage();
  let peak = base.heapUsed;
  let peakRss = base.rss;
  const baseSplit = residentSplit();
  const peakSplit = { ...baseSplit };
  started = performance.now();
  const result = await store.defineCollection(COLLECTION, after.layout, {
    batchSize: BATCH,
    conform: (record) => {
      const cast = castDropping(after.collection, record);
      return cast.ok && cast.changed ? (cast.record as JsonObject) : null;
    },
    onProgress: () => {
      // Not collected here: a full collection after every batch made the pass 3x slower (100,000 records).
      const now = process.memoryUsage();
      peak = Math.max(peak, now.heapUsed);
      peakRss = Math.max(peakRss, now.rss);
      const split = residentSplit();
      peakSplit.anon = Math.max(peakSplit.anon, split.anon);
      peakSplit.file = Math.max(peakSplit.file, split.file);
    },
  });
  const migrateSeconds = (performance.now() - started) / 1000;
  // What the pass left behind, once its garbage is collected (with --expose-gc): what a leak would show in.
  globalThis.gc?.();
  const retainedAnon = residentSplit().anon - baseSplit.anon;
  const retainedHeap = process.memoryUsage().heapUsed - base.heapUsed;
  const sample = await store.get(COLLECTION, member(1, String).id as string);
  if (result.rebuilt !== count || sample.record?.age !== String((31 % 97))) throw new Error(`the migration did not cast every record (${result.rebuilt} of ${count})`);
  await store.close();
  const mb = (bytes: number) => bytes / 1024 / 1024;
  return {
    fresh: freshSeconds,
    migrate: migrateSeconds,
    heapGrowthMb: mb(peak - base.heapUsed),
    rssGrowthMb: mb(peakRss - base.rss),
    anonGrowthMb: mb(peakSplit.anon - baseSplit.anon),
    fileGrowthMb: mb(peakSplit.file - baseSplit.file),
    retainedAnonMb: mb(retainedAnon),
    retainedHeapMb: mb(retainedHeap),
  };
}

/** SQLite's share of the resident set kept small (openSqliteStore's cacheMiB and mmapMiB). */
const SMALL_SQLITE = { cacheMiB: 2, mmapMiB: 0 };

const GET_RECORDS = 2000;
const GETS = 20_000;

/** Microseconds per call of `get` over the records, in turn (the median of three rounds). */
async function perGet(ids: readonly string[], get: (id: string) => Promise<unknown>): Promise<number> {
  const rounds: number[] = [];
  for (let round = 0; round < 3; round++) {
    const started = performance.now();
    for (let i = 0; i < GETS; i++) await get(ids[i % ids.length]!);
    rounds.push(((performance.now() - started) * 1000) / GETS);
  }
  return rounds.sort((a, b) => a - b)[1]!;
}

/**
 * The service's get (in-process, unsigned: what fast-get.ts runs) of a `Member` with no pass running, the store's
 * read alone, and the same get during a cast pass held before its first batch (every record read is not cast yet,
 * so each answer is cast on the way).
 */
async function getCost(dir: string): Promise<{ read: number; idle: number; during: number; after: number }> {
  const store = openSqliteStore(join(dir, 'get-cost.db'));
  const service: RecordService = await createRecordService(store);
  await service.installSchema(COLLECTION, schema('number'));
  await write(store, GET_RECORDS, (age) => age);
  const ids = Array.from({ length: GET_RECORDS }, (_, n) => member(n, String).id as string);
  const serviceGet = (id: string) => service.get(COLLECTION, id, {});
  await perGet(ids, serviceGet); // warm-up
  const read = await perGet(ids, (id) => store.getJson(COLLECTION, id));
  const idle = await perGet(ids, serviceGet);
  // The pass is held at its record count, once the new layout is stored and before any record is cast.
  const count = store.kv.count.bind(store.kv);
  let held!: () => void;
  const holding = new Promise<void>((resolve) => (held = resolve));
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  store.kv.count = async (range) => {
    held();
    await gate;
    return count(range);
  };
  const update = service.installSchema(COLLECTION, schema('string'));
  await holding;
  const sample = JSON.parse((await serviceGet(ids[1]!)).json) as JsonObject;
  if (typeof sample.age !== 'string' || typeof (await store.get(COLLECTION, ids[1]!)).record?.age !== 'number') throw new Error('the get during the pass did not cast');
  const during = await perGet(ids, serviceGet);
  release();
  await update;
  store.kv.count = count;
  const after = await perGet(ids, serviceGet);
  await store.close();
  return { read, idle, during, after };
}

export async function migrationRows(dir: string): Promise<BenchRow[]> {
  const quarter = await measure(dir, Math.floor(MIGRATION_RECORDS / 4));
  const full = await measure(dir, MIGRATION_RECORDS);
  // The same passes with SQLite's page cache at 2 MiB and no mmap: what is left of the growth is the process's own.
  const quarterSmall = await measure(dir, Math.floor(MIGRATION_RECORDS / 4), SMALL_SQLITE);
  const fullSmall = await measure(dir, MIGRATION_RECORDS, SMALL_SQLITE);
  const gets = await getCost(dir);
  const name = MIGRATION_RECORDS.toLocaleString('en-US');
  const quarterName = Math.floor(MIGRATION_RECORDS / 4).toLocaleString('en-US');
  return [
    row(SUITE, `migration: cast ${name} records to a changed schema`, {
      value: MIGRATION_RECORDS / full.migrate,
      unit: 'records/s',
      baseline: MIGRATION_RECORDS / full.fresh,
      ratio: full.migrate / full.fresh,
      goal: `<= 2x the time of writing the same records fresh (${full.migrate.toFixed(1)} s against ${full.fresh.toFixed(1)} s; the ratio is of times)`,
    }),
    row(SUITE, `migration: heap growth during the pass, ${name} records`, {
      value: full.heapGrowthMb,
      unit: 'MB',
      baseline: quarter.heapGrowthMb,
      ratio: null,
      goal: `does not grow with the collection (baseline: the same pass over ${quarterName} records)`,
    }),
    row(SUITE, `migration: RSS growth during the pass, ${name} records`, {
      value: full.rssGrowthMb,
      unit: 'MB',
      baseline: quarter.rssGrowthMb,
      ratio: null,
      goal: `does not grow with the collection (baseline: the same pass over ${quarterName} records)`,
    }),
    row(SUITE, `migration: RSS growth of anonymous memory (heap, SQLite's page cache), ${name} records`, {
      value: full.anonGrowthMb,
      unit: 'MB',
      baseline: quarter.anonGrowthMb,
      ratio: null,
      goal: `the heap does not grow with the collection; SQLite's page cache grows up to cacheMiB (64) (baseline: ${quarterName} records)`,
    }),
    row(SUITE, `migration: RSS growth of mapped file pages (the database file through mmap), ${name} records`, {
      value: full.fileGrowthMb,
      unit: 'MB',
      baseline: quarter.fileGrowthMb,
      ratio: null,
      goal: `the kernel's page cache of the file read through mmap, up to mmapMiB (1024), shared and reclaimable (baseline: ${quarterName} records)`,
    }),
    row(SUITE, `migration: RSS growth with a 2 MiB page cache and no mmap, ${name} records`, {
      value: fullSmall.rssGrowthMb,
      unit: 'MB',
      baseline: quarterSmall.rssGrowthMb,
      ratio: null,
      goal: `does not grow with the collection once SQLite's share is bounded (anonymous ${fullSmall.anonGrowthMb.toFixed(1)} MB, file ${fullSmall.fileGrowthMb.toFixed(1)} MB; baseline: ${quarterName} records; pass ${fullSmall.migrate.toFixed(1)} s against ${full.migrate.toFixed(1)} s with the defaults)`,
    }),
    row(SUITE, `migration: heap left after the pass, collected, ${name} records`, {
      value: full.retainedHeapMb,
      unit: 'MB',
      baseline: quarter.retainedHeapMb,
      ratio: null,
      goal: `nothing kept: what a leak would show in (node --expose-gc; anonymous memory left: ${full.retainedAnonMb.toFixed(1)} MB; baseline: ${quarterName} records)`,
    }),
    row(SUITE, 'migration: a get with no cast pass running', {
      value: gets.idle,
      unit: 'µs',
      baseline: gets.read,
      ratio: gets.idle / gets.read,
      goal: `the schema check costs one comparison (baseline: the store's read alone; after a pass finished: ${gets.after.toFixed(2)} µs)`,
    }),
    row(SUITE, 'migration: a get of a record not yet cast, during a cast pass', {
      value: gets.during,
      unit: 'µs',
      baseline: gets.idle,
      ratio: gets.during / gets.idle,
      goal: 'answers in the new form, for the cost of one cast (baseline: the get with no pass running)',
    }),
  ];
}
