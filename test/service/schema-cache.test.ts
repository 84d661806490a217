// The collection registry keeps compiled schemas between requests. A get skips even the schema's change-stamp
// read when the store's clock has not moved since the schema was last found current; these tests make sure a
// schema changed by another connection to the same database (as another process would) is still seen at once,
// on SQLite and PostgreSQL.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { publicKeyOf } from '../../src/auth/index.ts';
import { RecordService } from '../../src/service/index.ts';
import type { RecordStore } from '../../src/store/index.ts';
import { storePairBackends } from '../support/store-pairs.ts';

const PUBLIC = `
@public
collection Note {
  id: string;
  text: string;
  constructor (id: string, text: string) { this.id = id; this.text = text; }
  shout () { this.text = this.text + '!'; }
}`;

// The same collection, whose function now says something else.
const CHANGED_FUNCTION = `
@public
collection Note {
  id: string;
  text: string;
  constructor (id: string, text: string) { this.id = id; this.text = text; }
  shout () { this.text = this.text + '?'; }
}`;

// The same fields, but only the key in its reader field (the creator) may read.
const PRIVATE = `
collection Note {
  id: string;
  text: string;
  @read reader?: PublicKey;
  constructor (id: string, text: string) { this.id = id; this.text = text; this.reader = ctx.publicKey; }
}`;

const backends = storePairBackends('vellum-schema-cache-');

describe.each(backends)('%s', (_name, openPair) => {
  let stores: RecordStore[];
  let serving: RecordService;
  let other: RecordService;

  beforeEach(async () => {
    stores = await openPair();
    serving = new RecordService(stores[0]!);
    other = new RecordService(stores[1]!);
    await serving.initialise();
    await other.initialise();
  }, 60_000);

  afterEach(async () => {
    for (const store of stores) await store.close();
  });

  describe('schema cache', () => {
    it('answers repeated gets from the cached schema, and sees a schema changed through another connection at once', async () => {
      await serving.installSchema('ns/Note', PUBLIC);
      await serving.create('ns/Note', ['a', 'hello'], {});
      for (let i = 0; i < 3; i++) expect(JSON.parse((await serving.get('ns/Note', 'a', {})).json)).toEqual({ id: 'a', text: 'hello' });

      // Another connection (another process, in production) makes the collection private. Record a is unchanged, so
      // only a read of the store's clock (or the meta collection's stamp) with it can tell the get that its cached
      // schema is out of date: its own version cannot stand in for that clock.
      await other.installSchema('ns/Note', PRIVATE);
      await expect(serving.get('ns/Note', 'a', {})).rejects.toMatchObject({ reason: 'unauthorized' });
      // And public again.
      await other.installSchema('ns/Note', PUBLIC);
      expect(JSON.parse((await serving.get('ns/Note', 'a', {})).json)).toEqual({ id: 'a', text: 'hello' });
    });

    it('a commit of any record makes the next get check the schema again', async () => {
      await serving.installSchema('ns/Note', PUBLIC);
      await serving.create('ns/Note', ['a', 'hello'], {});
      const { timestamp } = await serving.get('ns/Note', 'a', {});
      expect(serving.collections.cachedAt('ns/Note', timestamp)).toBeDefined();
      await other.create('ns/Note', ['b', 'there'], {});
      const after = await serving.get('ns/Note', 'b', {});
      expect(after.timestamp).toBeGreaterThan(timestamp);
      expect(serving.collections.cachedAt('ns/Note', timestamp)).toBeUndefined();
      expect(serving.collections.cachedAt('ns/Note', after.timestamp)).toBeDefined();
    });

    it('the read permission of a cached private schema is checked on every get', async () => {
      const alice = publicKeyOf(`0x${'11'.repeat(32)}`);
      const bob = publicKeyOf(`0x${'22'.repeat(32)}`);
      await serving.installSchema('ns/Note', PRIVATE);
      await serving.create('ns/Note', ['a', 'hello'], { publicKey: alice });
      for (let i = 0; i < 2; i++) {
        expect(JSON.parse((await serving.get('ns/Note', 'a', { publicKey: alice })).json)).toMatchObject({ id: 'a', text: 'hello' });
        await expect(serving.get('ns/Note', 'a', { publicKey: bob })).rejects.toMatchObject({ reason: 'unauthorized' });
        await expect(serving.get('ns/Note', 'a', {})).rejects.toMatchObject({ reason: 'unauthorized' });
      }
    });

    it('reports an unknown collection before a malformed record id, and the id on a known collection', async () => {
      await serving.installSchema('ns/Note', PUBLIC);
      const longId = 'x'.repeat(10_000);
      await expect(serving.get('ns/Missing', longId, {})).rejects.toMatchObject({ reason: 'collection/not-found' });
      await expect(serving.get('ns/Note', longId, {})).rejects.toMatchObject({ reason: 'record/invalid-id' });
      await expect(serving.get('ns/Missing', 'a', {})).rejects.toMatchObject({ reason: 'collection/not-found' });
      await expect(serving.get('ns/Note', 'nothing', {})).rejects.toMatchObject({ reason: 'record/not-found' });
    });

    it('a call reads the schema stamp with its record, and runs a function changed through another connection at once', async () => {
      await serving.installSchema('ns/Note', PUBLIC);
      await serving.create('ns/Note', ['a', 'hi'], {});
      expect(await serving.call('ns/Note', 'a', 'shout', [], {})).toEqual({ id: 'a', text: 'hi!' });
      await other.installSchema('ns/Note', CHANGED_FUNCTION);
      expect(await serving.call('ns/Note', 'a', 'shout', [], {})).toEqual({ id: 'a', text: 'hi!?' });
      await other.installSchema('ns/Note', PUBLIC);
      expect(await serving.call('ns/Note', 'a', 'shout', [], {})).toEqual({ id: 'a', text: 'hi!?!' });
    });

    it('a call reports an unknown collection, then the function, then a malformed or unknown record id', async () => {
      await serving.installSchema('ns/Note', PUBLIC);
      const longId = 'x'.repeat(10_000);
      await expect(serving.call('ns/Missing', longId, 'shout', [], {})).rejects.toMatchObject({ reason: 'collection/not-found' });
      await expect(serving.call('ns/Missing', 'a', 'shout', [], {})).rejects.toMatchObject({ reason: 'collection/not-found' });
      await expect(serving.call('ns/Note', longId, 'nothing', [], {})).rejects.toMatchObject({ reason: 'function/not-found' });
      await expect(serving.call('ns/Note', longId, 'constructor', [], {})).rejects.toMatchObject({ reason: 'function/not-found' });
      await expect(serving.call('ns/Note', longId, 'shout', [1], {})).rejects.toMatchObject({ reason: 'function/invalid-args' });
      await expect(serving.call('ns/Note', longId, 'shout', [], {})).rejects.toMatchObject({ reason: 'record/invalid-id' });
      await expect(serving.call('ns/Note', 'nothing', 'shout', [], {})).rejects.toMatchObject({ reason: 'record/not-found' });
    });
  });

  // A call starts from the record as this process last committed it (RecordStore.lastCommitted) and the cached
  // schema, without reading either; its commit expects both unchanged. These tests change them through another
  // connection (another process, in production) in between, and check that every answer is the one a fresh read
  // gives.
  const COUNTER = `
  @public
  collection Counter {
    id: string;
    n: number;
    owner: PublicKey;
    constructor (id: string) { this.id = id; this.n = 0; this.owner = ctx.publicKey; }
    @call(owner)
    add (k: number) { if (this.n + k > 10) { error('too large'); } this.n = this.n + k; }
    same () { }
    setOwner (owner: PublicKey) { this.owner = owner; }
  }`;

  describe('calls on the record this process committed last', () => {
    const alice = publicKeyOf(`0x${'11'.repeat(32)}`);
    const bob = publicKeyOf(`0x${'22'.repeat(32)}`);

    beforeEach(async () => {
      await serving.installSchema('ns/Counter', COUNTER);
      await serving.create('ns/Counter', ['c'], { publicKey: alice });
      await serving.call('ns/Counter', 'c', 'add', [1], { publicKey: alice });
    });

    it('reads nothing when the record and the schema are as this process left them', async () => {
      let reads = 0;
      const read = serving.store.getWithStamp.bind(serving.store);
      serving.store.getWithStamp = (...args) => {
        reads++;
        return read(...args);
      };
      expect(await serving.call('ns/Counter', 'c', 'add', [2], { publicKey: alice })).toMatchObject({ n: 3 });
      expect(reads).toBe(0);
      // A call that changes nothing commits nothing, so its answer comes from a fresh read.
      expect(await serving.call('ns/Counter', 'c', 'same', [], { publicKey: alice })).toMatchObject({ n: 3 });
      expect(reads).toBe(1);
    });

    it('runs on the record another connection wrote since, not on the one it committed', async () => {
      await other.call('ns/Counter', 'c', 'add', [5], { publicKey: alice });
      expect(await serving.call('ns/Counter', 'c', 'add', [1], { publicKey: alice })).toMatchObject({ n: 7 });
      expect((await other.store.get('ns/Counter', 'c')).record).toMatchObject({ n: 7 });
    });

    it('reports the error the current record gives, and succeeds where only the old one failed', async () => {
      // n is 1 here; another connection takes it to 9: adding 2 now fails, though it would not have on n = 1.
      await other.call('ns/Counter', 'c', 'add', [8], { publicKey: alice });
      await expect(serving.call('ns/Counter', 'c', 'add', [2], { publicKey: alice })).rejects.toMatchObject({ message: expect.stringContaining('too large') });
      // Permission: another connection gives the record to bob; alice may no longer call, bob may.
      await other.call('ns/Counter', 'c', 'setOwner', [bob.toJwk()], {});
      await expect(serving.call('ns/Counter', 'c', 'add', [1], { publicKey: alice })).rejects.toMatchObject({ reason: 'unauthorized' });
      expect(await serving.call('ns/Counter', 'c', 'add', [1], { publicKey: bob })).toMatchObject({ n: 10 });
    });

    it('sees a record deleted through another connection as not found', async () => {
      await other.store.commit({ writes: [{ kind: 'delete', collectionId: 'ns/Counter', id: 'c' }] });
      await expect(serving.call('ns/Counter', 'c', 'add', [1], { publicKey: alice })).rejects.toMatchObject({ reason: 'record/not-found' });
    });
  });

  describe('creates with the cached schema', () => {
    it('reads no stamp first, and runs a constructor changed through another connection at once', async () => {
      await serving.installSchema('ns/Note', PUBLIC);
      await serving.create('ns/Note', ['a', 'hi'], {});
      let resolves = 0;
      const resolve = serving.collections.resolveWithStamp.bind(serving.collections);
      serving.collections.resolveWithStamp = (...args) => {
        resolves++;
        return resolve(...args);
      };
      expect(await serving.create('ns/Note', ['b', 'there'], {})).toEqual({ id: 'b', text: 'there' });
      expect(resolves).toBe(0);
      await other.installSchema('ns/Note', PUBLIC.replace('this.text = text;', "this.text = text + '.';"));
      expect(await serving.create('ns/Note', ['c', 'new'], {})).toEqual({ id: 'c', text: 'new.' });
      expect(resolves).toBe(1);
      // A taken id is reported as such, from the run on fresh reads.
      await expect(serving.create('ns/Note', ['a', 'again'], {})).rejects.toMatchObject({ reason: 'collection/id-exists' });
      await expect(serving.create('ns/Note', [1, 'x'], {})).rejects.toMatchObject({ status: 400 });
    });
  });

  describe('lists with the cached schema', () => {
    it('read the stamp with their clock, not first, and see a schema changed through another connection at once', async () => {
      await serving.installSchema('ns/Note', PUBLIC);
      await serving.create('ns/Note', ['a', 'hello'], {});
      await serving.create('ns/Note', ['b', 'there'], {});
      const texts = async () => (await serving.list('ns/Note', {}, {})).records.map((text) => (JSON.parse(text) as { text: string }).text);
      expect(await texts()).toEqual(['hello', 'there']);
      let resolves = 0;
      const resolve = serving.collections.resolveWithStamp.bind(serving.collections);
      serving.collections.resolveWithStamp = (...args) => {
        resolves++;
        return resolve(...args);
      };
      expect(await texts()).toEqual(['hello', 'there']);
      expect(resolves).toBe(0);
      // A list marks the schema current at its clock, as a get would: the next get reads no stamp either.
      const { timestamp } = await serving.list('ns/Note', {}, {});
      expect(serving.collections.cachedAt('ns/Note', timestamp)).toBeDefined();

      // Another connection makes the collection private: the list is refused under the new schema at once (an
      // unsigned list of a private collection reads nothing).
      await other.installSchema('ns/Note', PRIVATE);
      await expect(texts()).rejects.toMatchObject({ reason: 'permission/unconfined-query' });
      expect(resolves).toBe(1);
      await other.installSchema('ns/Note', PUBLIC);
      expect(await texts()).toEqual(['hello', 'there']);
      expect(resolves).toBe(2);
    });

    it('report a collection dropped or never made, though one of that name was cached', async () => {
      await serving.installSchema('ns/Note', PUBLIC);
      expect((await serving.list('ns/Note', {}, {})).records).toEqual([]);
      await expect(serving.list('ns/Missing', {}, {})).rejects.toMatchObject({ reason: 'collection/not-found' });
      await other.store.commit({ writes: [{ kind: 'delete', collectionId: 'Collection', id: 'ns/Note' }] });
      await other.store.deleteCollection('ns/Note');
      await expect(serving.list('ns/Note', {}, {})).rejects.toMatchObject({ reason: 'collection/not-found' });
    });
  });
});
