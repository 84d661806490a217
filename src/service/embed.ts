// Serving Vellum inside an application that has its own server: the fastify plugin `vellum`
// (`app.register(vellum, { prefix: '/db', store })`) and the node:http handler `createVellumHandler`. Both take
// the options `startServer` takes (but where to listen, which the host decides), and serve through one listener
// made as the standalone server's (app.ts, buildMountedApp): its own fastify app with the routes under the
// prefix, its router limits, body parsing and error envelope, the Host check, the fast paths and the request
// timeout. The plugin hands each request under its prefix to that listener from an onRequest hook, before the
// host reads the body: the host's onRequest and onResponse hooks run for it (authentication, request ids,
// metrics, logs), its other hooks, body parser and error handler do not. So an answer is byte for byte the
// standalone server's, whatever the host's router or parser settings are (a host's default 100-character
// parameter limit would otherwise refuse record ids that are public keys).
//
// What stays the host server's: a request Node's parser refuses, CONNECT, `Expect`, and a missing Host header
// while the server requires one (Node's default); see docs/service.md "Embedding".

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { ServiceMetrics } from './metrics.ts';
import { openStore, readyService, type ServerOptions } from './server.ts';
import { buildMountedApp } from './app.ts';
import { RecordService } from './records.ts';
import type { RecordStore } from '../store/index.ts';

export interface EmbedOptions extends Omit<ServerOptions, 'port' | 'host' | 'shutdownGraceMs' | 'metricsPort'> {
  /**
   * The path Vellum's routes are under (`/db`: `/db/v0/collections/...`). The plugin takes fastify's own `prefix`
   * option; the handler takes this one (default: none, the routes at `/v0`).
   */
  prefix?: string;
  /**
   * A service to serve (from `createRecordService`), whose store its owner closes; instead of `store`, `dataDir`
   * or `databaseUrl`, which are opened as `startServer` opens them and closed with the mount. `privateLists`
   * is then the service's own.
   */
  service?: RecordService;
}

/** A node:http request listener serving Vellum, with the service it serves and a way to stop it. */
export interface VellumHandler {
  (request: IncomingMessage, response: ServerResponse): void;
  readonly service: RecordService;
  /** Ends long-polls and streams, stops the signature threads and closes the store it opened (or was given). */
  close(): Promise<void>;
}

interface Mount {
  service: RecordService;
  listener: (request: IncomingMessage, response: ServerResponse) => void;
  /** Ends waiting long-polls and streams at once (the first step of closing). */
  shutdown(): void;
  close(): Promise<void>;
}

/** The explorer calls `/v0` from the page, so it is served only where that is Vellum's. */
function checkPrefix(prefix: string, options: EmbedOptions): void {
  if (prefix !== '' && !/^\/[^?#\s]*[^/?#\s]$/.test(prefix)) {
    throw new TypeError(`prefix must start with / and not end with one (such as "/db"), got ${JSON.stringify(prefix)}`);
  }
  if (prefix !== '' && options.explorer !== undefined && options.explorer !== false) {
    throw new TypeError(`the explorer cannot be served under a prefix (its page calls /v0 on its server); leave the explorer option out, or mount at the root`);
  }
}

async function mount(options: EmbedOptions, prefix: string): Promise<Mount> {
  if (options.service !== undefined && !(options.service instanceof RecordService)) throw new TypeError('options.service must be a RecordService (from `await createRecordService(store)`)');
  let store: RecordStore | undefined;
  const shutdown = new AbortController();
  try {
    // A store given is the mount's to close, as startServer's is, even when the mount fails.
    store = options.service ? undefined : await openStore(options);
    checkPrefix(prefix, options);
    // Metrics of a mount are served under its prefix (`<prefix>/metrics`), never on a port of their own.
    const metrics = options.metrics ? new ServiceMetrics() : undefined;
    if (metrics && store) metrics.watchStore(store);
    const service = options.service ?? (await readyService(store!, options, metrics));
    // Mounted, the explorer is off unless asked for (at the root): the host decides what its root serves.
    const { app, listener } = buildMountedApp({ ...options, explorer: options.explorer ?? false, service, metrics, shutdown: shutdown.signal }, prefix);
    await app.ready();
    let closing: Promise<void> | undefined;
    return {
      service,
      listener,
      shutdown: () => shutdown.abort(),
      close: () =>
        (closing ??= (async () => {
          shutdown.abort();
          try {
            await app.close();
          } finally {
            await store?.close();
          }
        })()),
    };
  } catch (error) {
    await store?.close().catch(() => {});
    throw error;
  }
}

/**
 * The fastify plugin: `await app.register(vellum, { prefix: '/db', store })` serves Vellum's routes under `/db`
 * beside the app's own. `app.close()` ends its long-polls and streams first, then closes what the mount opened
 * (the store too, unless a `service` was given).
 */
export async function vellum(instance: FastifyInstance, options: EmbedOptions): Promise<void> {
  const served = await mount(options, instance.prefix);
  const handOver = (request: { raw: IncomingMessage }, reply: { hijack(): void; raw: ServerResponse }, done: () => void) => {
    reply.hijack();
    served.listener(request.raw, reply.raw);
    done();
  };
  // Routes that match every path under the prefix, so the host's router sends them here; the hook answers
  // before the host reads a body, and the handler never runs.
  instance.addHook('onRequest', handOver);
  const never = async () => {
    throw new Error('unreachable: the onRequest hook answers every request under the prefix');
  };
  instance.all('/', never);
  instance.all('/*', never);
  instance.addHook('preClose', (done) => {
    served.shutdown();
    done();
  });
  instance.addHook('onClose', () => served.close());
}

/**
 * The node:http handler: `http.createServer(await createVellumHandler({ store }))`, or given the requests under
 * a prefix by a server of your own. It answers every request it is given (outside the prefix: 404 with the
 * envelope). For the standalone server's answers to what Node itself refuses, see docs/service.md "Embedding".
 */
export async function createVellumHandler(options: EmbedOptions = {}): Promise<VellumHandler> {
  const served = await mount(options, options.prefix ?? '');
  const handler = ((request: IncomingMessage, response: ServerResponse) => served.listener(request, response)) as VellumHandler;
  Object.defineProperty(handler, 'service', { value: served.service, enumerable: true });
  Object.defineProperty(handler, 'close', { value: () => served.close(), enumerable: true });
  return handler;
}
