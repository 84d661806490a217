import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { RecordStore, StoreError, layoutOf, openSqlite, openSqliteStore } from '../../src/store/index.ts';
import { encodeU64 } from '../../src/store/encoding.ts';
import { clockKey, recordKey } from '../../src/store/keys.ts';
import { conformance, expectIndexesMatchRecords } from './conformance.ts';
import { unionConformance } from './union-conformance.ts';
import { changeFeedConformance } from './change-feed-conformance.ts';
import { collection, itemLayout } from './schemas.ts';

const sqlite = { name: 'sqlite', fresh: async () => ({ kv: openSqlite(':memory:') }) };
conformance(sqlite);
unionConformance(sqlite);
changeFeedConformance(sqlite);

describe('SQLite file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vellum-sqlite-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps records across reopening, in WAL mode', async () => {
    const path = join(dir, 'store.db');
    const first = openSqliteStore(path);
    await first.defineCollection('ns/Item', itemLayout);
    const { timestamp } = await first.commit({ writes: [{ kind: 'put', collectionId: 'ns/Item', record: { id: 'a', group: 'g', score: 1 } }] });
    await first.close();
    const second = openSqliteStore(path);
    expect((second.kv as ReturnType<typeof openSqlite>).db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect((await second.get('ns/Item', 'a')).record).toEqual({ id: 'a', group: 'g', score: 1 });
    expect((await second.list('ns/Item', { where: { score: { $gte: 1 } } })).records).toHaveLength(1);
    const next = await second.commit({ writes: [{ kind: 'delete', collectionId: 'ns/Item', id: 'a' }] });
    expect(next.timestamp).toBeGreaterThan(timestamp);
    await second.close();
  });

  it('commits concurrent transactions together, each on its own: one that fails takes no other down', async () => {
    const kv = openSqlite(':memory:');
    const key = (name: string) => Buffer.from(name);
    const put = (name: string, value: string) => ({ kind: 'put' as const, key: key(name), value: Buffer.from(value) });
    const [a, b, c] = await Promise.allSettled([
      kv.transact([], () => ({ ops: [put('k1', 'one')], result: 'a' })),
      kv.transact([], () => {
        throw new Error('b fails');
      }),
      // Runs after a in the same SQLite transaction, and sees a's write.
      kv.transact([key('k1')], ([k1]) => ({ ops: [put('k3', `saw ${k1?.toString()}`)], result: 'c' })),
    ]);
    expect(a.status).toBe('fulfilled');
    expect(b.status).toBe('rejected');
    expect(c.status).toBe('fulfilled');
    if (a.status !== 'fulfilled' || c.status !== 'fulfilled') return;
    expect(c.value.timestamp).toBeGreaterThan(a.value.timestamp);
    expect((await kv.get(key('k3')))?.toString()).toBe('saw one');
    // A transaction whose writes fail half-way takes the batch down; the batch runs again without it, so only
    // that one fails and the others stay.
    const poison = { kind: 'put' as const, key: key('k5'), get value(): Buffer { throw new Error('poison'); } };
    const results = await Promise.allSettled([
      kv.transact([], () => ({ ops: [put('k4', 'four')], result: undefined })),
      kv.transact([], () => ({ ops: [put('k2', 'two'), poison], result: undefined })),
      kv.transact([], () => ({ ops: [put('k6', 'six')], result: undefined })),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(await kv.get(key('k2'))).toBeUndefined();
    expect((await kv.get(key('k4')))?.toString()).toBe('four');
    expect((await kv.get(key('k6')))?.toString()).toBe('six');
    // The same when SQLite itself refuses a row (NOT NULL) after a whole statement of the transaction's puts
    // was written (#apply writes 8 rows a statement): the rollback takes those rows too.
    const refused = { kind: 'put' as const, key: key('m8'), value: null as unknown as Buffer };
    const eightThenRefused = [...Array.from({ length: 8 }, (_, i) => put(`m${i}`, 'm')), refused];
    const afterRefusal = await Promise.allSettled([
      kv.transact([], () => ({ ops: [{ kind: 'delete' as const, key: key('k4') }], result: undefined })),
      kv.transact([], () => ({ ops: eightThenRefused, result: undefined })),
      kv.transact([key('k4')], ([k4]) => ({ ops: [put('k7', `saw ${k4?.toString()}`)], result: undefined })),
    ]);
    expect(afterRefusal.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((await kv.getMany(eightThenRefused.map((op) => op.key))).every((value) => value === undefined)).toBe(true);
    expect(await kv.get(key('k4'))).toBeUndefined();
    expect((await kv.get(key('k7')))?.toString()).toBe('saw undefined');
    await kv.close();
  });

  it('a batch that cannot begin (the database is locked by another connection) fails every transaction once, without a retry each', async () => {
    const path = join(dir, 'busy.db');
    const kv = openSqlite(path);
    kv.db.pragma('busy_timeout = 200');
    const other = new Database(path);
    other.exec('BEGIN IMMEDIATE');
    const started = Date.now();
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) => kv.transact([], () => ({ ops: [{ kind: 'put' as const, key: Buffer.from(`k${i}`), value: Buffer.from('v') }], result: i }))),
    );
    // Retried one at a time, ten transactions would wait the busy timeout eleven times (2.2 s); the bound
    // leaves room for a loaded machine.
    expect(Date.now() - started).toBeLessThan(1500);
    // Each is refused as unavailable, saying why (the service answers that with 503).
    for (const r of results) {
      expect(r.status).toBe('rejected');
      const reason = (r as PromiseRejectedResult).reason as StoreError;
      expect(reason).toBeInstanceOf(StoreError);
      expect({ code: reason.code, reason: reason.reason }).toEqual({ code: 'unavailable', reason: 'store/unavailable' });
      expect(reason.message).toMatch(/^SQLite: the database is locked by another process \(database is locked\); retry later$/);
    }
    other.exec('ROLLBACK');
    other.close();
    expect(await kv.get(Buffer.from('k0'))).toBeUndefined();
    await kv.transact([], () => ({ ops: [{ kind: 'put' as const, key: Buffer.from('k0'), value: Buffer.from('after') }], result: undefined }));
    expect((await kv.get(Buffer.from('k0')))?.toString()).toBe('after');
    await kv.close();
  });

  it('caches no layout version read in a batch whose COMMIT failed: a later layout may be given that timestamp', async () => {
    const kv = openSqlite(':memory:');
    const store = new RecordStore(kv);
    const fields = { id: 'string', group: 'string', 'score?': 'number', 'flag?': 'boolean' } as const;
    const layout = (indexes: string[][]) => layoutOf(collection('Item', fields, indexes));
    await store.defineCollection('ns/Item', layout([['group', 'score'], ['group', 'flag']]));
    // The database's clock is ahead of the wall clock (the clock moved back): each timestamp is the last one + 1,
    // so a timestamp of a transaction that did not commit is given to the next one.
    kv.db.prepare('INSERT OR REPLACE INTO kv (key, value) VALUES (?, ?)').run(clockKey, encodeU64((Date.now() + 3_600_000) * 1000));
    // The batch's COMMIT fails, as on a full disk (WAL frames are written at COMMIT): a deferred foreign key that
    // the write of record "fail" breaks.
    kv.db.pragma('foreign_keys = ON');
    kv.db.exec('CREATE TABLE parent (id INTEGER PRIMARY KEY); CREATE TABLE child (p INTEGER REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED)');
    kv.db.exec(`CREATE TRIGGER fail_commit AFTER INSERT ON kv WHEN NEW.key = X'${recordKey('ns/Item', 'fail').toString('hex')}' BEGIN INSERT INTO child VALUES (1); END`);
    // One batch: a layout change, a commit that reads it (this store has no layout cached yet), and the failing one.
    const batch = await Promise.allSettled([
      store.defineCollection('ns/Item', layout([['group', 'score'], ['group', 'flag'], ['flag', 'score']])),
      store.commit({ writes: [{ kind: 'put', collectionId: 'ns/Item', record: { id: 'a', group: 'g' } }] }),
      store.commit({ writes: [{ kind: 'put', collectionId: 'ns/Item', record: { id: 'fail', group: 'g' } }] }),
    ]);
    expect(batch.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    kv.db.exec('DROP TRIGGER fail_commit');
    // Another layout (an index removed: nothing to build) gets the failed change's timestamp as its version;
    // commits must follow it, not the layout read in the failed batch.
    expect((await store.defineCollection('ns/Item', layout([['group', 'score']]))).removed).toHaveLength(1);
    await store.commit({ writes: [{ kind: 'put', collectionId: 'ns/Item', record: { id: 'b', group: 'g', score: 1, flag: true } }] });
    await expectIndexesMatchRecords(store, 'ns/Item');
    await store.close();
  });

  it('keeps every commit of a long concurrent write load (checkpoints run in a worker thread)', async () => {
    const path = join(dir, 'load.db');
    const first = openSqliteStore(path);
    await first.defineCollection('ns/Item', itemLayout);
    for (let round = 0; round < 40; round++) {
      await Promise.all(
        Array.from({ length: 10 }, (_, i) => first.commit({ writes: [{ kind: 'put', collectionId: 'ns/Item', record: { id: `r${round}-${i}`, group: `g${i}`, score: round } }] })),
      );
      for (let i = 0; i < 5; i++) await first.commit({ writes: [{ kind: 'put', collectionId: 'ns/Item', record: { id: `s${round}-${i}`, group: 'single', score: i } }] });
    }
    await first.close();
    const second = openSqliteStore(path);
    expect((await second.list('ns/Item', { limit: 1000 })).records).toHaveLength(600);
    expect((await second.list('ns/Item', { where: { group: 'single' }, limit: 1000 })).records).toHaveLength(200);
    await second.close();
  });

  it('plans list queries as index range scans with a limit', () => {
    const kv = openSqlite(':memory:');
    const plan = kv.db
      .prepare('EXPLAIN QUERY PLAN SELECT key, value FROM kv WHERE key >= ? AND key < ? ORDER BY key DESC LIMIT ?')
      .all(Buffer.of(1), Buffer.of(2), 10) as { detail: string }[];
    const details = plan.map((row) => row.detail).join('\n');
    expect(details).toMatch(/SEARCH kv USING PRIMARY KEY \(key>\? AND key<\?\)/);
    expect(details).not.toMatch(/TEMP B-TREE/);
    void kv.close();
  });
});
