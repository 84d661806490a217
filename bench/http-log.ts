// `npm run bench -- http-log`: what the per-request log and the metrics cost a get, the cheapest request and the
// one the fast path answers. The same `vellum serve` of the http bench's records runs in several variants, one
// after the other in alternating order per round, each loaded with gets of one record for ROUND_S seconds by
// autocannon in its own process (bench/load-driver.ts); the figure is the server's CPU time per request (all its
// threads, from /proc/<pid>/stat), the steadiest figure on a shared machine, as a ratio to the variant with
// neither, median round by ratio. The log goes to a pipe the bench reads and drops, as to a log collector.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { row, type BenchRow } from './harness.ts';
import { cpuMicros, itemId, loader, seedVellum, startServer, stopServer, type Server } from './http.ts';
import { LoadDriver } from './load-client.ts';

const SUITE = 'http-log';
const ROUNDS = Number(process.env.BENCH_HTTP_ROUNDS ?? 3);
const ROUND_S = 3;
const CONNECTIONS = 10;

interface Variant {
  name: string;
  flags: string[];
  goal: string;
}

const BASELINE: Variant = { name: 'neither', flags: ['--quiet', '--no-metrics'], goal: '' };
const VARIANTS: Variant[] = [
  { name: 'get, each request logged (JSON) CPU per request', flags: ['--log-format', 'json', '--no-metrics'], goal: '<= 1.05x neither' },
  { name: 'get, with metrics CPU per request', flags: ['--quiet'], goal: '<= 1.05x neither' },
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
    for (let round = 0; round < ROUNDS; round++) {
      const order = servers.map((_, i) => i);
      if (round % 2 === 1) order.reverse();
      for (const i of order) {
        const server = servers[i]!;
        const before = cpuMicros(server.child.pid!);
        const result = await driver.run({ url: `${server.url}${path}`, connections: CONNECTIONS, duration: ROUND_S, sampleInt: 50 }, undefined);
        const failed = result.errors + result.timeouts + result.non2xx;
        if (failed > 0) throw new Error(`${server.name}: ${failed} requests failed`);
        cpu[i]!.push((cpuMicros(server.child.pid!) - before) / result.requests.total);
      }
    }
    return VARIANTS.map((variant, v) => {
      const ratios = cpu[v + 1]!.map((value, round) => ({ value, baseline: cpu[0]![round]!, ratio: value / cpu[0]![round]! }));
      const median = ratios.sort((a, b) => a.ratio - b.ratio)[Math.floor(ratios.length / 2)]!;
      return row(SUITE, variant.name, { value: median.value, unit: 'µs', baseline: median.baseline, ratio: median.ratio, goal: variant.goal });
    });
  } finally {
    driver.close();
    await Promise.all(servers.map(stopServer));
    rmSync(dir, { recursive: true, force: true });
  }
}
