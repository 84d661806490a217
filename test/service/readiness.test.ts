// Readiness (`GET /v0/ready`, src/service/readiness.ts) against liveness (`/v0/health`): 503 with every reason
// when a part of the service says so (a migration switching), while the server drains on shutdown, and when the
// database does not answer, with a real PostgreSQL server stopped and started again.
import { afterAll, describe, expect, it } from 'vitest';
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
