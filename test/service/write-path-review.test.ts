// Adversarial cases of the write path's first attempt on cached state (a call on the record as this process last
// committed it, a create with the cached schema; records.ts #callOnRecent and #createWithCached): whatever that
// attempt meets, the outcome must be the one a run on fresh reads gives, and no write may be applied twice.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { publicKeyOf } from '../../src/auth/index.ts';
import { RecordService } from '../../src/service/index.ts';
import { openSqliteStore, StoreError, type RecordStore } from '../../src/store/index.ts';

const COUNTER = `
@public
collection Counter {
  id: string;
  n: number;
  constructor (id: string) { this.id = id; this.n = 0; }
  add (k: number) { this.n = this.n + k; }
}`;

let dir: string;
let store: RecordStore;
let service: RecordService;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'vellum-write-path-'));
  store = openSqliteStore(join(dir, 'db.sqlite'));
  service = new RecordService(store);
  await service.initialise();
  await service.installSchema('ns/Counter', COUNTER);
  await service.create('ns/Counter', ['c'], {});
  // Now an update: the record is among the ones the store keeps, and the schema is cached.
  await service.call('ns/Counter', 'c', 'add', [1], {});
});

afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * The next transaction commits, and then its caller hears that the database went away: as when PostgreSQL's
 * COMMIT succeeded but the connection dropped before its answer came (the outcome is unknown to the server).
 */
function loseNextCommitAnswer(): void {
  const kv = store.kv;
  const transact = kv.transact.bind(kv);
  kv.transact = async (reads, body) => {
    kv.transact = transact;
    await transact(reads, body);
    throw new StoreError('unavailable', 'store/unavailable', 'the connection ended before COMMIT was answered');
  };
}

describe('a first attempt whose commit outcome is unknown', () => {
  it('a call answers 503 and is not run a second time', async () => {
    expect(store.lastCommitted('ns/Counter', 'c')).toMatchObject({ record: { n: 1 } });
    loseNextCommitAnswer();
    await expect(service.call('ns/Counter', 'c', 'add', [10], {})).rejects.toMatchObject({ code: 'unavailable' });
    // Applied once (by the commit whose answer was lost), not twice.
    expect((await store.get('ns/Counter', 'c')).record).toMatchObject({ n: 11 });
    // The cache still holds the version before it (the store never heard of that commit): the next call's first
    // attempt conflicts, and it runs on what it reads.
    expect(store.lastCommitted('ns/Counter', 'c')).toMatchObject({ record: { n: 1 } });
    expect(await service.call('ns/Counter', 'c', 'add', [1], {})).toMatchObject({ n: 12 });
  });

  it('a create answers 503, not that its own id is taken', async () => {
    loseNextCommitAnswer();
    await expect(service.create('ns/Counter', ['d'], {})).rejects.toMatchObject({ code: 'unavailable' });
    expect((await store.get('ns/Counter', 'd')).record).toMatchObject({ id: 'd', n: 0 });
  });
});

// Two connections to one database, as two processes would have: `serving` keeps the records it updated and its
// schemas cached; `other` changes things behind its back.
const SHARED = `
@public
collection User {
  id: string;
  @delegate
  key: PublicKey;
  constructor (id: string) { this.id = id; this.key = ctx.publicKey; }
  setKey (key: PublicKey) { this.key = key; }
}

@public
collection Counter {
  id: string;
  n: number;
  owner?: User;
  constructor (id: string) { this.id = id; this.n = 0; }
  add (k: number) { this.n = this.n + k; }
  absorb (from: Counter) { this.n = this.n + from.n; }
  take (from: Counter) { this.n = this.n + from.n; from.n = 0; }
  setOwner (owner: User) { this.owner = owner; }
  @call(owner)
  ownerAdd (k: number) { this.n = this.n + k; }
  destroy () { selfdestruct(); }
}`;

describe('a first attempt on state another connection changed', () => {
  let otherStore: RecordStore;
  let other: RecordService;
  const alice = publicKeyOf(`0x${'11'.repeat(32)}`);
  const bob = publicKeyOf(`0x${'22'.repeat(32)}`);
  const n = async (id: string) => ((await store.get('ns/Counter', id)).record as { n: number } | null)?.n;

  beforeEach(async () => {
    otherStore = openSqliteStore(join(dir, 'db.sqlite'));
    other = new RecordService(otherStore);
    await other.initialise();
    await service.installSchema('ns/User', SHARED);
    await service.installSchema('ns/Counter', SHARED);
    await service.create('ns/Counter', ['e'], {});
    await service.call('ns/Counter', 'e', 'add', [1], {});
    // c (from the first beforeEach) and e: n = 1, both as `serving` last updated them.
    expect(store.lastCommitted('ns/Counter', 'c')).toMatchObject({ record: { n: 1 } });
  });

  afterEach(async () => {
    await otherStore.close();
  });

  it('a permission through a @delegate record changed since is the current one', async () => {
    await service.create('ns/User', ['u'], { publicKey: alice });
    await service.call('ns/Counter', 'c', 'setOwner', [{ collectionId: 'ns/User', id: 'u' }], {});
    expect(await service.call('ns/Counter', 'c', 'ownerAdd', [1], { publicKey: alice })).toMatchObject({ n: 2 });
    await other.call('ns/User', 'u', 'setKey', [bob.toJwk()], {});
    await expect(service.call('ns/Counter', 'c', 'ownerAdd', [1], { publicKey: alice })).rejects.toMatchObject({ reason: 'unauthorized' });
    expect(await service.call('ns/Counter', 'c', 'ownerAdd', [1], { publicKey: bob })).toMatchObject({ n: 3 });
  });

  it('a record argument is read as it is now, and one the call writes that changes before its commit is read again', async () => {
    await other.call('ns/Counter', 'e', 'add', [99], {});
    expect(await service.call('ns/Counter', 'c', 'absorb', [{ collectionId: 'ns/Counter', id: 'e' }], {})).toMatchObject({ n: 101 });
    // While the call runs (after it read e, before it commits), the other connection adds 50 to e.
    // A record argument is read with getJson (read-in-form.ts), as every read of one record by id for a request.
    const getJson = store.getJson.bind(store);
    let raced = false;
    store.getJson = async (collectionId, id) => {
      const read = await getJson(collectionId, id);
      if (!raced && id === 'e') {
        raced = true;
        await other.call('ns/Counter', 'e', 'add', [50], {});
      }
      return read;
    };
    expect(await service.call('ns/Counter', 'c', 'take', [{ collectionId: 'ns/Counter', id: 'e' }], {})).toMatchObject({ n: 101 + 150 });
    expect(raced).toBe(true);
    expect(await n('e')).toBe(0);
  });

  it('a signed call whose first attempt conflicted commits on fresh reads with its claim, once', async () => {
    await other.call('ns/Counter', 'c', 'add', [10], {});
    const caller = { claim: { signature: 'sig-a', expiresAt: Date.now() + 60_000 } };
    expect(await service.call('ns/Counter', 'c', 'add', [1], caller)).toMatchObject({ n: 12 });
    await expect(service.call('ns/Counter', 'c', 'add', [1], caller)).rejects.toMatchObject({ reason: 'auth/invalid-signature' });
    await expect(other.call('ns/Counter', 'c', 'add', [1], caller)).rejects.toMatchObject({ reason: 'auth/invalid-signature' });
    expect(await n('c')).toBe(12);
    // A signed call that changes nothing still commits its claim, with the record's version expected.
    const still = { claim: { signature: 'sig-b', expiresAt: Date.now() + 60_000 } };
    expect(await service.call('ns/Counter', 'c', 'add', [0], still)).toMatchObject({ n: 12 });
    await expect(service.call('ns/Counter', 'c', 'add', [0], still)).rejects.toMatchObject({ reason: 'auth/invalid-signature' });
  });

  it('a record deleted and created again with the same id and fields is not taken for the one cached', async () => {
    await other.call('ns/Counter', 'c', 'destroy', [], {});
    await other.create('ns/Counter', ['c'], {});
    await other.call('ns/Counter', 'c', 'add', [1], {}); // the same JSON as the record cached, n = 1
    expect(JSON.stringify((await store.get('ns/Counter', 'c')).record)).toBe(JSON.stringify(store.lastCommitted('ns/Counter', 'c')!.record));
    await other.call('ns/Counter', 'c', 'add', [1], {});
    expect(await service.call('ns/Counter', 'c', 'add', [5], {})).toMatchObject({ n: 7 });
    await other.call('ns/Counter', 'c', 'destroy', [], {});
    await expect(service.call('ns/Counter', 'c', 'add', [5], {})).rejects.toMatchObject({ reason: 'record/not-found' });
  });

  it('calls committed together: the one whose record changed runs again, the others commit once', async () => {
    const ids = ['g0', 'g1', 'g2', 'g3', 'g4', 'g5'];
    for (const id of ids) {
      await service.create('ns/Counter', [id], {});
      await service.call('ns/Counter', id, 'add', [1], {});
    }
    await other.call('ns/Counter', 'g3', 'add', [10], {});
    const answers = await Promise.all(ids.map((id) => service.call('ns/Counter', id, 'add', [1], {})));
    expect(answers.map((record) => record?.n)).toEqual([2, 2, 2, 12, 2, 2]);
    for (const [i, id] of ids.entries()) expect(await n(id)).toBe(i === 3 ? 12 : 2);
    // And with the schema changed meanwhile, every one of them runs again, on the new function.
    await other.installSchema('ns/Counter', SHARED.replace('add (k: number) { this.n = this.n + k; }', 'add (k: number) { this.n = this.n + k * 100; }'));
    const again = await Promise.all(ids.map((id) => service.call('ns/Counter', id, 'add', [1], {})));
    expect(again.map((record) => record?.n)).toEqual([102, 102, 102, 112, 102, 102]);
  });

  it('a schema update that casts the records meanwhile: the call runs the new function on the cast record', async () => {
    const withLabel = SHARED.replace('  n: number;\n  owner?: User;', "  n: number;\n  label: string;\n  owner?: User;").replace(
      'add (k: number) { this.n = this.n + k; }',
      "add (k: number) { this.n = this.n + k; this.label = this.label + 'v2'; }",
    );
    await other.installSchema('ns/Counter', withLabel);
    expect((await store.get('ns/Counter', 'c')).record).toMatchObject({ n: 1, label: '' });
    expect(await service.call('ns/Counter', 'c', 'add', [1], {})).toEqual({ id: 'c', n: 2, label: 'v2' });
    // And back: the field is dropped from every record, the call's write included.
    await other.installSchema('ns/Counter', SHARED, ['label']); // the label goes, as asked (issue 22: never silently)
    expect(await service.call('ns/Counter', 'c', 'add', [1], {})).toEqual({ id: 'c', n: 3 });
  });
});

describe('a create on fresh reads that a schema update overtakes', () => {
  it('is committed only under the schema it ran with: a record created meanwhile follows the new schema', async () => {
    const otherStore = openSqliteStore(join(dir, 'db.sqlite'));
    const other = new RecordService(otherStore);
    await other.initialise();
    try {
      const withLabel = COUNTER.replace('  n: number;', "  n: number;\n  label: string;").replace('this.n = 0;', "this.n = 0; this.label = 'new';");
      // No cached schema to start from: the create resolves it (stamp, then schema), runs the constructor, and
      // before its commit the other connection updates the schema and casts every stored record.
      const fresh = new RecordService(store);
      await fresh.initialise(); // defines the meta collection only: no schema of ns/Counter is cached
      const commit = store.commit.bind(store);
      let raced = false;
      store.commit = async (request) => {
        if (!raced && request.writes?.some((write) => write.kind === 'put' && write.record.id === 'late')) {
          raced = true;
          await other.installSchema('ns/Counter', withLabel);
        }
        return commit(request);
      };
      await fresh.create('ns/Counter', ['late'], {});
      expect(raced).toBe(true);
      // Before: 'late' was stored as the old constructor made it, without the new schema's required label.
      expect((await store.get('ns/Counter', 'late')).record).toEqual({ id: 'late', n: 0, label: 'new' });
      expect((await store.get('ns/Counter', 'c')).record).toEqual({ id: 'c', n: 1, label: '' });
    } finally {
      await otherStore.close();
    }
  });
});

describe('a call on fresh reads that a schema update overtakes', () => {
  it('is committed only under the schema it ran with: it cannot put back a field the update removed', async () => {
    const otherStore = openSqliteStore(join(dir, 'db.sqlite'));
    const other = new RecordService(otherStore);
    await other.initialise();
    try {
      const withNote = COUNTER.replace('  n: number;', '  n: number;\n  note?: string;').replace('add (k: number)', 'setNote (note: string) { this.note = note; }\n  add (k: number)');
      await service.installSchema('ns/Counter', withNote);
      // The record has no note, so removing the field casts nothing: its version stays. A service with no schema
      // cached runs the call on fresh reads; after it read the record, the stamp and the schema, before its
      // commit, the other connection removes the field (and setNote with it).
      const fresh = new RecordService(store);
      await fresh.initialise(); // defines the meta collection only: no schema of ns/Counter is cached
      const commit = store.commit.bind(store);
      let raced = false;
      store.commit = async (request) => {
        if (!raced) {
          raced = true;
          await other.installSchema('ns/Counter', COUNTER);
        }
        return commit(request);
      };
      // Before: committed under the schema without the field, the record then holding a note the schema lacks.
      await expect(fresh.call('ns/Counter', 'c', 'setNote', ['x'], {})).rejects.toMatchObject({ reason: 'function/not-found' });
      expect(raced).toBe(true);
      expect((await store.get('ns/Counter', 'c')).record).toEqual({ id: 'c', n: 1 });
    } finally {
      await otherStore.close();
    }
  });
});
