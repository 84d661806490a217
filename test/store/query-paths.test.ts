// The differential test of issue 26's item 0: a plain where (equalities and one range, no `$or`, `$in`, `$ne`,
// `$nin`, `$contains`) planned and read by the single-range path (planner.ts, RecordReader's own page loop)
// against the same where planned as a one-range union and read by the merged reader (union-planner.ts,
// union-read.ts). For random records and queries, on SQLite and PostgreSQL, both must give the same pages (records
// and order), the same cursors (sealed ones compared opened: their IVs are random), the same scan bounds told to
// `confine`, the same counts, and refuse the same queries.

import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgres, openSqlite, RecordStore, type JsonObject, type KvStore, type ListOptions, type ListQuery, type ReadFilter, type ScanBounds } from '../../src/store/index.ts';
import { decodeCursor, isSealedCursor } from '../../src/store/cursor.ts';
import { cursorKeyKey } from '../../src/store/keys.ts';
import { planQuery } from '../../src/store/planner.ts';
import { queryPaths } from '../../src/store/reading.ts';
import { dropTablesAndStop, startTestPostgres, uniqueTableName, type TestPostgres } from '../support/postgres.ts';
import { itemLayout } from './schemas.ts';

/** Two strings sharing more than an index key keeps of them (256 bytes), so their keys are cut and re-checked. */
const long = (end: string) => `${'x'.repeat(300)}${end}`;
const groups = ['a', 'b', 'ä', '', long('1'), long('2')];
const scores = [-3, -1.5, 0, 0.25, 1, 2, 1e300];

const itemArb = (n: number) =>
  fc.record(
    { id: fc.constant(`i${String(n).padStart(2, '0')}`), group: fc.constantFrom(...groups), score: fc.constantFrom(...scores), flag: fc.boolean() },
    { requiredKeys: ['id', 'group'] },
  );
const itemsArb = fc.integer({ min: 0, max: 30 }).chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => itemArb(i))));

const conditionArb = <T>(values: readonly T[]) =>
  fc.oneof(
    fc.constantFrom(...values),
    fc.constantFrom(...values).map((value) => ({ $eq: value })),
    fc
      .record(
        { $gt: fc.constantFrom(...values), $gte: fc.constantFrom(...values), $lt: fc.constantFrom(...values), $lte: fc.constantFrom(...values) },
        { requiredKeys: [] },
      )
      // Both of $gt and $gte (or $lt and $lte) is refused alike by both paths; one of each is what is worth paging.
      .map((ops) => Object.fromEntries(Object.entries(ops).filter(([op]) => !((op === '$gte' && '$gt' in ops) || (op === '$lte' && '$lt' in ops))))),
  );
const conditions = {
  group: conditionArb(groups),
  score: conditionArb(scores),
  flag: fc.oneof(fc.boolean(), fc.boolean().map((value) => ({ $eq: value }))),
  id: conditionArb(['i01', 'i05', 'i10', 'i99']),
};
/** A where on a few fields (most wheres on many fields have no index, and are only refused). */
const whereArb = fc
  .tuple(fc.subarray(['group', 'flag', 'score'] as const, { maxLength: 3 }), fc.boolean())
  .chain(([fields, id]) => fc.record(Object.fromEntries([...fields, ...(id && fields.length < 2 ? ['id' as const] : [])].map((f) => [f, conditions[f]]))));
const sortArb = fc.constantFrom<[string, 'asc' | 'desc'][]>(
  [],
  [['score', 'asc']],
  [['score', 'desc']],
  [['id', 'desc']],
  [['group', 'asc']],
  [['group', 'asc'], ['score', 'asc']],
  [['group', 'desc'], ['score', 'desc']],
  [['flag', 'asc'], ['group', 'asc'], ['score', 'asc']],
);
/** Who may read what: everyone (no filter), or the records whose id ends in an odd digit. */
const readers: Record<string, ReadFilter | undefined> = {
  everyone: undefined,
  odd: (record) => Number((record.id as string).slice(-1)) % 2 === 1,
};
const caseArb = fc.record({
  items: itemsArb,
  where: whereArb,
  sort: sortArb,
  limit: fc.integer({ min: 1, max: 6 }),
  reader: fc.constantFrom(...Object.keys(readers)),
  scanLimit: fc.option(fc.integer({ min: 1, max: 8 }), { nil: undefined }),
  pageBytes: fc.option(fc.integer({ min: 1, max: 700 }), { nil: undefined }),
});

interface Answer {
  readonly records?: unknown[];
  readonly cursor?: { readonly before: string | null; readonly after: string | null };
  readonly bounds?: ScanBounds;
  readonly error?: string;
}

/**
 * The one difference allowed: a range that is empty by its bounds (`$gte: 5, $lt: 3`) is one empty range to the
 * single-range planner and none at all to the union planner, which drops empty ranges (so `confine` is told of
 * nothing to read, and a private collection's confinement lets the query read nothing).
 */
/** The length of a scan cursor (docs/store.md, "Lists with a read filter"): 1,024 bytes before sealing. */
const SCAN_CURSOR_LENGTH = 1404;

function withoutEmptyRange(single: Answer, union: Answer): Answer {
  if (union.bounds?.ranges.length === 0 && single.bounds?.ranges.length === 1) return { ...single, bounds: { ranges: [] } };
  return single;
}

/**
 * And a refusal's reason may differ when the where sets the id equal: to the union planner that is a range (an
 * order key ends with the id), so with a range on another field it is two ranges (`query-inequality-not-last`),
 * where the single-range planner looked for an index starting with id (`missing-index`). Both refuse.
 */
function expected(single: Answer, union: Answer, where: Record<string, unknown>): Answer {
  const idEqual = where.id !== undefined && (typeof where.id !== 'object' || '$eq' in (where.id as object));
  if (idEqual && single.error && union.error) return union;
  return withoutEmptyRange(single, union);
}

async function run(path: 'single' | 'union', action: (confine: ListOptions['confine']) => Promise<{ records?: JsonObject[]; cursor?: Answer['cursor'] }>): Promise<Answer> {
  let bounds: ScanBounds | undefined;
  queryPaths.plainWhere = path;
  try {
    const answer = await action((b) => {
      bounds = b;
    });
    return { records: answer.records?.map((r) => r.id), cursor: answer.cursor, bounds };
  } catch (error) {
    return { error: (error as { reason?: string }).reason ?? String(error) };
  } finally {
    queryPaths.plainWhere = 'union';
  }
}

function differential(name: string, open: () => Promise<KvStore>): void {
  describe(`the single-range and union paths on ${name}`, () => {
    it('give the same pages, cursors, scan bounds, counts and refusals for random plain queries, both ways (fast-check)', async () => {
      const store = new RecordStore(await open());
      let collections = 0;
      let cases = 0;
      let pages = 0;
      await fc.assert(
        fc.asyncProperty(caseArb, async (c) => {
          // A collection of its own for each case, in one database.
          const ITEMS = `ns/Item${collections++}`;
          {
            await store.defineCollection(ITEMS, itemLayout);
            if (c.items.length > 0) await store.commit({ writes: c.items.map((record) => ({ kind: 'put' as const, collectionId: ITEMS, record })) });
            const readFilter = readers[c.reader];
            const options = { ...(c.scanLimit ? { scanLimit: c.scanLimit } : {}), ...(c.pageBytes ? { pageBytes: c.pageBytes } : {}) };
            const query: ListQuery = { where: c.where, sort: c.sort, limit: c.limit };
            const count = async (path: 'single' | 'union') => run(path, async (confine) => ({ records: [{ id: (await store.count(ITEMS, { where: c.where }, readFilter, { confine })).count }] }));
            const [countSingle, countUnion] = [await count('single'), await count('union')];
            expect(countUnion).toEqual(expected(countSingle, countUnion, c.where));

            let plan;
            try {
              plan = planQuery(itemLayout, itemLayout.indexes, c.where, c.sort);
            } catch {
              // Refused by the single-range planner: the union planner refuses it too.
              const single = await run('single', (confine) => store.list(ITEMS, query, readFilter, { ...options, confine }));
              const union = await run('union', (confine) => store.list(ITEMS, query, readFilter, { ...options, confine }));
              expect(single.error).toBeDefined();
              expect(union).toEqual(expected(single, union, c.where));
              return;
            }
            cases++;
            // A cursor compared by what it holds: a sealed one opened (its IV is random), with its length.
            const opened = async (cursor: string | null) => {
              if (cursor === null) return null;
              const key = isSealedCursor(cursor) ? ((await store.kv.get(cursorKeyKey)) ?? undefined) : undefined;
              return { sealed: isSealedCursor(cursor), length: cursor.length, position: decodeCursor(cursor, plan.index, key).toString('hex') };
            };
            const same = async (single: Answer, union: Answer, request: ListQuery) => {
              expect({ ...union, cursor: undefined }).toEqual({ ...withoutEmptyRange(single, union), cursor: undefined });
              for (const side of ['before', 'after'] as const) {
                const [s, u] = [await opened(single.cursor![side]), await opened(union.cursor![side])];
                const requested = request.after ?? request.before;
                if (s?.length === SCAN_CURSOR_LENGTH && single.cursor![side] !== requested && (u?.length !== SCAN_CURSOR_LENGTH || union.cursor![side] === requested)) {
                  // The one difference in cursors: the scan bound reached exactly at the end of the range. The
                  // single-range reader could not tell and cut the page short with a scan cursor, from which the
                  // next request finds nothing; the merged reader looks one entry further, sees the end, and
                  // places the cursor as at any end (docs/store.md, "Lists with a read filter"): where the last
                  // record returned is, or the request's cursor when none was.
                  const backward = request.before !== undefined;
                  const rest = await run('single', () => store.list(ITEMS, { ...request, after: undefined, before: undefined, [backward ? 'before' : 'after']: single.cursor![side] }, readFilter, options));
                  expect(rest.records).toEqual([]);
                  continue;
                }
                expect(u).toEqual(s);
              }
            };
            // Forward from the start until the cursor stops moving, then back from every `after` cursor seen.
            const afters: string[] = [];
            let after: string | null = null;
            for (let guard = 0; guard < 60; guard++) {
              const request = { ...query, ...(after ? { after } : {}) };
              const single = await run('single', (confine) => store.list(ITEMS, request, readFilter, { ...options, confine }));
              const union = await run('union', (confine) => store.list(ITEMS, request, readFilter, { ...options, confine }));
              await same(single, union, request);
              pages++;
              if (single.cursor!.after === null || single.cursor!.after === after) break;
              after = single.cursor!.after;
              afters.push(after);
            }
            for (const before of afters.slice(-3)) {
              const request = { ...query, before };
              const single = await run('single', (confine) => store.list(ITEMS, request, readFilter, { ...options, confine }));
              const union = await run('union', (confine) => store.list(ITEMS, request, readFilter, { ...options, confine }));
              await same(single, union, request);
              pages++;
            }
          }
        }),
        { numRuns: 150 },
      );
      // The property pages through planned queries, not only refused ones.
      console.log(`${name}: ${cases} planned queries of 150, ${pages} pages compared`);
      expect(cases).toBeGreaterThan(60);
      expect(pages).toBeGreaterThan(150);
      await store.close();
    }, 300_000);
  });
}

differential('sqlite', async () => openSqlite(':memory:'));

describe('on PostgreSQL', () => {
  let server: TestPostgres;
  const tables: string[] = [];
  beforeAll(async () => {
    server = await startTestPostgres();
  });
  afterAll(() => dropTablesAndStop(server, tables));
  differential('postgres', async () => {
    const table = uniqueTableName();
    tables.push(table);
    return openPostgres({ connectionString: server.url, table, pool: { max: 4 } });
  });
});
