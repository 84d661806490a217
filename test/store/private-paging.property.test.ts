// A caller's list answers depend only on the records it may read (issue 13): for random private records,
// owners, readers, range queries, sorts and limits, every page a caller gets from a store, following its cursors
// forward and then back, equals the page it gets from a second store holding only the records it may read. The
// records and the presence of each cursor are identical, and so is each cursor's length; only a sealed cursor's
// bytes differ (a random IV, and each store's own key). The record counts stay below the scan bound, whose one
// exception is tested in sealed-cursors.test.ts. The queries include the extended where ($ne, $in, $nin, $or),
// whose pages are merged from several index ranges. On SQLite and PostgreSQL. This is the store's filtered path,
// which the service takes for every query under `privateLists: 'filtered'`; under the default it serves only
// queries confined to the caller's records (test/service/private-lists.property.test.ts).

import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { layoutOf, openPostgresStore, openSqliteStore, type JsonObject, type ListQuery, type ListResult, type ReadFilter, type RecordStore } from '../../src/store/index.ts';
import { dropTablesAndStop, startTestPostgres, uniqueTableName, type TestPostgres } from '../support/postgres.ts';
import { collection } from './schemas.ts';

const layout = layoutOf(collection('Note', { id: 'string', owner: 'string', secret: 'string', 'rank?': 'number' }));
const OWNERS = ['ann', 'ben', 'cy'] as const;

const secretArb = fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'Q', 'Z'), maxLength: 4 });
const recordsArb = fc.uniqueArray(
  fc.record({
    id: fc.string({ unit: fc.constantFrom('x', 'y', 'z', '1'), minLength: 1, maxLength: 3 }),
    owner: fc.constantFrom(...OWNERS),
    secret: secretArb,
    rank: fc.option(fc.integer({ min: -3, max: 3 }), { nil: undefined }),
  }),
  { selector: (r) => r.id, maxLength: 24 },
);

/** A where on one field (a range, or an equality) with a sort on that field or none; or a sort alone. */
const simpleQueryArb: fc.Arbitrary<ListQuery> = fc
  .record({
    field: fc.constantFrom('secret', 'rank', 'id'),
    lower: fc.option(fc.record({ op: fc.constantFrom('$gt', '$gte'), value: secretArb }), { nil: undefined }),
    upper: fc.option(fc.record({ op: fc.constantFrom('$lt', '$lte'), value: secretArb }), { nil: undefined }),
    equal: fc.boolean(),
    sort: fc.constantFrom(undefined, 'asc', 'desc'),
    limit: fc.integer({ min: 1, max: 4 }),
  })
  .map(({ field, lower, upper, equal, sort, limit }) => {
    const value = (text: string) => (field === 'rank' ? text.length - 2 : text);
    let where: Record<string, unknown> | undefined;
    if (equal && lower) where = { [field]: value(lower.value) };
    else if (lower || upper) {
      where = { [field]: { ...(lower ? { [lower.op]: value(lower.value) } : {}), ...(upper ? { [upper.op]: value(upper.value) } : {}) } };
    }
    return { ...(where ? { where } : {}), ...(sort ? { sort: [[field, sort]] } : {}), limit };
  });

/** The extended where (merged index ranges): $ne, $in or $nin on one field, or an $or of two fields' equalities. */
const extendedQueryArb: fc.Arbitrary<ListQuery> = fc
  .record({
    field: fc.constantFrom('secret', 'rank'),
    op: fc.constantFrom('$ne', '$in', '$nin', '$or'),
    values: fc.uniqueArray(secretArb, { minLength: 1, maxLength: 3 }),
    sort: fc.constantFrom(undefined, 'asc', 'desc'),
    limit: fc.integer({ min: 1, max: 4 }),
  })
  .map(({ field, op, values, sort, limit }) => {
    const value = (text: string) => (field === 'rank' ? text.length - 2 : text);
    const typed = [...new Set(values.map(value))];
    const where =
      op === '$or'
        ? { $or: [{ secret: values[0] }, { rank: values[0]!.length - 2 }] }
        : { [field]: op === '$ne' ? { $ne: typed[0] } : { [op]: typed } };
    return { where, ...(sort && op !== '$or' ? { sort: [[field, sort]] } : {}), limit };
  });

const queryArb: fc.Arbitrary<ListQuery> = fc.oneof(simpleQueryArb, extendedQueryArb);

interface Walk {
  readonly pages: { readonly ids: string[]; readonly before: CursorShape; readonly after: CursorShape }[];
}
/** What may be compared of a cursor across stores: null, the request's own cursor repeated, or a new one of a length. */
type CursorShape = null | 'repeated' | number;

function shape(cursor: string | null, request: string | undefined): CursorShape {
  if (cursor === null) return null;
  if (cursor === request) return 'repeated';
  return cursor.length;
}

/** Pages forward from the start until the range ends, then back from the last cursor until it ends again. */
async function walk(store: RecordStore, collectionId: string, query: ListQuery, readFilter: ReadFilter, maxPages: number): Promise<Walk> {
  const pages: Walk['pages'][number][] = [];
  const record = (page: ListResult, request: string | undefined) => {
    pages.push({
      ids: page.records.map((r) => r.id as string),
      before: shape(page.cursor.before, request),
      after: shape(page.cursor.after, request),
    });
  };
  let after: string | undefined;
  let lastAfter: string | undefined;
  for (let i = 0; i < maxPages; i++) {
    const page = await store.list(collectionId, { ...query, ...(after ? { after } : {}) }, readFilter);
    record(page, after);
    if (page.cursor.after === null || page.cursor.after === after) break;
    after = lastAfter = page.cursor.after;
  }
  let before = lastAfter;
  for (let i = 0; before !== undefined && i < maxPages; i++) {
    const page = await store.list(collectionId, { ...query, before }, readFilter);
    record(page, before);
    if (page.cursor.before === null || page.cursor.before === before) break;
    before = page.cursor.before;
  }
  return { pages };
}

function propertySuite(name: string, open: () => Promise<[RecordStore, RecordStore]>, numRuns: number): void {
  describe(`on ${name}`, () => {
    let full: RecordStore;
    let readable: RecordStore;
    beforeAll(async () => {
      [full, readable] = await open();
    });
    afterAll(async () => {
      await full?.close();
      await readable?.close();
    });

    it("a caller's pages equal those of a store holding only the records it may read", async () => {
      let run = 0;
      await fc.assert(
        fc.asyncProperty(recordsArb, fc.constantFrom(...OWNERS), queryArb, async (records, caller, query) => {
          const collectionId = `prop/Note${run++}`;
          const mayRead: ReadFilter = (record: JsonObject) => record.owner === caller;
          const put = (rs: readonly JsonObject[]) => rs.map((record) => ({ kind: 'put' as const, collectionId, record: JSON.parse(JSON.stringify(record)) as JsonObject }));
          await full.defineCollection(collectionId, layout);
          await readable.defineCollection(collectionId, layout);
          try {
            if (records.length > 0) await full.commit({ writes: put(records) });
            const own = records.filter((r) => r.owner === caller);
            if (own.length > 0) await readable.commit({ writes: put(own) });
            const maxPages = records.length + 3;
            const expected = await walk(readable, collectionId, query, mayRead, maxPages);
            const actual = await walk(full, collectionId, query, mayRead, maxPages);
            expect(actual).toEqual(expected);
          } finally {
            await full.deleteCollection(collectionId);
            await readable.deleteCollection(collectionId);
          }
        }),
        { numRuns },
      );
    });
  });
}

propertySuite('sqlite', async () => [openSqliteStore(), openSqliteStore()], 150);

describe('PostgreSQL', () => {
  let server: TestPostgres;
  const tables = [uniqueTableName(), uniqueTableName()];
  beforeAll(async () => {
    server = await startTestPostgres();
  });
  afterAll(() => dropTablesAndStop(server, tables));
  propertySuite('postgres', async () => Promise.all(tables.map((table) => openPostgresStore({ connectionString: server.url, table, pool: { max: 2 } }))) as Promise<[RecordStore, RecordStore]>, 30);
});
