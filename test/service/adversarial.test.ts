// An adversarial review over real HTTP: inputs meant to crash, hang or exhaust the service, or to slip past
// its checks. Each must get a clear error (which part, what was expected) and change nothing, and the server
// must answer the next request at once.
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { publicKeyOf, signRequest } from '../../src/auth/index.ts';
import { RecordService } from '../../src/service/index.ts';
import { openSqliteStore, type RecordStore } from '../../src/store/index.ts';
import { KEYS, errorOf, startTestServer, type Answer, type TestServer } from './support.ts';

const SCHEMA = `
@public
collection Box {
  id: string;
  label?: string;
  tags?: string[];
  counts?: map<string, number>;
  constructor (id: string) {
    this.id = id;
  }
  setCounts (counts: map<string, number>) {
    this.counts = counts;
  }
  setLabel (label: string) {
    this.label = label;
  }
  double (k: number) {
    let text = "x";
    for (let i = 0; i < k; i++) {
      text = text + text;
    }
    this.label = text;
  }
  grow () {
    let list = ["x"];
    while (true) {
      list.push("x");
    }
  }
  /** A string of 2^k characters pushed n times: each push is one reference to the same string. */
  alias (k: number, n: number) {
    let text = "x";
    for (let i = 0; i < k; i++) {
      text = text + text;
    }
    let list = [text];
    for (let i = 1; i < n; i++) {
      list.push(text);
    }
    this.tags = list;
  }
}
`;

const ODD_FIELDS = `
@public
collection Odd {
  id: string;
  __proto__?: string;
  constructor (id: string, value: string) {
    this.id = id;
    this.__proto__ = value;
  }
}
`;

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
  await s.createCollection('adv/Box', SCHEMA);
  await s.createCollection('adv/Odd', ODD_FIELDS);
  expect((await s.create('adv/Box', ['b1'])).status).toBe(200);
});
afterAll(() => s.close());

function expectError(answer: Answer, status: number, reason: string, message?: RegExp): void {
  expect(answer.status, answer.text.slice(0, 500)).toBe(status);
  expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
  const error = errorOf(answer);
  expect(error?.reason, answer.text.slice(0, 500)).toBe(reason);
  if (message) expect(error?.message).toMatch(message);
}

async function box(id = 'b1'): Promise<unknown> {
  return (await s.record('adv/Box', id)).json.data;
}

/** The server still answers a plain request quickly. */
async function expectResponsive(): Promise<void> {
  const started = Date.now();
  expect((await s.get('/v0/health')).status).toBe(200);
  expect(Date.now() - started).toBeLessThan(2000);
}

describe('function calls that try to exhaust memory', () => {
  it('a record built from one string referenced many times is refused before it is serialised', async () => {
    const before = await box();
    // 2^20 characters, referenced 20 times: 20 MiB of JSON for a few thousand gas.
    const answer = await s.call('adv/Box', 'b1', 'alias', [20, 20]);
    expectError(answer, 400, 'function/limit-exceeded', /record too large/);
    expect(await box()).toEqual(before);
    await expectResponsive();
  });
});

describe('function calls that try to exhaust memory or time', () => {
  it('string doubling stops at the string cap and array growth at the gas limit, changing nothing', async () => {
    const before = await box();
    expectError(await s.call('adv/Box', 'b1', 'double', [40]), 400, 'function/limit-exceeded', /string too long: 2097152 characters \(the limit is 1048576\)/);
    expectError(await s.call('adv/Box', 'b1', 'grow', []), 400, 'function/out-of-gas');
    expect(await box()).toEqual(before);
    await expectResponsive();
  });
});

describe('list queries', () => {
  const deep = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

  it('limits that are not plain positive integers are refused, naming the parameter', async () => {
    for (const limit of ['1e309', '-0', '0x10', '1.5', '1e3', 'Infinity', '１']) {
      expectError(await s.list('adv/Box', { limit }), 400, 'indexer/invalid-query', /^limit must be a positive integer/);
    }
    expect((await s.list('adv/Box', { limit: '99999999999999999999' })).status).toBe(200);
  });

  it('a cursor of a query served by one index is refused by a query served by another', async () => {
    const cursor = (await s.list('adv/Box', { limit: 1, sort: [['label', 'asc']] })).json.cursor.after as string;
    // (A cursor alone goes on with the query that made it; a sort of its own picks the [id] index here.)
    expectError(await s.list('adv/Box', { after: cursor, sort: [['id', 'asc']] }), 400, 'indexer/invalid-cursor', /different where or sort/);
  });

  it('deeply nested where and sort JSON is a clean 400 that says how deep it may go', async () => {
    for (const query of [`sort=${deep(7000)}`, `where={"label":{"$gt":${deep(7000)}}}`, `where={"label":${deep(7000)}}`]) {
      const answer = await s.get(`/v0/collections/adv%2FBox/records?${query}`);
      expectError(answer, 400, 'request/invalid-query', /nested more than \d+ levels deep/);
    }
    await expectResponsive();
  });
});

describe('the Collection meta collection', () => {
  it('a collection id longer than the store takes is refused before anything is written', async () => {
    const name = `Long${'x'.repeat(300)}`;
    const id = `adv/${name}`;
    const code = `@public collection ${name} { id: string; constructor (id: string) { this.id = id; } }`;
    const answer = await s.post('/v0/collections/Collection/records', { args: [id, code] }, { key: KEYS.admin });
    expectError(answer, 400, 'collection/invalid-id', /longer than 256 bytes/);
    expect((await s.get(`/v0/collections/Collection/records/${encodeURIComponent(id)}`)).status).toBe(404);
  });
});

describe('keys named like Object.prototype members', () => {
  it('a map key "__proto__" is stored like any other key, not dropped', async () => {
    const answer = await s.post('/v0/collections/adv%2FBox/records/b1/call/setCounts', undefined, { raw: '{"args":[{"__proto__":1,"a":2}]}' });
    expect(answer.status, answer.text).toBe(200);
    expect(JSON.stringify(answer.json.data.counts)).toBe('{"__proto__":1,"a":2}');
    expect(JSON.stringify(((await box()) as { counts: unknown }).counts)).toBe('{"__proto__":1,"a":2}');
  });

  it('a field named "__proto__" is stored, not dropped', async () => {
    const answer = await s.create('adv/Odd', ['o1', 'kept']);
    expect(answer.status, answer.text).toBe(200);
    expect((await s.record('adv/Odd', 'o1')).text).toContain('"__proto__":"kept"');
  });
});

describe('signature headers', () => {
  it('X-Service-Signature and X-Polybase-Signature with different signers are refused, not one of them picked', async () => {
    const before = await box();
    const raw = JSON.stringify({ args: ['signed'] });
    const answer = await s.post('/v0/collections/adv%2FBox/records/b1/call/setLabel', undefined, {
      raw,
      headers: { 'x-service-signature': signRequest(KEYS.alice, raw), 'x-polybase-signature': signRequest(KEYS.bob, raw) },
    });
    expectError(answer, 400, 'auth/invalid-signature', /different values/);
    expect(await box()).toEqual(before);
  });
});

/** Sends `request` as raw bytes and returns the status and body of the answer. */
function rawRequest(request: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(s.server.port, '127.0.0.1');
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk) => (text += chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve({ status: Number(text.split(' ')[1]), body: text.slice(text.indexOf('\r\n\r\n') + 4) }));
    socket.end(request);
  });
}

describe('requests refused before a route runs', () => {
  it('a URL longer than the HTTP parser reads gets the error envelope, with the limit', async () => {
    const answer = await s.get(`/v0/collections/adv%2FBox/records?where=${'x'.repeat(20_000)}`);
    expectError(answer, 431, 'request/headers-too-large', /larger than 16384 bytes/);
    await expectResponsive();
  });

  it('a request that is not valid HTTP gets the error envelope', async () => {
    const answer = await rawRequest('GET /v0/health HTTP/1.1\r\nHost: x\r\nX-Bad: a\u0001b\r\n\r\n');
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body).error).toMatchObject({ code: 'invalid-argument', reason: 'request/invalid-http' });
    await expectResponsive();
  });

  it('a path segment over the router limit is 414 with a short message naming the limit, not the whole URL', async () => {
    const answer = await s.get(`/v0/collections/adv%2FBox/records/${'a'.repeat(5000)}`);
    expectError(answer, 414, 'request/invalid-url', /longer than 4096 characters/);
    expect(errorOf(answer)!.message.length).toBeLessThan(200);
  });
});

describe('text that is not Unicode', () => {
  it('an argument with a lone surrogate escape is refused, naming where it is; record ids cannot collide through it', async () => {
    for (const [raw, where] of [
      ['{"args":["\\ud800"]}', 'body.args[0]'],
      ['{"args":["ok\\udfffok"]}', 'body.args[0]'],
    ] as const) {
      const answer = await s.post('/v0/collections/adv%2FBox/records', undefined, { raw });
      expectError(answer, 400, 'request/invalid-body', new RegExp(`${where.replace(/[.[\]]/g, '\\$&')}.*lone surrogate`));
    }
    const nested = await s.post('/v0/collections/adv%2FBox/records/b1/call/setCounts', undefined, { raw: '{"args":[{"a":1,"k\\udc00":2}]}' });
    expectError(nested, 400, 'request/invalid-body', /body\.args\[0\]\["k\\udc00"\].*lone surrogate/);
    // Each would have been stored under U+FFFD: the first taken, the others 409, and U+FFFD itself read back as "\ud800".
    expect((await s.get('/v0/collections/adv%2FBox/records/%EF%BF%BD')).status).toBe(404);
    // A surrogate pair written as escapes is ordinary text.
    const pair = await s.post('/v0/collections/adv%2FBox/records', undefined, { raw: '{"args":["\\ud83d\\ude00"]}' });
    expect(pair.status, pair.text).toBe(200);
    expect(pair.json.data.id).toBe('😀');
  });
});

describe('request bodies', () => {
  it('a compressed body (Content-Encoding) is refused with 415 and changes nothing', async () => {
    const before = await box();
    const raw = JSON.stringify({ args: ['zipped'] });
    const path = '/v0/collections/adv%2FBox/records/b1/call/setLabel';
    const gzipped = await fetch(s.url + path, { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: gzipSync(raw) });
    const answer = { status: gzipped.status, headers: gzipped.headers, text: await gzipped.text() } as Answer;
    answer.json = JSON.parse(answer.text);
    expectError(answer, 415, 'request/unsupported-encoding', /Content-Encoding "gzip" is not supported; send the body uncompressed/);
    // Declared but not applied: still refused rather than read as plain text.
    expectError(await s.post(path, undefined, { raw, headers: { 'content-encoding': 'gzip' } }), 415, 'request/unsupported-encoding');
    expect(await box()).toEqual(before);
    expect((await s.post(path, undefined, { raw, headers: { 'content-encoding': 'identity' } })).status).toBe(200);
  });

  it('a body that is not UTF-8 is refused rather than stored with replacement characters', async () => {
    const before = await box();
    const bytes = Buffer.concat([Buffer.from('{"args":["'), Buffer.of(0xff, 0xfe), Buffer.from('"]}')]);
    const response = await fetch(`${s.url}/v0/collections/adv%2FBox/records/b1/call/setLabel`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: bytes });
    const answer = { status: response.status, headers: response.headers, text: await response.text() } as Answer;
    answer.json = JSON.parse(answer.text);
    expectError(answer, 400, 'request/invalid-body', /not valid UTF-8/);
    expect(await box()).toEqual(before);
  });
});

describe('pathological schemas', () => {
  it('a schema with more indexes than the limit (automatic ones included) is refused and not stored', async () => {
    // Every index entry holds a copy of the record: 3000 indexes made one 900 KB create write 2.7 GB.
    const fields = Array.from({ length: 65 }, (_, i) => `f${i}?: string;`).join(' ');
    const answer = await s.post('/v0/collections/Collection/records', { args: ['adv/Wide', `@public collection Wide { id: string; ${fields} }`] }, { key: KEYS.admin });
    expectError(answer, 400, 'collection/invalid-schema', /Wide has 65 indexes .*at most 64/);
    expect((await s.get('/v0/collections/Collection/records/adv%2FWide')).status).toBe(404);
    const declared = Array.from({ length: 70 }, (_, i) => `@index(a, [b, desc], f${i % 10});`).join(' ');
    const some = Array.from({ length: 10 }, (_, i) => `f${i}?: string;`).join(' ');
    // 70 declarations, but only 10 different indexes: accepted.
    expect((await s.post('/v0/collections/Collection/records', { args: ['adv/Dup', `@public collection Dup { id: string; a?: string; b?: number; ${some} ${declared} }`] }, { key: KEYS.admin })).status).toBe(200);
  });
});

describe('record arguments from another namespace', () => {
  const VICTIM = `@public collection Account { id: string; balance: number; constructor (id: string) { this.id = id; this.balance = 10; } }`;
  const THIEF = `@public collection Account { id: string; balance: number;
    constructor (id: string) { this.id = id; this.balance = 0; }
    steal (other: Account) { other.balance = 1000000; } }`;
  const META_THIEF = `@public collection Collection { id: string; code?: string;
    constructor (id: string) { this.id = id; }
    rewrite (c: Collection) { c.code = "collection Account { id: string; }"; } }`;

  it('a function cannot change a record of a same-named collection of another namespace', async () => {
    await s.createCollection('victim/Account', VICTIM);
    await s.createCollection('thief/Account', THIEF);
    await s.create('victim/Account', ['v1']);
    await s.create('thief/Account', ['t1']);
    const answer = await s.call('thief/Account', 't1', 'steal', [{ collectionId: 'victim/Account', id: 'v1' }]);
    expectError(answer, 400, 'function/invalid-args', /"victim\/Account".*"thief\/Account"/);
    expect((await s.record('victim/Account', 'v1')).json.data.balance).toBe(10);
  });

  it('a user collection named Collection cannot rewrite another collection\'s schema record', async () => {
    await s.createCollection('thief/Collection', META_THIEF);
    await s.create('thief/Collection', ['x']);
    const before = (await s.get('/v0/collections/Collection/records/victim%2FAccount')).json.data;
    const answer = await s.call('thief/Collection', 'x', 'rewrite', [{ collectionId: 'Collection', id: 'victim/Account' }]);
    expectError(answer, 400, 'function/invalid-args', /"Collection".*"thief\/Collection"/);
    expect((await s.get('/v0/collections/Collection/records/victim%2FAccount')).json.data).toEqual(before);
  });
});

describe('record arguments of a sibling collection from another namespace', () => {
  it('a forged record of a same-named collection elsewhere does not pass for one of the schema\'s own', async () => {
    const VICTIM = `
      @public collection User { id: string; admin: boolean; constructor (id: string) { this.id = id; this.admin = false; } }
      @public collection Doc { id: string; text: string; @delegate editors?: User[];
        constructor (id: string) { this.id = id; this.text = "original"; }
        edit (user: User, text: string) { if (!user.admin) { throw error("admins only"); } this.text = text; }
        setEditors (users: User[]) { this.editors = users; } }`;
    const FORGER = `@public collection User { id: string; admin: boolean; constructor (id: string) { this.id = id; this.admin = true; } }`;
    await s.createCollection('site/User', VICTIM);
    await s.createCollection('site/Doc', VICTIM);
    await s.createCollection('forger/User', FORGER);
    await s.create('site/Doc', ['d1']);
    await s.create('forger/User', ['me']);
    const answer = await s.call('site/Doc', 'd1', 'edit', [{ collectionId: 'forger/User', id: 'me' }, 'defaced']);
    expectError(answer, 400, 'function/invalid-args', /"forger\/User".*"site\/User"/);
    expect((await s.record('site/Doc', 'd1')).json.data.text).toBe('original');
  });

  it('a reference inside an argument (User[]) must name the schema\'s own collection too', async () => {
    const before = await s.record('site/Doc', 'd1');
    const answer = await s.call('site/Doc', 'd1', 'setEditors', [[{ collectionId: 'forger/User', id: 'me' }]]);
    expectError(answer, 400, 'function/invalid-args', /"forger\/User".*"site\/User"/);
    expect((await s.record('site/Doc', 'd1')).json).toEqual(before.json);
  });
});

describe('collection ids over the store\'s limit in a path', () => {
  it('are reported as collection/invalid-id on a list and on a get, not as an invalid record id', async () => {
    for (const length of [300, 600]) {
      const collection = `ns%2F${'a'.repeat(length)}`;
      expectError(await s.get(`/v0/collections/${collection}/records`), 400, 'collection/invalid-id', /longer than 256 bytes/);
      expectError(await s.get(`/v0/collections/${collection}/records/r1`), 400, 'collection/invalid-id', /longer than 256 bytes/);
      expectError(await s.post(`/v0/collections/${collection}/records/r1/call/f`, { args: [] }), 400, 'collection/invalid-id', /longer than 256 bytes/);
    }
  });
});

describe('the schema cache is bounded by the length of the cached schemas\' code', () => {
  const schema = (name: string, field: string) => `@public collection ${name} { id: string; ${field}?: string; constructor (id: string) { this.id = id; } }`;

  it('loading a collection past the budget evicts the least recently used one, which still works and is loaded again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vellum-schema-lru-'));
    const stores = [openSqliteStore(join(dir, 'db.sqlite')), openSqliteStore(join(dir, 'db.sqlite'))];
    try {
      const a = schema('A', 'x');
      // Room for one of the two schemas, not both.
      const service = new RecordService(stores[0]!, { schemaCacheChars: a.length + 10 });
      const other = new RecordService(stores[1]!);
      await service.initialise();
      await other.initialise();
      await service.installSchema('ns/A', a);
      await service.installSchema('ns/B', schema('B', 'y'));
      await service.create('ns/A', ['a1'], {});
      await service.create('ns/B', ['b1'], {});

      const first = await service.get('ns/A', 'a1', {});
      expect(service.collections.cachedAt('ns/A', first.timestamp)).toBeDefined();
      await service.get('ns/B', 'b1', {});
      expect(service.collections.cachedAt('ns/A', first.timestamp)).toBeUndefined();
      expect(service.collections.cachedAt('ns/B', first.timestamp)).toBeDefined();
      expect(service.collections.cachedChars).toBeLessThanOrEqual(a.length + 10);

      // The evicted collection answers as before (loaded again, evicting B), and a schema changed meanwhile by
      // another connection is the one it loads.
      expect(JSON.parse((await service.get('ns/A', 'a1', {})).json)).toEqual({ id: 'a1' });
      expect(service.collections.cachedAt('ns/B', first.timestamp)).toBeUndefined();
      await other.installSchema('ns/B', schema('B', 'z').replace('@public ', ''));
      await expect(service.get('ns/B', 'b1', {})).rejects.toMatchObject({ reason: 'unauthorized' });
      expect((await service.list('ns/A', {}, {})).records).toEqual(['{"id":"a1"}']);
    } finally {
      for (const store of stores) await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('evicts by last use: a get of a cached collection makes it the most recent, a run of gets keeps it so', async () => {
    const store = openSqliteStore(':memory:');
    try {
      const [a, b, c] = [schema('A', 'x'), schema('B', 'y'), schema('C', 'z')];
      // Room for two of the three schemas.
      const service = new RecordService(store, { schemaCacheChars: a.length + b.length + 10 });
      await service.initialise();
      for (const [name, code] of [['A', a], ['B', b], ['C', c]] as const) {
        await service.installSchema(`ns/${name}`, code);
        await service.create(`ns/${name}`, [name.toLowerCase()], {});
      }
      const get = (name: string) => service.get(`ns/${name}`, name.toLowerCase(), {});
      // Order of use A, B, A, A: B is the least recent when C comes.
      await get('A');
      await get('B');
      await get('A');
      await get('A');
      const { timestamp } = await get('C');
      expect(service.collections.cachedAt('ns/B', timestamp)).toBeUndefined();
      expect(service.collections.cachedAt('ns/A', timestamp)).toBeDefined();
      expect(service.collections.cachedAt('ns/C', timestamp)).toBeDefined();
      // Now C, then A (just looked up, in that order): B comes back in place of C.
      await get('A');
      await get('B');
      expect(service.collections.cachedAt('ns/C', timestamp)).toBeUndefined();
      expect(service.collections.cachedAt('ns/A', timestamp)).toBeDefined();
    } finally {
      await store.close();
    }
  });

  it('keeps the collection just loaded even when it alone is over the budget', async () => {
    const store = openSqliteStore(':memory:');
    try {
      const service = new RecordService(store, { schemaCacheChars: 1 });
      await service.initialise();
      await service.installSchema('ns/A', schema('A', 'x'));
      await service.create('ns/A', ['a1'], {});
      const { timestamp } = await service.get('ns/A', 'a1', {});
      expect(service.collections.cachedAt('ns/A', timestamp)).toBeDefined();
      expect(service.collections.cachedChars).toBe(schema('A', 'x').length);
    } finally {
      await store.close();
    }
  });
});

describe('permission checks over a list share what they load', () => {
  const USERS = `
@public
collection User {
  id: string;
  @delegate key: PublicKey;
  constructor (id: string) { this.id = id; this.key = ctx.publicKey; }
}
collection Doc {
  id: string;
  @read owners: User[];
  constructor (id: string, owners: User[]) { this.id = id; this.owners = owners; }
  touch () { }
}`;
  const alice = { publicKey: publicKeyOf(KEYS.alice) };
  const bob = { publicKey: publicKeyOf(KEYS.bob) };
  const user = (id: string) => ({ collectionId: 'ns/User', id });

  let store: RecordStore;
  async function serviceWith(options: ConstructorParameters<typeof RecordService>[1] = {}): Promise<RecordService> {
    store = openSqliteStore(':memory:');
    // These lists are of every Doc, which no where confines to a caller: they run on the filtered path, whose
    // read filter is what shares the loads (under the default, such a list is refused, private-lists.test.ts).
    const service = new RecordService(store, { privateLists: 'filtered', ...options });
    await service.initialise();
    await service.installSchema('ns/User', USERS);
    await service.installSchema('ns/Doc', USERS);
    return service;
  }
  /** Counts the store reads of User records (the delegate loads; every read of a record goes through getJson). */
  function countUserLoads(): () => number {
    const getJson = vi.spyOn(store, 'getJson');
    return () => getJson.mock.calls.filter(([collectionId]) => collectionId === 'ns/User').length;
  }
  afterEach(() => store.close());

  it('a list over records that delegate to the same users loads each user once', async () => {
    const service = await serviceWith();
    for (const id of ['u1', 'u2', 'u3']) await service.create('ns/User', [id], id === 'u3' ? alice : bob);
    for (let i = 0; i < 20; i++) await service.create('ns/Doc', [`d${i}`, [user('u1'), user('u2'), user('u3')]], {});
    const loads = countUserLoads();
    expect((await service.list('ns/Doc', {}, alice)).records).toHaveLength(20);
    expect(loads()).toBe(3);
    // Each request loads afresh (bob's key is u1's, found at the first owner).
    expect((await service.list('ns/Doc', {}, bob)).records).toHaveLength(20);
    expect(loads()).toBe(4);
  });

  it('past the per-request budget of delegate loads a list leaves the records out, and a get or call is a 400', async () => {
    const service = await serviceWith({ delegateLoadsPerRequest: 5 });
    for (let i = 0; i < 7; i++) await service.create('ns/User', [`u${i}`], i >= 5 ? alice : bob);
    await service.create('ns/Doc', ['d0', [user('u3'), user('u4'), user('u5')]], {});
    await service.create('ns/Doc', ['d1', [user('u0'), user('u1'), user('u5')]], {});
    await service.create('ns/Doc', ['d2', [user('u6')]], {});
    await service.create('ns/Doc', ['d3', [0, 1, 2, 3, 4, 6].map((i) => user(`u${i}`))], {});
    // d0 follows 3 references (alice's key is u5's); d1 the other 2 of the budget, and its third (alice's u5,
    // loaded before) is past it; so are d2's and d3's. Only d0 is listed.
    expect((await service.list('ns/Doc', {}, alice)).records.map((text) => JSON.parse(text).id)).toEqual(['d0']);
    // A get is a request of its own, with a budget of its own.
    expect(JSON.parse((await service.get('ns/Doc', 'd1', alice)).json).id).toBe('d1');
    expect(JSON.parse((await service.get('ns/Doc', 'd2', alice)).json).id).toBe('d2');
    const exceeded = { code: 'failed-precondition', reason: 'permission/limit-exceeded', message: expect.stringMatching(/follows more than 5 records through @delegate references/) };
    await expect(service.get('ns/Doc', 'd3', alice)).rejects.toMatchObject(exceeded);
    await expect(service.call('ns/Doc', 'd3', 'touch', [], alice)).rejects.toMatchObject(exceeded);
    // A caller the walk denies within the budget is still denied as before.
    await expect(service.get('ns/Doc', 'd2', { publicKey: publicKeyOf(KEYS.carol) })).rejects.toMatchObject({ reason: 'unauthorized' });
  });
});
