// Over real HTTP, the store's own checks as a client meets them: record ids a function builds that keys could
// not tell apart, query values JSON has no text for, and cursors or pages that do not fit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PAGE_BYTES, openSqliteStore } from '../../src/store/index.ts';
import { errorOf, startTestServer, type TestServer } from './support.ts';

describe('store checks over HTTP', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(async () => {
    await s.close();
  });

  it('refuses a record id with a lone surrogate that a constructor built, and changes nothing', async () => {
    await s.createCollection('lead/Lone', `@public collection Lone { id: string; constructor (id: string) { this.id = id; } }`);
    await s.createCollection('lead/Half', `@public collection Half { id: string; constructor () { this.id = "😀".slice(0, 1); } }`);
    expect((await s.create('lead/Lone', ['\ufffd'])).status).toBe(200);
    const half = await s.create('lead/Half', []);
    expect(half.status).toBe(400);
    expect(errorOf(half)).toMatchObject({ reason: 'record/invalid-id' });
    expect(errorOf(half)?.message).toContain('not well-formed UTF-16');
    expect((await s.list('lead/Half')).json.data).toEqual([]);
    expect((await s.record('lead/Lone', '\ufffd')).json.data).toEqual({ id: '\ufffd' });
  });

  it('quotes a query value of 1e309 as Infinity, not null', async () => {
    await s.createCollection('lead/Num', `@public collection Num { id: string; n: number; constructor (id: string, n: number) { this.id = id; this.n = n; } }`);
    const answer = await s.list('lead/Num', { where: '{"n":1e309}' });
    expect(answer.status).toBe(400);
    expect(errorOf(answer)).toEqual({
      code: 'invalid-argument',
      reason: 'indexer/invalid-query-value',
      message: 'value at field "n" does not match the schema type, expected type: number, got value: Infinity',
    });
  });

  it('ends a list page of large records at the store\'s byte budget, and the next page holds the rest', async () => {
    const small = await startTestServer({ store: openSqliteStore(':memory:', { pageBytes: 1_000_000 }) });
    try {
      await small.createCollection('lead/Big', `@public collection Big { id: string; s: string; constructor (id: string, s: string) { this.id = id; this.s = s; } }`);
      for (let i = 0; i < 7; i++) expect((await small.create('lead/Big', [`r${i}`, 'x'.repeat(300_000)])).status).toBe(200);
      const ids = (answer: { json: any }) => answer.json.data.map((r: any) => r.data.id);
      const page = await small.list('lead/Big', { limit: 1000 });
      expect(page.status).toBe(200);
      expect(ids(page)).toEqual(['r0', 'r1', 'r2', 'r3']); // 4 x 300 kB reach 1 MB
      const next = await small.list('lead/Big', { limit: 1000, after: page.json.cursor.after });
      expect(ids(next)).toEqual(['r4', 'r5', 'r6']);
      // Backwards from the end, the page ends at its first record.
      const back = await small.list('lead/Big', { limit: 1000, before: next.json.cursor.after });
      expect(ids(back)).toEqual(['r2', 'r3', 'r4', 'r5']);
    } finally {
      await small.close();
    }
  });

  it(`ends a list page of 1 MB records at the default budget (${DEFAULT_PAGE_BYTES / 2 ** 20} MiB)`, async () => {
    await s.createCollection('lead/Big', `@public collection Big { id: string; s: string; constructor (id: string, s: string) { this.id = id; this.s = s; } }`);
    const count = Math.ceil(DEFAULT_PAGE_BYTES / 1_000_000) + 1;
    for (let i = 0; i < count; i++) expect((await s.create('lead/Big', [`r${String(i).padStart(2, '0')}`, 'x'.repeat(1_000_000)])).status).toBe(200);
    const page = await s.list('lead/Big', { limit: 1000 });
    expect(page.status).toBe(200);
    expect(page.json.data.length).toBeLessThan(count);
    const next = await s.list('lead/Big', { limit: 1000, after: page.json.cursor.after });
    expect(next.status).toBe(200);
    expect([...page.json.data, ...next.json.data].map((r: any) => r.data.id)).toEqual(Array.from({ length: count }, (_, i) => `r${String(i).padStart(2, '0')}`));
  });
});
