// The request log's own work for a get, in process (tinybench, in CPU time): what the get fast path (src/service/fast-get.ts)
// does for its entry when it logs, `logRequest` with a new entry, into the JSON logger of `vellum serve`
// (createLogger's BatchedFile) writing a real file, so that the entries' formatting and the buffer's writes are
// amortised over the requests as in the server. bench/http-log.ts reports it against a get's server CPU per
// request measured in the same run. A loop keeps the log's code and data in cache, which a server answering
// requests between its lines does not (bench/README.md, http-log): this is a floor of the log's cost.
// `npx tsx bench/log-cost.ts` prints it alone.
import { ftruncateSync, mkdtempSync, openSync, rmSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Bench } from 'tinybench';
import { closeLogger, createLogger, loggedUrl, logRequest, newRequestId } from '../src/service/log.ts';

/** Entries per task iteration: tinybench's own cost per iteration is of the order of one entry. */
const BATCH = 1000;
/** Iterations between emptying the file, so that it stays small (about 15 MB). */
const TRUNCATE_EVERY = 64;
/** As fast-get.ts names it. */
const GET_ROUTE = '/v0/collections/:collection/records/:id';
const URL = '/v0/collections/bench%2FItem/records/item-0042';

/** The process's CPU time so far in ms, as tinybench's clock. */
function cpuNow(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** The log's work per get, in ns: the median iteration's time over BATCH. */
export async function logCost(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'vellum-bench-log-cost-'));
  // Appending, so that the file emptied now and then is written from its start.
  const fd = openSync(join(dir, 'log'), 'a');
  const logger = createLogger({ format: 'json', destination: { fd, isTTY: false } as unknown as NodeJS.WritableStream });
  // Request ids are made for every get, logged or not (the answer's X-Request-Id): made beforehand.
  const ids = Array.from({ length: 1024 }, () => newRequestId());
  let iterations = 0;
  try {
    // Timed in CPU time (user and system, all threads: garbage collection included), not wall time, which counts
    // the time other processes of a loaded machine take.
    const bench = new Bench({ time: 1000, warmupTime: 200, now: cpuNow });
    bench.add('log a get', () => {
      // The get's start, which fast-get.ts takes for its metrics too.
      const started = performance.now();
      for (let i = 0; i < BATCH; i++) {
        const reqId = ids[i & 1023]!;
        // As fast-get.ts: a closure for the answer's finish, run at once when the socket took the answer.
        const log = (): void => logRequest(logger, { reqId, method: 'GET', url: loggedUrl(URL), route: GET_ROUTE, status: 200, ms: performance.now() - started, client: '127.0.0.1' });
        log();
      }
      if (++iterations % TRUNCATE_EVERY === 0) ftruncateSync(fd, 0);
    });
    await bench.run();
    const result = bench.tasks[0]!.result;
    if (result.state !== 'completed') throw new Error(`benchmark task did not complete: ${result.state}`);
    // tinybench's latencies are in ms (of CPU time, cpuNow) per iteration.
    return (result.latency.p50 * 1e6) / BATCH;
  } finally {
    closeLogger(logger);
    closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(`the log's own work: ${(await logCost()).toFixed(0)} ns per get`);
}
