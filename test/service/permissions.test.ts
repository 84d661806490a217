// Read and call permissions over HTTP, with signed requests: @read/@call fields, delegate chains through
// references, lists of private collections limited by their where to the caller's records (private-lists.test.ts
// has the rest), the constructor needing no permission.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYS, errorOf, hexOf, jwkOf, startTestServer, type TestServer } from './support.ts';

// A User delegates to its key; a Team delegates to its users; a Doc is readable by its team and callable by its
// owner; a private Diary is readable only by its @read key.
const SCHEMA = `
collection User {
  id: string;
  @delegate
  key: PublicKey;
  constructor (id: string) {
    this.id = id;
    this.key = ctx.publicKey;
  }
}

collection Team {
  id: string;
  @delegate
  members: User[];
  constructor (id: string, members: User[]) {
    this.id = id;
    this.members = members;
  }
}

collection Doc {
  id: string;
  @read
  team: Team;
  owner: PublicKey;
  text: string;
  constructor (id: string, team: Team, text: string) {
    this.id = id;
    this.team = team;
    this.owner = ctx.publicKey;
    this.text = text;
  }
  @call(owner)
  edit (text: string) {
    this.text = text;
  }
  @call(team)
  append (text: string) {
    this.text = this.text + text;
  }
}

collection Diary {
  id: string;
  @read
  reader: PublicKey;
  n: number;
  constructor (id: string, reader: PublicKey, n: number) {
    this.id = id;
    this.reader = reader;
    this.n = n;
  }
}
`;

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
  for (const name of ['User', 'Team', 'Doc', 'Diary']) await s.createCollection(`perm/${name}`, SCHEMA);
  expect((await s.create('perm/User', ['alice'], KEYS.alice)).status).toBe(200);
  expect((await s.create('perm/User', ['bob'], KEYS.bob)).status).toBe(200);
  const team = await s.create('perm/Team', ['t1', [{ collectionId: 'perm/User', id: 'alice' }, { collectionId: 'perm/User', id: 'bob' }]], KEYS.alice);
  expect(team.status, team.text).toBe(200);
  const doc = await s.create('perm/Doc', ['d1', { collectionId: 'perm/Team', id: 't1' }, 'v1'], KEYS.alice);
  expect(doc.status, doc.text).toBe(200);
  expect(doc.json.data.owner).toEqual(jwkOf(KEYS.alice));
});
afterAll(() => s.close());

describe('read permission', () => {
  it('a private record is 403 to an unsigned or unrelated caller', async () => {
    for (const key of [undefined, KEYS.carol]) {
      const answer = await s.record('perm/User', 'alice', key);
      expect(answer.status).toBe(403);
      expect(errorOf(answer)).toEqual({ code: 'permission-denied', reason: 'unauthorized', message: 'unauthorized read' });
    }
  });

  it('a @delegate key reads its own record', async () => {
    expect((await s.record('perm/User', 'alice', KEYS.alice)).status).toBe(200);
  });

  it('reads through a delegate chain Doc → Team → User → key', async () => {
    expect((await s.record('perm/Doc', 'd1', KEYS.bob)).status).toBe(200);
    expect((await s.record('perm/Doc', 'd1', KEYS.alice)).status).toBe(200);
    expect((await s.record('perm/Doc', 'd1', KEYS.carol)).status).toBe(403);
  });

  it('lists a private collection through a where that limits it to the caller: its records, paged, the rest refused', async () => {
    for (let i = 0; i < 6; i++) {
      const reader = i % 2 === 0 ? jwkOf(KEYS.alice) : jwkOf(KEYS.bob);
      expect((await s.create('perm/Diary', [`e${i}`, reader, i])).status).toBe(200);
    }
    const alice = await s.list('perm/Diary', { where: { reader: jwkOf(KEYS.alice) }, limit: 2 }, KEYS.alice);
    expect(alice.json.data.map((r: any) => r.data.id)).toEqual(['e0', 'e2']);
    const next = await s.list('perm/Diary', { after: alice.json.cursor.after }, KEYS.alice);
    expect(next.json.data.map((r: any) => r.data.id)).toEqual(['e4']);
    // Not limited to the caller's records (docs/service.md "Private records in lists"): refused, signed or not.
    for (const key of [KEYS.alice, undefined]) {
      const all = await s.list('perm/Diary', {}, key);
      expect(all.status).toBe(403);
      expect(errorOf(all)?.reason).toBe('permission/unconfined-query');
    }
  });

  it('a where on a PublicKey field accepts the JWK or the hex form', async () => {
    const byJwk = await s.list('perm/Diary', { where: { reader: jwkOf(KEYS.bob) } }, KEYS.bob);
    expect(byJwk.json.data.map((r: any) => r.data.id)).toEqual(['e1', 'e3', 'e5']);
    const byHex = await s.list('perm/Diary', { where: { reader: hexOf(KEYS.bob) } }, KEYS.bob);
    expect(byHex.json.data).toEqual(byJwk.json.data);
  });

  it('lists the records of a delegate chain through a where on the reference: Doc → Team → User → key', async () => {
    const bob = await s.list('perm/Doc', { where: { team: { collectionId: 'perm/Team', id: 't1' } } }, KEYS.bob);
    expect(bob.status, bob.text).toBe(200);
    expect(bob.json.data.map((r: any) => r.data.id)).toEqual(['d1']);
    expect((await s.list('perm/Doc', { where: { team: { collectionId: 'perm/Team', id: 't1' } } }, KEYS.carol)).status).toBe(403);
  });
});

describe('call permission', () => {
  it('a @call(owner) function: only the owner', async () => {
    const bob = await s.call('perm/Doc', 'd1', 'edit', ['by bob'], KEYS.bob);
    expect(bob.status).toBe(403);
    expect(errorOf(bob)?.message).toBe('you do not have permission to call this function');
    const alice = await s.call('perm/Doc', 'd1', 'edit', ['v2'], KEYS.alice);
    expect(alice.status).toBe(200);
    expect(alice.json.data.text).toBe('v2');
  });

  it('a @call(team) function: any member through the delegate chain', async () => {
    const bob = await s.call('perm/Doc', 'd1', 'append', ['+bob'], KEYS.bob);
    expect(bob.status, bob.text).toBe(200);
    expect(bob.json.data.text).toBe('v2+bob');
  });

  it('a caller who cannot read gets "unauthorized read" before the call check', async () => {
    for (const key of [KEYS.carol, undefined]) {
      const answer = await s.call('perm/Doc', 'd1', 'append', ['x'], key);
      expect(answer.status).toBe(403);
      expect(errorOf(answer)?.message).toBe('unauthorized read');
    }
    expect((await s.record('perm/Doc', 'd1', KEYS.alice)).json.data.text).toBe('v2+bob');
  });

  it('a private collection has no callable functions for strangers, but the constructor is open', async () => {
    const created = await s.create('perm/Diary', ['open', jwkOf(KEYS.carol), 1]);
    expect(created.status).toBe(200);
  });

  it('a record argument the caller cannot read is refused', async () => {
    const denied = await s.create('perm/Doc', ['d2', { collectionId: 'perm/Team', id: 't1' }, 'x'], KEYS.carol);
    expect(denied.status).toBe(403);
    expect(errorOf(denied)?.message).toBe('unauthorized read');
    expect((await s.record('perm/Doc', 'd2', KEYS.alice)).status).toBe(404);
  });
});

describe('signatures', () => {
  it('a replayed POST signature is refused and changes nothing', async () => {
    const body = JSON.stringify({ args: ['+once'] });
    const { signRequest } = await import('../../src/auth/index.ts');
    const header = signRequest(KEYS.alice, body);
    const path = '/v0/collections/perm%2FDoc/records/d1/call/append';
    const first = await s.post(path, undefined, { raw: body, headers: { 'x-polybase-signature': header } });
    expect(first.status, first.text).toBe(200);
    const second = await s.post(path, undefined, { raw: body, headers: { 'x-polybase-signature': header } });
    expect(second.status).toBe(400);
    expect(errorOf(second)?.reason).toBe('auth/invalid-signature');
    expect(errorOf(second)?.message).toMatch(/already been used/);
    expect((await s.record('perm/Doc', 'd1', KEYS.alice)).json.data.text).toMatch(/\+once$/);
    expect((await s.record('perm/Doc', 'd1', KEYS.alice)).json.data.text).not.toMatch(/\+once\+once$/);
  });

  it('a replayed create is refused as a replay', async () => {
    const body = JSON.stringify({ args: ['replay', jwkOf(KEYS.alice), 1] });
    const { signRequest } = await import('../../src/auth/index.ts');
    const header = signRequest(KEYS.alice, body);
    const first = await s.post('/v0/collections/perm%2FDiary/records', undefined, { raw: body, headers: { 'x-polybase-signature': header } });
    expect(first.status).toBe(200);
    const second = await s.post('/v0/collections/perm%2FDiary/records', undefined, { raw: body, headers: { 'x-polybase-signature': header } });
    expect(second.status).toBe(400);
    expect(errorOf(second)?.reason).toBe('auth/invalid-signature');
    // An unsigned create of a taken id is still 409.
    expect((await s.post('/v0/collections/perm%2FDiary/records', JSON.parse(body))).status).toBe(409);
  });

  it('a signature over a different body is refused (the key recovered is someone else)', async () => {
    const { signRequest } = await import('../../src/auth/index.ts');
    const header = signRequest(KEYS.alice, JSON.stringify({ args: ['other'] }), Date.now(), { includePublicKey: true });
    const answer = await s.post('/v0/collections/perm%2FUser/records', undefined, { raw: JSON.stringify({ args: ['mallory'] }), headers: { 'x-polybase-signature': header } });
    expect(answer.status).toBe(400);
    expect(errorOf(answer)?.reason).toBe('auth/invalid-signature');
  });

  it('a GET signature may be reused (the Polybase client caches it)', async () => {
    const { signRequest } = await import('../../src/auth/index.ts');
    const header = signRequest(KEYS.alice, '', Date.now() + 30 * 60_000);
    for (let i = 0; i < 2; i++) {
      const answer = await s.get('/v0/collections/perm%2FUser/records/alice', { headers: { 'x-polybase-signature': header } });
      expect(answer.status).toBe(200);
    }
  });

  it('X-Service-Signature works like X-Polybase-Signature', async () => {
    const { signRequest } = await import('../../src/auth/index.ts');
    const answer = await s.get('/v0/collections/perm%2FUser/records/bob', { headers: { 'x-service-signature': signRequest(KEYS.bob, '') } });
    expect(answer.status).toBe(200);
  });
});

describe('read signatures reused by the client', () => {
  it('a reused GET signature is accepted until its time window closes', async () => {
    const { signRequest } = await import('../../src/auth/index.ts');
    let clock = Date.now();
    const timed = await startTestServer({ now: () => clock });
    try {
      await timed.createCollection('clock/User', SCHEMA.slice(0, SCHEMA.indexOf('collection Team')));
      expect((await timed.create('clock/User', ['alice'], KEYS.alice)).status).toBe(200);
      const header = signRequest(KEYS.alice, '', clock);
      const read = () => timed.get('/v0/collections/clock%2FUser/records/alice', { headers: { 'x-polybase-signature': header } });
      expect((await read()).status).toBe(200);
      expect((await read()).status).toBe(200);
      clock += 6 * 60_000;
      const expired = await read();
      expect(expired.status).toBe(400);
      expect(errorOf(expired)?.message).toMatch(/expired/);
    } finally {
      await timed.close();
    }
  });
});
