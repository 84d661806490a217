// Running the record service: open the store (SQLite in a folder, or PostgreSQL), install schema files, listen,
// and shut down cleanly (long-polls end, in-flight requests finish, then the store closes).

import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { parse } from '../lang/index.ts';
import { openPostgresStore, openSqliteStore, type RecordStore } from '../store/index.ts';
import { buildApp, DEFAULT_BODY_LIMIT } from './app.ts';
import { describeDiagnostics } from './meta-collection.ts';
import { RecordService } from './records.ts';

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
  log?: (line: string) => void;
  now?: () => number;
}

export interface RunningServer {
  /** `http://host:port` */
  url: string;
  port: number;
  app: FastifyInstance;
  service: RecordService;
  close(): Promise<void>;
}

export async function openStore(options: Pick<ServerOptions, 'dataDir' | 'databaseUrl' | 'store'>): Promise<RecordStore> {
  if (options.store) return options.store;
  if (options.databaseUrl) return openPostgresStore({ connectionString: options.databaseUrl });
  const dir = options.dataDir ?? './data';
  mkdirSync(dir, { recursive: true });
  return openSqliteStore(join(dir, 'vellum.sqlite'));
}

/** Reads each schema file and installs its collections; throws with file:line:col messages on errors. */
export async function installSchemaFiles(service: RecordService, files: readonly string[], namespace: string): Promise<string[]> {
  const lines: string[] = [];
  for (const file of files) {
    const code = readFileSync(file, 'utf8');
    const parsed = parse(code, file);
    if (!parsed.program) throw new Error(describeDiagnostics(parsed.diagnostics, parsed.source) || `${file}: cannot parse`);
    for (const collection of parsed.program.collections) {
      const id = `${namespace}/${collection.name.name}`;
      try {
        const outcome = await service.installSchema(id, code);
        lines.push(`${id} ${outcome} (from ${file})`);
      } catch (error) {
        throw new Error(`${file}: collection ${id}: ${(error as Error).message}`);
      }
    }
  }
  return lines;
}

export async function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  const log = options.log ?? (() => {});
  const store = await openStore(options);
  const shutdown = new AbortController();
  let app: FastifyInstance | undefined;
  try {
    const service = new RecordService(store);
    await service.initialise();
    for (const line of await installSchemaFiles(service, options.schemaFiles ?? [], options.namespace ?? 'app')) log(line);
    app = buildApp({ service, bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT, log: options.log, shutdown: shutdown.signal, now: options.now });
    await app.listen({ port: options.port ?? 8080, host: options.host ?? '127.0.0.1' });
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : (options.port ?? 8080);
    const host = options.host ?? '127.0.0.1';
    const shownHost = host.includes(':') ? `[${host}]` : host;
    let closing: Promise<void> | undefined;
    const running: RunningServer = {
      url: `http://${shownHost}:${port}`,
      port,
      app,
      service,
      close: () =>
        (closing ??= (async () => {
          shutdown.abort();
          await app!.close();
          await store.close();
        })()),
    };
    return running;
  } catch (error) {
    await app?.close().catch(() => {});
    await store.close().catch(() => {});
    throw error;
  }
}
