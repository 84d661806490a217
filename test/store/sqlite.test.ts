import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqlite, openSqliteStore } from '../../src/store/index.ts';
import { conformance } from './conformance.ts';
import { itemLayout } from './schemas.ts';

conformance({ name: 'sqlite', fresh: async () => ({ kv: openSqlite(':memory:') }) });

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
