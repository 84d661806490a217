// A write is serializable with respect to every record it read, not only the ones it writes (records.ts,
// read-set.ts): the records its permission check walked through (@delegate), found missing included, and its
// record arguments. Most cases change such a record through a second connection to the same database exactly
// between the call's reads and its commit (the serving store's next transaction first runs the change); the
// "at once" ones run writes concurrently and check that the outcome is a serial one. On SQLite and PostgreSQL.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { publicKeyOf } from '../../src/auth/index.ts';
import { RecordService } from '../../src/service/index.ts';
import type { CommitRequest, RecordStore } from '../../src/store/index.ts';
import { storePairBackends } from '../support/store-pairs.ts';

const SCHEMA = `
@public
collection User {
  id: string;
  @delegate
  key: PublicKey;
  constructor (id: string) { this.id = id; this.key = ctx.publicKey; }
  setKey (key: PublicKey) { this.key = key; }
  destroy () { selfdestruct(); }
}

@public
collection Counter {
  id: string;
  n: number;
  // The backup first: a permission check walks the fields in the order declared.
  backup?: User;
  owner?: User;
  constructor (id: string) { this.id = id; this.n = 1; }
  add (k: number) { this.n = this.n + k; }
  absorb (from: Counter) { this.n = this.n + from.n; }
  setOwner (owner: User) { this.owner = owner; }
  setBackup (backup: User) { this.backup = backup; }
  @call(owner)
  ownerAdd (k: number) { this.n = this.n + k; }
  @call(backup, owner)
  eitherAdd (k: number) { this.n = this.n + k; }
}

@public
collection Shift {
  id: string;
  onCall: boolean;
  constructor (id: string) { this.id = id; this.onCall = true; }
  join () { this.onCall = true; }
  leave (partner: Shift) {
    if (!partner.onCall) error('the partner is off call: someone must stay');
    this.onCall = false;
  }
}

@public
collection Copy {
  id: string;
  n: number;
  constructor (id: string, from: Counter) { this.id = id; this.n = from.n; }
}`;

const alice = publicKeyOf(`0x${'11'.repeat(32)}`);
const bob = publicKeyOf(`0x${'22'.repeat(32)}`);

const backends = storePairBackends('vellum-write-reads-');

describe.each(backends)('%s: a write commits only if what it read is still as read', (_name, openPair) => {
  let store: RecordStore;
  let otherStore: RecordStore;
  let service: RecordService;
  let other: RecordService;
  const n = async (id: string) => ((await store.get('ns/Counter', id)).record as { n: number }).n;

  beforeEach(async () => {
    [store, otherStore] = await openPair();
    service = new RecordService(store);
    other = new RecordService(otherStore);
    await service.initialise();
    await other.initialise();
    await service.installSchema('ns/User', SCHEMA);
    await service.installSchema('ns/Counter', SCHEMA);
    await service.installSchema('ns/Copy', SCHEMA);
    await service.installSchema('ns/Shift', SCHEMA);
    await service.create('ns/User', ['u'], { publicKey: alice });
    for (const id of ['c', 'e']) {
      await service.create('ns/Counter', [id], {});
      await service.call('ns/Counter', id, 'setOwner', [{ collectionId: 'ns/User', id: 'u' }], {});
    }
  }, 60_000);

  afterEach(async () => {
    await store.close();
    await otherStore.close();
  });

  /** The serving store's next transaction (a call's commit) first awaits `change`; returns how often it ran. */
  function beforeNextCommit(change: () => Promise<unknown>): { runs: number } {
    const seen = { runs: 0 };
    const kv = store.kv;
    const transact = kv.transact.bind(kv);
    kv.transact = async (reads, body) => {
      kv.transact = transact;
      seen.runs++;
      await change();
      return transact(reads, body);
    };
    return seen;
  }

  /** The commit requests the serving store receives from now on. */
  function recordCommits(): CommitRequest[] {
    const requests: CommitRequest[] = [];
    const commit = store.commit.bind(store);
    store.commit = (request) => {
      requests.push(request);
      return commit(request);
    };
    return requests;
  }

  it('a delegation revoked between the permission check and the commit: the call runs again and is refused', async () => {
    expect(await service.call('ns/Counter', 'c', 'ownerAdd', [1], { publicKey: alice })).toMatchObject({ n: 2 });
    const hook = beforeNextCommit(() => other.call('ns/User', 'u', 'setKey', [bob.toJwk()], {}));
    await expect(service.call('ns/Counter', 'c', 'ownerAdd', [10], { publicKey: alice })).rejects.toMatchObject({
      reason: 'unauthorized',
      message: 'you do not have permission to call this function',
    });
    expect(hook.runs).toBe(1);
    expect(await n('c')).toBe(2);
    // The new key holder may call; the old one may not.
    expect(await service.call('ns/Counter', 'c', 'ownerAdd', [1], { publicKey: bob })).toMatchObject({ n: 3 });
  });

  it('write skew: two calls each reading the other record and writing their own cannot both commit on stale reads', async () => {
    // c.absorb(e) reads e = 1; before its commit, e.absorb(c) reads c = 1 and commits e = 2. Serially, c ends at 3.
    let otherAnswer: unknown;
    const hook = beforeNextCommit(async () => {
      otherAnswer = await other.call('ns/Counter', 'e', 'absorb', [{ collectionId: 'ns/Counter', id: 'c' }], {});
    });
    expect(await service.call('ns/Counter', 'c', 'absorb', [{ collectionId: 'ns/Counter', id: 'e' }], {})).toMatchObject({ n: 3 });
    expect(hook.runs).toBe(1);
    expect(otherAnswer).toMatchObject({ n: 2 });
    expect([await n('c'), await n('e')]).toEqual([3, 2]);
  });

  it('write skew from one connection at once (one group commit on SQLite): the outcome is one of the serial orders', async () => {
    const answers = await Promise.all([
      service.call('ns/Counter', 'c', 'absorb', [{ collectionId: 'ns/Counter', id: 'e' }], {}),
      service.call('ns/Counter', 'e', 'absorb', [{ collectionId: 'ns/Counter', id: 'c' }], {}),
    ]);
    const final = [await n('c'), await n('e')];
    expect([[2, 3], [3, 2]]).toContainEqual(final);
    expect(answers.map((record) => (record as { n: number }).n)).toEqual(final);
  });

  it('write skew at once through two connections: of two shifts each leaving if the other is on call, one stays', async () => {
    const shift = (id: string) => ({ collectionId: 'ns/Shift', id });
    await service.create('ns/Shift', ['s'], {});
    await service.create('ns/Shift', ['t'], {});
    for (let round = 0; round < 20; round++) {
      const outcomes = await Promise.allSettled([
        service.call('ns/Shift', 's', 'leave', [shift('t')], {}),
        other.call('ns/Shift', 't', 'leave', [shift('s')], {}),
      ]);
      const onCall = [(await store.get('ns/Shift', 's')).record!.onCall, (await store.get('ns/Shift', 't')).record!.onCall];
      expect(onCall, `round ${round}`).toContain(true);
      expect(outcomes.filter((o) => o.status === 'fulfilled'), `round ${round}`).toHaveLength(1);
      const refused = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
      expect(String(refused.reason.message)).toContain('the partner is off call');
      await service.call('ns/Shift', 's', 'join', [], {});
      await service.call('ns/Shift', 't', 'join', [], {});
    }
  });

  it('a create whose record argument changed before its commit runs again on the new value', async () => {
    const hook = beforeNextCommit(() => other.call('ns/Counter', 'e', 'add', [41], {}));
    expect(await service.create('ns/Copy', ['x', { collectionId: 'ns/Counter', id: 'e' }], {})).toMatchObject({ n: 42 });
    expect(hook.runs).toBe(1);
    expect((await store.get('ns/Copy', 'x')).record).toMatchObject({ n: 42 });
  });

  it('a @delegate record found missing must stay missing: created meanwhile, the call runs again and commits once', async () => {
    // A backup reference left dangling: its record deleted after it was set.
    await service.create('ns/User', ['ghost'], { publicKey: alice });
    await service.call('ns/Counter', 'c', 'setBackup', [{ collectionId: 'ns/User', id: 'ghost' }], {});
    await service.call('ns/User', 'ghost', 'destroy', [], {});
    const commits = recordCommits();
    const hook = beforeNextCommit(() => other.create('ns/User', ['ghost'], { publicKey: bob }));
    expect(await service.call('ns/Counter', 'c', 'eitherAdd', [10], { publicKey: alice })).toMatchObject({ n: 11 });
    expect(hook.runs).toBe(1);
    expect(await n('c')).toBe(11);
    // The first commit expected the missing backup absent (and conflicted); the one that went through expected it
    // at the version created.
    expect(commits[0]!.expect).toContainEqual({ collectionId: 'ns/User', id: 'ghost', version: null });
    const ghost = await store.get('ns/User', 'ghost');
    expect(commits.at(-1)!.expect).toContainEqual({ collectionId: 'ns/User', id: 'ghost', version: ghost.version });
  });

  it('a call that reads no record but its own expects nothing more in its commit', async () => {
    const commits = recordCommits();
    await service.call('ns/Counter', 'c', 'add', [1], {});
    await service.call('ns/Counter', 'c', 'add', [1], {});
    expect(commits).toHaveLength(2);
    for (const commit of commits) {
      expect(commit.expect).toEqual([{ collectionId: 'ns/Counter', id: 'c', version: expect.any(Number) }]);
      expect(commit.expectStamps).toHaveLength(1);
    }
    // A create reading nothing but expecting its id free, likewise.
    await service.create('ns/Counter', ['f'], {});
    expect(commits[2]!.expect).toEqual([{ collectionId: 'ns/Counter', id: 'f', version: null }]);
  });

  it('the records read for permission and as arguments are expected, each once, besides the ones written', async () => {
    const commits = recordCommits();
    await service.call('ns/Counter', 'c', 'ownerAdd', [1], { publicKey: alice });
    const user = await store.get('ns/User', 'u');
    expect(commits[0]!.expect).toEqual([
      { collectionId: 'ns/Counter', id: 'c', version: expect.any(Number) },
      { collectionId: 'ns/User', id: 'u', version: user.version },
    ]);
    await service.call('ns/Counter', 'c', 'absorb', [{ collectionId: 'ns/Counter', id: 'c' }], {});
    expect(commits[1]!.expect).toHaveLength(1);
  });
});
