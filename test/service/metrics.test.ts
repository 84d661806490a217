// Prometheus metrics (src/service/metrics.ts), scraped from a running server under load: the request counters
// add up to the requests sent, per route and status, the fast paths' included; commits, gas, signature checks,
// open streams and long-polls, store query latency; on their own port; PostgreSQL's pool.
import { afterAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/service/index.ts';
import { startTestPostgres, type TestPostgres } from '../support/postgres.ts';
import { KEYS, startTestServer, TEST_SCHEMA_ACCESS, TestServer } from './support.ts';

const SCHEMA = '@public collection Counter { id: string; n: number; constructor (id: string) { this.id = id; this.n = 0; } add () { this.n += 1; } }';

/** The samples of a scrape: `name{labels}` → value. */
async function scrape(url: string): Promise<Map<string, number>> {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  const samples = new Map<string, number>();
  for (const line of (await response.text()).split('\n')) {
    const match = /^([a-z_:]+(?:\{[^}]*\})?) (\S+)$/.exec(line);
    if (match) samples.set(match[1]!, Number(match[2]));
  }
  return samples;
}

/** The sum of the samples of `name` whose labels include every one of `labels`. */
function total(samples: Map<string, number>, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const [key, value] of samples) {
    if (key !== name && !key.startsWith(`${name}{`)) continue;
    if (Object.entries(labels).every(([label, wanted]) => key.includes(`${label}="${wanted}"`))) sum += value;
  }
  return sum;
}

async function inParallel(count: number, concurrency: number, run: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < count) await run(next++);
  }));
}

describe('metrics', () => {
  it('count every request under load, by route and status, and the writes, gas and signatures behind them', async () => {
    const s = await startTestServer({ metrics: true });
    try {
      await s.createCollection('m/Counter', SCHEMA);
      const before = await scrape(s.server.metricsUrl!);
      const creates = 40;
      const calls = 60;
      const gets = 300;
      const missing = 50;
      const signed = 10;
      await inParallel(creates, 10, async (i) => expect((await s.create('m/Counter', [`c${i}`])).status).toBe(200));
      await Promise.all([
        inParallel(calls, 10, async (i) => expect((await s.call('m/Counter', `c${i % 5}`, 'add', [])).status).toBe(200)),
        inParallel(gets, 20, async (i) => expect((await s.record('m/Counter', `c${i % creates}`)).status).toBe(200)),
        inParallel(missing, 10, async (i) => expect((await s.record('m/Counter', `nope${i}`)).status).toBe(404)),
        inParallel(signed, 5, async (i) => expect((await s.call('m/Counter', `c${i}`, 'add', [], KEYS.alice)).status).toBe(200)),
      ]);
      const after = await scrape(s.server.metricsUrl!);
      const added = (name: string, labels: Record<string, string> = {}) => total(after, name, labels) - total(before, name, labels);
      const sent = creates + calls + gets + missing + signed;
      // The scrape before is counted once it is answered: every request but the metrics' own.
      expect(added('vellum_http_requests_total') - added('vellum_http_requests_total', { route: '/metrics' })).toBe(sent);
      expect(added('vellum_http_requests_total', { route: '/v0/collections/:collection/records/:id', status: '200' })).toBe(gets);
      expect(added('vellum_http_requests_total', { route: '/v0/collections/:collection/records/:id', status: '404' })).toBe(missing);
      expect(added('vellum_http_requests_total', { route: '/v0/collections/:collection/records/:id/call/:function', status: '200' })).toBe(calls + signed);
      expect(added('vellum_http_requests_total', { route: '/v0/collections/:collection/records', method: 'POST', status: '200' })).toBe(creates);
      expect(added('vellum_http_request_duration_seconds_count')).toBe(added('vellum_http_requests_total'));
      expect(added('vellum_commits_total')).toBe(creates + calls + signed);
      expect(added('vellum_function_gas_count', { function: 'constructor' })).toBeGreaterThanOrEqual(creates);
      expect(added('vellum_function_gas_count', { function: 'call' })).toBeGreaterThanOrEqual(calls + signed);
      expect(added('vellum_write_retries_total')).toBe(added('vellum_write_conflicts_total'));
      expect(added('vellum_signature_checks_total', { outcome: 'valid' })).toBe(signed);
      expect(added('vellum_db_query_duration_seconds_count', { operation: 'transact' })).toBeGreaterThanOrEqual(creates + calls + signed);
      expect(total(after, 'vellum_process_cpu_seconds_total')).toBeGreaterThan(0);
    } finally {
      await s.close();
    }
  });

  it('show open streams and long-polls while they are open', async () => {
    const s = await startTestServer({ metrics: true });
    try {
      const controller = new AbortController();
      const stream = await fetch(`${s.url}/v0/collections/Collection/records?stream=1`, { signal: controller.signal });
      expect(stream.status).toBe(200);
      const poll = s.get(`/v0/collections/Collection/records?since=${(Date.now() / 1000).toFixed(4)}&waitFor=2s`);
      await expect.poll(async () => total(await scrape(s.server.metricsUrl!), 'vellum_open_long_polls')).toBe(1);
      expect(total(await scrape(s.server.metricsUrl!), 'vellum_open_streams')).toBe(1);
      controller.abort();
      await poll;
      await expect.poll(async () => total(await scrape(s.server.metricsUrl!), 'vellum_open_streams')).toBe(0);
      expect(total(await scrape(s.server.metricsUrl!), 'vellum_open_long_polls')).toBe(0);
    } finally {
      await s.close();
    }
  });

  it('are served on a port of their own with metricsPort, and not on the service port then', async () => {
    const s = await startTestServer({ metricsPort: 0 });
    try {
      expect(new URL(s.server.metricsUrl!).port).not.toBe(String(s.server.port));
      expect((await s.get('/metrics')).status).toBe(404);
      expect((await s.get('/v0/health')).status).toBe(200);
      expect(total(await scrape(s.server.metricsUrl!), 'vellum_http_requests_total', { route: '/v0/health' })).toBe(1);
      expect((await fetch(s.server.metricsUrl!.replace('/metrics', '/other'))).status).toBe(404);
    } finally {
      await s.close();
    }
  });

  it('are off by default', async () => {
    const s = await startTestServer();
    try {
      expect(s.server.metricsUrl).toBeUndefined();
      expect((await s.get('/metrics')).status).toBe(404);
    } finally {
      await s.close();
    }
  });
});

describe('metrics on PostgreSQL', () => {
  let pg: TestPostgres | undefined;
  let server: RunningServer | undefined;
  afterAll(async () => {
    await server?.close();
    await pg?.stop();
  });

  it('report the pool and the query latency', async () => {
    pg = await startTestPostgres();
    server = await startServer({ databaseUrl: pg.url, port: 0, host: '127.0.0.1', explorer: false, metrics: true, schemaAccess: TEST_SCHEMA_ACCESS });
    const s = new TestServer(server);
    await s.createCollection(`pgm${Date.now()}/Counter`, SCHEMA);
    const samples = await scrape(server.metricsUrl!);
    expect(total(samples, 'vellum_db_pool_connections', { state: 'total' })).toBeGreaterThan(0);
    expect(samples.has('vellum_db_pool_connections{state="waiting"}')).toBe(true);
    expect(total(samples, 'vellum_db_query_duration_seconds_count', { operation: 'transact' })).toBeGreaterThan(0);
    expect(total(samples, 'vellum_commits_total')).toBeGreaterThan(0);
  }, 60_000);
});
