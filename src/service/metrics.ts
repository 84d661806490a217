// Prometheus metrics (prom-client), served as text at `/metrics` (on the service's port, or on one of its own:
// `vellum serve --metrics-port`):
//
//   vellum_http_requests_total{method,route,status}            requests answered (the fast paths' included)
//   vellum_http_request_duration_seconds{method,route,status}  their latency, a histogram
//   vellum_commits_total                                       writes committed
//   vellum_write_conflicts_total                               writes that met a concurrent change
//   vellum_write_retries_total                                 writes run again after one
//   vellum_function_gas{function}                              gas used per run, constructor or call, a histogram
//   vellum_signature_checks_total{outcome}                     signed requests checked: valid or invalid
//   vellum_open_streams, vellum_open_long_polls                push streams and long-polls open now
//   vellum_db_query_duration_seconds{operation}                each store scan, count or transaction, a histogram
//   vellum_db_pool_connections{state}                          PostgreSQL's pool: total, idle, waiting
// and Node's process metrics (CPU, memory, event loop lag), prefixed `vellum_`.
//
// Requests are counted per route pattern, never per URL, so the series stay few. An answer costs a map lookup,
// two additions and a bucket search: prom-client's labelled counter and histogram cost a get 2.4-2.7 us of CPU
// per answer (its label hashing), so these two are kept in plain numbers and written in Prometheus' text format
// at each scrape, after prom-client's. Store query latency times the reads and transactions that are not a point
// read (scans, counts, transactions): timing the get's read cost it about 3 us; a get's time is in the request
// histogram.

import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type * as PromClient from 'prom-client';
import type { KvStore, RecordStore } from '../store/index.ts';

// prom-client is loaded by the first ServiceMetrics made, so a program that imports the library without serving does not load it.
const load = createRequire(import.meta.url);
let promClient: typeof PromClient | undefined;

/** Latency buckets, in seconds: 0.5 ms to 10 s. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10];
/** Gas buckets: 100 to 10 million units. */
const GAS_BUCKETS = [100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000];

/** What the record service reports about its writes and runs (RecordServiceOptions.metrics). */
export interface WriteMetrics {
  committed(): void;
  conflicted(): void;
  retried(): void;
  gasUsed(functionName: string, gas: number): void;
}

interface RequestSeries {
  readonly labels: string;
  count: number;
  sum: number;
  /** Answers per latency bucket (not cumulative), the last for those above every bound. */
  readonly buckets: number[];
}

/** A label value in Prometheus' text format. */
function labelValue(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

export class ServiceMetrics implements WriteMetrics {
  readonly #prom = (promClient ??= load('prom-client') as typeof PromClient);
  readonly registry = new this.#prom.Registry();
  /** Every request series, in the order first seen (the text lists them so). */
  readonly #series: RequestSeries[] = [];
  /**
   * The series by route, method and status: a lookup of strings fastify and Node already hold (interned, their
   * hashes kept), where a key made of the three cost each request a new string to hash (0.2 µs of 0.25).
   */
  readonly #byRoute = new Map<string | undefined, Map<string, Map<number, RequestSeries>>>();
  readonly #commits = new this.#prom.Counter({ name: 'vellum_commits_total', help: 'Writes committed', registers: [this.registry] });
  readonly #conflicts = new this.#prom.Counter({ name: 'vellum_write_conflicts_total', help: 'Writes that met a concurrent change to what they read', registers: [this.registry] });
  readonly #retries = new this.#prom.Counter({ name: 'vellum_write_retries_total', help: 'Writes run again after a conflict', registers: [this.registry] });
  readonly #gas = new this.#prom.Histogram({ name: 'vellum_function_gas', help: 'Gas used by one run of a constructor or function', labelNames: ['function'] as const, buckets: GAS_BUCKETS, registers: [this.registry] });
  readonly #signatures = new this.#prom.Counter({ name: 'vellum_signature_checks_total', help: 'Signed requests checked, by outcome', labelNames: ['outcome'] as const, registers: [this.registry] });
  readonly streams = new this.#prom.Gauge({ name: 'vellum_open_streams', help: 'Push-update streams open now', registers: [this.registry] });
  readonly longPolls = new this.#prom.Gauge({ name: 'vellum_open_long_polls', help: 'Long-polls waiting now', registers: [this.registry] });
  readonly #queries = new this.#prom.Histogram({ name: 'vellum_db_query_duration_seconds', help: 'Store reads and transactions, by operation', labelNames: ['operation'] as const, buckets: LATENCY_BUCKETS, registers: [this.registry] });

  constructor() {
    this.#prom.collectDefaultMetrics({ register: this.registry, prefix: 'vellum_' });
  }

  /** One answered request; `ms` from its arrival. */
  request(method: string, route: string | undefined, status: number, ms: number): void {
    let byMethod = this.#byRoute.get(route);
    if (byMethod === undefined) this.#byRoute.set(route, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (byStatus === undefined) byMethod.set(method, (byStatus = new Map()));
    let series = byStatus.get(status);
    if (series === undefined) {
      const labels = `method="${labelValue(method)}",route="${labelValue(route ?? 'none')}",status="${status}"`;
      series = { labels, count: 0, sum: 0, buckets: new Array<number>(LATENCY_BUCKETS.length + 1).fill(0) };
      byStatus.set(status, series);
      this.#series.push(series);
    }
    const seconds = ms / 1000;
    series.count++;
    series.sum += seconds;
    let bucket = 0;
    while (bucket < LATENCY_BUCKETS.length && seconds > LATENCY_BUCKETS[bucket]!) bucket++;
    series.buckets[bucket]!++;
  }

  /** The request counter and histogram in Prometheus' text format. */
  #requestText(): string {
    const series = this.#series;
    const lines = ['# HELP vellum_http_requests_total HTTP requests answered, by method, route pattern and status', '# TYPE vellum_http_requests_total counter'];
    for (const s of series) lines.push(`vellum_http_requests_total{${s.labels}} ${s.count}`);
    lines.push('# HELP vellum_http_request_duration_seconds HTTP request latency, arrival to answer, by method, route pattern and status', '# TYPE vellum_http_request_duration_seconds histogram');
    for (const s of series) {
      let cumulative = 0;
      LATENCY_BUCKETS.forEach((bound, i) => {
        cumulative += s.buckets[i]!;
        lines.push(`vellum_http_request_duration_seconds_bucket{le="${bound}",${s.labels}} ${cumulative}`);
      });
      lines.push(`vellum_http_request_duration_seconds_bucket{le="+Inf",${s.labels}} ${s.count}`);
      lines.push(`vellum_http_request_duration_seconds_sum{${s.labels}} ${s.sum}`, `vellum_http_request_duration_seconds_count{${s.labels}} ${s.count}`);
    }
    return `${lines.join('\n')}\n`;
  }

  committed(): void {
    this.#commits.inc();
  }

  conflicted(): void {
    this.#conflicts.inc();
  }

  retried(): void {
    this.#retries.inc();
  }

  gasUsed(functionName: string, gas: number): void {
    this.#gas.observe({ function: functionName === 'constructor' ? 'constructor' : 'call' }, gas);
  }

  signatureChecked(valid: boolean): void {
    this.#signatures.inc({ outcome: valid ? 'valid' : 'invalid' });
  }

  /**
   * Times every read and transaction of the store's key-value layer, and reports PostgreSQL's pool at each
   * scrape. (The store's own methods are wrapped: the store knows nothing of metrics.)
   */
  watchStore(store: RecordStore): void {
    const kv = store.kv as KvStore & Record<string, unknown>;
    for (const operation of ['scan', 'scanText', 'count', 'transact'] as const) {
      const original = kv[operation] as (...args: unknown[]) => Promise<unknown>;
      const observe = this.#queries.labels({ operation });
      kv[operation] = function timed(this: unknown, ...args: unknown[]) {
        const started = performance.now();
        const done = () => observe.observe((performance.now() - started) / 1000);
        const result = original.apply(this, args);
        result.then(done, done);
        return result;
      } as never;
    }
    const pool = (kv as { pool?: { totalCount: number; idleCount: number; waitingCount: number } }).pool;
    if (pool) {
      new this.#prom.Gauge({
        name: 'vellum_db_pool_connections',
        help: 'PostgreSQL pool connections: total, idle, and requests waiting for one',
        labelNames: ['state'] as const,
        registers: [this.registry],
        collect() {
          this.set({ state: 'total' }, pool.totalCount);
          this.set({ state: 'idle' }, pool.idleCount);
          this.set({ state: 'waiting' }, pool.waitingCount);
        },
      });
    }
  }

  /** The metrics in Prometheus' text format, and its content type. */
  async text(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: `${await this.registry.metrics()}\n${this.#requestText()}` };
  }
}

/** A server of its own answering `GET /metrics` (`--metrics-port`), and 404 to anything else. */
export function createMetricsServer(metrics: ServiceMetrics): Server {
  return createServer((request, response) => {
    const path = request.url?.split('?')[0];
    if (request.method !== 'GET' || path !== '/metrics') {
      response.writeHead(404, { 'content-type': 'application/json; charset=utf-8' });
      response.end(JSON.stringify({ error: { code: 'not-found', reason: 'route/not-found', message: 'this port serves GET /metrics only' } }));
      return;
    }
    metrics.text().then(
      ({ contentType, body }) => {
        response.writeHead(200, { 'content-type': contentType });
        response.end(body);
      },
      (error: unknown) => {
        response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
        response.end(`cannot collect the metrics: ${(error as Error).message}\n`);
      },
    );
  });
}
