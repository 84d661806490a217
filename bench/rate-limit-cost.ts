// The rate limiter's cost per request, in process (tinybench): what a get pays for its limits, the client address
// (request-limits.ts `address`) and the read bucket (`tryRead`), as the get fast path runs them. Three cases:
// one client address (as the http bench's load), 10,000 addresses in turn (a larger map), and a trusted proxy's
// X-Forwarded-For. bench/http.ts reports the worst against a get's server CPU per request measured in the same run
// (goal: at most 3%). `npx tsx bench/rate-limit-cost.ts` prints the three alone.
import type { IncomingMessage } from 'node:http';
import { Bench } from 'tinybench';
import { RequestLimits } from '../src/service/request-limits.ts';

/** Limits no request reaches: the buckets are checked and charged, never refused. */
const NEVER = 1e12;
const HIGH = { readsPerKey: NEVER, readsPerAddress: NEVER, writesPerKey: NEVER, writesPerAddress: NEVER, signaturesPerAddress: NEVER, gasPerMinute: NEVER };
/** Checks per task iteration: tinybench's own cost per iteration is of the order of what is measured. */
const BATCH = 1000;

const fakeRequest = (remoteAddress: string, forwardedFor?: string) => ({ socket: { remoteAddress }, headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor } }) as unknown as IncomingMessage;

export async function limiterCost(): Promise<{ name: string; ns: number }[]> {
  const direct = new RequestLimits({ rateLimits: HIGH });
  const proxied = new RequestLimits({ rateLimits: HIGH, trustProxy: ['127.0.0.1'] });
  const one = fakeRequest('127.0.0.1');
  const many = Array.from({ length: 10_000 }, (_, i) => fakeRequest(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`));
  const forwarded = fakeRequest('127.0.0.1', '203.0.113.7');
  let next = 0;
  const bench = new Bench({ time: 1000, warmupTime: 200 });
  bench.add('one address', () => {
    for (let i = 0; i < BATCH; i++) if (!direct.tryRead(direct.address(one))) throw new Error('refused');
  });
  bench.add('10,000 addresses', () => {
    for (let i = 0; i < BATCH; i++) {
      const request = many[next++ % many.length]!;
      if (!direct.tryRead(direct.address(request))) throw new Error('refused');
    }
  });
  bench.add('behind a trusted proxy', () => {
    for (let i = 0; i < BATCH; i++) if (!proxied.tryRead(proxied.address(forwarded))) throw new Error('refused');
  });
  await bench.run();
  return bench.tasks.map((task) => {
    const result = task.result;
    if (result.state !== 'completed') throw new Error(`benchmark task ${task.name} did not complete: ${result.state}`);
    // tinybench's latencies are in ms per iteration.
    return { name: task.name, ns: (result.latency.p50 * 1e6) / BATCH };
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const { name, ns } of await limiterCost()) console.log(`${name}: ${ns.toFixed(0)} ns per request`);
}
