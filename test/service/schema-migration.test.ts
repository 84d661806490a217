// Migrations written in the schema language (issue 22, item 3): a `@migrate` function of the new schema runs over
// each stored record when the schema is installed, with the old values available. The plan runs it over every
// record first and names it with its counts; a migration that fails on one record, or reads a field the stored
// schema does not have, refuses the change and nothing changes; it runs once per schema change (the history
// records it), never twice over a record. Both backends.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPostgres, storeBackends, type TestPostgres } from '../support/postgres.ts';
import { KEYS, errorOf, startTestServer, type TestServer } from './support.ts';

let pg: TestPostgres;
beforeAll(async () => {
  pg = await startTestPostgres();
}, 120_000);
afterAll(() => pg?.stop(), 60_000);

const backends = storeBackends(() => pg);

const plan = (s: TestServer, id: string, code: string) =>
  s.post(`/v0/collections/Collection/records/${encodeURIComponent(id)}/plan/updateCode`, { args: [code] }, { key: KEYS.admin });

const OLD_USER = '@public collection User { id: string; name: string; constructor (id: string, name: string) { this.id = id; this.name = name; } }';
const splitUser = (check = '', extra = '') => `@public collection User {
  id: string;
  first: string;
  last: string;
  ${extra}
  constructor (id: string, first: string, last: string) { this.id = id; this.first = first; this.last = last; }
  @migrate
  splitName (old: { name: string; }) {
    ${check}
    const space = old.name.indexOf(' ');
    if (space < 0) { this.first = old.name; return; }
    this.first = old.name.slice(0, space);
    this.last = old.name.slice(space + 1);
  }
}`;

describe.each(backends)('on %s', (_name, openStore) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ store: await openStore() });
  });
  afterAll(() => s.close());

  async function users(id: string, names: [string, string][]) {
    await s.createCollection(id, OLD_USER.replace('collection User', `collection ${id.split('/')[1]}`));
    for (const [key, name] of names) expect((await s.create(id, [key, name])).status).toBe(200);
  }

  it('splits a field in two: planned with its counts, applied, recorded in the history, and not run again', async () => {
    await users('ns/User', [['u1', 'Ada Lovelace'], ['u2', 'Plato'], ['u3', 'Grace Brewster Hopper']]);
    const planned = await plan(s, 'ns/User', splitUser());
    expect(planned.status, planned.text).toBe(200);
    expect(planned.json.data).toMatchObject({
      records: 3,
      migration: { name: 'splitName', reads: ['name'], runs: true, records: 3, fit: 0, failed: 0 },
      dataLoss: [],
      blocked: [],
    });
    // The removed field's values are the migration's to keep: read by it, not lost.
    expect(planned.json.data.fields).toContainEqual(expect.objectContaining({ field: 'name', change: 'removed', holding: 3, lost: 0, migrated: 3 }));
    expect((await s.record('ns/User', 'u1')).json.data).toEqual({ id: 'u1', name: 'Ada Lovelace' });

    const updated = await s.updateCode('ns/User', splitUser());
    expect(updated.status, updated.text).toBe(200);
    expect((await s.record('ns/User', 'u1')).json.data).toEqual({ id: 'u1', first: 'Ada', last: 'Lovelace' });
    expect((await s.record('ns/User', 'u2')).json.data).toEqual({ id: 'u2', first: 'Plato', last: '' });
    expect((await s.record('ns/User', 'u3')).json.data).toEqual({ id: 'u3', first: 'Grace', last: 'Brewster Hopper' });
    const history = await s.server.service.schemaHistory('ns/User');
    expect(history.at(-1)!.plan.migration).toMatchObject({ name: 'splitName', runs: true, records: 3 });
    // The resolved collection's conform (what the pass runs, and what a read of a record the pass has not reached
    // yet may apply) migrates a record in the old form and leaves one in the new form alone.
    const resolved = await s.server.service.collections.resolve('ns/User');
    if (resolved.kind !== 'user') throw new Error('expected a user collection');
    expect(resolved.conform({ id: 'u9', name: 'Alan Turing' })).toEqual({ id: 'u9', first: 'Alan', last: 'Turing' });
    expect(resolved.conform({ id: 'u9', first: 'Alan', last: 'Turing' })).toBeNull();

    // Calling it is 404: it runs only when its schema is installed.
    const called = await s.call('ns/User', 'u1', 'splitName', [{ name: 'x y' }]);
    expect(called.status).toBe(404);
    expect(errorOf(called)?.message).toContain('is a migration');

    // A later change that keeps the migration as it is does not run it again (its old shape is gone by now).
    const withNick = splitUser('', 'nick?: string;');
    const later = await plan(s, 'ns/User', withNick);
    expect(later.json.data.migration).toMatchObject({ runs: false, reason: expect.stringContaining('the stored schema declares the same migration') });
    expect((await s.updateCode('ns/User', withNick)).status).toBe(200);
    expect((await s.record('ns/User', 'u3')).json.data).toEqual({ id: 'u3', first: 'Grace', last: 'Brewster Hopper' });
  });

  it('a migration failing on one record refuses the change, naming the record and why; nothing changes', async () => {
    await users('ns/Failing', [['a', 'Ada Lovelace'], ['b', 'boom'], ['c', 'boom too']]);
    const failing = splitUser("assert(old.name.indexOf('boom') != 0, 'cannot split ' + old.name);").replace('collection User', 'collection Failing');
    const refused = await s.updateCode('ns/Failing', failing);
    expect(refused.status, refused.text).toBe(400);
    expect(errorOf(refused)).toMatchObject({ reason: 'collection/invalid-schema' });
    expect(errorOf(refused)!.message).toMatch(/migration "splitName" fails on 2 stored records \(record "b": function\/collection-error: .*cannot split boom.*\); nothing was changed/);
    expect((await s.record('ns/Failing', 'a')).json.data).toEqual({ id: 'a', name: 'Ada Lovelace' });
    expect((await s.record('Collection', 'ns/Failing')).json.data.code).toBe(OLD_USER.replace('collection User', 'collection Failing'));
    // Out of gas is a failure too: the per-record limit stops a loop.
    const looping = splitUser('let n = 0; while (true) { n += 1; }').replace('collection User', 'collection Failing');
    const planned = await plan(s, 'ns/Failing', looping);
    expect(planned.json.data.migration).toMatchObject({ failed: 3, failure: { id: 'a', message: expect.stringContaining('gas') } });
  });

  it('a migration reading a field the stored schema does not have (or has with another type) is refused, naming the field', async () => {
    await users('ns/Shape', [['a', 'Ada Lovelace']]);
    const wrong = splitUser().replace('collection User', 'collection Shape').replace('old: { name: string; }', 'old: { name: string; email: string; }');
    const refused = await s.updateCode('ns/Shape', wrong);
    expect(refused.status).toBe(400);
    expect(errorOf(refused)!.message).toBe(
      'cannot update collection ns/Shape: migration "splitName" reads field "email", which the stored schema does not declare (its fields: "id", "name"); nothing was changed',
    );
    const retyped = splitUser().replace('collection User', 'collection Shape').replace('old: { name: string; }', 'old: { name: number; }').replace(/old\.name\./g, 'String(old.name).').replace(/= old\.name;/, '= String(old.name);');
    expect(errorOf(await s.updateCode('ns/Shape', retyped))!.message).toContain('migration "splitName" declares field "name" as number, but the stored schema has string');
    expect((await s.record('ns/Shape', 'a')).json.data).toEqual({ id: 'a', name: 'Ada Lovelace' });
  });

  it('turns a reference into an embedded object and fills a new field from others', async () => {
    const target = '@public collection Owner { id: string; constructor (id: string) { this.id = id; } }';
    const before = `@public collection Box { id: string; owner: Owner; w: number; h: number;
      constructor (id: string, owner: Owner, w: number, h: number) { this.id = id; this.owner = owner; this.w = w; this.h = h; } }`;
    const after = `@public collection Box { id: string; owner: { collectionId: string; id: string; }; w: number; h: number; area: number;
      constructor (id: string) { this.id = id; this.owner = { collectionId: '', id: '' }; this.w = 0; this.h = 0; this.area = 0; }
      @migrate
      embed (old: { owner: Owner; w: number; h: number; }) {
        this.owner = { collectionId: old.owner.collectionId, id: old.owner.id };
        this.area = old.w * old.h;
      } }`;
    await s.createCollection('ns/Owner', target);
    await s.createCollection('ns/Box', before);
    expect((await s.create('ns/Owner', ['o1'])).status).toBe(200);
    expect((await s.create('ns/Box', ['b1', { collectionId: 'ns/Owner', id: 'o1' }, 2, 3])).status).toBe(200);
    // Without the migration the reference would be lost (refused); with it, nothing is.
    const planned = await plan(s, 'ns/Box', after);
    expect(planned.json.data).toMatchObject({ dataLoss: [], blocked: [], migration: { records: 1 } });
    expect((await s.updateCode('ns/Box', after)).status).toBe(200);
    expect((await s.record('ns/Box', 'b1')).json.data).toEqual({ id: 'b1', owner: { collectionId: 'ns/Owner', id: 'o1' }, w: 2, h: 3, area: 6 });
  });

  it('a value the migration overwrites in a field it does not read is a loss the plan names', async () => {
    await users('ns/Over', [['a', 'Ada Lovelace']]);
    const keepName = `@public collection Over { id: string; name: string; first: string;
      constructor (id: string) { this.id = id; this.name = ''; this.first = ''; }
      @migrate
      firstOnly (old: { id: string; }) { this.first = old.id; this.name = ''; } }`;
    const planned = await plan(s, 'ns/Over', keepName);
    expect(planned.json.data).toMatchObject({ dataLoss: ['name'], migration: { records: 1 } });
    expect((await s.updateCode('ns/Over', keepName)).status).toBe(400);
  });
});
