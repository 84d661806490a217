// Readiness (`GET /v0/ready`, src/service/readiness.ts) against liveness (`/v0/health`): 503 with every reason
// when a part of the service says so (a migration switching), while the server drains on shutdown, and when the
// database does not answer, with a real PostgreSQL server stopped and started again.
import { afterAll, describe, expect, it, vi } from 'vitest';
import { startServer, type RunningServer } from '../../src/service/index.ts';
import { startTestPostgres, type TestPostgres } from '../support/postgres.ts';
import { startTestServer } from './support.ts';

async function ready(url: string): Promise<{ status: number; body: any }> {
  const response = await fetch(`${url}/v0/ready`);
  return { status: response.status, body: await response.json() };
}

describe('readiness', () => {
  it('is ready, then not while a reason is registered, saying why, and ready again once it is taken back', async () => {
    const s = await startTestServer();
    try {
      expect(await ready(s.url)).toEqual({ status: 200, body: { status: 'ready' } });
      const switched = s.server.service.readiness.notReady('migration switching');
      const other = s.server.service.readiness.notReady('warming the cache');
      const answer = await ready(s.url);
      expect(answer.status).toBe(503);
      expect(answer.body).toEqual({
        error: { code: 'unavailable', reason: 'service/not-ready', message: 'not ready: migration switching; warming the cache' },
        reasons: ['migration switching', 'warming the cache'],
      });
      expect((await s.get('/v0/health')).status).toBe(200);
      switched();
      switched();
      expect((await ready(s.url)).body.reasons).toEqual(['warming the cache']);
      other();
      expect((await ready(s.url)).status).toBe(200);
    } finally {
      await s.close();
    }
  });

  it('is not ready while the server drains, and still serves until the drain delay is over', async () => {
    const s = await startTestServer({ drainDelayMs: 1500 });
    const closed = s.close();
    try {
      const answer = await ready(s.url);
      expect(answer.status).toBe(503);
      expect(answer.body.reasons).toEqual(['draining: the server is shutting down']);
      expect((await s.get('/v0/health')).status).toBe(200);
      expect((await s.record('Collection', 'Collection')).status).toBe(200);
    } finally {
      await closed;
    }
  });
});

describe('readiness during a schema migration', () => {
  /** Holds the store's calls `pick` chooses until `release()`; `held` settles when the first arrives. */
  function hold<T extends object, K extends keyof T>(target: T, method: K) {
    const original = (target[method] as (...args: unknown[]) => Promise<unknown>).bind(target);
    let arrived!: () => void;
    const held = new Promise<void>((resolve) => (arrived = resolve));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let first = true;
    const spy = vi.spyOn(target, method as never).mockImplementation((async (...args: unknown[]) => {
      if (first) {
        first = false;
        arrived();
        await gate;
      }
      return original(...args);
    }) as never);
    return { held, release, restore: () => spy.mockRestore() };
  }
  const schema = (type: string) => `@public collection R { id: string; n: ${type}; constructor (id: string) { this.id = id; this.n = ${type === 'number' ? '1' : '"1"'}; } }`;

  it('is not ready while the switch stores the new layout, and ready again while the records are cast', async () => {
    const s = await startTestServer();
    try {
      await s.createCollection('rd/R', schema('number'));
      for (const id of ['a', 'b']) expect((await s.create('rd/R', [id])).status).toBe(200);
      const store = s.server.service.store;
      // The switch: held before the layout is stored (the schema record is committed).
      const define = hold(store, 'defineCollection');
      // The pass: held at its first step after the layout is stored (the record count it reports progress against).
      const pass = hold(store.kv, 'count');
      let update: Promise<unknown> | undefined;
      try {
        update = s.updateCode('rd/R', schema('string'));
        await define.held;
        const switching = await ready(s.url);
        expect(switching.status).toBe(503);
        expect(switching.body.reasons).toEqual(['migration switching: collection "rd/R" is storing its new schema\'s layout']);
        expect(switching.body.error.reason).toBe('service/not-ready');
        define.release();
        await pass.held;
        // The records are being cast: reads answer the new form (docs/store.md), so the server is ready.
        expect(s.server.service.collections.migrations.running).toEqual(['rd/R']);
        expect(await ready(s.url)).toEqual({ status: 200, body: { status: 'ready' } });
        expect((await s.record('rd/R', 'a')).json.data).toEqual({ id: 'a', n: '1' });
        pass.release();
        await update;
      } finally {
        define.release();
        pass.release();
        define.restore();
        pass.restore();
        await update;
      }
      expect(await ready(s.url)).toEqual({ status: 200, body: { status: 'ready' } });
      expect(s.server.service.collections.migrations.running).toEqual([]);
    } finally {
      await s.close();
    }
  });
});

describe('readiness on PostgreSQL', () => {
  let pg: TestPostgres | undefined;
  let server: RunningServer | undefined;
  afterAll(async () => {
    await server?.close().catch(() => {});
    await pg?.stop();
  });

  it('is not ready while the database is stopped, live all along, and ready again once it is back', async () => {
    pg = await startTestPostgres();
    if (!pg.pause || !pg.resume) return; // an existing server (VELLUM_TEST_PG_URL) is not ours to stop
    server = await startServer({ databaseUrl: pg.url, port: 0, host: '127.0.0.1', explorer: false });
    expect(await ready(server.url)).toEqual({ status: 200, body: { status: 'ready' } });
    pg.pause();
    const started = Date.now();
    const down = await ready(server.url);
    expect(down.status).toBe(503);
    expect(down.body.error.reason).toBe('service/not-ready');
    expect(down.body.reasons).toHaveLength(1);
    expect(down.body.reasons[0]).toMatch(/^the database (does not answer: |did not answer within 2000 ms)/);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect((await fetch(`${server.url}/v0/health`)).status).toBe(200);
    pg.resume();
    await expect.poll(async () => (await ready(server!.url)).status, { timeout: 20_000, interval: 250 }).toBe(200);
  }, 60_000);
});
