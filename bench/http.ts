// `npm run bench -- http`: the record service over real HTTP, driven by autocannon on this machine (server and
// load generator share the cores, as they do for the baseline): an unsigned get, a list of 100 records, a signed
// create and a signed call, each as requests per second and p50/p99 latency. The baseline is a bare fastify
// hello-world measured in the same run. Goals: get and list >= 50% of the baseline's rate, signed writes
// >= 25%, p99 of a signed call under 20 ms.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { signRequest } from '../src/auth/index.ts';
import { startServer } from '../src/service/index.ts';
import { openSqliteStore } from '../src/store/index.ts';
import { row, type BenchRow } from './harness.ts';

const SUITE = 'http';
const CONNECTIONS = 10;
const DURATION_S = 5;
const SIGNED_REQUESTS = 3000;
const KEY = `0x${'42'.repeat(32)}`;

const SCHEMA = `
@public
collection Item {
  id: string;
  n: number;
  label: string;
  owner?: PublicKey;
  constructor (id: string, n: number, label: string) {
    this.id = id;
    this.n = n;
    this.label = label;
    this.owner = ctx.publicKey;
  }
  increment () {
    this.n += 1;
  }
}
`;

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

async function load(url: string, options: Partial<autocannon.Options>): Promise<Figures> {
  const settings: Record<string, unknown> = { url, connections: CONNECTIONS, ...options };
  if (settings.amount === undefined && settings.duration === undefined) settings.duration = DURATION_S;
  const result = await autocannon(settings as unknown as autocannon.Options);
  const errors = result.errors + result.timeouts + result.non2xx;
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors };
}

/** Serves pre-signed POSTs in order; each signature is used once, as the service requires. */
function signedPosts(items: { path: string; body: string; header: string }[]): autocannon.Request[] {
  let next = 0;
  return [
    {
      method: 'POST',
      setupRequest: (request) => {
        const item = items[next++ % items.length]!;
        return { ...request, path: item.path, body: item.body, headers: { 'content-type': 'application/json', 'x-polybase-signature': item.header } };
      },
    },
  ];
}

export default async function http(): Promise<BenchRow[]> {
  // Baseline: the same HTTP stack with nothing behind it.
  const bare = Fastify({ logger: false });
  bare.get('/', async () => ({ hello: 'world' }));
  await bare.listen({ port: 0, host: '127.0.0.1' });
  const bareAddress = bare.server.address();
  const bareUrl = `http://127.0.0.1:${typeof bareAddress === 'object' && bareAddress ? bareAddress.port : 0}`;

  const dir = mkdtempSync(join(tmpdir(), 'vellum-bench-http-'));
  const server = await startServer({ port: 0, store: openSqliteStore(join(dir, 'bench.sqlite')) });
  try {
    const collection = 'bench%2FItem';
    await server.service.installSchema('bench/Item', SCHEMA);
    for (let i = 0; i < 1000; i++) await server.service.create('bench/Item', [`item-${String(i).padStart(4, '0')}`, i, `label ${i % 10}`], {});

    const now = Date.now();
    const creates = Array.from({ length: SIGNED_REQUESTS }, (_, i) => {
      const body = JSON.stringify({ args: [`new-${i}`, i, 'created'] });
      return { path: `/v0/collections/${collection}/records`, body, header: signRequest(KEY, body, now + i) };
    });
    const callBody = JSON.stringify({ args: [] });
    const calls = Array.from({ length: 2 * SIGNED_REQUESTS }, (_, i) => ({
      path: `/v0/collections/${collection}/records/item-${String(i % 500).padStart(4, '0')}/call/increment`,
      body: callBody,
      // Distinct times make distinct signatures: each may be used once.
      header: signRequest(KEY, callBody, now + SIGNED_REQUESTS + i),
    }));

    // Warm up both servers (JIT, caches, connection setup).
    await load(bareUrl, { duration: 1 });
    await load(`${server.url}/v0/collections/${collection}/records/item-0042`, { duration: 1 });

    // The machine is shared and its load drifts, so each scenario is measured right after its own baseline run.
    const scenarios: [string, () => Promise<Figures>, number][] = [
      ['unsigned get', () => load(`${server.url}/v0/collections/${collection}/records/item-0042`, {}), 0.5],
      ['list of 100', () => load(`${server.url}/v0/collections/${collection}/records?limit=100`, {}), 0.5],
      ['signed create', () => load(server.url, { amount: SIGNED_REQUESTS, requests: signedPosts(creates) }), 0.25],
      ['signed call', () => load(server.url, { amount: SIGNED_REQUESTS, requests: signedPosts(calls.slice(0, SIGNED_REQUESTS)) }), 0.25],
    ];
    const rows: BenchRow[] = [];
    const baselines: number[] = [];
    // Latency at light load: one connection, so the figure is the service time, not queueing behind nine others.
    const single = await load(server.url, { connections: 1, amount: SIGNED_REQUESTS, requests: signedPosts(calls.slice(SIGNED_REQUESTS)) });
    if (single.errors > 0) throw new Error(`signed call (1 connection): ${single.errors} requests failed`);
    for (const [name, run, goal] of scenarios) {
      const baseline = await load(bareUrl, {});
      baselines.push(baseline.rps);
      const figures = await run();
      if (figures.errors > 0) throw new Error(`${name}: ${figures.errors} requests failed`);
      rows.push(row(SUITE, name, { value: figures.rps, unit: 'req/s', baseline: baseline.rps, ratio: figures.rps / baseline.rps, goal: `>= ${goal}x baseline` }));
      rows.push(row(SUITE, `${name} p50`, { value: figures.p50, unit: 'ms', baseline: baseline.p50, ratio: null, goal: 'informative' }));
      rows.push(row(SUITE, `${name} p99`, { value: figures.p99, unit: 'ms', baseline: baseline.p99, ratio: null, goal: name === 'signed call' ? '< 20 ms' : 'informative' }));
    }
    rows.push(row(SUITE, 'signed call, 1 connection p99', { value: single.p99, unit: 'ms', baseline: null, ratio: null, goal: '< 20 ms' }));
    rows.push(row(SUITE, 'signed call, 1 connection p50', { value: single.p50, unit: 'ms', baseline: null, ratio: null, goal: 'informative' }));
    rows.unshift(
      row(SUITE, 'baseline: bare fastify hello-world (mean)', {
        value: baselines.reduce((a, b) => a + b, 0) / baselines.length,
        unit: 'req/s',
        baseline: null,
        ratio: null,
        goal: 'reference',
      }),
    );
    return rows;
  } finally {
    await server.close();
    await bare.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
