// Running the record service: open the store (SQLite in a folder, or PostgreSQL), install schema files, listen,
// and shut down cleanly (long-polls end, in-flight requests finish, then the store closes).

import { existsSync, mkdirSync, statSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { parse } from '../lang/index.ts';
import { openPostgresStore, openSqliteStore, type RecordStore } from '../store/index.ts';
import { buildApp } from './app.ts';
import type { CorsOptions } from './cors.ts';
import type { RateLimitOptions } from './rate-limit.ts';
import type { ExplorerOptions } from './explorer.ts';
import type { Logger } from './log.ts';
import { createMetricsServer, ServiceMetrics } from './metrics.ts';
import { checkCollectionSchema, describeDiagnostics, META_COLLECTION_ID } from './meta-collection.ts';
import { MAX_SCHEMA_FILE_BYTES, readBoundedText } from '../files/index.ts';
import { createRecordService, type PrivateLists, type RecordService } from './records.ts';
import type { SchemaAccessOptions } from './schema-access.ts';
import { watchUnusedConnections } from './unused-connections.ts';

export interface ServerOptions {
  port?: number;
  host?: string;
  /** Folder of the SQLite database (default `./data`); ignored with `databaseUrl` or `store`. */
  dataDir?: string;
  /** A `postgres://` URL: use PostgreSQL instead of SQLite. */
  databaseUrl?: string;
  /** An open store to serve (tests); the server closes it on shutdown. */
  store?: RecordStore;
  /** Schema files to install at start, each collection as `<namespace>/<Name>`. */
  schemaFiles?: readonly string[];
  namespace?: string;
  bodyLimit?: number;
  /** The log (log.ts): requests, streams, schema installs, internal errors; none by default. */
  logger?: Logger;
  /** Also log what functions log with `log(...)`, at debug level (`vellum serve --debug`). */
  debug?: boolean;
  /** false: no entry per request (`vellum serve --quiet`); `logger` still receives internal errors (default true). */
  logRequests?: boolean;
  now?: () => number;
  /** How long `close()` waits for in-flight requests before it closes their connections (default 10 s). */
  shutdownGraceMs?: number;
  /**
   * How long `close()` goes on serving, with `/v0/ready` answering 503 (draining), before it stops taking requests
   * (default 0): the time a load balancer needs to see the server is not ready and send new requests elsewhere.
   */
  drainDelayMs?: number;
  /** Prometheus metrics (metrics.ts) at `GET /metrics` (default false). */
  metrics?: boolean;
  /** Serve the metrics on this port of `host` instead of the service's (0: any free port); implies `metrics`. */
  metricsPort?: number;
  /** The web explorer at /explorer/ (default: served from the package's built folder); false turns it off. */
  explorer?: ExplorerOptions | false;
  /** The most push-update streams open at once (default 1000; see AppOptions). */
  maxStreams?: number;
  /**
   * Lists of collections not readable by everyone: 'confined' (default) refuses a list whose where does not limit
   * it to records the caller may read; 'filtered' leaves unreadable records out instead, as Polybase 0.6 did, and
   * leaks what docs/service.md "Private records in lists" says (RecordServiceOptions.privateLists).
   */
  privateLists?: PrivateLists;
  /** The longest a client may take to send one whole request (default 30 s; see AppOptions). */
  requestTimeoutMs?: number;
  /**
   * Who may create collections and change schemas over HTTP (schema-access.ts). Default: admin keys only (none
   * given: nobody), and each key in its own `pk/<key>/` namespace. Collections installed from `schemaFiles`
   * belong to the admins.
   */
  schemaAccess?: SchemaAccessOptions;
  /** Which origins' pages may read the answers (default: every origin, without credentials; see AppOptions). */
  cors?: CorsOptions;
  /** Limits per key and per client address (default DEFAULT_RATE_LIMITS; keys' writes and gas shared on PostgreSQL; see AppOptions); false: none. */
  rateLimits?: RateLimitOptions | false;
  /** Proxies whose X-Forwarded-For gives the client address (default none; see AppOptions). */
  trustProxy?: readonly string[];
}

const DEFAULT_SHUTDOWN_GRACE_MS = 10_000;

export interface RunningServer {
  /** `http://host:port` */
  url: string;
  port: number;
  /** `http://host:port/metrics` when metrics are served. */
  metricsUrl?: string;
  metrics?: ServiceMetrics;
  app: FastifyInstance;
  service: RecordService;
  close(): Promise<void>;
}

/** Opens the store; errors say which database and why (a damaged, locked or missing file, a refused connection). */
export async function openStore(options: Pick<ServerOptions, 'dataDir' | 'databaseUrl' | 'store'>): Promise<RecordStore> {
  if (options.store) return options.store;
  if (options.databaseUrl) {
    try {
      return await openPostgresStore({ connectionString: options.databaseUrl });
    } catch (error) {
      throw new Error(`cannot open the PostgreSQL database ${withoutPassword(options.databaseUrl)}: ${(error as Error).message}`);
    }
  }
  const dir = options.dataDir ?? './data';
  try {
    makeFolder(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'EEXIST'
        ? 'it is a file'
        : code === 'ENOTDIR'
          ? 'a part of its path is a file'
          : code === 'EACCES'
            ? 'permission denied'
            : code === 'ENOENT'
              ? 'the folder it would be in does not take new folders'
              : (error as Error).message;
    throw new Error(`cannot use ${dir} as the data folder: ${why}`);
  }
  const file = join(dir, 'vellum.sqlite');
  try {
    return openSqliteStore(file);
  } catch (error) {
    throw new Error(`cannot open the SQLite database ${file}: ${(error as Error).message}`);
  }
}

/**
 * Makes the folder and any missing folders above it. Not Node 20's `mkdirSync(dir, { recursive: true })`: where a
 * folder exists but refuses new entries with ENOENT (anywhere under /proc), that loops for ever at full CPU, and
 * `vellum serve --data /proc/x` never started nor stopped on SIGTERM.
 */
function makeFolder(dir: string): void {
  try {
    mkdirSync(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' && statSync(dir).isDirectory()) return;
    const parent = dirname(dir);
    if (code !== 'ENOENT' || parent === dir || existsSync(parent)) throw error;
    makeFolder(parent);
    mkdirSync(dir);
  }
}

function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'given';
  }
}

/**
 * Reads and checks every schema file, then installs their collections; throws with file:line:col messages on
 * errors. A file that cannot be read or has errors, a collection defined by two files, or a change the store would
 * refuse (stored records that cannot be cast to the new schema) stops the start before anything is installed.
 */
export async function installSchemaFiles(service: RecordService, files: readonly string[], namespace: string): Promise<string[]> {
  const defined = new Map<string, { file: string; code: string; where: string }>();
  for (const file of files) {
    const code = readBoundedText(file, MAX_SCHEMA_FILE_BYTES, `schema file ${file}`);
    const parsed = parse(code, file);
    if (!parsed.program) throw new Error(describeDiagnostics(parsed.diagnostics, parsed.source) || `${file}: cannot parse`);
    for (const collection of parsed.program.collections) {
      const id = `${namespace}/${collection.name.name}`;
      const { line, column } = parsed.source.position(collection.name.span.start);
      const where = `${file}:${line}:${column}`;
      const earlier = defined.get(id);
      if (earlier && earlier.file !== file) throw new Error(`collection ${id} is defined in both ${earlier.where} and ${where}`);
      if (earlier) continue;
      try {
        const checked = checkCollectionSchema(id, code);
        const { record: current } = await service.store.get(META_COLLECTION_ID, id);
        if (current && current.code !== code) await service.checkRecordsFollow(checked);
      } catch (error) {
        throw new Error(`${file}: collection ${id}: ${(error as Error).message}`);
      }
      defined.set(id, { file, code, where });
    }
  }
  const lines: string[] = [];
  for (const [id, { file, code }] of defined) {
    try {
      const outcome = await service.installSchema(id, code);
      lines.push(`${id} ${outcome} (from ${file})`);
    } catch (error) {
      throw new Error(`${file}: collection ${id}: ${(error as Error).message}`);
    }
  }
  return lines;
}

/**
 * The service over `store` as the server's options make it, ready, with their schema files installed (each
 * installed one is an entry of `logger`). Shared by `startServer` and the mounts (embed.ts).
 */
export async function readyService(store: RecordStore, options: ServerOptions, metrics?: ServiceMetrics): Promise<RecordService> {
  const { logger } = options;
  const service = await createRecordService(store, {
    ...(options.privateLists === undefined ? {} : { privateLists: options.privateLists }),
    ...(options.schemaAccess === undefined ? {} : { schemaAccess: options.schemaAccess }),
    ...(options.debug && logger ? { functionLog: (line: string) => logger.debug(line) } : {}),
    ...(metrics ? { metrics } : {}),
  });
  for (const line of await installSchemaFiles(service, options.schemaFiles ?? [], options.namespace ?? 'app')) logger?.info(line);
  return service;
}

export async function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  const logger = options.logger;
  const store = await openStore(options);
  const shutdown = new AbortController();
  let app: FastifyInstance | undefined;
  let metricsServer: Server | undefined;
  try {
    const metrics = options.metrics || options.metricsPort !== undefined ? new ServiceMetrics() : undefined;
    metrics?.watchStore(store);
    const service = await readyService(store, options, metrics);
    // Every option buildApp shares by name with ServerOptions passes through (as it does to the mounts, embed.ts).
    app = buildApp({ ...options, service, metrics, metricsRoute: options.metricsPort === undefined, shutdown: shutdown.signal });
    const unused = watchUnusedConnections(app.server);
    const host = options.host ?? '127.0.0.1';
    const shownHost = host.includes(':') ? `[${host}]` : host;
    try {
      await app.listen({ port: options.port ?? 8080, host });
    } catch (error) {
      throw new Error(`cannot listen on ${shownHost}:${options.port ?? 8080}: ${listenFailure(error)}`);
    }
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : (options.port ?? 8080);
    let metricsUrl = metrics ? `http://${shownHost}:${port}/metrics` : undefined;
    if (metrics && options.metricsPort !== undefined) {
      metricsServer = createMetricsServer(metrics);
      const listening = metricsServer;
      await new Promise<void>((resolve, reject) => {
        listening.once('error', (error) => reject(new Error(`cannot listen on ${shownHost}:${options.metricsPort} for metrics: ${listenFailure(error)}`)));
        listening.listen(options.metricsPort, host, () => resolve());
      });
      metricsUrl = `http://${shownHost}:${(metricsServer.address() as AddressInfo).port}/metrics`;
    }
    let closing: Promise<void> | undefined;
    const running: RunningServer = {
      url: `http://${shownHost}:${port}`,
      port,
      metricsUrl,
      metrics,
      app,
      service,
      close: () =>
        (closing ??= (async () => {
          service.readiness.drain();
          if (options.drainDelayMs) await new Promise((resolve) => setTimeout(resolve, options.drainDelayMs));
          shutdown.abort();
          unused.closeWhileShuttingDown();
          // A client that never finishes sending its request would keep the server open for Node's request
          // timeout (5 minutes): past the grace period its connection is closed.
          const grace = setTimeout(() => {
            logger?.warn(`requests still in flight after ${options.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS} ms: closing their connections`);
            app!.server.closeAllConnections();
          }, options.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS);
          try {
            await app!.close();
          } finally {
            clearTimeout(grace);
            unused.stop();
          }
          if (metricsServer) await new Promise((resolve) => metricsServer!.close(resolve));
          await store.close();
        })()),
    };
    return running;
  } catch (error) {
    metricsServer?.close();
    await app?.close().catch(() => {});
    await store.close().catch(() => {});
    throw error;
  }
}

function listenFailure(error: unknown): string {
  const { code, message } = error as NodeJS.ErrnoException;
  if (code === 'EADDRINUSE') return 'the port is already in use';
  if (code === 'EACCES') return 'permission denied (ports below 1024 need privileges)';
  if (code === 'EADDRNOTAVAIL') return 'the address is not one of this machine\'s';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `the host name does not resolve (${message})`;
  return message;
}
