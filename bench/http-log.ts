// `npm run bench -- http-log`: what the per-request log and the metrics cost a get, the cheapest request and the
// one the fast path answers, as the server's CPU time per request (all its threads, from /proc/<pid>/stat), the
// steadiest figure on a shared machine. The same `vellum serve` of the http bench's records runs with the log
// (`--log-format json`, to a pipe the bench reads and drops, as to a log collector), with the metrics, or with
// neither, `--no-rate-limits` each; gets of one record come from autocannon in its own process
// (bench/load-driver.ts).
//
// The same code costs more or less from one process to the next (V8 picks its tiers per process), by more than the 5%
// to be resolved, so more rounds against one pair of processes do not help: each figure is the median of PAIRS ratios,
// each from a fresh pair of processes, the variant and one with neither. A pair is started, each server warmed up for
// WARM_S seconds (a fresh server's CPU per get falls for its first 2-3 s of load, to a third of its first second's),
// then loaded in both orders (variant then neither, then neither then variant, ROUND_S seconds each), its ratio the
// variant's CPU per request over both rounds against neither's; the pairs of the three figures take turns, so that the
// machine's load falls on each alike. The noise row is a pair of two identical servers with neither, measured exactly
// the same way: its spread is what the run can resolve. Informative rows give each figure's lowest and highest pair
// (the median of the pairs' ratios lies between them with a confidence of 1 - 2^(1 - PAIRS), 98% for 7 pairs; the
// second lowest and highest, printed with every pair, give 88%), and split the median pair's CPU per request into user
// and system time per thread (/proc/<pid>/task/<tid>/stat): the main thread (the event loop, where every request is
// answered) and the others by their name (/proc/<pid>/task/<tid>/comm; Node 20 names none of its own, so V8's garbage
// collection and compiler helpers, libuv's pool and the worker threads are one part, `node threads`).
//
// Last, the log's own work for a get measured in this process (bench/log-cost.ts) against the CPU per request of
// the servers with neither: a floor for the log's share, as a loop keeps its code and data in cache.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { row, type BenchRow } from './harness.ts';
import { cpuMicros, itemId, loader, seedVellum, startServer, stopServer, type Server } from './http.ts';
import { LoadDriver } from './load-client.ts';
import { logCost } from './log-cost.ts';

const SUITE = 'http-log';
/** Fresh pairs of processes per figure (odd, so that the median is one pair's). */
const PAIRS = Number(process.env.BENCH_HTTP_LOG_PAIRS ?? 7);
/** Seconds of load each server of a pair gets before it is measured, and in each of its two rounds. */
const WARM_S = 3;
const ROUND_S = 1;
const CONNECTIONS = 10;

const NEITHER = ['--quiet', '--no-metrics'];

interface Figure {
  name: string;
  flags: string[];
  goal: string;
  /** Whether the figure gets the rows of its CPU split by thread, user and system. */
  split: boolean;
}

const FIGURES: Figure[] = [
  { name: 'get, each request logged (JSON) CPU per request', flags: ['--log-format', 'json', '--no-metrics'], goal: '<= 1.05x neither', split: true },
  { name: 'get, with metrics CPU per request', flags: ['--quiet'], goal: '<= 1.05x neither', split: true },
  { name: "get, neither again (the run's noise) CPU per request", flags: NEITHER, goal: 'informative', split: false },
];

/** One server's figures over a pair's rounds: CPU per request, and its parts (threadMicros) per request. */
interface Measured {
  cpu: number;
  parts: Map<string, number>;
}

interface Pair {
  variant: Measured;
  neither: Measured;
  ratio: number;
}

export default async function httpLog(): Promise<BenchRow[]> {
  const from = loader();
  const dir = mkdtempSync(join(tmpdir(), 'vellum-bench-http-log-'));
  const driver = new LoadDriver();
  try {
    await seedVellum(join(dir, 'vellum'));
    const node = from === 'dist' ? [] : ['--import', 'tsx'];
    const cli = from === 'dist' ? 'dist/cli/main.js' : 'src/cli/main.ts';
    // No rate limits: one address sends every request (as in the http bench).
    const serve = (name: string, flags: string[]) => startServer(name, [...node, cli, 'serve', '--port', '0', '--data', join(dir, 'vellum'), '--no-explorer', '--no-rate-limits', ...flags]);
    const path = `/v0/collections/bench%2FItem/records/${itemId(42)}`;
    const load = async (server: Server, seconds: number): Promise<{ requests: number; cpu: number; parts: Map<string, number> }> => {
      const pid = server.child.pid!;
      const before = cpuMicros(pid);
      const threadsBefore = threadMicros(pid);
      const result = await driver.run({ url: `${server.url}${path}`, connections: CONNECTIONS, duration: seconds, sampleInt: 50 }, undefined);
      const failed = result.errors + result.timeouts + result.non2xx;
      if (failed > 0) throw new Error(`${server.name}: ${failed} requests failed`);
      const cpu = cpuMicros(pid) - before;
      return { requests: result.requests.total, cpu, parts: partsBetween(threadsBefore, threadMicros(pid), cpu) };
    };

    /** One pair: the variant's and neither's servers, fresh, each warmed up, then measured in both orders. */
    const measurePair = async (figure: Figure, index: number): Promise<Pair> => {
      const servers: Server[] = [];
      try {
        // Started together; one that fails to start stops the other.
        const started = await Promise.allSettled([serve(figure.name, figure.flags), serve('neither', NEITHER)]);
        for (const result of started) if (result.status === 'fulfilled') servers.push(result.value);
        for (const result of started) if (result.status === 'rejected') throw result.reason;
        // Which one goes first alternates from pair to pair; within a pair each goes first once.
        const order = index % 2 === 0 ? [0, 1] : [1, 0];
        for (const i of order) await load(servers[i]!, WARM_S);
        const totals = servers.map(() => ({ requests: 0, cpu: 0, parts: new Map<string, number>() }));
        for (const round of [order, [...order].reverse()]) {
          for (const i of round) {
            const measured = await load(servers[i]!, ROUND_S);
            const total = totals[i]!;
            total.requests += measured.requests;
            total.cpu += measured.cpu;
            for (const [key, value] of measured.parts) total.parts.set(key, (total.parts.get(key) ?? 0) + value);
          }
        }
        const [variant, neither] = totals.map((total) => ({ cpu: total.cpu / total.requests, parts: perRequest(total.parts, total.requests) }));
        return { variant: variant!, neither: neither!, ratio: variant!.cpu / neither!.cpu };
      } finally {
        await Promise.all(servers.map(stopServer));
      }
    };

    const pairs: Pair[][] = FIGURES.map(() => []);
    for (let index = 0; index < PAIRS; index++) {
      for (const [f, figure] of FIGURES.entries()) {
        const pair = await measurePair(figure, index);
        pairs[f]!.push(pair);
        console.log(`  pair ${index + 1}/${PAIRS} ${figure.name.replace(/ CPU per request$/, '')}: ${pair.variant.cpu.toFixed(1)} / ${pair.neither.cpu.toFixed(1)} µs = ${pair.ratio.toFixed(3)}x`);
      }
    }

    const rows = FIGURES.flatMap((figure, f) => {
      const sorted = [...pairs[f]!].sort((a, b) => a.ratio - b.ratio);
      const median = sorted[Math.floor(sorted.length / 2)]!;
      const short = figure.name.replace(/ CPU per request$/, '');
      const pairRow = (name: string, pair: Pair, goal: string) => row(SUITE, name, { value: pair.variant.cpu, unit: 'µs', baseline: pair.neither.cpu, ratio: pair.ratio, goal });
      return [
        pairRow(figure.name, median, figure.goal),
        pairRow(`${short}: lowest of ${sorted.length} pairs`, sorted[0]!, 'informative'),
        pairRow(`${short}: highest of ${sorted.length} pairs`, sorted[sorted.length - 1]!, 'informative'),
        ...(figure.split ? splitRows(short, median.variant.parts, median.neither.parts) : []),
      ];
    });

    // The log's own work in process, against a get's CPU in the servers with neither (the median over every pair).
    const neitherCpu = pairs.flat().map((pair) => pair.neither.cpu).sort((a, b) => a - b);
    const getNs = neitherCpu[Math.floor(neitherCpu.length / 2)]! * 1000;
    const logNs = await logCost();
    rows.push(row(SUITE, "get, the log's own work per request (in process)", { value: logNs, unit: 'ns', baseline: getNs, ratio: logNs / getNs, goal: "informative: a floor of the log's share (<= 0.05x)" }));
    return rows;
  } finally {
    driver.close();
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
 * The informative rows of a variant's split (see threadMicros): per part its CPU per request in the median pair,
 * against the same part of neither in that pair, so that the parts add up to the variant's row. Parts under 1 µs a
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
