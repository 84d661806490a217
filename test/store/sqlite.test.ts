import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { StoreError, openSqlite, openSqliteStore } from '../../src/store/index.ts';
import { conformance } from './conformance.ts';
import { unionConformance } from './union-conformance.ts';
import { itemLayout } from './schemas.ts';

const sqlite = { name: 'sqlite', fresh: async () => ({ kv: openSqlite(':memory:') }) };
conformance(sqlite);
unionConformance(sqlite);

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
    // Each gets a 503 saying why (the service answers a StoreError with its status).
    for (const r of results) {
      expect(r.status).toBe('rejected');
      const reason = (r as PromiseRejectedResult).reason as StoreError;
      expect(reason).toBeInstanceOf(StoreError);
      expect({ code: reason.code, reason: reason.reason, status: reason.status }).toEqual({ code: 'unavailable', reason: 'store/unavailable', status: 503 });
      expect(reason.message).toMatch(/^SQLite: the database is locked by another process \(database is locked\); retry later$/);
    }
    other.exec('ROLLBACK');
    other.close();
    expect(await kv.get(Buffer.from('k0'))).toBeUndefined();
    await kv.transact([], () => ({ ops: [{ kind: 'put' as const, key: Buffer.from('k0'), value: Buffer.from('after') }], result: undefined }));
    expect((await kv.get(Buffer.from('k0')))?.toString()).toBe('after');
    await kv.close();
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
