// `npm run bench -- http-thread` (the `http` suite of sessions 1-3; `http` is now bench/http.ts, against a
// hand-written server): the record service over real HTTP, in this process, driven by autocannon on this machine
// (server and load generator share the cores, as they do for the baseline; `http-process` runs autocannon in a
// process of its own, see `Client`): an unsigned get, a list of 100 records, a signed
// create and a signed call, each as requests per second and p50/p99 latency. The baseline is a bare fastify
// hello-world measured in the same run. Goals: get and list >= 50% of the baseline's rate, signed writes
// >= 25%, p99 of a signed call under 20 ms. Informative rows show ceilings on the same bare server: sending the
// list's very answer with no work behind it, answering from the store's read of that page, and verifying signed
// POSTs (in its own thread, or in worker threads as the service does) with nothing else.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { RecoveryPool, signRequest, verifySignatureHeader, verifySignatureHeaderAsync } from '../src/auth/index.ts';
import { startServer } from '../src/service/index.ts';
import { openSqliteStore } from '../src/store/index.ts';
import { row, type BenchRow } from './harness.ts';
import { ITEM_SCHEMA } from './http.ts';
import { LoadDriver } from './load-client.ts';
import { signedPosts, type Post } from './signed-posts.ts';

/**
 * Where autocannon runs: in the server's own thread (`http`, the recorded method since session 1), or in a
 * process of its own (`http-process`), as it would from another terminal. In its own thread the client's work
 * is no longer charged to every request, which helps the hello-world baseline most (its server work is smallest),
 * so the ratios are lower there.
 */
export type Client = 'thread' | 'process';
const CONNECTIONS = 10;
/**
 * Each scenario runs in ROUNDS rounds, each right after its own baseline run, and reports the median round:
 * the machine is shared and its load drifts, and a burst then spoils one round instead of the figure.
 */
const ROUNDS = 3;
const ROUND_S = 3;
/** Pre-signed requests per round of a signed scenario: a few seconds of load, so the rate is not a count of whole seconds. */
const SIGNED_REQUESTS = 4000;
/** The one-connection latency run is shorter: it measures service time, not throughput. */
const SINGLE_CONNECTION_REQUESTS = 3000;
const KEY = `0x${'42'.repeat(32)}`;

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

async function loadWith(driver: LoadDriver | undefined, url: string, options: Partial<autocannon.Options>, posts?: readonly Post[]): Promise<Figures> {
  // Samples every 50 ms: a run of a fixed `amount` ends at the sample after its last answer, so the default of
  // a second would add up to a second of idle time to its duration.
  const settings: Record<string, unknown> = { url, connections: CONNECTIONS, sampleInt: 50, ...options };
  if (settings.amount === undefined && settings.duration === undefined) settings.duration = ROUND_S;
  let result: autocannon.Result;
  if (driver) result = await driver.run(settings, posts);
  else {
    if (posts) settings.requests = signedPosts(posts);
    result = await autocannon(settings as unknown as autocannon.Options);
  }
  const errors = result.errors + result.timeouts + result.non2xx;
  // Total over elapsed time (autocannon's `average` is a mean over samples).
  return { rps: result.requests.total / result.duration, p50: result.latency.p50, p99: result.latency.p99, errors };
}

export default function http(): Promise<BenchRow[]> {
  return runHttpBench('thread', 'http-thread');
}

export async function runHttpBench(client: Client, SUITE: string): Promise<BenchRow[]> {
  const driver = client === 'process' ? new LoadDriver() : undefined;
  const load = (url: string, options: Partial<autocannon.Options>, posts?: readonly Post[]) => loadWith(driver, url, options, posts);
  // Baseline: the same HTTP stack with nothing behind it.
  const bare = Fastify({ logger: false });
  bare.get('/', async () => ({ hello: 'world' }));
  // The ceiling for the list: the bare server sending a copy of the very same answer, with no work behind it.
  let listAnswer = '';
  bare.get('/list-copy', async (_request, reply) => reply.type('application/json; charset=utf-8').send(listAnswer));
  // What key recovery alone costs: the bare server verifying a signed POST in its own thread, and nothing else.
  bare.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => done(null, body));
  bare.post('/verify', async (request) => {
    const header = request.headers['x-polybase-signature'] as string;
    verifySignatureHeader(header, request.body as string, { method: 'POST', replayGuard: { claim: () => 'claimed' } });
    return { ok: true };
  });
  // The same with the key recovered in worker threads, as the service does, for the same distinct signed calls
  // the service gets (each a new request to build): everything a signed call costs but the call and its commit.
  const pool = new RecoveryPool();
  bare.post('/v0/collections/:collection/records/:id/call/:function', async (request) => {
    const header = request.headers['x-polybase-signature'] as string;
    await verifySignatureHeaderAsync(header, request.body as string, { method: 'POST', replayGuard: { claim: () => 'claimed' }, pool });
    return { data: null };
  });
  // The ceiling of the list with its store read: the bare server answering with the store's page of 100
  // records, without the service's route, query parsing, caller check or schema registry.
  let storeList: () => Promise<string> = async () => '';
  bare.get('/list-store', async (_request, reply) => reply.type('application/json; charset=utf-8').send(await storeList()));
  await bare.listen({ port: 0, host: '127.0.0.1' });
  pool.warm();
  const bareAddress = bare.server.address();
  const bareUrl = `http://127.0.0.1:${typeof bareAddress === 'object' && bareAddress ? bareAddress.port : 0}`;

  const dir = mkdtempSync(join(tmpdir(), 'vellum-bench-http-'));
  const server = await startServer({ port: 0, store: openSqliteStore(join(dir, 'bench.sqlite')) });
  try {
    const collection = 'bench%2FItem';
    await server.service.installSchema('bench/Item', ITEM_SCHEMA);
    for (let i = 0; i < 1000; i++) await server.service.create('bench/Item', [`item-${String(i).padStart(4, '0')}`, i, `label ${i % 10}`], {});

    const now = Date.now();
    const creates = Array.from({ length: ROUNDS * SIGNED_REQUESTS }, (_, i) => {
      const body = JSON.stringify({ args: [`new-${i}`, i, 'created'] });
      return { path: `/v0/collections/${collection}/records`, body, header: signRequest(KEY, body, now + i) };
    });
    const callBody = JSON.stringify({ args: [] });
    const calls = Array.from({ length: ROUNDS * SIGNED_REQUESTS + SINGLE_CONNECTION_REQUESTS }, (_, i) => ({
      path: `/v0/collections/${collection}/records/item-${String(i % 500).padStart(4, '0')}/call/increment`,
      body: callBody,
      // Distinct times make distinct signatures: each may be used once.
      header: signRequest(KEY, callBody, now + ROUNDS * SIGNED_REQUESTS + i),
    }));

    const listUrl = `${server.url}/v0/collections/${collection}/records?limit=100`;
    listAnswer = await (await fetch(listUrl)).text();
    const block = JSON.stringify({ hash: `0x${'0'.repeat(64)}` });
    storeList = async () => {
      const page = await server.service.store.listJson('bench/Item', { limit: 100 });
      return `{"data":[${page.records.map((record) => `{"data":${record},"block":${block}}`).join(',')}],"cursor":${JSON.stringify(page.cursor)}}`;
    };
    // The same records; its cursors are the store's, without the query the service appends to them.
    const sameRecords = (answer: string) => JSON.stringify((JSON.parse(answer) as { data: unknown }).data);
    if (sameRecords(await (await fetch(`${bareUrl}/list-store`)).text()) !== sameRecords(listAnswer)) {
      throw new Error('the store-read ceiling does not send the records of the list answer');
    }

    // Warm up both servers (JIT, caches, connection setup).
    await load(bareUrl, { duration: 1 });
    await load(`${server.url}/v0/collections/${collection}/records/item-0042`, { duration: 1 });

    const round = (items: Post[], r: number) => items.slice(r * SIGNED_REQUESTS, (r + 1) * SIGNED_REQUESTS);
    const scenarios: [string, (r: number) => Promise<Figures>, number][] = [
      ['unsigned get', () => load(`${server.url}/v0/collections/${collection}/records/item-0042`, {}), 0.5],
      ['list of 100', () => load(listUrl, {}), 0.5],
      ['ceiling of list: bare server sending the same answer', () => load(`${bareUrl}/list-copy`, {}), 0],
      ['ceiling of list: bare server answering from the store read', () => load(`${bareUrl}/list-store`, {}), 0],
      ['signed create', (r) => load(server.url, { amount: SIGNED_REQUESTS }, round(creates, r)), 0.25],
      ['signed call', (r) => load(server.url, { amount: SIGNED_REQUESTS }, round(calls, r)), 0.25],
      [
        'ceiling of signed writes: bare server recovering the key in-thread',
        () => load(`${bareUrl}/verify`, { method: 'POST', body: callBody, headers: { 'content-type': 'application/json', 'x-polybase-signature': calls[0]!.header } }),
        0,
      ],
      ['ceiling of signed writes: bare server recovering in worker threads', (r) => load(bareUrl, { amount: SIGNED_REQUESTS }, round(calls, r)), 0],
    ];
    const rows: BenchRow[] = [];
    const baselines: number[] = [];
    // Latency at light load: one connection, so the figure is the service time, not queueing behind nine others.
    const single = await load(server.url, { connections: 1, amount: SINGLE_CONNECTION_REQUESTS }, calls.slice(ROUNDS * SIGNED_REQUESTS));
    if (single.errors > 0) throw new Error(`signed call (1 connection): ${single.errors} requests failed`);
    for (const [name, run, goal] of scenarios) {
      const rounds: { baseline: Figures; figures: Figures }[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        const baseline = await load(bareUrl, {});
        const figures = await run(r);
        if (figures.errors > 0) throw new Error(`${name}: ${figures.errors} requests failed`);
        rounds.push({ baseline, figures });
        baselines.push(baseline.rps);
      }
      // The median round by ratio; its own baseline and latencies go with it. The p99 row is the worst round's.
      const ratioOf = (x: (typeof rounds)[number]) => x.figures.rps / x.baseline.rps;
      const middle = [...rounds].sort((a, b) => ratioOf(a) - ratioOf(b))[Math.floor(ROUNDS / 2)]!;
      const worstP99 = Math.max(...rounds.map((x) => x.figures.p99));
      rows.push(row(SUITE, name, { value: middle.figures.rps, unit: 'req/s', baseline: middle.baseline.rps, ratio: ratioOf(middle), goal: goal > 0 ? `>= ${goal}x baseline` : 'informative' }));
      rows.push(row(SUITE, `${name} p50`, { value: middle.figures.p50, unit: 'ms', baseline: middle.baseline.p50, ratio: null, goal: 'informative' }));
      rows.push(row(SUITE, `${name} p99 (worst round)`, { value: worstP99, unit: 'ms', baseline: null, ratio: null, goal: name === 'signed call' ? '< 20 ms' : 'informative' }));
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
    driver?.close();
    await server.close();
    await bare.close();
    await pool.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
