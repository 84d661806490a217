// `npm run bench -- http-log`: what the per-request log and the metrics cost a get, the cheapest request and the
// one the fast path answers. The same `vellum serve` of the http bench's records runs in several variants, one
// after the other in alternating order per round, each loaded with gets of one record for ROUND_S seconds by
// autocannon in its own process (bench/load-driver.ts); the figure is the server's CPU time per request (all its
// threads, from /proc/<pid>/stat), the steadiest figure on a shared machine, as a ratio to the variant with
// neither, median round by ratio. The log goes to a pipe the bench reads and drops, as to a log collector (the
// bench's reading is its own CPU, not the server's).
//
// A second server with neither runs as a variant too: its ratio to the first is the run's noise, what two
// identical servers differ by (on the shared 2-core machine single rounds of it spread 0.6x-1.2x at load 14).
// So that a reader sees where a difference lies, the log and the metrics also get informative rows splitting
// their CPU per request into user and system time per thread (/proc/<pid>/task/<tid>/stat): the main thread (the
// event loop, where every request is answered) and the others by their name (/proc/<pid>/task/<tid>/comm; Node
// 20 names none of its own, so V8's garbage collection and compiler helpers, libuv's pool and the worker threads
// are one part, `node threads`), from the round whose ratio is the median, against the same part of neither in it.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { row, type BenchRow } from './harness.ts';
import { cpuMicros, itemId, loader, seedVellum, startServer, stopServer, type Server } from './http.ts';
import { LoadDriver } from './load-client.ts';

const SUITE = 'http-log';
const ROUNDS = Number(process.env.BENCH_HTTP_ROUNDS ?? 5);
const ROUND_S = 3;
const CONNECTIONS = 10;

interface Variant {
  name: string;
  flags: string[];
  goal: string;
  /** Whether the variant gets the rows of its CPU split by thread, user and system. */
  split: boolean;
}

const BASELINE: Variant = { name: 'neither', flags: ['--quiet', '--no-metrics'], goal: '', split: false };
const VARIANTS: Variant[] = [
  { name: 'get, each request logged (JSON) CPU per request', flags: ['--log-format', 'json', '--no-metrics'], goal: '<= 1.05x neither', split: true },
  { name: 'get, with metrics CPU per request', flags: ['--quiet'], goal: '<= 1.05x neither', split: true },
  { name: "get, neither again (the run's noise) CPU per request", flags: BASELINE.flags, goal: 'informative', split: false },
];

export default async function httpLog(): Promise<BenchRow[]> {
  const from = loader();
  const dir = mkdtempSync(join(tmpdir(), 'vellum-bench-http-log-'));
  const driver = new LoadDriver();
  const servers: Server[] = [];
  try {
    await seedVellum(join(dir, 'vellum'));
    const node = from === 'dist' ? [] : ['--import', 'tsx'];
    const cli = from === 'dist' ? 'dist/cli/main.js' : 'src/cli/main.ts';
    for (const variant of [BASELINE, ...VARIANTS]) {
      // No rate limits: one address sends every request (as in the http bench).
      servers.push(await startServer(variant.name, [...node, cli, 'serve', '--port', '0', '--data', join(dir, 'vellum'), '--no-explorer', '--no-rate-limits', ...variant.flags]));
    }
    const path = `/v0/collections/bench%2FItem/records/${itemId(42)}`;
    for (const server of servers) await driver.run({ url: `${server.url}${path}`, connections: CONNECTIONS, duration: 1 }, undefined);
    const cpu: number[][] = servers.map(() => []);
    const parts: Map<string, number>[][] = servers.map(() => []);
    for (let round = 0; round < ROUNDS; round++) {
      const order = servers.map((_, i) => i);
      if (round % 2 === 1) order.reverse();
      for (const i of order) {
        const server = servers[i]!;
        const pid = server.child.pid!;
        const before = cpuMicros(pid);
        const threadsBefore = threadMicros(pid);
        const result = await driver.run({ url: `${server.url}${path}`, connections: CONNECTIONS, duration: ROUND_S, sampleInt: 50 }, undefined);
        const failed = result.errors + result.timeouts + result.non2xx;
        if (failed > 0) throw new Error(`${server.name}: ${failed} requests failed`);
        const total = cpuMicros(pid) - before;
        cpu[i]!.push(total / result.requests.total);
        parts[i]!.push(perRequest(partsBetween(threadsBefore, threadMicros(pid), total), result.requests.total));
      }
    }
    return VARIANTS.flatMap((variant, v) => {
      const ratios = cpu[v + 1]!.map((value, round) => ({ round, value, baseline: cpu[0]![round]!, ratio: value / cpu[0]![round]! }));
      const median = ratios.sort((a, b) => a.ratio - b.ratio)[Math.floor(ratios.length / 2)]!;
      return [
        row(SUITE, variant.name, { value: median.value, unit: 'µs', baseline: median.baseline, ratio: median.ratio, goal: variant.goal }),
        ...(variant.split ? splitRows(variant.name.replace(/ CPU per request$/, ''), parts[v + 1]![median.round]!, parts[0]![median.round]!) : []),
      ];
    });
  } finally {
    driver.close();
    await Promise.all(servers.map(stopServer));
    rmSync(dir, { recursive: true, force: true });
  }
}

/** /proc's CPU times are in clock ticks (USER_HZ), 100 per second on Linux. */
const TICKS_PER_SECOND = 100;

/**
 * The CPU time the threads of `pid` have used so far, in microseconds, by `<threads>, user` and `<threads>, system`:
 * the main thread (whose id is the process's) as `main thread`, every other by its name as `<name> threads`.
 */
function threadMicros(pid: number): Map<string, number> {
  const times = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let stat: string;
    let name: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      name = Number(tid) === pid ? 'main thread' : `${readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim()} threads`;
    } catch {
      continue; // the thread ended meanwhile: its time is in the remainder (partsBetween)
    }
    // The fields after the thread's name (which may hold spaces) start at the state, field 3; utime and stime are 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    for (const [kind, ticks] of [['user', fields[11]], ['system', fields[12]]] as const) {
      const key = `${name}, ${kind}`;
      times.set(key, (times.get(key) ?? 0) + (Number(ticks) * 1e6) / TICKS_PER_SECOND);
    }
  }
  return times;
}

/**
 * Each part's CPU time between two readings of threadMicros, and as `threads that ended` what the process's total
 * (`total`, from /proc/<pid>/stat, which keeps the time of threads that ended) holds beyond the parts.
 */
function partsBetween(before: Map<string, number>, after: Map<string, number>, total: number): Map<string, number> {
  const parts = new Map<string, number>();
  let sum = 0;
  for (const [key, value] of after) {
    const used = value - (before.get(key) ?? 0);
    parts.set(key, used);
    sum += used;
  }
  if (total - sum > 0) parts.set('threads that ended', total - sum);
  return parts;
}

function perRequest(parts: Map<string, number>, requests: number): Map<string, number> {
  return new Map([...parts].map(([key, value]) => [key, value / requests]));
}

/**
 * The informative rows of a variant's split (see threadMicros): per part its CPU per request in the median round,
 * against the same part of neither in that round, so that the parts add up to the variant's row. Parts under 1 µs a
 * request in both are left out.
 */
function splitRows(variant: string, parts: Map<string, number>, baselineParts: Map<string, number>): BenchRow[] {
  const keys = [...new Set([...parts.keys(), ...baselineParts.keys()])].sort(byPart);
  return keys.flatMap((key) => {
    const value = parts.get(key) ?? 0;
    const baseline = baselineParts.get(key) ?? 0;
    if (value < 1 && baseline < 1) return [];
    return [row(SUITE, `${variant}: ${key}`, { value, unit: 'µs', baseline, ratio: baseline > 0 ? value / baseline : null, goal: 'informative' })];
  });
}

/** The main thread's parts first, then the others by name. */
function byPart(a: string, b: string): number {
  return Number(b.startsWith('main thread')) - Number(a.startsWith('main thread')) || a.localeCompare(b);
}
