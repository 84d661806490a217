// `npm run bench -- http`: the record service against what a user would write instead, a hand-written fastify +
// better-sqlite3 service of the same records (bench/hand-written-server.js). Both run as processes of their own,
// started the same way (through tsx's loader, or from dist/ once the package is compiled: see `loader`), and
// autocannon runs in a third (bench/load-driver.ts). Each scenario runs in ROUNDS rounds; a round runs both
// servers one after the other, the order alternating, so a burst of load from elsewhere hits both alike. The row
// is the median round by ratio. Besides req/s and latency, each run reports the server's CPU time per request,
// from /proc/<pid>/stat around the run (all its threads: the signature workers and the checkpoint thread count):
// on a shared machine it is the steadiest figure. BENCH_HTTP_TOGETHER=1 runs the two servers of a round at the
// same time instead, each loaded by its own autocannon process: both then see the same load from elsewhere,
// which makes the CPU figures comparable on a busy machine (the req/s are then shares of the machine).
//
// The unsigned create and call also run a third server, the hand-written one with a change feed
// (`bench/hand-written-server.js --change-feed`: what Vellum guarantees on writes besides the record, written by
// hand), so that the gap to the plain hand-written server splits into what the guarantees cost and what Vellum's
// engine costs. Its rows are informative: it against the plain server, and Vellum against it.
//
// The rate limiter's rows (`limiterRows`) set Vellum against itself: gets with the limits on against a second
// server without them, and signed calls on PostgreSQL with keys' budgets in the database against in the process.
// `BENCH_HTTP_ONLY=rate-limiter` runs only those; `BENCH_HTTP_ONLY=reads` only the reads against the hand-written
// server (health, get, the lists).
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { signRequest } from '../src/auth/index.ts';
import { RecordService } from '../src/service/index.ts';
import { openPostgresStore, openSqliteStore } from '../src/store/index.ts';
import { startTestPostgres } from '../test/support/postgres.ts';
import { printRows, row, type BenchRow } from './harness.ts';
import { LoadDriver } from './load-client.ts';
import { limiterCost } from './rate-limit-cost.ts';
import type { Post } from './signed-posts.ts';

const SUITE = 'http';
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RECORDS = 5000;
const CONNECTIONS = 10;
const ROUNDS = Number(process.env.BENCH_HTTP_ROUNDS ?? 3);
const TOGETHER = process.env.BENCH_HTTP_TOGETHER === '1';
/** `BENCH_HTTP_ONLY=rate-limiter`: only the rate limiter's rows; `=reads`: only the reads against the hand-written server (rows of earlier runs of the suite are kept). */
const ONLY = process.env.BENCH_HTTP_ONLY;
if (ONLY !== undefined && ONLY !== 'rate-limiter' && ONLY !== 'reads') throw new Error(`BENCH_HTTP_ONLY must be rate-limiter or reads, not ${ONLY}`);
const ONLY_LIMITER = ONLY === 'rate-limiter';
const ONLY_READS = ONLY === 'reads';
export const partial = ONLY !== undefined;
/** Rounds of the rate limiter's rows: a difference of a few percent needs more than the other rows. */
const LIMITER_ROUNDS = Number(process.env.BENCH_HTTP_LIMITER_ROUNDS ?? 7);
/** Signed calls per round and server in the rate limiter's PostgreSQL rows. */
const LIMITER_SIGNED_WRITES = 3000;
const ROUND_S = 3;
/** Prepared requests per round and server of a write scenario (a signature, and a new id, is used once): enough for rounds of 1-2 s, which autocannon times to 0.01 s. */
const WRITES = 20_000;
const SIGNED_WRITES = 5000;
const KEY = `0x${'42'.repeat(32)}`;
/** /proc/<pid>/stat counts CPU time in clock ticks (USER_HZ), 100 per second on Linux. */
const TICKS_PER_SECOND = 100;

/** The bench's collection: records of three fields (and an owner when created signed). */
export const ITEM_SCHEMA = `
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
const COLLECTION = 'bench%2FItem';
const RECORDS_PATH = `/v0/collections/${COLLECTION}/records`;

/**
 * How both servers are run: from dist/ (the compiled package, plain `node`) when it exists, else through tsx's
 * loader, as `bin/vellum.js` does. VELLUM_BENCH_FROM=tsx or =dist chooses.
 */
export function loader(): 'tsx' | 'dist' {
  const chosen = process.env.VELLUM_BENCH_FROM;
  if (chosen === 'tsx' || chosen === 'dist') return chosen;
  if (chosen !== undefined) throw new Error(`VELLUM_BENCH_FROM must be tsx or dist, not ${chosen}`);
  return existsSync(join(ROOT, 'dist/cli/main.js')) ? 'dist' : 'tsx';
}

export interface Server {
  name: string;
  url: string;
  child: ChildProcess;
}

/** Starts `node <args>` and waits for its `listening on <url>` line. */
export function startServer(name: string, args: string[]): Promise<Server> {
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const url = /listening on (http:\/\/[^\s]+)/.exec(output)?.[1];
      if (url) {
        child.stdout!.off('data', onData);
        resolve({ name, url, child });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`${name} exited with ${code} before listening:\n${output}`)));
  });
}

export function stopServer(server: Server): Promise<void> {
  if (server.child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    server.child.once('exit', () => resolve());
    server.child.kill('SIGTERM');
  });
}

/** CPU time (user + system, all threads) the process has used so far, in microseconds. */
export function cpuMicros(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The fields after the command name (which may hold spaces) start at the state, field 3; utime and stime are 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / TICKS_PER_SECOND;
}

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  cpuPerRequest: number;
}

/** A scenario: a GET for ROUND_S seconds, or the round's share of prepared POSTs, each sent once. */
interface Scenario {
  name: string;
  goal: number;
  path?: string;
  posts?: (round: number) => Post[];
  /** Whether the hand-written server with a change feed runs it too. */
  withFeed?: boolean;
}

/** One round's figures of each server; `withFeed` only in the scenarios the feed server runs. */
interface Round {
  vellum: Figures;
  handWritten: Figures;
  withFeed?: Figures;
}

async function measure(driver: LoadDriver, server: Server, scenario: Scenario, round: number): Promise<Figures> {
  const pid = server.child.pid!;
  const settings: Record<string, unknown> = { url: `${server.url}${scenario.path ?? ''}`, connections: CONNECTIONS, sampleInt: 50 };
  const posts = scenario.posts?.(round);
  if (posts) settings.amount = posts.length;
  else settings.duration = ROUND_S;
  const before = cpuMicros(pid);
  const result = await driver.run(settings, posts);
  const cpu = cpuMicros(pid) - before;
  const failed = result.errors + result.timeouts + result.non2xx;
  if (failed > 0) throw new Error(`${scenario.name} on ${server.name}: ${failed} requests failed`);
  const requests = result.requests.total;
  return { rps: requests / result.duration, p50: result.latency.p50, p99: result.latency.p99, cpuPerRequest: cpu / requests };
}

/** The Vellum store of the bench: the schema and RECORDS records, as `vellum serve --data <dir>` opens it. */
export async function seedVellum(dataDir: string): Promise<void> {
  mkdirSync(dataDir, { recursive: true });
  const service = new RecordService(openSqliteStore(join(dataDir, 'vellum.sqlite')));
  try {
    await service.initialise();
    await service.installSchema('bench/Item', ITEM_SCHEMA);
    for (let i = 0; i < RECORDS; i++) await service.create('bench/Item', [itemId(i), i, `label ${i % 10}`], {});
  } finally {
    await service.store.close();
  }
}

export function itemId(i: number): string {
  return `item-${String(i).padStart(4, '0')}`;
}

/**
 * All servers must send the same bytes for every read scenario (Polybase's envelope: each record with its block
 * hash, and a list's cursor pair, encoded as Vellum encodes them), or the comparison means nothing.
 */
async function checkSameAnswers(servers: readonly Server[], paths: readonly string[]): Promise<void> {
  for (const path of paths) {
    const answers = await Promise.all(servers.map(async (server) => Buffer.from(await (await fetch(`${server.url}${path}`)).arrayBuffer())));
    const other = answers.findIndex((answer) => !answer.equals(answers[0]!));
    if (other >= 0) throw new Error(`${servers[other]!.name} answers ${path} with other bytes than ${servers[0]!.name}:\n${answers[other]!.toString().slice(0, 400)}\n${answers[0]!.toString().slice(0, 400)}`);
  }
}

/**
 * After the same writes the feed server must hold the same records as the plain one, and have logged each write
 * once (`changes` rows: its seeded records and `writes`) with the collection's stamp at the last change. Asked of
 * the servers themselves (`GET /bench/state`). Reading their database files from here instead, beside the running
 * servers, made the plain server's later calls cost it 70-75 µs of CPU each in two runs of three (47-57 without
 * that read, in the same hour): its baseline then flattered Vellum (0.71x-0.73x instead of 0.54x-0.60x).
 */
async function checkFeedRecords(handWritten: Server, withFeed: Server, writes: number): Promise<void> {
  type State = { records: number; digest: string; changes: { count: number; last: number; stamp: number } | null };
  const [plain, feed] = await Promise.all([handWritten, withFeed].map(async (server) => (await (await fetch(`${server.url}/bench/state`)).json()) as State));
  if (feed!.records !== plain!.records) throw new Error(`the server with a change feed holds ${feed!.records} records, the plain one ${plain!.records}`);
  if (feed!.digest !== plain!.digest) throw new Error('the server with a change feed holds other records than the plain one (their digests differ)');
  const log = feed!.changes!;
  if (log.count !== RECORDS + writes || log.stamp !== log.last) {
    throw new Error(`the change feed logged ${log.count} changes (expected ${RECORDS + writes}) and stamps ${log.stamp} (its last change ${log.last})`);
  }
}

/** The round whose ratio is the median one, with that ratio. */
function medianRound<R>(rounds: readonly R[], ratio: (round: R) => number): { round: R; ratio: number } {
  const round = [...rounds].sort((a, b) => ratio(a) - ratio(b))[Math.floor(rounds.length / 2)]!;
  return { round, ratio: ratio(round) };
}

/** The rows of `of` against `against` (a server's figures in a round): req/s and CPU per request, each its median round by ratio. */
function ratioRows<R>(name: string, rounds: readonly R[], of: (round: R) => Figures, against: (round: R) => Figures, goals: { rps?: string; cpu: string }): BenchRow[] {
  const rows: BenchRow[] = [];
  if (goals.rps !== undefined) {
    const rps = medianRound(rounds, (x) => of(x).rps / against(x).rps);
    rows.push(row(SUITE, name, { value: of(rps.round).rps, unit: 'req/s', baseline: against(rps.round).rps, ratio: rps.ratio, goal: goals.rps }));
  }
  const cpu = medianRound(rounds, (x) => of(x).cpuPerRequest / against(x).cpuPerRequest);
  rows.push(row(SUITE, `${name} CPU per request`, { value: of(cpu.round).cpuPerRequest, unit: 'µs', baseline: against(cpu.round).cpuPerRequest, ratio: cpu.ratio, goal: goals.cpu }));
  return rows;
}

/** `servers` turned `by` places to the left: each server in turn goes first. */
function rotate<T>(servers: readonly T[], by: number): T[] {
  const start = by % servers.length;
  return [...servers.slice(start), ...servers.slice(0, start)];
}

interface LimiterSetup {
  dir: string;
  node: string[];
  cli: string;
  /** Flags setting every limit out of reach. */
  unreachable: string[];
  mode: string;
  /** The Vellum server of the suite: SQLite, limits on. */
  vellum: Server;
  driver: LoadDriver;
  /** Servers started here join it, to be stopped with the others. */
  servers: Server[];
}

/** Each of `a` and `b` runs `scenario`, one after the other, each first in turn. */
async function pairRounds(setup: LimiterSetup, a: Server, b: Server, scenario: (round: number) => Scenario): Promise<{ a: Figures; b: Figures }[]> {
  const rounds: { a: Figures; b: Figures }[] = [];
  for (let round = 0; round < LIMITER_ROUNDS; round++) {
    const order = round % 2 === 0 ? [a, b] : [b, a];
    const figures = new Map<Server, Figures>();
    for (const server of order) figures.set(server, await measure(setup.driver, server, scenario(round), round));
    rounds.push({ a: figures.get(a)!, b: figures.get(b)! });
  }
  return rounds;
}

/**
 * What the rate limiter costs, measured over HTTP in the same run: gets from the suite's Vellum server (limits on,
 * out of reach) against a second one on a copy of its store with `--no-rate-limits`; and, on PostgreSQL, signed
 * calls with a key's write and gas budgets in the database (the default there: a statement per write, and one for
 * the gas it used) against `--no-shared-limits` (every bucket in the process), two servers on one database.
 */
async function limiterRows(setup: LimiterSetup): Promise<BenchRow[]> {
  const { dir, node, cli, unreachable, mode, vellum, driver, servers } = setup;
  const rows: BenchRow[] = [];
  const unlimited = await startServer('Vellum without rate limits', [...node, cli, 'serve', '--port', '0', '--data', join(dir, 'vellum-unlimited'), '--quiet', '--no-rate-limits']);
  servers.push(unlimited);
  const get: Scenario = { name: 'get', goal: 0, path: `${RECORDS_PATH}/item-0042` };
  for (const server of [vellum, unlimited]) await driver.run({ url: `${server.url}${get.path}`, connections: CONNECTIONS, duration: 1 }, undefined);
  const gets = await pairRounds(setup, vellum, unlimited, () => get);
  rows.push(...ratioRows(`rate limiter: get, limits on vs off (${mode})`, gets, (x) => x.a, (x) => x.b, { rps: 'informative', cpu: '<= 1.03x without limits' }));
  printRows(rows); // before the longer PostgreSQL rows

  const pg = await startTestPostgres();
  const onPostgres: Server[] = [];
  try {
    const url = pg.url;
    const service = new RecordService(await openPostgresStore({ connectionString: url }));
    try {
      await service.initialise();
      await service.installSchema('bench/Item', ITEM_SCHEMA);
      for (let i = 0; i < 500; i++) await service.create('bench/Item', [itemId(i), i, `label ${i % 10}`], {});
    } finally {
      await service.store.close();
    }
    const shared = await startServer('Vellum on PostgreSQL, shared key limits', [...node, cli, 'serve', '--port', '0', '--db', url, '--quiet', ...unreachable]);
    onPostgres.push(shared);
    const local = await startServer('Vellum on PostgreSQL, key limits per process', [...node, cli, 'serve', '--port', '0', '--db', url, '--quiet', ...unreachable, '--no-shared-limits']);
    onPostgres.push(local);
    // Both servers write the same table, one after the other; each signed call is sent once (distinct times).
    const body = JSON.stringify({ args: [] });
    let signedAt = Date.now();
    const calls = (count: number): Post[] => {
      signedAt = Math.max(signedAt, Date.now()); // a signature's time must be recent when it is checked
      return Array.from({ length: count }, (_, i) => ({ path: `${RECORDS_PATH}/${itemId(i % 500)}/call/increment`, body, header: signRequest(KEY, body, signedAt++) }));
    };
    for (const server of [shared, local]) {
      const warm = calls(1000);
      await driver.run({ url: server.url, connections: CONNECTIONS, amount: warm.length }, warm);
    }
    // Signed just before each run, outside its measure (a signature's time must be close to when it is checked).
    const signedCall = (): Scenario => ({ name: 'signed call on PostgreSQL', goal: 0, posts: () => calls(LIMITER_SIGNED_WRITES) });
    const writes = await pairRounds(setup, shared, local, signedCall);
    rows.push(...ratioRows(`rate limiter: signed call on PostgreSQL, key limits shared vs per process (${mode})`, writes, (x) => x.a, (x) => x.b, { rps: 'informative', cpu: 'informative' }));
  } finally {
    await Promise.all(onPostgres.map(stopServer));
    await pg.stop();
  }
  return rows;
}

export default async function http(): Promise<BenchRow[]> {
  const from = loader();
  const dir = mkdtempSync(join(tmpdir(), 'vellum-bench-http-'));
  const drivers = [new LoadDriver(), new LoadDriver()];
  const servers: Server[] = [];
  try {
    await seedVellum(join(dir, 'vellum'));
    // The same store again, for the server without rate limits (rate-limiter rows).
    cpSync(join(dir, 'vellum'), join(dir, 'vellum-unlimited'), { recursive: true });
    const node = from === 'dist' ? [] : ['--import', 'tsx'];
    const authModule = from === 'dist' ? join(ROOT, 'dist/lib/index.js') : join(ROOT, 'src/auth/index.ts');
    const cli = from === 'dist' ? 'dist/cli/main.js' : 'src/cli/main.ts';
    // The rate limits on (the default) but out of reach of the load, all from one address: the limiter's work is
    // in every figure, and the row "rate limiter per get" below gives its share.
    const unreachable = ['--reads-per-key', '--reads-per-address', '--writes-per-key', '--writes-per-address', '--signatures-per-address', '--gas-per-minute'].flatMap((flag) => [flag, '1000000000000']);
    servers.push(await startServer('Vellum', [...node, cli, 'serve', '--port', '0', '--data', join(dir, 'vellum'), '--quiet', ...unreachable]));
    const vellum = servers[0]!;
    const againstHandWritten = async (): Promise<BenchRow[]> => {
      const handWrittenFile = join(dir, 'hand-written.sqlite');
      const withFeedFile = join(dir, 'hand-written-feed.sqlite');
      servers.push(await startServer('hand-written', [...node, 'bench/hand-written-server.js', handWrittenFile, authModule, String(RECORDS)]));
      servers.push(await startServer('hand-written with a change feed', [...node, 'bench/hand-written-server.js', withFeedFile, authModule, String(RECORDS), '--change-feed']));
      const [, handWritten, withFeed] = servers as [Server, Server, Server];
      const pair = [vellum, handWritten];

      const get = `${RECORDS_PATH}/item-0042`;
      const sorted = `${RECORDS_PATH}?limit=100&sort=${encodeURIComponent('[["n","desc"]]')}`;
      const where = `${RECORDS_PATH}?limit=100&where=${encodeURIComponent('{"label":"label 3"}')}`;
      await checkSameAnswers(servers, [get, sorted, where]);

      const now = Date.now();
      const createBody = (prefix: string, i: number) => JSON.stringify({ args: [`${prefix}-${i}`, i, 'created'] });
      const callBody = JSON.stringify({ args: [] });
      const callPath = (i: number) => `${RECORDS_PATH}/${itemId(i % 500)}/call/increment`;
      const share = (count: number, round: number, make: (i: number) => Post) => Array.from({ length: count }, (_, i) => make(round * count + i));
      // Signed in advance, outside the timed runs; distinct times make distinct signatures. The same requests go
      // to both servers (each has its own database and replay memory). None when only the reads run.
      const writeRounds = ONLY_READS ? 0 : ROUNDS;
      const signedCreates = Array.from({ length: writeRounds }, (_, round) =>
        share(SIGNED_WRITES, round, (i) => {
          const body = createBody('signed', i);
          return { path: RECORDS_PATH, body, header: signRequest(KEY, body, now + i) };
        }),
      );
      const signedCalls = Array.from({ length: writeRounds }, (_, round) =>
        share(SIGNED_WRITES, round, (i) => ({ path: callPath(i), body: callBody, header: signRequest(KEY, callBody, now + ROUNDS * SIGNED_WRITES + i) })),
      );
      const reads: Scenario[] = [
        { name: 'health', goal: 0, path: '/v0/health' },
        { name: 'get', goal: 0.9, path: get },
        { name: 'list 100 sorted desc', goal: 0.8, path: sorted },
        { name: 'list 100 where', goal: 0.8, path: where },
      ];
      const writes: Scenario[] = [
        { name: 'unsigned create', goal: 0.7, withFeed: true, posts: (round) => share(WRITES, round, (i) => ({ path: RECORDS_PATH, body: createBody('new', i) })) },
        { name: 'unsigned call', goal: 0.7, withFeed: true, posts: (round) => share(WRITES, round, (i) => ({ path: callPath(i), body: callBody })) },
        { name: 'signed create', goal: 0.6, posts: (round) => signedCreates[round]! },
        { name: 'signed call', goal: 0.6, posts: (round) => signedCalls[round]! },
      ];
      const scenarios = ONLY_READS ? reads : [...reads, ...writes];

      // Warm-up: JIT, caches, connections; and the write paths, whose first thousand requests (compiling the
      // call path, growing the heap) otherwise fall into the first round of the create and call rows and set
      // their p99. The same calls go to every server, so their records stay the same.
      const warmCalls = Array.from({ length: 1000 }, (_, i) => ({ path: callPath(i), body: callBody }));
      for (const server of servers) {
        for (const path of [get, sorted]) await drivers[0]!.run({ url: `${server.url}${path}`, connections: CONNECTIONS, duration: 1 }, undefined);
        await drivers[0]!.run({ url: server.url, connections: CONNECTIONS, amount: warmCalls.length }, warmCalls);
      }

      const rows: BenchRow[] = [];
      let feedWrites = warmCalls.length;
      for (const scenario of scenarios) {
        const rounds: Round[] = [];
        for (let round = 0; round < ROUNDS; round++) {
          const figures = new Map<Server, Figures>();
          if (TOGETHER) {
            const together = await Promise.all(pair.map((server, i) => measure(drivers[i]!, server, scenario, round)));
            pair.forEach((server, i) => figures.set(server, together[i]!));
            // The feed server runs in a pass of its own after the pair, loaded alone: its CPU per request compares
            // with theirs, its req/s (a whole core against the pair's shares of the machine) does not, so this mode
            // reports only its CPU rows.
            if (scenario.withFeed) figures.set(withFeed, await measure(drivers[0]!, withFeed, scenario, round));
          } else {
            // One after the other, each server first in turn.
            const order = scenario.withFeed ? rotate(servers, round) : round % 2 === 0 ? pair : [...pair].reverse();
            for (const server of order) figures.set(server, await measure(drivers[0]!, server, scenario, round));
          }
          rounds.push({ vellum: figures.get(vellum)!, handWritten: figures.get(handWritten)!, withFeed: figures.get(withFeed) });
        }
        const goal = scenario.goal > 0 ? `>= ${scenario.goal}x hand-written` : 'informative';
        const mode = `${from}${TOGETHER ? ', together' : ''}`;
        const name = `${scenario.name} (${mode})`;
        rows.push(...ratioRows(name, rounds, (x) => x.vellum, (x) => x.handWritten, { rps: goal, cpu: scenario.name === 'get' ? '<= 1.3x hand-written' : 'informative' }));
        const middle = medianRound(rounds, (x) => x.vellum.rps / x.handWritten.rps).round;
        rows.push(row(SUITE, `${name} p50`, { value: middle.vellum.p50, unit: 'ms', baseline: middle.handWritten.p50, ratio: null, goal: 'informative' }));
        rows.push(row(SUITE, `${name} p99`, { value: middle.vellum.p99, unit: 'ms', baseline: middle.handWritten.p99, ratio: null, goal: 'informative' }));
        if (scenario.withFeed) {
          const feedGoals = { rps: TOGETHER ? undefined : 'informative', cpu: 'informative' };
          rows.push(...ratioRows(`${scenario.name}: hand-written with a change feed (${mode})`, rounds, (x) => x.withFeed!, (x) => x.handWritten, feedGoals));
          rows.push(...ratioRows(`${scenario.name}: Vellum vs hand-written with a change feed (${mode})`, rounds, (x) => x.vellum, (x) => x.withFeed!, feedGoals));
          feedWrites += ROUNDS * WRITES;
          await checkFeedRecords(handWritten, withFeed, feedWrites);
        }
      }
      // The limiter's cost per get, in process, against the get's server CPU per request measured above.
      const getCpu = rows.find((r) => r.name.startsWith('get (') && r.name.endsWith('CPU per request'));
      if (getCpu) {
        const worst = (await limiterCost()).reduce((a, b) => (b.ns > a.ns ? b : a));
        const getNs = getCpu.value * 1000;
        rows.push(row(SUITE, `rate limiter per get, ${worst.name} (in process)`, { value: worst.ns, unit: 'ns', baseline: getNs, ratio: worst.ns / getNs, goal: "<= 0.03x of a get's server CPU" }));
      }
      return rows;
    };
    if (ONLY_READS) return await againstHandWritten();
    return [...(ONLY_LIMITER ? [] : await againstHandWritten()), ...(await limiterRows({ dir, node, cli, unreachable, mode: from, vellum, driver: drivers[0]!, servers }))];
  } finally {
    for (const driver of drivers) driver.close();
    await Promise.all(servers.map(stopServer));
    rmSync(dir, { recursive: true, force: true });
  }
}
