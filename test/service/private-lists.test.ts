// Lists of private collections over HTTP (issue 13 item 1, docs/service.md "Private records in lists"): under the
// default, a list, a count or a list stream of a collection not readable by everyone is served only when its
// where limits it to records the caller may read, and is otherwise 403 `permission/unconfined-query` before
// anything is read; the attacks of the issue (bisecting a private text, planting records to reach the scan
// bound) get nothing. Under `privateLists: 'filtered'`, Polybase 0.6's silent filtering, with the leak it has.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publicKeyOf, signRequest } from '../../src/auth/index.ts';
import type { JsonObject } from '../../src/store/index.ts';
import { KEYS, errorOf, hexOf, jwkOf, startTestServer, type Answer, type TestServer } from './support.ts';
import { USERS_AND_TEAMS } from '../support/delegation-schema.ts';

const SCHEMA = `${USERS_AND_TEAMS}
collection Secret {
  id: string;
  @read owner: PublicKey;
  text: string;
  @index(owner, text);
  constructor (id: string, text: string) { this.id = id; this.owner = ctx.publicKey; this.text = text; }
}

collection Doc {
  id: string;
  @read team: Team;
  @read editors: PublicKey[];
  text: string;
  @index(editors);
  constructor (id: string, team: Team, editors: PublicKey[], text: string) {
    this.id = id; this.team = team; this.editors = editors; this.text = text;
  }
}

collection Sealed {
  id: string;
  owner: PublicKey;
  constructor (id: string) { this.id = id; this.owner = ctx.publicKey; }
}

@public
collection Open {
  id: string;
  owner: PublicKey;
  constructor (id: string) { this.id = id; this.owner = ctx.publicKey; }
}
`;

const NAMES = ['User', 'Team', 'Secret', 'Doc', 'Sealed', 'Open'];
const team = (id: string) => ({ collectionId: 'pl/Team', id });
const ids = (answer: Answer) => answer.json.data.map((r: { data: { id: string } }) => r.data.id);

async function setUp(s: TestServer): Promise<void> {
  for (const name of NAMES) await s.createCollection(`pl/${name}`, SCHEMA);
  for (const [id, key] of [['alice', KEYS.alice], ['bob', KEYS.bob], ['carol', KEYS.carol]] as const) {
    expect((await s.create('pl/User', [id], key)).status).toBe(200);
  }
  expect((await s.create('pl/Team', ['ab', [{ collectionId: 'pl/User', id: 'alice' }, { collectionId: 'pl/User', id: 'bob' }]])).status).toBe(200);
  expect((await s.create('pl/Team', ['c', [{ collectionId: 'pl/User', id: 'carol' }]])).status).toBe(200);
  expect((await s.create('pl/Secret', ['a1', 'QZa alice secret'], KEYS.alice)).status).toBe(200);
  expect((await s.create('pl/Secret', ['a2', 'alice again'], KEYS.alice)).status).toBe(200);
  expect((await s.create('pl/Secret', ['b1', 'mine'], KEYS.bob)).status).toBe(200);
  // A record argument is read with the caller's permission: each Doc is made by a member of its team.
  expect((await s.create('pl/Doc', ['d1', team('ab'), [], 'team ab'], KEYS.alice)).status).toBe(200);
  expect((await s.create('pl/Doc', ['d2', team('c'), [jwkOf(KEYS.bob)], 'team c, bob edits'], KEYS.carol)).status).toBe(200);
  expect((await s.create('pl/Sealed', ['s1'], KEYS.alice)).status).toBe(200);
  expect((await s.create('pl/Open', ['o1'], KEYS.alice)).status).toBe(200);
}

function expectRefused(answer: Answer, message: string | RegExp): void {
  expect(answer.status, answer.text).toBe(403);
  expect(errorOf(answer)).toEqual({ code: 'permission-denied', reason: 'permission/unconfined-query', message: typeof message === 'string' ? message : expect.stringMatching(message) });
}

describe('under the default (confined)', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
    await setUp(s);
  });
  afterAll(() => s.close());

  it("refuses the issue's bisection on a private text, whatever the range holds", async () => {
    const range = (from: string, to: string) => ({ where: { text: { $gte: from, $lt: to } }, limit: '1' });
    const holding = await s.list('pl/Secret', range('QZa', 'QZb'), KEYS.bob);
    const empty = await s.list('pl/Secret', range('QZb', 'QZc'), KEYS.bob);
    expectRefused(holding, 'list of "pl/Secret" must be limited to records you may read: add a where on "owner" equal to your public key (fields that grant read: owner)');
    expect(empty.text).toBe(holding.text);
    // Pinned to bob's own key, the same range shows only bob's records: none there, and alice's a1 changes nothing.
    const own = await s.list('pl/Secret', { where: { owner: hexOf(KEYS.bob), text: { $gte: 'QZa', $lt: 'QZb' } }, limit: '1' }, KEYS.bob);
    expect(own.status, own.text).toBe(200);
    expect(own.json).toEqual({ data: [], cursor: { before: null, after: null } });
  });

  it('serves a where pinned to the caller: its records, paged both ways, in the JWK or hex form', async () => {
    const first = await s.list('pl/Secret', { where: { owner: jwkOf(KEYS.alice) }, sort: [['text', 'asc']], limit: '1' }, KEYS.alice);
    expect(first.status, first.text).toBe(200);
    expect(ids(first)).toEqual(['a1']);
    const next = await s.list('pl/Secret', { after: first.json.cursor.after }, KEYS.alice);
    expect(ids(next)).toEqual(['a2']);
    const back = await s.list('pl/Secret', { before: next.json.cursor.before }, KEYS.alice);
    expect(ids(back)).toEqual(['a1']);
    const hex = await s.list('pl/Secret', { where: { owner: { $eq: hexOf(KEYS.alice) } } }, KEYS.alice);
    expect(ids(hex)).toEqual(['a1', 'a2']);
  });

  it("refuses a pin on another key, an $in that is not all the caller's, and an unsigned request", async () => {
    // The message names the pin whose value is not the caller's key.
    const message = `list of "pl/Secret" must be limited to records you may read ("owner" equal to ${hexOf(KEYS.alice)} is not your public key): add a where on "owner" equal to your public key (fields that grant read: owner)`;
    expectRefused(await s.list('pl/Secret', { where: { owner: hexOf(KEYS.alice) } }, KEYS.bob), message);
    expectRefused(await s.list('pl/Secret', { where: { owner: { $in: [hexOf(KEYS.bob), hexOf(KEYS.alice)] } } }, KEYS.bob), message);
    const both = await s.list('pl/Secret', { where: { owner: { $in: [hexOf(KEYS.bob), jwkOf(KEYS.bob)] } } }, KEYS.bob);
    expect(ids(both)).toEqual(['b1']);
    expectRefused(
      await s.list('pl/Secret', { where: { owner: hexOf(KEYS.bob) } }),
      'list of "pl/Secret" must be limited to records you may read, and an unsigned request may read none: sign the request and add a where on "owner" equal to your public key (fields that grant read: owner)',
    );
    // A value that is not a key is a 400 naming the field, as before.
    const bad = await s.list('pl/Secret', { where: { owner: 'not a key' } }, KEYS.bob);
    expect(bad.status).toBe(400);
    expect(errorOf(bad)?.reason).toBe('indexer/invalid-query-value');
  });

  it('serves a reference to a record that delegates to the caller, and an array of keys with $contains', async () => {
    const bob = await s.list('pl/Doc', { where: { team: team('ab') } }, KEYS.bob);
    expect(bob.status, bob.text).toBe(200);
    expect(ids(bob)).toEqual(['d1']);
    const hint = 'add a where on "team" equal to a record ({"collectionId", "id"}) whose @delegate fields hold your key, or on "editors" with {"$contains": your public key} (fields that grant read: team, editors)';
    expectRefused(
      await s.list('pl/Doc', { where: { team: team('c') } }, KEYS.bob),
      `list of "pl/Doc" must be limited to records you may read ("team" equal to {"collectionId":"pl/Team","id":"c"}: that record does not exist or its @delegate fields do not hold your key): ${hint}`,
    );
    expectRefused(await s.list('pl/Doc', { where: { team: team('nobody') } }, KEYS.bob), /must be limited to records you may read/);
    const edits = await s.list('pl/Doc', { where: { editors: { $contains: jwkOf(KEYS.bob) } } }, KEYS.bob);
    expect(edits.status, edits.text).toBe(200);
    expect(ids(edits)).toEqual(['d2']);
    // Every alternative of an $or must be confined; the message says which one is not.
    const either = await s.list('pl/Doc', { where: { $or: [{ team: team('ab') }, { editors: { $contains: hexOf(KEYS.bob) } }] } }, KEYS.bob);
    expect(either.status, either.text).toBe(200);
    expect(ids(either).sort()).toEqual(['d1', 'd2']);
    expectRefused(
      await s.list('pl/Doc', { where: { $or: [{ team: team('ab') }, { text: 'team c, bob edits' }] } }, KEYS.bob),
      `list of "pl/Doc" must be limited to records you may read (alternative 2 of the where's $or is not): ${hint}`,
    );
  });

  it('refuses a pin on a reference too long for an index key: the index holds only its start', async () => {
    const long = `${'t'.repeat(300)}`;
    expect((await s.create('pl/Team', [long, [{ collectionId: 'pl/User', id: 'bob' }]])).status).toBe(200);
    expect((await s.record('pl/Team', long, KEYS.bob)).status).toBe(200);
    expectRefused(await s.list('pl/Doc', { where: { team: team(long) } }, KEYS.bob), /must be limited to records you may read/);
  });

  it('refuses every list of a collection whose records no field lets anyone read, and serves any list of a public one', async () => {
    expectRefused(
      await s.list('pl/Sealed', { where: { owner: hexOf(KEYS.alice) } }, KEYS.alice),
      'list of "pl/Sealed" must be limited to records you may read: no record of it can be listed, as it is not @public and has no @read or @delegate field; get a record by its id instead',
    );
    const open = await s.list('pl/Open', {});
    expect(ids(open)).toEqual(['o1']);
    expect((await s.list('Collection', {})).status).toBe(200);
  });

  it('counts only a confined where, and refuses the rest before reading', async () => {
    const count = (query: Record<string, unknown>, key?: string) => s.list('pl/Secret', { ...query, count: 'true' }, key);
    const own = await count({ where: { owner: hexOf(KEYS.alice) } }, KEYS.alice);
    expect(own.status, own.text).toBe(200);
    expect(own.json).toEqual({ count: 2 });
    expectRefused(await count({}, KEYS.alice), /^count of "pl\/Secret" must be limited to records you may read: add a where on "owner"/);
    expectRefused(await count({ where: { text: { $gte: 'QZa', $lt: 'QZb' } } }, KEYS.bob), /^count of "pl\/Secret"/);
  });

  it('starts a list stream only for a confined where: the refusal is an ordinary error answer', async () => {
    expectRefused(await s.list('pl/Secret', { stream: '1' }, KEYS.bob), /^list of "pl\/Secret" must be limited/);
    const controller = new AbortController();
    const where = encodeURIComponent(JSON.stringify({ owner: hexOf(KEYS.bob) }));
    const response = await fetch(`${s.url}/v0/collections/pl%2FSecret/records?stream=1&where=${where}`, {
      headers: { 'x-polybase-signature': signRequest(KEYS.bob, '', Date.now()) },
      signal: controller.signal,
    });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    let text = '';
    while (!text.includes('event: ready')) text += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    expect(text).toContain('"id":"b1"');
    expect(text).not.toContain('a1');
  });

  it('refuses an unconfined long-poll at once, before it waits', async () => {
    const started = Date.now();
    const since = (await s.list('pl/Secret', { where: { owner: hexOf(KEYS.bob) } }, KEYS.bob)).headers.get('x-service-timestamp')!;
    expectRefused(await s.list('pl/Secret', { since, waitFor: '5s' }, KEYS.bob), /^list of "pl\/Secret" must be limited/);
    expectRefused(await s.list('pl/Secret', { since, waitFor: '5s', count: 'true' }, KEYS.bob), /^count of "pl\/Secret" must be limited/);
    expect(Date.now() - started).toBeLessThan(4000);
    // A confined one waits as before: nothing changed, so 304.
    expect((await s.list('pl/Secret', { where: { owner: hexOf(KEYS.bob) }, since, waitFor: '200ms' }, KEYS.bob)).status).toBe(304);
  });

  it('keeps a get of one record as it was: 403 when unreadable, 404 when absent (ids are not private)', async () => {
    const denied = await s.record('pl/Secret', 'a1', KEYS.bob);
    expect(denied.status).toBe(403);
    expect(errorOf(denied)?.reason).toBe('unauthorized');
    expect((await s.record('pl/Secret', 'nope', KEYS.bob)).status).toBe(404);
  });
});

describe('the planted-records attack (reaching the scan bound with records of a second key)', () => {
  // The attacker holds two keys: it plants 4,999 records of its second key in a range, so that with its own record
  // the range holds 5,000 entries, then lists the range with its first key. Under 'filtered', the list scans the
  // planted records (unreadable to the first key) and is cut by the 5,000-entry bound exactly when one more private
  // record (the victim's) lies in the range: a cut page (a scan cursor) against an ended one. Confined, the first
  // key's list reads only its own records.
  const attacker = KEYS.bob;
  const planter = `0x${'44'.repeat(32)}`;

  const ownerOf = (key: string) => publicKeyOf(key).toJwk() as unknown as JsonObject;
  // The planter's key, derived once (a derivation is an elliptic-curve multiplication, and there are 4,999 records).
  const plantersKey = ownerOf(planter);
  const record = (id: string, owner: JsonObject, text: string): JsonObject => ({ id, owner, text });
  const put = (s: TestServer, records: JsonObject[]) =>
    s.server.service.store.commit({ writes: records.map((r) => ({ kind: 'put' as const, collectionId: 'pl/Secret', record: r })) });

  /**
   * What the attacker sees of the range for each query, without the victim's record and then with it. One server
   * per mode: the planted records and the attacker's own go in one commit, the queries run, the victim's record is
   * committed, and the same queries run again. (That the second round does see the victim's record is what the
   * 'filtered' test finds.)
   */
  async function answers(privateLists: 'confined' | 'filtered', queries: Record<string, unknown>[]): Promise<Array<[Answer, Answer]>> {
    const s = await startTestServer({ privateLists });
    try {
      await s.createCollection('pl/Secret', SCHEMA);
      const planted = Array.from({ length: 4999 }, (_, i) => record(`p${String(i).padStart(4, '0')}`, plantersKey, `QZm planted ${i}`));
      await put(s, [...planted, record('own1', ownerOf(attacker), 'QZm own')]);
      const round = async () => {
        const out: Answer[] = [];
        for (const query of queries) out.push(await s.list('pl/Secret', query, attacker));
        return out;
      };
      const without = await round();
      await put(s, [record('victim', ownerOf(KEYS.alice), 'QZm victim')]);
      const withVictim = await round();
      return queries.map((_, i) => [without[i]!, withVictim[i]!]);
    } finally {
      await s.close();
    }
  }

  const range = { text: { $gte: 'QZm', $lt: 'QZn' } };
  const cursorShape = (answer: Answer) => [answer.json.cursor.before?.length ?? null, answer.json.cursor.after?.length ?? null];

  it('under the default gets a refusal, or only its own records, the same with the victim there or not', async () => {
    const [[without, withVictim], [ownWithout, ownWith]] = await answers('confined', [
      { where: range, limit: '5' },
      { where: { owner: hexOf(attacker), ...range }, limit: '5' },
    ]);
    expectRefused(without, /must be limited to records you may read/);
    expect(withVictim.text).toBe(without.text);
    expect(ownWithout.status, ownWithout.text).toBe(200);
    expect(ids(ownWithout)).toEqual(['own1']);
    // Sealed cursors differ in their bytes (a random IV) and in nothing else.
    expect(ownWith.json.data).toEqual(ownWithout.json.data);
    expect(cursorShape(ownWith)).toEqual(cursorShape(ownWithout));
  }, 60_000);

  it("under 'filtered' tells the two apart by the page's cut cursor: the leak that option keeps", async () => {
    const [[without, withVictim]] = await answers('filtered', [{ where: range, limit: '5' }]);
    expect(ids(without)).toEqual(['own1']);
    expect(ids(withVictim)).toEqual(['own1']);
    // Without the victim the range's 5,000 entries end at the bound; with it, the bound cut the page before the
    // 5,001st, whose `after` is then a scan cursor (of the fixed scan length, not the length of the returned record's cursor).
    expect(cursorShape(withVictim)).not.toEqual(cursorShape(without));
  }, 60_000);
});

describe("under privateLists: 'filtered' (Polybase 0.6's silent filtering)", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ privateLists: 'filtered' });
    await setUp(s);
  });
  afterAll(() => s.close());

  it("answers a stranger's list of a private collection with [] (Polybase's read_auth), and fills pages after filtering", async () => {
    const stranger = await s.list('pl/Secret', {}, KEYS.carol);
    expect(stranger.status).toBe(200);
    expect(stranger.json.data).toEqual([]);
    const unsigned = await s.list('pl/Secret', {});
    expect(unsigned.json.data).toEqual([]);
    const alice = await s.list('pl/Secret', { limit: '2' }, KEYS.alice);
    expect(ids(alice)).toEqual(['a1', 'a2']);
    expect((await s.list('pl/Secret', { count: 'true' }, KEYS.bob)).json).toEqual({ count: 1 });
  });
});
