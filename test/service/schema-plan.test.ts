// Schema changes never lose a stored value without consent (issue 22): every updateCode is planned against the
// stored records first; a change that loses values is a 400 naming each field, the count and an example, unless
// the request names the fields in `acceptDataLoss`; the plan itself is served by its own route. Both backends.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPostgres, storeBackends, type TestPostgres } from '../support/postgres.ts';
import { KEYS, errorOf, hexOf, startTestServer, type TestServer } from './support.ts';

let pg: TestPostgres;
beforeAll(async () => {
  pg = await startTestPostgres();
}, 120_000);
afterAll(() => pg?.stop(), 60_000);

const backends = storeBackends(() => pg);

// Signed by the admin key unless a test names another (an unsigned request never changes or plans a schema).
const plan = (s: TestServer, id: string, code: string, key: string = KEYS.admin) =>
  s.post(`/v0/collections/Collection/records/${encodeURIComponent(id)}/plan/updateCode`, { args: [code] }, { key });
const update = (s: TestServer, id: string, code: string, acceptDataLoss?: string[], key: string = KEYS.admin) =>
  s.post(`/v0/collections/Collection/records/${encodeURIComponent(id)}/call/updateCode`, acceptDataLoss ? { args: [code], acceptDataLoss } : { args: [code] }, { key });
const holder = (x: string, setX = '') => `@public collection Holder { id: string; x?: ${x}; constructor (id: string) { this.id = id; } ${setX} }`;
const SET_X = 'function setX(x: Target) { this.x = x; }';
const TARGET = '@public collection Target { id: string; constructor (id: string) { this.id = id; } }';

describe.each(backends)('on %s', (_name, openStore) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ store: await openStore() });
  });
  afterAll(() => s.close());

  it('a reference turned into an object is refused with the field, the count and an example, and nothing changes; accepted, it is applied', async () => {
    await s.createCollection('ns/Target', TARGET);
    await s.createCollection('ns/Holder', holder('Target', SET_X));
    expect((await s.create('ns/Target', ['t1'])).status).toBe(200);
    for (const id of ['h1', 'h2', 'h3']) expect((await s.create('ns/Holder', [id])).status).toBe(200);
    for (const id of ['h1', 'h2']) expect((await s.call('ns/Holder', id, 'setX', [{ collectionId: 'ns/Target', id: 't1' }])).status).toBe(200);
    const objectSchema = holder('{ name: string; }');

    const planned = await plan(s, 'ns/Holder', objectSchema);
    expect(planned.status, planned.text).toBe(200);
    expect(planned.json.data).toMatchObject({
      collectionId: 'ns/Holder',
      exists: true,
      records: 3,
      fields: [{ field: 'x', change: 'retyped', from: 'Target?', to: '{ name: string; }?', holding: 2, cast: 0, lost: 2, example: { id: 'h1', path: 'x', value: { collectionId: 'ns/Target', id: 't1' } } }],
      dataLoss: ['x'],
      blocked: [],
    });

    const refused = await update(s, 'ns/Holder', objectSchema);
    expect(refused.status, refused.text).toBe(400);
    expect(errorOf(refused)).toEqual({
      code: 'invalid-argument',
      reason: 'collection/data-loss',
      message:
        'cannot update collection ns/Holder without losing stored data: field "x" Target? → { name: string; }?: 2 records would lose their values ' +
        '(record "h1": x = {"collectionId":"ns/Target","id":"t1"}). Nothing was changed; to accept the loss, name the fields in acceptDataLoss: ["x"]',
    });
    expect((await s.record('ns/Holder', 'h1')).json.data).toEqual({ id: 'h1', x: { collectionId: 'ns/Target', id: 't1' } });
    expect((await s.record('Collection', 'ns/Holder')).json.data.code).toBe(holder('Target', SET_X));

    const accepted = await update(s, 'ns/Holder', objectSchema, ['x']);
    expect(accepted.status, accepted.text).toBe(200);
    // Cast as far as it goes: the object's own fields take their defaults; nothing of the reference is left.
    expect((await s.record('ns/Holder', 'h1')).json.data).toEqual({ id: 'h1', x: { name: '' } });
    expect((await s.record('ns/Holder', 'h3')).json.data).toEqual({ id: 'h3' });
  });

  it('number ↔ text is cast where it round-trips; "1.50" and "abc" to a number are losses, refused until accepted', async () => {
    const schema = (n: string) => `@public collection Num { id: string; n?: ${n}; constructor (id: string, n: ${n}) { this.id = id; this.n = n; } }`;
    await s.createCollection('ns/Num', schema('number'));
    expect((await s.create('ns/Num', ['a', 1.5])).status).toBe(200);
    expect((await s.create('ns/Num', ['b', -20])).status).toBe(200);
    // number → string: every value round-trips.
    const toText = await update(s, 'ns/Num', schema('string'));
    expect(toText.status, toText.text).toBe(200);
    expect((await s.record('ns/Num', 'a')).json.data).toEqual({ id: 'a', n: '1.5' });
    expect((await s.create('ns/Num', ['c', '1.50'])).status).toBe(200);
    expect((await s.create('ns/Num', ['d', 'abc'])).status).toBe(200);
    expect((await s.create('ns/Num', ['e', '7'])).status).toBe(200);

    const planned = (await plan(s, 'ns/Num', schema('number'))).json.data;
    expect(planned.fields).toEqual([{ field: 'n', change: 'retyped', from: 'string?', to: 'number?', holding: 5, cast: 3, lost: 2, filled: 0, example: { id: 'c', path: 'n', value: '1.50' } }]);
    const refused = await update(s, 'ns/Num', schema('number'));
    expect(refused.status).toBe(400);
    expect(errorOf(refused)?.message).toContain('field "n" string? → number?: 2 records would lose their values (record "c": n = "1.50")');
    expect((await s.record('ns/Num', 'd')).json.data).toEqual({ id: 'd', n: 'abc' });

    expect((await update(s, 'ns/Num', schema('number'), ['n'])).status).toBe(200);
    const records = Object.fromEntries(((await s.list('ns/Num')).json.data as { data: { id: string; n?: number } }[]).map((r) => [r.data.id, r.data.n]));
    expect(records).toEqual({ a: 1.5, b: -20, c: 1.5, d: undefined, e: 7 });
  });

  it('a removed field is allowed only while no record holds a value; an object field losing a nested field that holds one is refused', async () => {
    const schema = (fields: string) => `@public collection Rem { id: string; ${fields} constructor (id: string) { this.id = id; } function set(a: string, b: string) { this.o = { a: a, b: b }; } }`;
    await s.createCollection('ns/Rem', schema('gone?: string; o?: { a: string; b?: string; };'));
    expect((await s.create('ns/Rem', ['r1'])).status).toBe(200);
    // `gone` holds no value anywhere: removing it loses nothing.
    const removed = await update(s, 'ns/Rem', schema('o?: { a: string; b?: string; };'));
    expect(removed.status, removed.text).toBe(200);
    expect((await s.call('ns/Rem', 'r1', 'set', ['kept', 'held'])).status).toBe(200);
    const narrower = `@public collection Rem { id: string; o?: { a: string; }; constructor (id: string) { this.id = id; } }`;
    const refused = await update(s, 'ns/Rem', narrower);
    expect(refused.status).toBe(400);
    expect(errorOf(refused)?.message).toContain('field "o" { a: string; b?: string; }? → { a: string; }?: 1 record would lose its value (record "r1": o.b = "held")');
    expect((await s.record('ns/Rem', 'r1')).json.data).toEqual({ id: 'r1', o: { a: 'kept', b: 'held' } });
  });

  it('the plan names added fields with their default, indexes built and dropped, and permission changes', async () => {
    await s.createCollection('ns/Perm', '@public collection Perm { id: string; name: string; constructor (id: string) { this.id = id; this.name = "n"; } }');
    expect((await s.create('ns/Perm', ['p1'])).status).toBe(200);
    const next =
      '@read collection Perm { id: string; name: string; age: number; @index(name, [age, desc]); constructor (id: string) { this.id = id; this.name = "n"; this.age = 1; } @call(owner) function grow() { this.age = this.age + 1; } owner?: PublicKey; }';
    const planned = await plan(s, 'ns/Perm', next);
    expect(planned.status, planned.text).toBe(200);
    expect(planned.json.data).toMatchObject({
      fields: [
        { field: 'age', change: 'added', to: 'number', filled: 1, default: 0, lost: 0 },
        { field: 'owner', change: 'added', to: 'PublicKey?', filled: 0, lost: 0 },
      ],
      indexes: { built: ['(age)', '(owner)', '(name, age desc)'], dropped: [] },
      permissions: [
        { on: 'collection', from: ['@public'], to: ['@read'] },
        { on: 'function grow', from: [], to: ['@call(owner)'] },
      ],
      dataLoss: [],
    });
    // A plan writes nothing.
    expect((await s.record('Collection', 'ns/Perm')).json.data.code).not.toBe(next);
  });

  it('acceptDataLoss must name fields of the change, and belongs to updateCode only; the plan route checks the owner as updateCode does', async () => {
    await s.createCollection('ns/Own', '@public collection Own { id: string; a?: string; constructor (id: string) { this.id = id; } }', KEYS.alice);
    const next = '@public collection Own { id: string; constructor (id: string) { this.id = id; } }';
    const wrong = await update(s, 'ns/Own', next, ['nope'], KEYS.alice);
    expect(wrong.status).toBe(400);
    expect(errorOf(wrong)).toEqual({ code: 'invalid-argument', reason: 'request/invalid-body', message: 'acceptDataLoss names "nope", which is not a field this change adds, removes or retypes (those are: "a")' });
    const call = await s.post(`/v0/collections/ns%2FOwn/records/x/call/f`, { args: [], acceptDataLoss: ['a'] });
    expect(call.status).toBe(400);
    expect(errorOf(call)?.message).toMatch(/^acceptDataLoss applies only to Collection updateCode/);
    const notOwner = await plan(s, 'ns/Own', next, KEYS.bob);
    expect(notOwner.status).toBe(403);
    expect(errorOf(notOwner)?.reason).toBe('permission/change-schema');
    expect(errorOf(notOwner)?.message).toMatch(/^changing the schema of collection ns\/Own is allowed only to its owner 0x[0-9a-f]+ and admin keys; the request is signed by 0x/);
    expect((await plan(s, 'ns/Own', next, KEYS.alice)).json.data.fields).toEqual([{ field: 'a', change: 'removed', from: 'string?', holding: 0, cast: 0, lost: 0, filled: 0 }]);
  });
  it('the cast pass of an accepted change is reported as a migration while it runs, switching until its layout is stored', async () => {
    const schema = (n: string, more = '') => `@public collection Sw { id: string; n: ${n}; constructor (id: string) { this.id = id; this.n = ${n === 'number' ? '1' : '"1"'}; } ${more}}`;
    await s.createCollection('ns/Sw', schema('number'));
    for (const id of ['a', 'b']) expect((await s.create('ns/Sw', [id])).status).toBe(200);
    const migrations = s.server.service.collections.migrations;
    const seen: unknown[] = [];
    const stop = migrations.onChange((event) => seen.push({ ...event, runningNow: [...migrations.running] }));
    try {
      expect((await update(s, 'ns/Sw', schema('string'))).status).toBe(200);
      // A change that rewrites no record (only a function added) is no migration.
      expect((await update(s, 'ns/Sw', schema('string', 'function f() { this.n = "x"; } '))).status).toBe(200);
    } finally {
      stop();
    }
    expect(seen).toEqual([
      { collectionId: 'ns/Sw', running: true, switching: true, runningNow: ['ns/Sw'] },
      { collectionId: 'ns/Sw', running: true, switching: false, runningNow: ['ns/Sw'] },
      { collectionId: 'ns/Sw', running: false, switching: false, runningNow: [] },
    ]);
    expect((await s.record('ns/Sw', 'a')).json.data).toEqual({ id: 'a', n: '1' });
  });
  it('every applied schema is kept in the history with its version, time, signer and plan; a refused change adds none', async () => {
    const v1 = '@public collection Hist { id: string; n?: string; constructor (id: string, n: string) { this.id = id; this.n = n; } }';
    const v2 = '@public collection Hist { id: string; n?: number; constructor (id: string) { this.id = id; } }';
    const before = Date.now();
    await s.createCollection('ns/Hist', v1, KEYS.alice);
    expect((await s.create('ns/Hist', ['a', '1.50'])).status).toBe(200);
    expect((await update(s, 'ns/Hist', v2, undefined, KEYS.alice)).status).toBe(400);
    expect((await update(s, 'ns/Hist', v2, ['n'], KEYS.alice)).status).toBe(200);
    const history = await s.server.service.schemaHistory('ns/Hist');
    expect(history.map((v) => [v.version, v.code, v.signer])).toEqual([
      [1, v1, hexOf(KEYS.alice)],
      [2, v2, hexOf(KEYS.alice)],
    ]);
    expect(history[0]!.plan).toMatchObject({ exists: false, records: 0, acceptedDataLoss: [] });
    expect(history[1]!.plan).toMatchObject({ exists: true, records: 1, dataLoss: ['n'], acceptedDataLoss: ['n'], fields: [{ field: 'n', lost: 1 }] });
    // The example value is not kept: the history outlives the records it would quote.
    expect(history[1]!.plan.fields[0]).not.toHaveProperty('example');
    expect(history.every((v) => v.appliedAt >= before && v.appliedAt <= Date.now())).toBe(true);
  });
});
