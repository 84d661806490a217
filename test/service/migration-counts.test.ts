// Counts, aggregates and lists while a schema change's pass has not reached the records (issue 22, item 4):
// answered as of the schema current when they read (each record read passes through the pass's own function
// before it is judged and aggregated), or, selected or ordered by values (a count's where; a list's where, sort
// other than by id, or search), refused with 503 `collection/migrating` (the index still holds the old form's
// values of the records not reached yet). Both backends, over a migration's pass.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { holdPass } from '../support/hold-pass.ts';
import { dropTablesAndStop, startTestPostgres, type TestPostgres } from '../support/postgres.ts';
import { describeOnEachBackend, type TestServer } from './support.ts';

let pg: TestPostgres;
beforeAll(async () => {
  pg = await startTestPostgres();
}, 120_000);
afterAll(() => dropTablesAndStop(pg, []), 60_000);

// The old form holds `a` and `b`; the new one their `total`, filled by the migration.
const OLD = `@public collection Sum {
  id: string;
  a: number;
  b: number;
  constructor (id: string, a: number, b: number) { this.id = id; this.a = a; this.b = b; }
}`;
const NEW = `@public collection Sum {
  id: string;
  total: number;
  constructor (id: string) { this.id = id; this.total = 0; }
  @migrate
  add (old: { a: number; b: number; }) { this.total = old.a + old.b; }
}`;
const RECORDS = 30;

describeOnEachBackend(() => pg, (served) => {
  const count = (query: Record<string, unknown>) => served.s.list('mc/Sum', { count: 'true', ...query });

  it('counts, aggregates and lists the new form before the pass reaches the records, and refuses what selects by values', async () => {
    await served.s.createCollection('mc/Sum', OLD);
    const writes = Array.from({ length: RECORDS }, (_, i) => ({ kind: 'put' as const, collectionId: 'mc/Sum', record: { id: `r${String(i).padStart(2, '0')}`, a: i, b: 1 } }));
    await served.store.commit({ writes });
    const pass = holdPass(served.store);
    let update: ReturnType<TestServer['updateCode']> | undefined;
    try {
      update = served.s.updateCode('mc/Sum', NEW);
      await pass.held;
      expect((await served.store.get('mc/Sum', 'r05')).record).toEqual({ id: 'r05', a: 5, b: 1 });
      const counted = await count({});
      expect(counted.status, counted.text).toBe(200);
      expect(counted.json).toEqual({ count: RECORDS });
      // The sum of the new field over records still stored in the old form: each migrated as it is read.
      const summed = await count({ sum: 'total', min: 'total', max: 'total' });
      expect(summed.status, summed.text).toBe(200);
      expect(summed.json).toEqual({ count: RECORDS, sum: { total: (RECORDS * (RECORDS - 1)) / 2 + RECORDS }, min: { total: 1 }, max: { total: RECORDS } });
      const refused = await count({ where: { total: 6 } });
      expect(refused.status, refused.text).toBe(503);
      expect(refused.json.error).toMatchObject({
        code: 'unavailable',
        reason: 'collection/migrating',
        message: expect.stringMatching(/^count of mc\/Sum with a where is not answered while its records are cast to its new schema.*the index still holds the old form's values/),
      });
      expect((await count({ where: { total: 6 }, sum: 'total' })).json.error.message).toMatch(/^count, sum of mc\/Sum with a where/);

      // A list by id is answered in the new form; one picked or ordered by values is refused, as the count is.
      for (const query of [{}, { sort: [['id', 'desc']] }]) {
        const listed = await served.s.list('mc/Sum', query);
        expect(listed.status, listed.text).toBe(200);
        const records = (listed.json.data as { data: Record<string, unknown> }[]).map((entry) => entry.data);
        expect(records).toHaveLength(RECORDS);
        expect(records.find((record) => record.id === 'r05')).toEqual({ id: 'r05', total: 6 });
      }
      for (const query of [{ where: { total: 6 } }, { sort: [['total', 'desc']] }, { where: { id: 'r05' } }]) {
        const refusedList = await served.s.list('mc/Sum', query);
        expect(refusedList.status, refusedList.text).toBe(503);
        expect(refusedList.json.error).toMatchObject({
          reason: 'collection/migrating',
          message: expect.stringMatching(/^list of mc\/Sum with a where, a sort other than by id, or a search is not answered while its records are cast/),
        });
      }
      pass.release();
      expect((await update).status).toBe(200);
    } finally {
      pass.release();
      pass.restore();
    }
    // Once the pass is over, the same count is answered from the new index.
    const after = await count({ where: { total: 6 } });
    expect(after.status, after.text).toBe(200);
    expect(after.json).toEqual({ count: 1 });
    const listed = await served.s.list('mc/Sum', { where: { total: 6 } });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.json.data).toEqual([expect.objectContaining({ data: { id: 'r05', total: 6 } })]);
  });
});
