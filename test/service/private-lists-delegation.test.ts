// A confined list's answer must not depend on records the caller may not read (docs/service.md "Private records
// in lists"), and that includes where the references of the records' other read-granting fields lead: a record
// the caller may read through one field also holds, in another, a reference to a record the caller may not read,
// whose @delegate references may go on for hundreds of records. Walking those first, within the budgets of loads
// (256 per check, 10,000 per request), used to leave the caller's own records out of a list (or fail a count),
// so how many records the caller saw told how far that unreadable record's delegation went.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publicKeyOf } from '../../src/auth/index.ts';
import type { JsonObject } from '../../src/store/index.ts';
import { KEYS, errorOf, hexOf, startTestServer, type Answer, type TestServer } from './support.ts';
import { USERS_AND_TEAMS } from '../support/delegation-schema.ts';

const SCHEMA = `${USERS_AND_TEAMS}
collection Memo {
  id: string;
  @read crowd: Team;
  @read team: Team;
  @read owner: PublicKey;
  @index(owner);
  @index(team);
  constructor (id: string, crowd: Team, team: Team) { this.id = id; this.crowd = crowd; this.team = team; this.owner = ctx.publicKey; }
}
`;

/** More memos than the request's budget of loads covers when each one's check walks the crowd's 300 members. */
const MEMOS = 45;
const team = (id: string) => ({ collectionId: 'dl/Team', id });
const ids = (answer: Answer) => answer.json.data.map((r: { data: { id: string } }) => r.data.id);

describe('a confined list whose records hold references the caller may not follow', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
    for (const name of ['User', 'Team', 'Memo']) await s.createCollection(`dl/${name}`, SCHEMA);
    const store = s.server.service.store;
    const put = (collectionId: string, record: JsonObject) => ({ kind: 'put' as const, collectionId, record });
    const jwk = (key: string) => publicKeyOf(key).toJwk() as unknown as JsonObject;
    // The crowd: 300 members nobody here is (their User records do not exist; each still costs a load).
    const crowd = { id: 'crowd', members: Array.from({ length: 300 }, (_, i) => ({ collectionId: 'dl/User', id: `u${i}` })) };
    await store.commit({
      writes: [
        put('dl/User', { id: 'bob', key: jwk(KEYS.bob) }),
        put('dl/Team', crowd),
        put('dl/Team', { id: 'bobs', members: [{ collectionId: 'dl/User', id: 'bob' }] }),
        ...Array.from({ length: MEMOS }, (_, i) => put('dl/Memo', { id: `m${String(i).padStart(2, '0')}`, crowd: team('crowd'), team: team('bobs'), owner: jwk(KEYS.alice) })),
      ],
    });
  });
  afterAll(() => s.close());

  const all = Array.from({ length: MEMOS }, (_, i) => `m${String(i).padStart(2, '0')}`);

  it("lists and counts every record of a where pinned to the caller's key", async () => {
    const list = await s.list('dl/Memo', { where: { owner: hexOf(KEYS.alice) }, limit: '100' }, KEYS.alice);
    expect(list.status, list.text).toBe(200);
    expect(ids(list)).toEqual(all);
    const count = await s.list('dl/Memo', { where: { owner: hexOf(KEYS.alice) }, count: 'true' }, KEYS.alice);
    expect(count.status, count.text).toBe(200);
    expect(count.json).toEqual({ count: MEMOS });
  });

  it('lists and counts every record of a where pinned to a reference that delegates to the caller', async () => {
    const list = await s.list('dl/Memo', { where: { team: team('bobs') }, limit: '100' }, KEYS.bob);
    expect(list.status, list.text).toBe(200);
    expect(ids(list)).toEqual(all);
    const count = await s.list('dl/Memo', { where: { team: team('bobs') }, count: 'true' }, KEYS.bob);
    expect(count.status, count.text).toBe(200);
    expect(count.json).toEqual({ count: MEMOS });
  });

  it('lets the caller get each record it was listed (a get and a list agree)', async () => {
    const get = await s.record('dl/Memo', 'm00', KEYS.bob);
    expect(get.status, get.text).toBe(200);
    expect(errorOf(await s.record('dl/Memo', 'm00', KEYS.carol))?.reason).toBe('unauthorized');
  });
});
