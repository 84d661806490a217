// A migration that loads the records its stored records reference (issue 22, item 3: "turn a reference into an
// embedded object"): a parameter after `old`, named as the reference field and typed by its collection, receives
// the record as a call's record argument does, in its collection's current form. Planned against the records it
// loads, refused when a reference points to no record (naming the record and the field), applied by the pass, read
// in the new form while the pass has not reached a record, and a pass that meets a reference gone since the plan
// stops before writing that batch and resumes once it can. Both backends.
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import type { JsonObject } from '../../src/store/index.ts';
import { holdPass } from '../support/hold-pass.ts';
import { dropTablesAndStop, startTestPostgres, type TestPostgres } from '../support/postgres.ts';
import { describeOnEachBackend, KEYS, type TestServer } from './support.ts';

let pg: TestPostgres;
beforeAll(async () => {
  pg = await startTestPostgres();
}, 120_000);
afterAll(() => dropTablesAndStop(pg, []), 60_000);

const TARGET = '@public collection Target { id: string; name: string; constructor (id: string, name: string) { this.id = id; this.name = name; } }';
const OLD_HOLDER = `@public collection Holder {
  id: string;
  x?: Target;
  constructor (id: string, x: Target) { this.id = id; this.x = x; }
}
collection Target { id: string; name: string; }`;
const EMBED = `@public collection Holder {
  id: string;
  x?: { name: string; };
  constructor (id: string) { this.id = id; }
  @migrate
  embed (old: { x?: Target; }, x?: Target) {
    if (x) this.x = { name: x.name + ' (' + x.id + ')' };
  }
}
collection Target { id: string; name: string; }`;

const plan = (s: TestServer, id: string, code: string) =>
  s.post(`/v0/collections/Collection/records/${encodeURIComponent(id)}/plan/updateCode`, { args: [code] }, { key: KEYS.admin });

describeOnEachBackend(() => pg, (served) => {
  /** Targets t1 (Ann) and t2 (Bob) in `ns/Target`, holders h1 → t1, h2 → t2 and h3 without one in `ns/Holder`. */
  async function seed(ns: string) {
    await served.s.createCollection(`${ns}/Target`, TARGET);
    expect((await served.s.create(`${ns}/Target`, ['t1', 'Ann'])).status).toBe(200);
    expect((await served.s.create(`${ns}/Target`, ['t2', 'Bob'])).status).toBe(200);
    await served.s.createCollection(`${ns}/Holder`, OLD_HOLDER);
    for (const [id, target] of [['h1', 't1'], ['h2', 't2']] as const) {
      const created = await served.s.create(`${ns}/Holder`, [id, { collectionId: `${ns}/Target`, id: target }]);
      expect(created.status, created.text).toBe(200);
    }
    await served.store.commit({ writes: [{ kind: 'put', collectionId: `${ns}/Holder`, record: { id: 'h3' } }] });
  }
  const stored = async (ns: string, id: string) => (await served.store.get(`${ns}/Holder`, id)).record;

  it('embeds the referenced record: planned, read in the new form before the pass reaches it, applied', async () => {
    await seed('ra');
    const planned = await plan(served.s, 'ra/Holder', EMBED);
    expect(planned.status, planned.text).toBe(200);
    expect(planned.json.data).toMatchObject({ migration: { name: 'embed', runs: true, records: 2, fit: 1, failed: 0 }, dataLoss: [], blocked: [] });
    // The reference the new type has no room for is the migration's to keep: read by it, not lost.
    expect(planned.json.data.fields).toContainEqual(expect.objectContaining({ field: 'x', change: 'retyped', holding: 2, lost: 0, migrated: 2 }));

    const pass = holdPass(served.store);
    try {
      const update = served.s.updateCode('ra/Holder', EMBED);
      await pass.held;
      expect(await stored('ra', 'h1')).toEqual({ id: 'h1', x: { collectionId: 'ra/Target', id: 't1' } });
      // A read the pass has not reached runs the migration, loading the referenced record as the pass would.
      const got = await served.s.record('ra/Holder', 'h1');
      expect(got.status, got.text).toBe(200);
      expect(got.json.data).toEqual({ id: 'h1', x: { name: 'Ann (t1)' } });
      const listed = await served.s.list('ra/Holder');
      expect(listed.json.data.map((r: { data: JsonObject }) => r.data)).toEqual([{ id: 'h1', x: { name: 'Ann (t1)' } }, { id: 'h2', x: { name: 'Bob (t2)' } }, { id: 'h3' }]);
      pass.release();
      const answered = await update;
      expect(answered.status, answered.text).toBe(200);
    } finally {
      pass.release();
      pass.restore();
    }
    expect(await stored('ra', 'h1')).toEqual({ id: 'h1', x: { name: 'Ann (t1)' } });
    expect(await stored('ra', 'h2')).toEqual({ id: 'h2', x: { name: 'Bob (t2)' } });
    expect(await stored('ra', 'h3')).toEqual({ id: 'h3' });
    expect((await served.s.server.service.schemaHistory('ra/Holder')).at(-1)!.plan.migration).toMatchObject({ name: 'embed', runs: true, records: 2 });
  });

  it('refuses, nothing changed, a change whose migration meets a reference to no record, naming record and field', async () => {
    await seed('rb');
    await served.store.commit({ writes: [{ kind: 'put', collectionId: 'rb/Holder', record: { id: 'h4', x: { collectionId: 'rb/Target', id: 't9' } } }] });
    const refused = await served.s.updateCode('rb/Holder', EMBED);
    expect(refused.status, refused.text).toBe(400);
    expect(refused.json.error.message).toContain(
      'migration "embed" fails on 1 stored record (record "h4": field "x" references record "t9" of rb/Target, which does not exist); nothing was changed',
    );
    expect(await stored('rb', 'h1')).toEqual({ id: 'h1', x: { collectionId: 'rb/Target', id: 't1' } });
    expect((await served.s.record('rb/Holder', 'h1')).json.data).toEqual({ id: 'h1', x: { collectionId: 'rb/Target', id: 't1' } });
  });

  it('refuses a migration whose view of the loaded collection is not its stored schema', async () => {
    await seed('rc');
    const refused = await served.s.updateCode('rc/Holder', EMBED.replace('collection Target { id: string; name: string; }', 'collection Target { id: string; name: string; rank: number; }'));
    expect(refused.status, refused.text).toBe(400);
    expect(refused.json.error.message).toContain(
      'migration "embed" loads the records field "x" points to, whose schema here reads field "rank", which the stored schema of rc/Target does not declare (its fields: "id", "name")',
    );
  });

  it('stops the pass before writing a batch whose referenced record went since the plan, and resumes once it is back', async () => {
    await seed('rd');
    const pass = holdPass(served.store);
    let update: ReturnType<TestServer['updateCode']>;
    try {
      update = served.s.updateCode('rd/Holder', EMBED);
      await pass.held;
      await served.store.commit({ writes: [{ kind: 'delete', collectionId: 'rd/Target', id: 't2' }] });
      // A read of a record whose migration cannot run says why, and is not answered in the old form.
      const got = await served.s.record('rd/Holder', 'h2');
      expect(got.status, got.text).toBe(503);
      expect(got.json.error).toMatchObject({ reason: 'collection/migrating', message: expect.stringContaining('field "x" references record "t2" of rd/Target, which does not exist') });
      pass.release();
    } finally {
      pass.release();
      pass.restore();
    }
    const failed = await update;
    expect(failed.status, failed.text).toBe(503);
    expect(failed.json.error.message).toBe('migration "embed" of rd/Holder failed on record "h2": field "x" references record "t2" of rd/Target, which does not exist');
    // The whole batch is left as it was (h1's reference exists, but it was in the same batch), marked unfinished.
    expect(await stored('rd', 'h1')).toEqual({ id: 'h1', x: { collectionId: 'rd/Target', id: 't1' } });
    expect(await stored('rd', 'h2')).toEqual({ id: 'h2', x: { collectionId: 'rd/Target', id: 't2' } });
    expect(await served.store.conforming('rd/Holder')).toBe(true);

    // Put back, the next request loads the schema again and so runs the pass again, over the records left.
    await served.store.commit({ writes: [{ kind: 'put', collectionId: 'rd/Target', record: { id: 't2', name: 'Bea' } }] });
    const got = await served.s.record('rd/Holder', 'h2');
    expect(got.status, got.text).toBe(200);
    expect(got.json.data).toEqual({ id: 'h2', x: { name: 'Bea (t2)' } });
    await vi.waitFor(async () => expect(await served.store.conforming('rd/Holder')).toBe(false), { timeout: 10_000 });
    expect(await stored('rd', 'h1')).toEqual({ id: 'h1', x: { name: 'Ann (t1)' } });
    expect(await stored('rd', 'h2')).toEqual({ id: 'h2', x: { name: 'Bea (t2)' } });
  });
});
