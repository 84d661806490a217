// End-to-end over real HTTP: every route, the envelopes, the error triples and their statuses, percent-encoded
// paths, CORS, and the Collection meta collection.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYS, errorOf, hexOf, jwkOf, startTestServer, type TestServer } from './support.ts';

const ACCOUNT = `
@public
collection Account {
  id: string;
  name: string;
  balance: number;
  owner?: PublicKey;

  @index(name, balance);

  constructor (id: string, name: string, balance: number) {
    this.id = id;
    this.name = name;
    this.balance = balance;
    if (ctx.publicKey) this.owner = ctx.publicKey;
  }

  deposit (amount: number) {
    if (amount <= 0) error('amount must be positive');
    this.balance += amount;
  }

  transfer (to: record, amount: number) {
    if (this.balance < amount) error('insufficient balance');
    this.balance -= amount;
    to.balance += amount;
  }

  destroy () {
    selfdestruct();
  }
}
`;

const NO_ID = `
@public
collection NoId {
  id: string;
  constructor (x: string) {
    if (x == 'set') this.id = x;
  }
}
`;

const ZERO_BLOCK = { hash: `0x${'0'.repeat(64)}` };

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
  await s.createCollection('test/Account', ACCOUNT);
  await s.createCollection('test/NoId', NO_ID);
});
afterAll(() => s.close());

describe('root and health', () => {
  it('GET / names the server, GET /v0/health answers OK, both JSON', async () => {
    const root = await s.get('/');
    expect(root.status).toBe(200);
    expect(root.json).toMatchObject({ server: 'Vellum' });
    expect(root.headers.get('content-type')).toMatch(/application\/json/);
    const health = await s.get('/v0/health');
    expect(health.status).toBe(200);
    expect(health.json).toEqual({ status: 'OK' });
  });
});

describe('create, get, call, list', () => {
  it('creates a record with the constructor and answers {data}', async () => {
    const created = await s.create('test/Account', ['a1', 'Alice', 10]);
    expect(created.status).toBe(200);
    expect(created.json).toEqual({ data: { id: 'a1', name: 'Alice', balance: 10 } });
  });

  it('gets a record as {data, block} with timestamp headers', async () => {
    const got = await s.record('test/Account', 'a1');
    expect(got.status).toBe(200);
    expect(got.json).toEqual({ data: { id: 'a1', name: 'Alice', balance: 10 }, block: ZERO_BLOCK });
    const stamp = got.headers.get('x-service-timestamp');
    expect(stamp).toMatch(/^\d+\.\d{6}$/);
    expect(got.headers.get('x-polybase-timestamp')).toBe(stamp);
    expect(Math.abs(Number(stamp) - Date.now() / 1000)).toBeLessThan(60);
  });

  it('format=nft answers the bare record', async () => {
    const got = await s.get('/v0/collections/test%2FAccount/records/a1?format=nft');
    expect(got.json).toEqual({ id: 'a1', name: 'Alice', balance: 10 });
  });

  it('calls a function and answers the record after the call', async () => {
    const called = await s.call('test/Account', 'a1', 'deposit', [5]);
    expect(called.status).toBe(200);
    expect(called.json).toEqual({ data: { id: 'a1', name: 'Alice', balance: 15 } });
    expect((await s.record('test/Account', 'a1')).json.data.balance).toBe(15);
  });

  it('a record argument is loaded, and both records change together', async () => {
    await s.create('test/Account', ['a2', 'Bob', 0]);
    const moved = await s.call('test/Account', 'a1', 'transfer', [{ id: 'a2' }, 7]);
    expect(moved.status).toBe(200);
    expect(moved.json.data.balance).toBe(8);
    expect((await s.record('test/Account', 'a2')).json.data.balance).toBe(7);
  });

  it('a failing call changes nothing', async () => {
    const failed = await s.call('test/Account', 'a1', 'transfer', [{ id: 'a2' }, 1000]);
    expect(failed.status).toBe(400);
    expect(errorOf(failed)).toEqual({ code: 'failed-precondition', reason: 'function/collection-error', message: 'collection function error: insufficient balance' });
    expect((await s.record('test/Account', 'a1')).json.data.balance).toBe(8);
    expect((await s.record('test/Account', 'a2')).json.data.balance).toBe(7);
  });

  it('selfdestruct deletes the record and answers {data: null}', async () => {
    await s.create('test/Account', ['gone', 'Gone', 1]);
    const called = await s.call('test/Account', 'gone', 'destroy', []);
    expect(called.status).toBe(200);
    expect(called.json).toEqual({ data: null });
    expect((await s.record('test/Account', 'gone')).status).toBe(404);
  });

  it('lists with where and sort: {data: [{data, block}], cursor}', async () => {
    await s.create('test/Account', ['a3', 'Alice', 100]);
    const listed = await s.list('test/Account', { where: { name: 'Alice' }, sort: [['balance', 'desc']] });
    expect(listed.status).toBe(200);
    expect(listed.json.data.map((r: any) => r.data.id)).toEqual(['a3', 'a1']);
    expect(listed.json.data[0].block).toEqual(ZERO_BLOCK);
    expect(typeof listed.json.cursor.before).toBe('string');
    expect(typeof listed.json.cursor.after).toBe('string');
    expect(listed.headers.get('x-service-timestamp')).toMatch(/^\d+\.\d{6}$/);
    const range = await s.list('test/Account', { where: { balance: { $gte: 8, $lt: 100 } } });
    expect(range.json.data.map((r: any) => r.data.id)).toEqual(['a1']);
    const eq = await s.list('test/Account', { where: { name: { $eq: 'Bob' } } });
    expect(eq.json.data.map((r: any) => r.data.id)).toEqual(['a2']);
  });

  it('an empty list has null cursors', async () => {
    const listed = await s.list('test/Account', { where: { name: 'Nobody' } });
    expect(listed.json).toEqual({ data: [], cursor: { before: null, after: null } });
  });

  it('a signed create stores the signer as ctx.publicKey (JWK)', async () => {
    const created = await s.create('test/Account', ['signed', 'S', 1], KEYS.alice);
    expect(created.status).toBe(200);
    expect(created.json.data.owner).toEqual(jwkOf(KEYS.alice));
  });
});

describe('percent-encoded paths', () => {
  it('collection ids and record ids with / and unicode round-trip', async () => {
    const created = await s.create('test/Account', ['3/last', 'Slash', 1]);
    expect(created.status).toBe(200);
    expect((await s.get('/v0/collections/test%2FAccount/records/3%2Flast')).json.data.id).toBe('3/last');
    await s.create('test/Account', ['ünï ©ødé', 'U', 1]);
    expect((await s.record('test/Account', 'ünï ©ødé')).json.data.id).toBe('ünï ©ødé');
    expect((await s.call('test/Account', '3/last', 'deposit', [1])).json.data.balance).toBe(2);
  });

  it('an invalid percent-encoding is a clean 400', async () => {
    for (const path of ['/v0/collections/test%ZZAccount/records', '/v0/collections/test%2FAccount/records/%E0%A4%A', '/v0/collections/%/records/x']) {
      const answer = await s.get(path);
      expect(answer.status, path).toBe(400);
      expect(errorOf(answer)?.reason).toBe('request/invalid-url');
    }
  });
});

describe('the Collection meta collection', () => {
  it('GET Collection/records/<id> returns the code and the stable AST', async () => {
    const got = await s.record('Collection', 'test/Account');
    expect(got.status).toBe(200);
    expect(got.json.data.code).toBe(ACCOUNT);
    const ast = JSON.parse(got.json.data.ast);
    expect(ast[0]).toMatchObject({ kind: 'collection', namespace: { kind: 'namespace', value: 'test' }, name: 'Account' });
  });

  it('GET Collection/records/Collection is the built-in schema', async () => {
    const got = await s.record('Collection', 'Collection');
    expect(got.status).toBe(200);
    expect(got.json.data.code).toContain('collection Collection');
    expect(JSON.parse(got.json.data.ast)[0].name).toBe('Collection');
  });

  it('lists collections', async () => {
    const listed = await s.list('Collection');
    expect(listed.json.data.map((r: any) => r.data.id)).toEqual(expect.arrayContaining(['test/Account', 'test/NoId']));
  });

  it('schema errors come back with line and column', async () => {
    const bad = await s.post('/v0/collections/Collection/records', { args: ['test/Bad', 'collection Bad {\n  id: string;\n  n: number;\n  f () { this.n = "x"; }\n}'] }, { key: KEYS.admin });
    expect(bad.status).toBe(400);
    expect(errorOf(bad)?.reason).toBe('collection/invalid-schema');
    expect(errorOf(bad)?.message).toMatch(/^test\/Bad:4:\d+: error V\d+/);
    const syntax = await s.post('/v0/collections/Collection/records', { args: ['test/Bad', 'collection Bad {'] }, { key: KEYS.admin });
    expect(errorOf(syntax)?.reason).toBe('collection/invalid-schema');
    expect(errorOf(syntax)?.message).toMatch(/^test\/Bad:1:\d+:/);
    expect((await s.record('Collection', 'test/Bad')).status).toBe(404);
  });

  it('refuses ids without a namespace, names starting with $, and code without the collection', async () => {
    const cases: [unknown[], string, RegExp][] = [
      [['Plain', 'collection Plain { id: string; }'], 'collection/invalid-id', /missing namespace/],
      [['ns/$x', 'collection $x { id: string; }'], 'collection/invalid-id', /cannot start with/],
      [['ns/Other', 'collection Account2 { id: string; }'], 'collection/invalid-schema', /missing definition for collection Other/],
      [['ns/NoIdField', 'collection NoIdField { name: string; }'], 'collection/invalid-schema', /id/],
      [[], 'function/invalid-args', /expected 2 got 0/],
      [['ns/X', 5], 'function/invalid-args', /"code"/],
    ];
    for (const [args, reason, message] of cases) {
      const answer = await s.post('/v0/collections/Collection/records', { args }, { key: KEYS.admin });
      expect(answer.status, JSON.stringify(args)).toBe(400);
      expect(errorOf(answer)?.reason).toBe(reason);
      expect(errorOf(answer)?.message).toMatch(message);
    }
  });

  it('creating an existing collection is 409', async () => {
    const again = await s.post('/v0/collections/Collection/records', { args: ['test/Account', ACCOUNT] }, { key: KEYS.admin });
    expect(again.status).toBe(409);
    expect(errorOf(again)).toMatchObject({ code: 'already-exists', reason: 'collection/id-exists' });
  });

  it('updateCode replaces the schema: new functions run, new indexes serve queries', async () => {
    const v1 = '@public collection Note { id: string; text: string; constructor (id: string, text: string) { this.id = id; this.text = text; } }';
    await s.createCollection('test/Note', v1, KEYS.alice);
    await s.create('test/Note', ['n1', 'hello']);
    await s.create('test/Note', ['n2', 'abc']);
    const v2 = '@public collection Note { id: string; text: string; stars?: number; @index(text, stars); constructor (id: string, text: string) { this.id = id; this.text = text; } star () { this.stars = 1; } }';
    const updated = await s.updateCode('test/Note', v2, KEYS.alice);
    expect(updated.status).toBe(200);
    expect(updated.json.data.code).toBe(v2);
    expect(updated.json.data.publicKey).toEqual(jwkOf(KEYS.alice));
    expect((await s.call('test/Note', 'n1', 'star', [])).json.data).toEqual({ id: 'n1', text: 'hello', stars: 1 });
    const listed = await s.list('test/Note', { where: { text: 'hello' }, sort: [['stars', 'asc']] });
    expect(listed.status).toBe(200);
    expect(listed.json.data.map((r: any) => r.data.id)).toEqual(['n1']);
  });

  it('only the owner or an admin key may update a collection created signed: 403 naming who may', async () => {
    const code = '@public collection Owned { id: string; constructor (id: string) { this.id = id; } }';
    await s.createCollection('test/Owned', code, KEYS.alice);
    for (const key of [KEYS.bob, undefined]) {
      const answer = await s.call('Collection', 'test/Owned', 'updateCode', [code + ' '], key);
      expect(answer.status).toBe(403);
      expect(errorOf(answer)).toMatchObject({ code: 'permission-denied', reason: 'permission/change-schema' });
      expect(errorOf(answer)?.message).toContain(`allowed only to its owner ${hexOf(KEYS.alice)} and admin keys`);
    }
    expect((await s.record('Collection', 'test/Owned')).json.data.code).toBe(code);
    expect((await s.updateCode('test/Owned', code + '  ')).status).toBe(200);
    expect((await s.updateCode('test/Owned', code + '   ', KEYS.alice)).status).toBe(200);
  });

  // Issue 13: adding a required field used to leave the stored records without it.
  describe('a schema update leaves every stored record valid under the new schema', () => {
    const typed = (fields: string, init: string) =>
      `@public collection Typed { id: string; label?: string; ${fields} constructor (id: string) { this.id = id; ${init} } function setLabel(l: string) { this.label = l; } }`;
    const update = (code: string, key?: string) => s.updateCode('test/Typed', code, key);

    it('casts the records as Polybase did: new required fields get their defaults, types are cast, removed fields go once their loss is accepted', async () => {
      await s.createCollection('test/Typed', typed('n: number;', 'this.n = 1;'));
      for (const id of ['t1', 't2', 't3']) expect((await s.create('test/Typed', [id])).status).toBe(200);
      expect((await s.call('test/Typed', 't2', 'setLabel', ['gone'])).json.data).toEqual({ id: 't2', n: 1, label: 'gone' });
      const since = (await s.record('test/Typed', 't1')).headers.get('x-service-timestamp')!;

      const v2 =
        '@public collection Typed { id: string; n: string; s: string; b: boolean; list: number[]; m: map<string, number>; o: { a: number; }; ref: Other; refs: Other[]; ' +
        'constructor (id: string, other: Other) { this.id = id; this.n = "0"; this.s = ""; this.b = false; this.list = []; this.m = {}; this.o = { a: 0 }; this.ref = other; this.refs = []; } } ' +
        'collection Other { id: string; constructor (id: string) { this.id = id; } }';
      // t2's label holds a value: removing the field loses it, so the update must name it (issue 22).
      const refused = await update(v2);
      expect(errorOf(refused)?.reason).toBe('collection/data-loss');
      expect(errorOf(refused)?.message).toContain('field "label" removed (string?): 1 record would lose its value (record "t2": label = "gone")');
      const answer = await s.post('/v0/collections/Collection/records/test%2FTyped/call/updateCode', { args: [v2], acceptDataLoss: ['label'] }, { key: KEYS.admin });
      expect(answer.status, answer.text).toBe(200);
      const expected = (id: string) => ({ id, n: '1', s: '', b: false, list: [], m: {}, o: { a: 0 }, ref: { collectionId: '', id: '' }, refs: [] });
      for (const id of ['t1', 't2', 't3']) expect((await s.record('test/Typed', id)).json.data).toEqual(expected(id));
      // Indexed under the new values, and reported to long-polls as changes.
      expect((await s.list('test/Typed', { where: { n: '1' } })).json.data.map((r: any) => r.data.id)).toEqual(['t1', 't2', 't3']);
      const poll = await s.get(`/v0/collections/test%2FTyped/records/t1?since=${since}&waitFor=1s`);
      expect(poll.status).toBe(200);
    });

    it('a map whose values cannot be cast loses them: the refusal names the field once, with every record counted', async () => {
      const v1 = '@public collection Typed4 { id: string; m: map<string, number>; constructor (id: string, k: string) { this.id = id; this.m = {}; this.m[k] = 5; } }';
      await s.createCollection('test/Typed4', v1);
      for (let i = 0; i < 12; i++) expect((await s.create('test/Typed4', [`r${String(i).padStart(2, '0')}`, `k${i}`])).status).toBe(200);
      const answer = await s.updateCode('test/Typed4', v1.replace('map<string, number>', 'map<string, boolean>').replace('this.m[k] = 5;', 'this.m[k] = true;'));
      expect(answer.status).toBe(400);
      expect(errorOf(answer)!.message).toMatch(/^cannot update collection test\/Typed4 without losing stored data: field "m" map<string, number> → map<string, boolean>: 12 records would lose their values \(record "r00": m\.k0 = 5\)\./);
    });

    it('an optional field made required is filled in with its default', async () => {
      await s.createCollection('test/Typed3', '@public collection Typed3 { id: string; n?: number; constructor (id: string) { this.id = id; } }');
      expect((await s.create('test/Typed3', ['a'])).json.data).toEqual({ id: 'a' });
      const answer = await s.updateCode('test/Typed3', '@public collection Typed3 { id: string; n: number; constructor (id: string) { this.id = id; this.n = 1; } }');
      expect(answer.status, answer.text).toBe(200);
      expect((await s.record('test/Typed3', 'a')).json.data).toEqual({ id: 'a', n: 0 });
    });

    it('refuses an update some records cannot follow, naming the field and how many, and changes nothing', async () => {
      const before = '@public collection Typed2 { id: string; n: string; constructor (id: string) { this.id = id; this.n = "1"; } function set(n: string) { this.n = n; } }';
      await s.createCollection('test/Typed2', before);
      for (const [id, n] of [['a', 'x'], ['b', '2'], ['c', 'y']] as const) {
        expect((await s.create('test/Typed2', [id])).status).toBe(200);
        expect((await s.call('test/Typed2', id, 'set', [n])).status).toBe(200);
      }
      const records = async () => Promise.all(['a', 'b', 'c'].map(async (id) => (await s.record('test/Typed2', id)).json.data));
      const stored = await records();
      const code = (await s.record('Collection', 'test/Typed2')).json.data.code;

      const toNumber = await s.updateCode('test/Typed2', typed('n: number;', 'this.n = 1;').replace('Typed', 'Typed2'));
      expect(toNumber.status).toBe(400);
      expect(errorOf(toNumber)?.reason).toBe('collection/data-loss');
      expect(errorOf(toNumber)?.message).toMatch(/^cannot update collection test\/Typed2 without losing stored data: field "n" string → number: 2 records would lose their values \(record "a": n = "x"\)\./);

      const newKey = await s.updateCode('test/Typed2', typed('n: string; owner: PublicKey;', 'this.n = ""; this.owner = ctx.publicKey;').replace('Typed', 'Typed2'));
      expect(newKey.status).toBe(400);
      expect(errorOf(newKey)?.message).toContain('field "owner": 3 records (record "a": required field "owner" is missing and type PublicKey has no default)');

      expect((await s.record('Collection', 'test/Typed2')).json.data.code).toBe(code);
      expect(await records()).toEqual(stored);
    });
  });

  it('an unknown Collection function is 404', async () => {
    const answer = await s.call('Collection', 'test/Account', 'drop', []);
    expect(answer.status).toBe(404);
    expect(errorOf(answer)?.reason).toBe('function/not-found');
  });
});

describe('every error reason, with its status', () => {
  const cases: [string, () => Promise<import('./support.ts').Answer>, number, string?, string?, RegExp?][] = [
    ['list of an unknown collection', () => s.list('test/Nope'), 404, 'not-found', 'collection/not-found'],
    ['get of an unknown collection', () => s.record('test/Nope', 'x'), 404, 'not-found', 'collection/not-found'],
    ['create in an unknown collection', () => s.create('test/Nope', []), 404, 'not-found', 'collection/not-found'],
    ['get of a missing record', () => s.record('test/Account', 'missing'), 404, 'not-found', 'record/not-found'],
    ['call on a missing record', () => s.call('test/Account', 'missing', 'deposit', [1]), 404, 'not-found', 'record/not-found', /record "missing" was not found in collection "test\/Account"/],
    ['a missing record argument', () => s.call('test/Account', 'a1', 'transfer', [{ id: 'missing' }, 1]), 404, 'not-found', 'record/not-found'],
    ['the constructor through the call route', () => s.call('test/Account', 'a1', 'constructor', ['a1', 'Evil', 1e9]), 404, 'not-found', 'function/not-found', /only when a record is created/],
    ['an unknown function', () => s.call('test/Account', 'a1', 'nope', []), 404, 'not-found', 'function/not-found', /method "nope" not found in collection "test\/Account"/],
    ['too few arguments', () => s.create('test/Account', ['x']), 400, 'invalid-argument', 'function/invalid-args', /expected 3 got 1/],
    ['too many arguments', () => s.call('test/Account', 'a1', 'deposit', [1, 2]), 400, 'invalid-argument', 'function/invalid-args', /expected 1 got 2/],
    ['a wrongly typed argument', () => s.call('test/Account', 'a1', 'deposit', [{ a: 1 }]), 400, 'invalid-argument', 'function/invalid-args', /parameter "amount"/],
    ['error() in a function', () => s.call('test/Account', 'a1', 'deposit', [-1]), 400, 'failed-precondition', 'function/collection-error', /amount must be positive/],
    ['a constructor that sets no id', () => s.create('test/NoId', ['no']), 400, 'invalid-argument', 'constructor/no-id-assigned'],
    ['a duplicate id', () => s.create('test/Account', ['a1', 'Again', 1]), 409, 'already-exists', 'collection/id-exists'],
    ['a query without an index', () => s.list('test/Account', { where: { name: 'A' }, sort: [['id', 'desc'], ['balance', 'asc']] }), 400, 'failed-precondition', 'indexer/missing-index'],
    ['both cursors', () => s.list('test/Account', { before: 'x', after: 'y' }), 400, 'invalid-argument', 'indexer/invalid-cursor'],
    ['a garbage cursor', () => s.list('test/Account', { after: 'not a cursor' }), 400, 'invalid-argument', 'indexer/invalid-cursor'],
    ['a where value of the wrong type', () => s.list('test/Account', { where: { balance: 'abc' } }), 400, 'invalid-argument', 'indexer/invalid-query-value'],
    ['three range fields', () => s.list('test/Account', { where: { balance: { $gt: 1 }, name: { $gt: 'a' }, id: { $gt: 'a' } } }), 400],
    ['an unknown operator', () => s.list('test/Account', { where: { balance: { $regex: 'x' } } }), 400, 'invalid-argument'],
    ['where that is not JSON', () => s.get('/v0/collections/test%2FAccount/records?where=%7Bnope'), 400, 'invalid-argument', 'request/invalid-query', /"where" is not valid JSON/],
    ['sort that is not an array', () => s.list('test/Account', { sort: { a: 1 } }), 400, 'invalid-argument', 'request/invalid-query'],
    ['a bad limit', () => s.list('test/Account', { limit: 'ten' }), 400, 'invalid-argument', undefined, /limit/],
    ['a bad since', () => s.list('test/Account', { since: 'yesterday' }), 400, 'invalid-argument', 'request/invalid-query', /since/],
    ['a bad waitFor', () => s.list('test/Account', { since: '1', waitFor: '10' }), 400, 'invalid-argument', 'request/invalid-query', /waitFor/],
    ['a repeated parameter', () => s.get('/v0/collections/test%2FAccount/records?limit=1&limit=2'), 400, 'invalid-argument', 'request/invalid-query', /"limit"/],
    ['a bad signature', () => s.get('/v0/collections/test%2FAccount/records', { headers: { 'x-polybase-signature': 'v=0,t=1,h=eth-personal-sign,sig=0x00' } }), 400, 'invalid-argument', 'auth/invalid-signature'],
    ['an expired signature', () => s.create('test/Account', ['old', 'Old', 1], undefined), 200],
    ['an unknown route', () => s.get('/v0/nothing'), 404, 'not-found', 'route/not-found'],
    ['a wrong method', () => s.request('DELETE', '/v0/collections/test%2FAccount/records/a1'), 404, 'not-found', 'route/not-found'],
    ['an empty id', () => s.get('/v0/collections/test%2FAccount/records/'), 400, 'invalid-argument', 'request/invalid-url'],
    ['malformed JSON', () => s.post('/v0/collections/test%2FAccount/records', undefined, { raw: '{"args": [1,' }), 400, 'invalid-argument', 'request/invalid-json'],
    ['a body that is not an object', () => s.post('/v0/collections/test%2FAccount/records', undefined, { raw: '[1,2]' }), 400, 'invalid-argument', 'request/invalid-body'],
    ['args that are not an array', () => s.post('/v0/collections/test%2FAccount/records', { args: 'a1' }), 400, 'invalid-argument', 'request/invalid-body', /args/],
    ['no body', () => s.post('/v0/collections/test%2FAccount/records', undefined), 400, 'invalid-argument', 'request/invalid-body'],
  ];
  for (const [name, run, status, code, reason, message] of cases) {
    it(name, async () => {
      const answer = await run();
      expect(answer.status, answer.text).toBe(status);
      if (status === 200) return;
      expect(answer.headers.get('content-type')).toMatch(/application\/json/);
      const error = errorOf(answer);
      expect(error).toBeDefined();
      expect(Object.keys(error!)).toEqual(['code', 'reason', 'message']);
      if (code) expect(error!.code).toBe(code);
      if (reason) expect(error!.reason).toBe(reason);
      if (message) expect(error!.message).toMatch(message);
    });
  }

  it('an expired or future signature is refused', async () => {
    const old = await s.post('/v0/collections/test%2FAccount/records', { args: ['old2', 'Old', 1] }, { key: KEYS.alice, signedAt: Date.now() - 10 * 60_000 });
    expect(old.status).toBe(400);
    expect(errorOf(old)?.reason).toBe('auth/invalid-signature');
    const future = await s.post('/v0/collections/test%2FAccount/records', { args: ['old3', 'Old', 1] }, { key: KEYS.alice, signedAt: Date.now() + 3 * 3600_000 });
    expect(future.status).toBe(400);
    expect((await s.record('test/Account', 'old2')).status).toBe(404);
  });
});

describe('limits and CORS', () => {
  it('an oversize body is 413 with the envelope, and changes nothing', async () => {
    const big = 'x'.repeat(2 * 1024 * 1024);
    const answer = await s.create('test/Account', ['big', big, 1]);
    expect(answer.status).toBe(413);
    expect(errorOf(answer)).toMatchObject({ code: 'payload-too-large', reason: 'request/body-too-large' });
    expect((await s.record('test/Account', 'big')).status).toBe(404);
  });

  it('lets any origin read the answers, without credentials, and exposes the timestamp headers; answers preflights (cors.test.ts: the rest)', async () => {
    const got = await s.get('/v0/collections/test%2FAccount/records/a1', { headers: { origin: 'https://app.example' } });
    expect(got.headers.get('access-control-allow-origin')).toBe('*');
    expect(got.headers.get('access-control-allow-credentials')).toBeNull();
    expect(got.headers.get('access-control-expose-headers')).toMatch(/X-Polybase-Timestamp/);
    const preflight = await s.request('OPTIONS', '/v0/collections/test%2FAccount/records', undefined, {
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-polybase-signature, content-type' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-methods')).toBe('POST');
    expect(preflight.headers.get('access-control-allow-headers')).toBe('x-polybase-signature, content-type');
    expect(preflight.headers.get('access-control-max-age')).toBe('3600');
  });

  it('puts the CORS headers on error answers too (a browser app can read the envelope)', async () => {
    const origin = { headers: { origin: 'https://app.example' } };
    const answers = [
      await s.get('/v0/collections/test%2FAccount/records/nobody', origin), // 404 from the service
      await s.get('/v0/nowhere', origin), // 404 from the router
      await s.get('/v0/collections/test%2FAccount/records?limit=x', origin), // 400 from the query check
      await s.get('/v0/collections/test%2FAccount/records/%E0%A4%A', origin), // 400 from fastify: a bad percent-encoding
      await s.post('/v0/collections/test%2FAccount/records', undefined, { ...origin, raw: '{' }), // 400 from the body check
    ];
    expect(answers.map((answer) => answer.status)).toEqual([404, 404, 400, 400, 400]);
    expect(answers.map((answer) => answer.headers.get('access-control-allow-origin'))).toEqual(answers.map(() => '*'));
  });

  it('accepts any content type, as Polybase did', async () => {
    const answer = await s.post('/v0/collections/test%2FAccount/records', undefined, { raw: JSON.stringify({ args: ['ct', 'CT', 1] }), headers: { 'content-type': 'text/plain' } });
    expect(answer.status).toBe(200);
  });
});
