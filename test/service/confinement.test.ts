// The confinement decision (src/service/confinement.ts, docs/service.md "Private records in lists"), rule by rule,
// and what the store tells it about a plan (src/store/scan-bounds.ts): which fields each index range it will read
// fixes. A refusal happens before any entry is read.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publicKeyOf } from '../../src/auth/index.ts';
import { RecordService, UNCONFINED_REASON, type Caller } from '../../src/service/index.ts';
import { confinementOf } from '../../src/service/confinement.ts';
import { openSqliteStore, type JsonObject, type RecordStore, type ScanBounds } from '../../src/store/index.ts';
import { KEYS } from './support.ts';
import { USERS_AND_TEAMS } from '../support/delegation-schema.ts';

const SCHEMA = `${USERS_AND_TEAMS}
collection Doc {
  id: string;
  @read owner: PublicKey;
  @read editors: PublicKey[];
  @read team?: Team;
  @read teams: Team[];
  @delegate delegate?: PublicKey;
  author: PublicKey;
  text: string;
  @index(editors);
  @index(teams);
  @index(owner, text);
  constructor (id: string) { this.id = id; this.owner = ctx.publicKey; this.editors = []; this.teams = []; this.author = ctx.publicKey; this.text = ''; }
}

@public
collection Open {
  id: string;
  text: string;
  constructor (id: string) { this.id = id; this.text = ''; }
}

@read
collection Readable {
  id: string;
  text: string;
  constructor (id: string) { this.id = id; this.text = ''; }
}
`;

const alice: Caller = { publicKey: publicKeyOf(KEYS.alice) };
const bob: Caller = { publicKey: publicKeyOf(KEYS.bob) };
const unsigned: Caller = {};
const key = (k: string) => publicKeyOf(k).toHex();
const ref = (collection: string, id: string) => ({ collectionId: `c/${collection}`, id });

let store: RecordStore;
let service: RecordService;
beforeAll(async () => {
  store = openSqliteStore(':memory:');
  service = new RecordService(store);
  await service.initialise();
  for (const name of ['User', 'Team', 'Doc', 'Open', 'Readable']) await service.installSchema(`c/${name}`, SCHEMA);
  const users = [
    { id: 'alice', key: publicKeyOf(KEYS.alice).toJwk() },
    { id: 'bob', key: publicKeyOf(KEYS.bob).toJwk() },
  ];
  await store.commit({
    writes: [
      ...users.map((record) => ({ kind: 'put' as const, collectionId: 'c/User', record: record as unknown as JsonObject })),
      { kind: 'put', collectionId: 'c/Team', record: { id: 'ab', members: [ref('User', 'alice'), ref('User', 'bob')] } },
      { kind: 'put', collectionId: 'c/Team', record: { id: 'b', members: [ref('User', 'bob')] } },
      { kind: 'put', collectionId: 'c/Team', record: { id: 'loop', members: [ref('Team', 'loop')] } },
    ],
  });
});
afterAll(() => store.close());

/** 'served', or the refusal's message. */
async function decide(collection: string, where: unknown, caller: Caller, sort?: unknown): Promise<string> {
  try {
    await service.list(`c/${collection}`, { where, ...(sort ? { sort } : {}) }, caller);
    return 'served';
  } catch (error) {
    const { reason, message } = error as { reason?: string; message: string };
    if (reason !== UNCONFINED_REASON) throw error;
    return message;
  }
}

const DOC_HINT =
  'add a where on "owner" equal to your public key, or on "editors" with {"$contains": your public key}, or on "team" equal to a record ({"collectionId", "id"}) whose @delegate fields hold your key, or on "teams" with {"$contains": a record ({"collectionId", "id"}) whose @delegate fields hold your key}, or on "delegate" equal to your public key (fields that grant read: owner, editors, team, teams, delegate)';

describe('the confinement decision', () => {
  it('serves every query of a collection readable by everyone, signed or not', async () => {
    expect(await decide('Open', { text: { $gte: 'a' } }, unsigned)).toBe('served');
    expect(await decide('Readable', {}, bob)).toBe('served');
  });

  it('serves a PublicKey field equal to the caller, and refuses another key, a field that grants nothing, and no pin', async () => {
    expect(await decide('Doc', { owner: key(KEYS.alice) }, alice)).toBe('served');
    expect(await decide('Doc', { owner: { $eq: publicKeyOf(KEYS.alice).toJwk() } }, alice)).toBe('served');
    expect(await decide('Doc', { delegate: key(KEYS.alice) }, alice)).toBe('served');
    const refused = `list of "c/Doc" must be limited to records you may read: ${DOC_HINT}`;
    // A pin on a field that grants read, to a value that does not grant it to the caller, is named.
    expect(await decide('Doc', { owner: key(KEYS.bob) }, alice)).toBe(
      `list of "c/Doc" must be limited to records you may read ("owner" equal to ${key(KEYS.bob)} is not your public key): ${DOC_HINT}`,
    );
    expect(await decide('Doc', { author: key(KEYS.alice) }, alice)).toBe(refused);
    expect(await decide('Doc', {}, alice)).toBe(refused);
    expect(await decide('Doc', { text: { $gte: 'QZa', $lt: 'QZb' } }, alice)).toBe(refused);
    // A range over the caller's key is not an equality: it is not a pin.
    expect(await decide('Doc', { owner: { $gte: key(KEYS.alice), $lte: key(KEYS.alice) } }, alice)).toBe(refused);
  });

  it('serves an $in only when every value is the caller', async () => {
    expect(await decide('Doc', { owner: { $in: [key(KEYS.alice), publicKeyOf(KEYS.alice).toJwk()] } }, alice)).toBe('served');
    expect(await decide('Doc', { owner: { $in: [key(KEYS.alice), key(KEYS.bob)] } }, alice)).toBe(
      `list of "c/Doc" must be limited to records you may read ("owner" equal to ${key(KEYS.bob)} is not your public key): ${DOC_HINT}`,
    );
  });

  it('serves an array of keys with $contains the caller', async () => {
    expect(await decide('Doc', { editors: { $contains: key(KEYS.bob) } }, bob)).toBe('served');
    expect(await decide('Doc', { editors: { $contains: key(KEYS.alice) } }, bob)).toBe(
      `list of "c/Doc" must be limited to records you may read ("editors" containing ${key(KEYS.alice)} is not your public key): ${DOC_HINT}`,
    );
  });

  it('serves a reference (or an array of them) to a record that delegates to the caller, through a chain', async () => {
    expect(await decide('Doc', { team: ref('Team', 'ab') }, alice)).toBe('served');
    expect(await decide('Doc', { team: ref('Team', 'b') }, bob)).toBe('served');
    expect(await decide('Doc', { teams: { $contains: ref('Team', 'b') } }, bob)).toBe('served');
    for (const team of ['b', 'missing', 'loop']) {
      expect(await decide('Doc', { team: ref('Team', team) }, alice)).toBe(
        `list of "c/Doc" must be limited to records you may read ("team" equal to {"collectionId":"c/Team","id":"${team}"}: that record does not exist or its @delegate fields do not hold your key): ${DOC_HINT}`,
      );
    }
    // A reference to a record of another collection that happens to hold the key is followed as canRead follows it.
    expect(await decide('Doc', { team: ref('User', 'alice') }, alice)).toBe('served');
  });

  it('needs every alternative of an $or confined, and says which is not', async () => {
    expect(await decide('Doc', { $or: [{ owner: key(KEYS.bob) }, { team: ref('Team', 'b') }] }, bob)).toBe('served');
    expect(await decide('Doc', { $or: [{ owner: key(KEYS.bob) }, { text: 'x' }] }, bob)).toBe(
      `list of "c/Doc" must be limited to records you may read (alternative 2 of the where's $or is not): ${DOC_HINT}`,
    );
    // The pin outside the $or applies to both alternatives.
    expect(await decide('Doc', { owner: key(KEYS.bob), $or: [{ text: 'x' }, { text: 'y' }] }, bob, [['text', 'asc']])).toBe('served');
    // An $or ordered by the pinned field: the pin becomes a range of one value, which still fixes it.
    expect(await decide('Doc', { $or: [{ owner: key(KEYS.bob) }, { owner: publicKeyOf(KEYS.bob).toJwk() }] }, bob, [['owner', 'asc']])).toBe('served');
  });

  it('refuses an unsigned request, saying to sign it', async () => {
    expect(await decide('Doc', { owner: key(KEYS.alice) }, unsigned)).toBe(
      `list of "c/Doc" must be limited to records you may read, and an unsigned request may read none: sign the request and ${DOC_HINT}`,
    );
  });

  it('refuses a count the same way, naming it', async () => {
    expect((await service.count('c/Doc', { owner: key(KEYS.alice) }, alice)).count).toBe(0);
    await expect(service.count('c/Doc', {}, alice)).rejects.toMatchObject({ status: 403, reason: UNCONFINED_REASON, message: expect.stringMatching(/^count of "c\/Doc"/) });
  });

  it('refuses a pin the plan applies only as a re-check: the check sees the ranges read, not the where', async () => {
    const collection = await service.collections.resolve('c/Doc');
    const check = confinementOf(collection, alice.publicKey, async () => null, 'list')!.check;
    const aliceKey = { kind: 'publicKey' as const, value: publicKeyOf(KEYS.alice).toUncompressed().subarray(1) };
    await expect(check({ ranges: [{ branch: 0, fixed: [{ path: 'owner', value: aliceKey }] }] })).resolves.toBeUndefined();
    // The same pin as a re-check only: the range fixes nothing.
    await expect(check({ ranges: [{ branch: 0, fixed: [] }] })).rejects.toMatchObject({ reason: UNCONFINED_REASON });
    await expect(check({ ranges: [{ branch: 0, fixed: [{ path: 'author', value: aliceKey }] }] })).rejects.toMatchObject({ reason: UNCONFINED_REASON });
    // A reference whose id is longer than an index keeps: its range holds others sharing the start, so it is
    // not reported as fixed, even when the referenced record delegates to the caller.
    const long = 'b'.repeat(300);
    await store.commit({ writes: [{ kind: 'put', collectionId: 'c/Team', record: { id: long, members: [ref('User', 'bob')] } }] });
    expect(await decide('Doc', { team: ref('Team', long) }, bob)).toMatch(/must be limited/);
  });
});

describe('what the store tells the check', () => {
  async function bounds(where: unknown, sort?: unknown): Promise<ScanBounds> {
    let told: ScanBounds | undefined;
    await store.list('c/Doc', { where, ...(sort ? { sort } : {}) }, undefined, { confine: (b) => void (told = b) });
    return told!;
  }
  const paths = (b: ScanBounds) => b.ranges.map((r) => [r.branch, r.fixed.map((f) => f.path)]);

  it('reports each range with its alternative and the fields its index prefix fixes', async () => {
    expect(paths(await bounds({ owner: key(KEYS.alice), text: { $gte: 'a' } }))).toEqual([[0, ['owner']]]);
    expect(paths(await bounds({ text: { $gte: 'a' } }))).toEqual([[0, []]]);
    expect(paths(await bounds({ owner: { $in: [key(KEYS.alice), key(KEYS.bob)] } }))).toEqual([[0, ['owner']], [0, ['owner']]]);
    expect(paths(await bounds({ $or: [{ owner: key(KEYS.alice) }, { text: 'x' }] }))).toEqual([[0, ['owner']], [1, ['text']]]);
    expect(paths(await bounds({ editors: { $contains: key(KEYS.alice) } }))).toEqual([[0, ['editors']]]);
    // Ordered by the equality field inside an $or: a range of one value, reported as fixed.
    expect(paths(await bounds({ $or: [{ owner: key(KEYS.alice) }, { owner: key(KEYS.bob) }] }, [['owner', 'asc']]))).toEqual([[0, ['owner']], [1, ['owner']]]);
    // A long reference is cut in its index key: not fixed.
    expect(paths(await bounds({ team: ref('Team', 'x'.repeat(300)) }))).toEqual([[0, []]]);
  });

  it('reads nothing when the check refuses', async () => {
    await expect(store.list('c/Doc', {}, undefined, { confine: () => { throw new Error('refused'); } })).rejects.toThrow('refused');
    await expect(store.count('c/Doc', {}, undefined, { confine: () => { throw new Error('refused'); } })).rejects.toThrow('refused');
  });
});
