// The fastify application: body handling, the error envelope for every failure (ours and fastify's), CORS,
// the routes, request ids and a structured log entry per request (log.ts). `buildApp` makes the standalone app
// (`server.ts` runs it); `buildMountedApp` makes the one a mount inside another server answers through (`embed.ts`).

import { isUtf8 } from 'node:buffer';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { default as FastifyFactory, FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import { RecoveryPool } from '../auth/index.ts';
import { CorsPolicy, registerCors, type CorsOptions } from './cors.ts';
import type { RateLimitOptions } from './rate-limit.ts';
import { RequestLimits } from './request-limits.ts';
import { MAX_PARAM_LENGTH, ServiceError, invalidArgument, toErrorResponse, type ErrorBody } from './errors.ts';
import { registerExplorer, type ExplorerOptions } from './explorer.ts';
import { withFastCall } from './fast-call.ts';
import { withFastGet } from './fast-get.ts';
import { answerClientError, createHttpServer, drainRefusedBody, registerHttpEdges, withHostCheck, withRequestTimeout } from './http-edges.ts';
import type { ServiceMetrics } from './metrics.ts';
import { logInternalError, loggedUrl, logRequest, requestIdOf, silentLogger, type Logger } from './log.ts';
import { RecordService, ServiceNotReadyError } from './records.ts';
import { registerRoutes } from './routes.ts';
import { DEFAULT_MAX_STREAMS } from './stream.ts';

/** Largest request body accepted (a schema text is the largest thing a client sends). */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/**
 * How long a client may take to send one whole request, headers and body. Fastify's default is no limit, so a
 * client sending a body a byte at a time, or stopping short of its Content-Length, held its connection for ever.
 */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

export interface AppOptions {
  service: RecordService;
  bodyLimit?: number;
  /** Receives an entry per request, stream and long-poll (log.ts), and the details of internal errors. */
  logger?: Logger;
  /** false: `logger` receives internal errors only, and no per-request hook runs at all (default true). */
  logRequests?: boolean;
  /** Counts requests, streams, long-polls and signature checks (metrics.ts); none by default. */
  metrics?: ServiceMetrics;
  /** Whether the app answers `GET /metrics` with `metrics` (default true when `metrics` is given). */
  metricsRoute?: boolean;
  /** Aborted when the server shuts down (long-polls then end at once). */
  shutdown?: AbortSignal;
  /** The server clock in ms, for signature time windows (tests move it). */
  now?: () => number;
  /** Worker threads for signature recovery (default: a pool of the app's own, ended when the app closes). */
  recoveryPool?: RecoveryPool;
  /** The web explorer at /explorer/ (default: served from the package's built folder); false turns it off. */
  explorer?: ExplorerOptions | false;
  /** The most push-update streams (`stream=1`) open at once; one more is 503 `stream/too-many-streams` (default 1000). */
  maxStreams?: number;
  /**
   * Whether plain gets are answered before fastify (fast-get.ts; default true). Hooks and plugins added to the
   * returned app then do not see those requests. false: every get goes through the route (the reference the fast
   * path is tested against).
   */
  fastGet?: boolean;
  /**
   * Whether plain unsigned calls are answered before fastify (fast-call.ts; default true), as `fastGet` for gets:
   * false sends every call through the route (the reference the fast path is tested against).
   */
  fastCall?: boolean;
  /**
   * The longest a client may take to send one whole request, headers and body (default 30 s; checked every
   * second): past it the answer is 408 `request/timeout` and the connection closes. Waiting for an answer (a
   * long-poll, a stream) does not count.
   */
  requestTimeoutMs?: number;
  /** Which origins' pages may read the answers (cors.ts; default: every origin, without credentials). */
  cors?: CorsOptions;
  /**
   * Token-bucket limits per key and per client address on reads, writes, signature checks and function gas
   * (rate-limit.ts; default DEFAULT_RATE_LIMITS); false: none. Counted in this process, except keys' write and
   * gas budgets on PostgreSQL, shared by every server on the database (unless `shared: false`).
   */
  rateLimits?: RateLimitOptions | false;
  /** Proxies (addresses, CIDRs, `loopback`) whose X-Forwarded-For gives the client address (default none). */
  trustProxy?: readonly string[];
}

/**
 * A fastify app of its own, not yet listening, with Node's HTTP server made by `createHttpServer` (the Host check,
 * the fast paths, the request timeout, the edges of http-edges.ts). To serve Vellum inside another app, register
 * the `vellum` plugin, or mount `createVellumHandler` (embed.ts), instead.
 */
// fastify is loaded when the first app is built, so a program that imports the library without serving does not load it.
const load = createRequire(import.meta.url);
let fastify: typeof FastifyFactory | undefined;
function Fastify(): typeof FastifyFactory {
  return (fastify ??= load('fastify') as typeof FastifyFactory);
}

export function buildApp(options: AppOptions): FastifyInstance {
  // `host.register(buildApp)` calls this with the host's instance: the fastify app returned was awaited (it is
  // thenable) and nothing was registered. A throw in a plugin is uncaught in fastify's loader; a rejected promise
  // makes register() reject with the message.
  if (isFastify(options)) return Promise.reject(pluginMisuse('buildApp')) as unknown as FastifyInstance;
  checkAppOptions(options, 'buildApp');
  const parts = appParts(options, '');
  const app = Fastify()({
    ...parts.fastifyOptions,
    requestTimeout: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    return503OnClosing: true,
    clientErrorHandler: answerClientError,
    serverFactory: (handler, serverOptions) => createHttpServer(parts.fastPaths(handler), serverOptions),
  });
  parts.watchClosing(app);
  registerHttpEdges(app, parts.bodyLimit);
  // A listening server starts its recovery threads at once, so its first signed requests do not wait for them.
  app.addHook('onListen', (done) => {
    parts.recoveryPool.warm();
    done();
  });
  registerService(app, parts);
  return app;
}

/**
 * The app a mount serves (embed.ts): Vellum's routes under `prefix` on a fastify app that never listens, and the
 * Node request listener that answers through it as the standalone server's does (the Host check, the fast paths,
 * taking the prefix into account), with the request timeout kept per request, since the server is the
 * embedder's. Call `app.ready()` before the listener takes requests.
 */
export function buildMountedApp(options: AppOptions, prefix: string): { app: FastifyInstance; listener: Listener } {
  checkAppOptions(options, 'vellum (the plugin) or createVellumHandler');
  const parts = appParts(options, prefix);
  const app = Fastify()(parts.fastifyOptions);
  parts.watchClosing(app);
  parts.recoveryPool.warm();
  if (prefix === '') registerService(app, parts);
  else {
    app.register(async (scope) => registerService(scope, parts), { prefix });
    // Outside the prefix (a node:http handler given every request): the same envelope.
    app.setErrorHandler((error, request, reply) => sendError(reply, error, request, parts.logger));
    app.setNotFoundHandler((request, reply) => notFoundAnswer(request, reply));
  }
  const timeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const listener = withHostCheck(withRequestTimeout(parts.fastPaths((request, response) => app.routing(request, response)), timeoutMs));
  return { app, listener };
}

/** A mistake in the embedding code is a clear error at once, not a server answering 404 (or nothing) later. */
function checkAppOptions(options: AppOptions, by: string): void {
  if (isFastify(options)) throw pluginMisuse(by);
  if (!(options?.service instanceof RecordService)) throw new TypeError(`${by}: options.service must be a RecordService (from \`await createRecordService(store)\`)`);
  if (!options.service.ready) throw new ServiceNotReadyError(`${by}`);
}

function isFastify(options: unknown): boolean {
  const given = options as Partial<FastifyInstance> | undefined;
  return typeof given?.register === 'function' && typeof given.addHook === 'function';
}

function pluginMisuse(by: string): TypeError {
  return new TypeError(`${by} was given a fastify instance: buildApp makes an app of its own; to serve Vellum inside an existing fastify app, register the plugin: app.register(vellum, { prefix: '/db', store })`);
}

type Listener = (request: IncomingMessage, response: ServerResponse) => void;

/** What the standalone and the mounted app share: one place, so every option means the same in both. */
interface AppParts {
  options: AppOptions;
  logger: Logger;
  logRequests: boolean;
  metrics: ServiceMetrics | undefined;
  shutdown: AbortSignal;
  bodyLimit: number;
  cors: CorsPolicy;
  limits: RequestLimits;
  recoveryPool: RecoveryPool;
  fastifyOptions: FastifyServerOptions;
  fastPaths: (handler: Listener) => Listener;
  watchClosing: (app: FastifyInstance) => void;
}

function appParts(options: AppOptions, prefix: string): AppParts {
  const logger = options.logger ?? silentLogger();
  const shutdown = options.shutdown ?? new AbortController().signal;
  const logRequests = options.logger !== undefined && options.logRequests !== false;
  let closing = false;
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const cors = new CorsPolicy(options.cors);
  const limits = new RequestLimits({ rateLimits: options.rateLimits, trustProxy: options.trustProxy, sharedBuckets: options.service.store.kv.tokenBuckets });
  const { metrics } = options;
  const fastContext = { service: options.service, prefix, cors, limits, shutdown, closing: () => closing, logger, logRequests, metrics };
  return {
    options,
    logger,
    logRequests,
    metrics,
    shutdown,
    bodyLimit,
    cors,
    limits,
    recoveryPool: options.recoveryPool ?? new RecoveryPool(),
    fastifyOptions: {
      logger: false,
      bodyLimit,
      routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
      // Errors fastify raises before any route runs (an invalid percent-encoding in the path) get the envelope too.
      frameworkErrors: (error, request, reply) => {
        cors.addOriginHeaders(request, reply); // no hook runs for these
        reply.header('x-request-id', request.id);
        sendError(reply, error, request, logger);
        if (logRequests) logRequest(logger, requestEntry(request, reply, undefined, limits));
        metrics?.request(request.method, undefined, reply.statusCode, reply.elapsedTime);
      },
      genReqId: requestIdOf,
    },
    fastPaths: (handler) => {
      const gets = options.fastGet === false ? handler : withFastGet(handler, fastContext);
      return options.fastCall === false ? gets : withFastCall(gets, { ...fastContext, bodyLimit });
    },
    // Set as fastify starts closing, when it begins to answer new requests with 503 itself.
    watchClosing: (app) =>
      app.addHook('preClose', (done) => {
        closing = true;
        done();
      }),
  };
}

/** Vellum's body handling, routes, hooks and error answers, on `app` (the root, or the scope of a prefix). */
function registerService(app: FastifyInstance, parts: AppParts): void {
  const { options, logger, logRequests, metrics, shutdown, recoveryPool, cors, limits } = parts;
  // Polybase read the raw body whatever its Content-Type; so does Vellum. The text is kept as it came, because
  // a signature covers exactly those bytes; the route parses it as JSON.
  app.removeAllContentTypeParsers();
  // Compressed bodies are not decoded: refused, rather than read as text (or, when not compressed after all, run).
  // Bytes that are not UTF-8 are refused too, rather than read as U+FFFD and stored so.
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (request, body, done) => {
    const encoding = request.headers['content-encoding'];
    if (encoding !== undefined && encoding.toLowerCase() !== 'identity') {
      done(new ServiceError('invalid-argument', 'request/unsupported-encoding', `Content-Encoding ${JSON.stringify(encoding.slice(0, 40))} is not supported; send the body uncompressed`, 415));
    } else if (!isUtf8(body as Buffer)) done(invalidArgument('request/invalid-body', 'request body is not valid UTF-8 text'));
    else done(null, (body as Buffer).toString('utf8'));
  });

  registerCors(app);
  if (!options.recoveryPool) app.addHook('onClose', () => recoveryPool.close());
  const explorer = options.explorer ?? {};
  registerRoutes(app, { service: options.service, logger, metrics, shutdown, now: options.now ?? Date.now, recoveryPool, limits, explorer: explorer !== false, streams: { open: 0, max: options.maxStreams ?? DEFAULT_MAX_STREAMS } });
  if (explorer !== false) registerExplorer(app, explorer);

  // What every answer needs, in one hook (fastify's hook machinery costs about 1 µs per hook and request): the
  // CORS headers, and while shutting down, closing the connection after the answer: a kept-alive connection
  // that becomes idle after the server began closing would otherwise hold the shutdown until its keep-alive
  // timeout.
  app.decorateRequest('signer', undefined);
  app.decorateRequest('errorReason', undefined);
  app.decorateRequest('streamed', false);
  app.addHook('onSend', (request, reply, payload, done) => {
    cors.addOriginHeaders(request, reply);
    reply.header('x-request-id', request.id);
    if (shutdown.aborted) reply.header('connection', 'close');
    done(null, payload);
  });

  app.setErrorHandler((error, request, reply) => sendError(reply, error, request, logger));
  app.setNotFoundHandler((request, reply) => notFoundAnswer(request, reply));

  if (metrics && options.metricsRoute !== false) {
    app.get('/metrics', async (_request, reply) => {
      const { contentType, body } = await metrics.text();
      return reply.type(contentType).send(body);
    });
  }
  if (logRequests || metrics) {
    app.addHook('onResponse', (request, reply, done) => {
      // A stream logs its own opening and end (routes.ts): its end is not always an answer handed over.
      if (logRequests && !request.streamed) logRequest(logger, requestEntry(request, reply, request.routeOptions.url, limits));
      metrics?.request(request.method, request.routeOptions.url, reply.statusCode, reply.elapsedTime);
      done();
    });
  }
}

function notFoundAnswer(request: FastifyRequest, reply: FastifyReply): void {
  reply.code(404).send({ error: { code: 'not-found', reason: 'route/not-found', message: `no route for ${request.method} ${pathOf(request.url)}` } } satisfies ErrorBody);
}

function requestEntry(request: FastifyRequest, reply: FastifyReply, route: string | undefined, limits: RequestLimits) {
  return {
    reqId: request.id,
    method: request.method,
    url: loggedUrl(request.url),
    route,
    status: reply.statusCode,
    ms: reply.elapsedTime,
    client: limits.address(request.raw),
    signer: request.signer,
    reason: request.errorReason,
  };
}

function sendError(reply: FastifyReply, error: unknown, request: FastifyRequest, logger: Logger): void {
  const { status, body, internal, retryAfter } = toErrorResponse(error);
  if (retryAfter !== undefined) reply.header('retry-after', String(retryAfter));
  request.errorReason = body.error.reason;
  if ((error as { code?: unknown } | null)?.code === 'FST_ERR_CTP_BODY_TOO_LARGE') drainRefusedBody(request.raw, reply);
  if (internal) logInternalError(logger, { reqId: request.id, method: request.method, url: request.url }, error);
  reply.code(status).header('content-type', 'application/json; charset=utf-8').send(body);
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The signer's public key (hex) once a signed request's signature is checked: for the log. */
    signer: string | undefined;
    /** The error envelope's reason of an answer that is an error: for the log. */
    errorReason: string | undefined;
    /** Whether the request became a push stream (which logs its own opening and end). */
    streamed: boolean;
  }
}

function pathOf(url: string): string {
  const path = url.split('?')[0] ?? url;
  return path.length > 200 ? `${path.slice(0, 200)}…` : path;
}
