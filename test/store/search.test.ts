// Full-text search in the store, on both backends: the tokeniser's rules, the same result sets as a brute-force
// search over the same records (random records and queries), paging both ways with cursors, equality filters and
// read filters, the index kept by commits and built or dropped by a schema change, and every refusal.

import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkSchema } from '../../src/lang/index.ts';
import { layoutOf, openPostgres, openSqlite, RecordStore, StoreError, type JsonObject, type KvStore, type Layout, type PostgresKv } from '../../src/store/index.ts';
import { matchesTerms, MAX_TOKEN_CHARS, recordSearchTokens, searchTerms, searchTokens } from '../../src/store/search-tokens.ts';
import { startTestPostgres, uniqueTableName, type TestPostgres } from '../support/postgres.ts';

function layout(schema: string): Layout {
  const { program, diagnostics } = checkSchema(schema);
  if (!program) throw new Error(JSON.stringify(diagnostics));
  return layoutOf(program.collections[0]!);
}

const POST = (search: string) => `
collection Post {
  id: string; title: string; body?: string; owner: string;
  ${search}
  constructor (id: string, title: string, owner: string) { this.id = id; this.title = title; this.owner = owner; }
}`;
const SEARCHED = layout(POST('@search(title, body);'));
const PLAIN = layout(POST(''));

describe('the search tokeniser', () => {
  it('folds case, accents and compatibility forms, and splits at non-letters', () => {
    expect(searchTokens('Crème BRÛLÉE, s’il-vous-plaît!')).toEqual(['creme', 'brulee', 's', 'il', 'vous', 'plait']);
    expect(searchTokens('ﬁne Ǆemal ①x ＡＢＣ İstanbul ΣΊΣΥΦΟΣ')).toEqual(['fine', 'dzemal', '1x', 'abc', 'istanbul', 'σισυφοσ']);
    expect(searchTokens('東京タワー 2026年')).toEqual(['東京タワー', '2026年']);
    expect(searchTokens('  --  ')).toEqual([]);
    expect(searchTokens('a'.repeat(100))).toEqual(['a'.repeat(MAX_TOKEN_CHARS)]);
    expect(searchTokens('𝔸'.repeat(70))).toEqual(['a'.repeat(MAX_TOKEN_CHARS)]);
  });

  it('is idempotent: tokens joined by spaces tokenise to themselves', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 80 }), fc.string({ unit: 'binary', maxLength: 40 }), (a, b) => {
        const tokens = searchTokens(a + b);
        expect(searchTokens(tokens.join(' '))).toEqual(tokens);
        for (const token of tokens) expect(token).toMatch(/^[\p{L}\p{N}]+$/u);
      }),
      { numRuns: 500 },
    );
  });

  it('parses queries: the last word is a prefix; empty, long and wordy queries are refused', () => {
    expect(searchTerms('Crème bru')).toEqual({ whole: ['creme'], prefix: 'bru' });
    expect(searchTerms(' ,. ')).toMatch(/no words/);
    expect(searchTerms('x'.repeat(257))).toMatch(/at most 256/);
    expect(searchTerms('a '.repeat(17))).toMatch(/17 words; at most 16/);
  });
});

interface Backend {
  readonly name: string;
  open(): Promise<KvStore>;
}

let server: TestPostgres | undefined;
const opened: KvStore[] = [];
beforeAll(async () => {
  server = await startTestPostgres();
}, 120_000);
afterAll(async () => {
  for (const kv of opened) if (kv.backend === 'postgres') await (kv as PostgresKv).drop().catch(() => {});
  await server?.stop();
});

const backends: Backend[] = [
  { name: 'sqlite', open: async () => openSqlite(':memory:') },
  { name: 'postgres', open: async () => openPostgres({ connectionString: server!.url, table: uniqueTableName('vs'), pool: { max: 4 } }) },
];

/** The brute-force answer: every record holding the terms, fewest tokens first, then id in UTF-8 byte order. */
function bruteForce(records: readonly JsonObject[], query: string, keep: (record: JsonObject) => boolean = () => true): string[] {
  const terms = searchTerms(query);
  if (typeof terms === 'string') throw new Error(terms);
  return records
    .map((record) => ({ record, tokens: recordSearchTokens(record, ['title', 'body']) }))
    .filter(({ record, tokens }) => keep(record) && matchesTerms(tokens, terms))
    .sort((a, b) => a.tokens.length - b.tokens.length || Buffer.compare(Buffer.from(String(a.record.id)), Buffer.from(String(b.record.id))))
    .map(({ record }) => String(record.id));
}

async function putAll(store: RecordStore, records: readonly JsonObject[]): Promise<void> {
  for (let i = 0; i < records.length; i += 50) {
    await store.commit({ writes: records.slice(i, i + 50).map((record) => ({ kind: 'put' as const, collectionId: 'ns/Post', record })) });
  }
}

/** Every page of a search, forwards with `after`, and backwards with `before` from the last record (which `before` leaves out). */
async function pages(store: RecordStore, query: { search: string; where?: unknown }, limit: number, readFilter?: (record: JsonObject) => boolean): Promise<{ forward: string[]; backward: string[] }> {
  const forward: string[] = [];
  let after: string | null | undefined;
  let last: string | null = null;
  for (let guard = 0; guard < 200; guard++) {
    const page = await store.list('ns/Post', { ...query, limit, ...(after ? { after } : {}) }, readFilter);
    forward.push(...page.records.map((r) => String(r.id)));
    if (page.records.length === 0) break;
    last = page.cursor.after;
    after = page.cursor.after;
  }
  const backward: string[] = [];
  let before = last;
  for (let guard = 0; before && guard < 200; guard++) {
    const page = await store.list('ns/Post', { ...query, limit, before }, readFilter);
    if (page.records.length === 0) break;
    backward.unshift(...page.records.map((r) => String(r.id)));
    before = page.cursor.before;
  }
  return { forward, backward };
}

const WORDS = ['Crème', 'creme', 'CRÈMES', 'brûlée', 'brule', 'café', 'Cafeteria', 'naïve', 'NAIVE', '東京', '東京タワー', 'ﬁne', 'fine', 'x1', 'x10', 'Ǆemal', 'straße', 'STRASSE'];
const wordsArb = fc.array(fc.constantFrom(...WORDS), { minLength: 0, maxLength: 6 }).map((words) => words.join(fc.sample(fc.constantFrom(' ', ', ', '-', '  '), 1)[0]));
const recordArb = fc.record({
  title: wordsArb,
  body: fc.option(wordsArb, { nil: undefined }),
  owner: fc.constantFrom('ann', 'bob'),
});
const queryArb = fc
  .array(fc.constantFrom(...WORDS, 'cr', 'CRE', 'bru', 'caf', 'x', 'x1', '東', 'str', 'fi'), { minLength: 1, maxLength: 3 })
  .map((words) => words.join(' '));

for (const backend of backends) {
  describe(`search on ${backend.name}`, () => {
    async function store(): Promise<RecordStore> {
      const kv = await backend.open();
      opened.push(kv);
      const store = new RecordStore(kv);
      await store.defineCollection('ns/Post', SEARCHED);
      return store;
    }

    it('gives the brute-force result set, in relevance then id order, paging both ways, with filters', async () => {
      const s = await store();
      const records = fc.sample(recordArb, { numRuns: 120, seed: backend.name.length }).map((r, i) => ({ id: `p${(i * 7919) % 1000}é${i}`, ...r }) as JsonObject);
      await putAll(s, records);
      const queries = fc.sample(queryArb, { numRuns: 25, seed: 42 });
      for (const query of queries) {
        const expected = bruteForce(records, query);
        const { forward, backward } = await pages(s, { search: query }, 7);
        expect(forward, query).toEqual(expected);
        expect(backward, query).toEqual(expected.slice(0, -1));
        // An equality filter and a read filter: the same as filtering the brute-force answer.
        const annOnly = await pages(s, { search: query, where: { owner: 'ann' } }, 5);
        expect(annOnly.forward, query).toEqual(bruteForce(records, query, (r) => r.owner === 'ann'));
        const readable = (r: JsonObject) => String(r.id).charCodeAt(1) % 2 === 0;
        const filtered = await pages(s, { search: query }, 4, readable);
        expect(filtered.forward, query).toEqual(bruteForce(records, query, readable));
        expect(filtered.backward, query).toEqual(bruteForce(records, query, readable).slice(0, -1));
      }
      await s.close();
    }, 120_000);

    it('keeps the index with every write, builds it for stored records and drops it with the @search', async () => {
      const kv = await backend.open();
      opened.push(kv);
      const s = new RecordStore(kv);
      await s.defineCollection('ns/Post', PLAIN);
      await putAll(s, [
        { id: 'a', title: 'Crème brûlée', owner: 'ann' },
        { id: 'b', title: 'Creme', body: 'and more words here', owner: 'bob' },
        { id: 'c', title: 'Nothing', owner: 'bob' },
      ]);
      await expect(s.list('ns/Post', { search: 'creme' })).rejects.toMatchObject({ reason: 'indexer/no-search-index', message: expect.stringMatching(/declares no @search/) });
      const defined = await s.defineCollection('ns/Post', SEARCHED, { batchSize: 2 });
      expect(defined.added).toContain(SEARCHED.search!.id);
      expect(defined.rebuilt).toBe(3);
      const ids = async (search: string) => (await s.list('ns/Post', { search })).records.map((r) => r.id);
      expect(await ids('CREME')).toEqual(['a', 'b']);
      expect(await ids('brul')).toEqual(['a']);
      // An update changes its tokens, a delete removes it, a record created later is found.
      await s.commit({ writes: [{ kind: 'put', collectionId: 'ns/Post', record: { id: 'a', title: 'Tarte', owner: 'ann' } }] });
      await s.commit({ writes: [{ kind: 'delete', collectionId: 'ns/Post', id: 'b' }, { kind: 'put', collectionId: 'ns/Post', record: { id: 'd', title: 'crèmerie', owner: 'ann' } }] });
      expect(await ids('creme')).toEqual(['d']);
      expect(await ids('tarte')).toEqual(['a']);
      // Defining the same layout again changes nothing; removing @search drops the index.
      expect((await s.defineCollection('ns/Post', SEARCHED)).added).toEqual([]);
      const dropped = await s.defineCollection('ns/Post', PLAIN);
      expect(dropped.removed).toContain(SEARCHED.search!.id);
      await expect(s.list('ns/Post', { search: 'tarte' })).rejects.toMatchObject({ reason: 'indexer/no-search-index' });
      // Added again: built anew, from the records as they are now; deleting the collection drops it.
      await s.defineCollection('ns/Post', SEARCHED);
      expect(await ids('cr')).toEqual(['d']);
      await s.deleteCollection('ns/Post');
      await s.defineCollection('ns/Post', SEARCHED);
      expect(await ids('cr')).toEqual([]);
      await s.close();
    }, 60_000);

    it('refuses bad searches with clear errors and reads nothing', async () => {
      const s = await store();
      const refuse = (query: object, reason: string, message: RegExp) => expect(s.list('ns/Post', query)).rejects.toSatisfy((e: unknown) => e instanceof StoreError && e.reason === reason && message.test(e.message) && e.code === 'invalid-argument');
      await refuse({ search: '' }, 'indexer/invalid-search', /no words/);
      await refuse({ search: '!!' }, 'indexer/invalid-search', /no words/);
      await refuse({ search: 'a'.repeat(300) }, 'indexer/invalid-search', /at most 256/);
      await refuse({ search: 3 }, 'indexer/invalid-search', /must be a string/);
      await refuse({ search: 'x', sort: [['title', 'asc']] }, 'indexer/invalid-search', /takes no sort/);
      await refuse({ search: 'x', where: { title: { $gt: 'a' } } }, 'indexer/invalid-search', /"\$gt" on "title"/);
      await refuse({ search: 'x', where: { $or: [] } }, 'indexer/invalid-search', /"\$or"/);
      await refuse({ search: 'x', after: 'bm90LWEtY3Vyc29y' }, 'indexer/invalid-cursor', /not a cursor/);
      const page = await s.list('ns/Post', { search: 'x' });
      expect(page.records).toEqual([]);
      await s.close();
    });
  });
}
