// How far a schema change's pass over the stored records has got (issue 22, item 3: progress in the explorer):
// `GET /v0/collections/Collection/records/<id>/migration` answers, while the pass casts the records, the records
// passed through and the total; afterwards it is not running. Only a key that may change the schema may ask (the
// counts tell how many records the collection holds). Both backends.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestPostgres, type TestPostgres } from '../support/postgres.ts';
import { putRecords } from '../support/put-records.ts';
import { describeOnEachBackend, errorOf, KEYS } from './support.ts';

let pg: TestPostgres;
beforeAll(async () => {
  pg = await startTestPostgres();
}, 120_000);
afterAll(() => pg?.stop(), 60_000);

const N = 6_000;
const V1 = '@public collection Person { id: string; age?: string; constructor (id: string) { this.id = id; } }';
const V2 = '@public collection Person { id: string; age?: number; constructor (id: string) { this.id = id; } }';
const progressPath = (id: string) => `/v0/collections/Collection/records/${encodeURIComponent(id)}/migration`;

describeOnEachBackend(() => pg, (served) => {
  it('tells the records cast so far while the pass runs, and not running once the change is made', async () => {
    expect((await served.s.createCollection('ns/Person', V1)).status).toBe(200);
    await putRecords(served.store, 'ns/Person', N, (i) => ({ id: `p${i}`, age: String(i % 90) }));
    const idle = await served.s.get(progressPath('ns/Person'), { key: KEYS.admin });
    expect(idle.status, idle.text).toBe(200);
    expect(idle.json.data).toEqual({ collectionId: 'ns/Person', running: false, switching: false, done: 0, total: 0 });

    let finished = false;
    const update = served.s.updateCode('ns/Person', V2).finally(() => (finished = true));
    const seen: { running: boolean; done: number; total: number }[] = [];
    while (!finished) {
      const answer = await served.s.get(progressPath('ns/Person'), { key: KEYS.admin });
      expect(answer.status, answer.text).toBe(200);
      seen.push(answer.json.data);
    }
    expect((await update).status).toBe(200);
    const counted = seen.filter((p) => p.running && p.total === N);
    expect(counted.length, JSON.stringify(seen.slice(0, 20))).toBeGreaterThan(0);
    for (const p of counted) expect(p.done).toBeLessThanOrEqual(N);
    // Each observation is as far as or further than the one before.
    const dones = counted.map((p) => p.done);
    expect(dones).toEqual([...dones].sort((a, b) => a - b));

    const after = await served.s.get(progressPath('ns/Person'), { key: KEYS.admin });
    expect(after.json.data).toMatchObject({ running: false, done: 0, total: 0 });
    expect((await served.s.get(`/v0/collections/ns%2FPerson/records/p7`)).json.data.age).toBe(7);
  }, 120_000);

  it('is refused to a caller who may not change the schema, and 404 for a collection that does not exist', async () => {
    await served.s.createCollection('ns/Owned', '@public collection Owned { id: string; constructor (id: string) { this.id = id; } }', KEYS.alice);
    const unsigned = await served.s.get(progressPath('ns/Owned'));
    expect(unsigned.status).toBe(403);
    expect(errorOf(unsigned)?.reason).toBe('permission/change-schema');
    expect(errorOf(unsigned)?.message).toContain('reading the migration progress of collection ns/Owned');
    expect((await served.s.get(progressPath('ns/Owned'), { key: KEYS.bob })).status).toBe(403);
    expect((await served.s.get(progressPath('ns/Owned'), { key: KEYS.alice })).status).toBe(200);
    expect((await served.s.get(progressPath('ns/Owned'), { key: KEYS.admin })).status).toBe(200);
    expect((await served.s.get(progressPath('ns/Missing'), { key: KEYS.admin })).status).toBe(404);
  });
});
