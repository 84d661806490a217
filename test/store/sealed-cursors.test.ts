// Sealed cursors (src/store/cursor.ts): a list that runs with a read filter hands out cursors that show nothing
// of the index entries they point at, still pages past runs of unreadable entries, refuses a tampered or foreign
// sealed cursor, and is opened alike by every store sharing the database. Lists without a read filter keep plain
// cursors. On SQLite (two connections to one file) and on PostgreSQL (two stores on one table).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { layoutOf, openPostgresStore, openSqliteStore, RecordStore, StoreError, type JsonObject, type ListQuery, type ReadFilter } from '../../src/store/index.ts';
import { isSealedCursor } from '../../src/store/cursor.ts';
import { cursorKeyKey } from '../../src/store/keys.ts';
import { dropTablesAndStop, startTestPostgres, uniqueTableName, type TestPostgres } from '../support/postgres.ts';
import { collection, itemLayout } from './schemas.ts';

const ITEMS = 'ns/Item';
const WIDE = 'ns/Wide';
const wideLayout = layoutOf(collection('Wide', { id: 'string', a: 'string', b: 'string', c: 'string' }, [['a', 'b', 'c']]));

interface Backend {
  readonly name: string;
  /** A new, empty database, and a way to open another store on it (as another server would). */
  fresh(): Promise<() => Promise<RecordStore>>;
}

function sealedCursorSuite(backend: Backend): void {
  describe(`sealed cursors on ${backend.name}`, () => {
    const open: RecordStore[] = [];
    afterEach(async () => {
      await Promise.all(open.splice(0).map((s) => s.close()));
    });
    async function database(): Promise<() => Promise<RecordStore>> {
      const opener = await backend.fresh();
      return async () => {
        const store = await opener();
        open.push(store);
        return store;
      };
    }

    /** Items i00..i(n-1), each with a secret-looking group, the score its number. */
    const items = (n: number): JsonObject[] =>
      Array.from({ length: n }, (_, i) => ({ id: `i${String(i).padStart(2, '0')}`, group: 'secret', score: i }));
    async function storeWith(n: number): Promise<RecordStore> {
      const store = await (await database())();
      await store.defineCollection(ITEMS, itemLayout);
      await store.commit({ writes: items(n).map((record) => ({ kind: 'put' as const, collectionId: ITEMS, record })) });
      return store;
    }
    const ids = (records: readonly JsonObject[]) => records.map((r) => r.id as string);
    const latin1 = (cursor: string | null) => Buffer.from(cursor ?? '', 'base64url').toString('latin1');
    const invalidCursor = async (attempt: Promise<unknown>) => {
      const error = await attempt.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(StoreError);
      expect((error as StoreError).code).toBe('invalid-argument');
      expect((error as StoreError).reason).toBe('indexer/invalid-cursor');
    };
    const nobody: ReadFilter = () => false;
    const everyone: ReadFilter = () => true;

    it('seals both cursors of a list with a read filter, and shows nothing of the entries read', async () => {
      const store = await storeWith(5);
      const page = await store.list(ITEMS, { where: { group: 'secret' }, sort: [['score', 'asc']], limit: 2 }, everyone);
      expect(isSealedCursor(page.cursor.before) && isSealedCursor(page.cursor.after)).toBe(true);
      expect(page.cursor.before).toMatch(/^[A-Za-z0-9_-]+$/); // base64url: never a dot, which the service appends
      // No key material: the group value, or an id as a key holds it (tag, text, terminator). Two bytes like `i0`
      // alone turn up by chance in random ciphertext: 42 of 20,000 lists matched /secret|i0/, and this test failed CI.
      expect(latin1(page.cursor.before) + latin1(page.cursor.after)).not.toMatch(/secret|\x04i0\d\x00\x01/);
      // A caller who may read none of them gets what an empty collection answers: no records, no cursors (this
      // test once expected sealed cursors here, at the unreadable entries read: their presence was the leak).
      const unreadable = await store.list(ITEMS, { where: { group: 'secret' }, sort: [['score', 'asc']], limit: 2 }, nobody);
      expect(unreadable).toEqual({ records: [], cursor: { before: null, after: null }, timestamp: unreadable.timestamp });
      // The same list without a read filter: plain cursors (version byte 1, the index id, the entry's key).
      const plain = await store.list(ITEMS, { where: { group: 'secret' }, sort: [['score', 'asc']], limit: 2 });
      expect(isSealedCursor(plain.cursor.before) || isSealedCursor(plain.cursor.after)).toBe(false);
      expect(Buffer.from(plain.cursor.after!, 'base64url')[0]).toBe(1);
      expect(latin1(plain.cursor.after)).toContain('i01');
      expect(latin1(plain.cursor.after)).toMatch(/\x04i0\d\x00\x01/); // what the sealed ones must not show
      // Two sealed cursors of one position differ (a fresh IV each), so they cannot be compared either.
      const again = await store.list(ITEMS, { where: { group: 'secret' }, sort: [['score', 'asc']], limit: 2 }, everyone);
      const once = await store.list(ITEMS, { where: { group: 'secret' }, sort: [['score', 'asc']], limit: 2 }, everyone);
      expect(again.cursor.after).not.toBe(once.cursor.after);
      // Keys of different lengths (i00 and a 40-character id) seal to cursors of the same length: padded.
      await store.commit({ writes: [{ kind: 'put', collectionId: ITEMS, record: { id: 'x'.repeat(40), group: 'secret', score: 100 } }] });
      const all = await store.list(ITEMS, { limit: 1000 }, everyone);
      expect(ids(all.records).at(-1)).toBe('x'.repeat(40));
      expect(all.cursor.after!.length).toBe(all.cursor.before!.length);
    });

    it('pages forward and backward through every readable record once, in order, across runs of unreadable entries longer than the scan bound', async () => {
      const store = await storeWith(100);
      // Every 7th record is readable (i03, i10, … i94): runs of 6 unreadable entries, against a scan bound of 3
      // entries a request. The first and last entries (i00, i99) are unreadable in either order.
      const readFilter: ReadFilter = (record) => (record.score as number) % 7 === 3;
      const options = { scanLimit: 3 };
      const queries: [ListQuery, number[]][] = [
        [{}, items(100).map((r) => r.score as number)],
        [{ where: { group: 'secret' }, sort: [['score', 'desc']] }, items(100).map((r) => r.score as number).reverse()],
      ];
      for (const [query, order] of queries) {
        const readable = order.filter((score) => score % 7 === 3).map((score) => `i${String(score).padStart(2, '0')}`);
        const forward: string[] = [];
        let after: string | null = null;
        let emptyPages = 0;
        for (let guard = 0; guard < 500; guard++) {
          const page = await store.list(ITEMS, { ...query, limit: 2, ...(after ? { after } : {}) }, readFilter, options);
          forward.push(...ids(page.records));
          if (page.cursor.after === after) break; // nothing read: the request's cursor comes back
          expect(isSealedCursor(page.cursor.after)).toBe(true);
          if (page.records.length === 0) emptyPages++;
          after = page.cursor.after;
        }
        expect(forward).toEqual(readable);
        expect(emptyPages).toBeGreaterThan(0);

        // Back from the end (the last cursor, at the last entry).
        const backward: string[] = [];
        let before = after!;
        for (let guard = 0; guard < 500; guard++) {
          const page = await store.list(ITEMS, { ...query, limit: 2, before }, readFilter, options);
          backward.unshift(...ids(page.records));
          if (page.cursor.before === before) break;
          expect(isSealedCursor(page.cursor.before)).toBe(true);
          before = page.cursor.before!;
        }
        expect(backward).toEqual(readable);
      }
    });

    it('cuts a page short at the scan bound with a cursor of one length, whatever the entries it stopped among', async () => {
      const store = await (await database())();
      // Keys of an index of three strings and the id: up to about 3 × 258 bytes of values, and ids up to 512.
      await store.defineCollection(WIDE, wideLayout);
      const put = (records: JsonObject[]) => store.commit({ writes: records.map((record) => ({ kind: 'put' as const, collectionId: WIDE, record })) });
      /** Entry i sorts i-th; its values are `size` bytes each and its id has `idSize` more. */
      const entry = (i: number, size: number, idSize: number): JsonObject => {
        const text = `${i}${'x'.repeat(size)}`;
        return { id: `i${i}${'z'.repeat(idSize)}`, a: text, b: text, c: text };
      };
      const query = { sort: [['a', 'asc'], ['b', 'asc'], ['c', 'asc']], limit: 1 };
      const isFourth = (record: JsonObject) => (record.id as string).startsWith('i3');
      const lengths: number[] = [];
      // The third entry (where the scan stops) short; of 700 bytes; over the small size, so the cursor steps back
      // to the second; then all three over it (the large size), for two different lengths.
      const cases = [
        [[1, 1], [1, 1], [1, 1]],
        [[1, 1], [1, 1], [230, 1]],
        [[1, 1], [1, 1], [250, 400]],
        [[250, 300], [250, 400], [250, 500]],
        [[240, 280], [250, 300], [220, 350]],
      ];
      for (const sizes of cases) {
        const records = [...sizes, [1, 1]].map(([size, idSize], i) => entry(i, size!, idSize!));
        await put(records);
        const page = await store.list(WIDE, query, nobody, { scanLimit: 3 });
        expect(page.records).toEqual([]);
        expect(page.cursor.before).toBeNull(); // nothing returned: the request's (absent) cursor
        expect(isSealedCursor(page.cursor.after)).toBe(true);
        lengths.push(page.cursor.after!.length);
        // Going on from there reaches the end of the range; nothing is left, and the cursor comes back.
        const rest = await store.list(WIDE, { ...query, after: page.cursor.after }, nobody, { scanLimit: 3 });
        expect(rest.records).toEqual([]);
        expect(rest.cursor).toEqual({ before: page.cursor.after, after: page.cursor.after });
        // A readable fourth entry is the next page, whichever entry the cursor stepped back to.
        const next = await store.list(WIDE, { ...query, after: page.cursor.after }, isFourth, { scanLimit: 3 });
        expect(next.records.map((r) => (r.id as string).slice(0, 2))).toEqual(['i3']);
        await store.commit({ writes: records.map((r) => ({ kind: 'delete' as const, collectionId: WIDE, id: r.id as string })) });
      }
      expect(new Set(lengths.slice(0, 3)).size).toBe(1);
      expect(new Set(lengths.slice(3)).size).toBe(1);
      expect(lengths[3]).toBeGreaterThan(lengths[0]!);

      // Paging back, the `before` cursor is the one cut short, of the same length (a fifth entry is left before it:
      // a read that ends its range with the bound is not cut short).
      await put([0, 1, 2, 3, 4].map((i) => entry(i, 1, 1)));
      const end = (await store.list(WIDE, { ...query, limit: 10 }, everyone)).cursor.after!;
      const back = await store.list(WIDE, { ...query, before: end }, nobody, { scanLimit: 3 });
      expect(back.records).toEqual([]);
      expect(back.cursor.after).toBe(end);
      expect(back.cursor.before!.length).toBe(lengths[0]);

      // A page that returned a record before it was cut: the cursor never steps back to before that record (here
      // the entry before it fits the small size, and the record and the entry after it do not).
      await store.commit({ writes: [0, 1, 2, 3, 4].map((i) => ({ kind: 'delete' as const, collectionId: WIDE, id: entry(i, 1, 1).id as string })) });
      const mixed = [entry(0, 1, 1), entry(1, 250, 400), entry(2, 250, 400), entry(3, 1, 1)];
      await put(mixed);
      const readable = new Set([mixed[1]!.id, mixed[3]!.id]);
      const seen: string[] = [];
      let after: string | undefined;
      for (let guard = 0; guard < 10; guard++) {
        const page = await store.list(WIDE, { ...query, limit: 2, ...(after ? { after } : {}) }, (r) => readable.has(r.id as string), { scanLimit: 3 });
        seen.push(...page.records.map((r) => (r.id as string).slice(0, 2)));
        if (page.cursor.after === null || page.cursor.after === after) break;
        after = page.cursor.after;
      }
      expect(seen).toEqual(['i1', 'i3']);
    });

    it('steps a scan cursor back at most 64 entries, so the next request goes on instead of reading the page again', async () => {
      const store = await (await database())();
      await store.defineCollection(WIDE, wideLayout);
      // Entry 0's position fits the small fixed size; every later one is too long for it.
      const records = Array.from({ length: 200 }, (_, i): JsonObject => {
        const text = `${String(i).padStart(3, '0')}${'x'.repeat(i === 0 ? 1 : 250)}`;
        return { id: `i${String(i).padStart(3, '0')}${'z'.repeat(i === 0 ? 1 : 400)}`, a: text, b: text, c: text };
      });
      await store.commit({ writes: records.map((record) => ({ kind: 'put' as const, collectionId: WIDE, record })) });
      const query = { sort: [['a', 'asc'], ['b', 'asc'], ['c', 'asc']], limit: 150 } as ListQuery;
      /** The ids each request's read filter was asked about (it reads none of them). */
      const asked = (seen: string[]): ReadFilter => (record) => {
        seen.push(record.id as string);
        return false;
      };
      const firstSeen: string[] = [];
      const first = await store.list(WIDE, query, asked(firstSeen), { scanLimit: 150 });
      expect(first.records).toEqual([]);
      expect(firstSeen).toHaveLength(150);
      const nextSeen: string[] = [];
      await store.list(WIDE, { ...query, after: first.cursor.after }, asked(nextSeen), { scanLimit: 150 });
      // Before, the cursor stepped back to entry 0 (the one that fit) and the next request read entries 1-149 again.
      const again = nextSeen.filter((id) => firstSeen.includes(id));
      expect(again.length).toBeLessThanOrEqual(64);
      expect(nextSeen).toContain(records[199]!.id);
    });

    it('accepts a sealed cursor without a read filter, and a plain one with a filter (permissions may change between pages)', async () => {
      const store = await storeWith(6);
      const sealed = await store.list(ITEMS, { limit: 2 }, everyone);
      expect(ids((await store.list(ITEMS, { limit: 2, after: sealed.cursor.after })).records)).toEqual(['i02', 'i03']);
      const plain = await store.list(ITEMS, { limit: 2 });
      const next = await store.list(ITEMS, { limit: 2, after: plain.cursor.after }, everyone);
      expect(ids(next.records)).toEqual(['i02', 'i03']);
      expect(isSealedCursor(next.cursor.after)).toBe(true);
      // A sealed cursor of another query's index is refused as a plain one is.
      await invalidCursor(store.list(ITEMS, { where: { group: 'secret' }, after: sealed.cursor.after }, everyone));
    });

    it('refuses a tampered sealed cursor (a flipped byte, cut short, extended) and one sealed by another database', async () => {
      const store = await storeWith(6);
      const cursor = (await store.list(ITEMS, { limit: 2 }, everyone)).cursor.after!;
      const bytes = Buffer.from(cursor, 'base64url');
      const mangled: string[] = [];
      for (let i = 0; i < bytes.length; i++) {
        const flipped = Buffer.from(bytes);
        flipped[i]! ^= 0x01;
        mangled.push(flipped.toString('base64url'));
      }
      mangled.push(bytes.subarray(0, bytes.length - 1).toString('base64url'), bytes.subarray(0, 20).toString('base64url'), cursor.slice(0, -1));
      mangled.push(Buffer.concat([bytes, Buffer.of(0)]).toString('base64url'), `${cursor}AA`);
      for (const bad of mangled) {
        await invalidCursor(store.list(ITEMS, { limit: 2, after: bad }, everyone));
        await invalidCursor(store.list(ITEMS, { limit: 2, before: bad }));
      }
      // The cursor still works: nothing above was a lucky one.
      expect(ids((await store.list(ITEMS, { limit: 2, after: cursor }, everyone)).records)).toEqual(['i02', 'i03']);

      const other = await storeWith(6);
      const foreign = (await other.list(ITEMS, { limit: 2 }, everyone)).cursor.after!;
      await invalidCursor(store.list(ITEMS, { limit: 2, after: foreign }, everyone));
      await invalidCursor(other.list(ITEMS, { limit: 2, after: cursor }));
    });

    it('gives every store of one database the same key, even when they make it at the same time', async () => {
      const opener = await database();
      const a = await opener();
      await a.defineCollection(ITEMS, itemLayout);
      await a.commit({ writes: items(6).map((record) => ({ kind: 'put' as const, collectionId: ITEMS, record })) });
      const b = await opener();
      expect(await a.kv.get(cursorKeyKey)).toBeUndefined();
      // Each store's read of the key is held until both have read it: both find none, and both try to make one.
      let arrived = 0;
      let release = () => {};
      const together = new Promise<void>((resolve) => (release = resolve));
      const reads = [a, b].map((store) => {
        const get = store.kv.get.bind(store.kv);
        return vi.spyOn(store.kv, 'get').mockImplementation(async (key) => {
          const value = await get(key);
          if (key.equals(cursorKeyKey) && ++arrived === 2) release();
          await together;
          return value;
        });
      });
      const attempts = [vi.spyOn(a.kv, 'transact'), vi.spyOn(b.kv, 'transact')];
      const [fromA, fromB] = await Promise.all([a.list(ITEMS, { limit: 2 }, everyone), b.list(ITEMS, { limit: 2 }, everyone)]);
      expect(attempts.map((spy) => spy.mock.calls.length)).toEqual([1, 1]);
      for (const spy of [...reads, ...attempts]) spy.mockRestore();
      expect((await a.kv.get(cursorKeyKey))?.length).toBe(32);
      expect(ids((await b.list(ITEMS, { limit: 2, after: fromA.cursor.after }, everyone)).records)).toEqual(['i02', 'i03']);
      expect(ids((await a.list(ITEMS, { limit: 2, after: fromB.cursor.after }, everyone)).records)).toEqual(['i02', 'i03']);
      expect(ids((await a.list(ITEMS, { limit: 2, before: fromB.cursor.after }, everyone)).records)).toEqual(['i00']);
      // A third store, opened later, reads the same key.
      const c = await opener();
      expect(ids((await c.list(ITEMS, { limit: 2, after: fromB.cursor.after })).records)).toEqual(['i02', 'i03']);
    });
  });
}

const dir = mkdtempSync(join(tmpdir(), 'vellum-sealed-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
sealedCursorSuite({
  name: 'sqlite',
  fresh: async () => {
    const path = join(dir, `store${files++}.db`);
    return async () => openSqliteStore(path);
  },
});

describe('on PostgreSQL', () => {
  let server: TestPostgres;
  const tables: string[] = [];
  beforeAll(async () => {
    server = await startTestPostgres();
  });
  afterAll(() => dropTablesAndStop(server, tables));
  sealedCursorSuite({
    name: 'postgres',
    fresh: async () => {
      const table = uniqueTableName();
      tables.push(table);
      return () => openPostgresStore({ connectionString: server.url, table, pool: { max: 4 } });
    },
  });
});
