// The get route's fast path: `GET /v0/collections/:collection/records/:id`, unsigned, without a query string,
// answered in Node's request listener before fastify, with the same status, headers and body as the fastify route
// (routes.ts). Why: fastify's per-request machinery (request and reply objects, routing, hooks, the reply path)
// cost a get about as much CPU as everything of ours on it; the hand-written server this is measured against
// (bench/http.ts) pays it too, but does less besides.
//
// It answers only the plainest case: a readable record, found. Everything else goes to fastify unchanged, before
// anything is written: another method (HEAD, OPTIONS, POST), another path, a query string (long-polls, streams,
// `format`), a signature header (a signed read's key recovery and time window), a request with a body, a path
// segment that is unusual (characters outside the unreserved and sub-delims set, a percent-encoding that does
// not decode, a segment past the router's length limit), and every answer that is not a 200 (an unknown
// collection or record, a read the permissions refuse, an internal error: fastify's route then runs the same
// read again and answers, and logs, as it always does). Once the server's shutdown signal is aborted (server.ts
// aborts it before it closes fastify) or fastify is closing, every request goes to fastify, which closes the
// connection after its answer, or answers 503; a get answered here while the shutdown begins gets
// `Connection: close`, as app.ts's onSend hook gives it. (Fastify's closing is seen from its preClose hook, which
// avvio runs after fastify has started refusing: an app closed without the signal may answer a get in between.)
//
// test/service/fast-get.test.ts checks sameness against the route over a generated corpus of requests.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { timestampToSeconds } from '../store/index.ts';
import type { CorsPolicy } from './cors.ts';
import type { RequestLimits } from './request-limits.ts';
import { MAX_PARAM_LENGTH } from './errors.ts';
import type { ServiceMetrics } from './metrics.ts';
import { logInternalError, loggedUrl, logRequest, requestIdOf, type Logger } from './log.ts';
import type { RecordService } from './records.ts';
import { recordEnvelope } from './routes.ts';

type Listener = (request: IncomingMessage, response: ServerResponse) => void;

export interface FastGetContext {
  service: RecordService;
  /** The path the routes are mounted under ('' for the standalone server; `/db` for a mount at /db). */
  prefix?: string;
  /** The CORS headers of an answer (app.ts's policy). */
  cors: CorsPolicy;
  /** The rate limits: a get over its address's limit goes to the route, which refuses it (429). */
  limits: RequestLimits;
  /** Aborted when the server shuts down. */
  shutdown: AbortSignal;
  /** True once fastify began closing (its preClose hook): fastify then answers 503, so it must see the request. */
  closing: () => boolean;
  /** Where requests (when `logRequests`) and internal errors are logged (app.ts's logger). */
  logger: Logger;
  /** Whether each request is logged, as app.ts's onResponse hook logs it. */
  logRequests: boolean;
  /** Counts each answer, as app.ts's onResponse hook does. */
  metrics?: ServiceMetrics;
}

/**
 * A path segment as the fast path takes it: RFC 3986's unreserved characters, sub-delims but `;`, `:`, `@`, and
 * percent-encodings (checked when decoded). Anything else (`;`, which a router may read as a delimiter, bytes
 * outside ASCII, an empty segment) goes to fastify. (fast-call.ts takes segments the same way.)
 */
export const SEGMENT = "[A-Za-z0-9._~!$&'()*+,=:@%-]+";

/** A pattern for `path` (its groups made of SEGMENT) under the mount prefix, taken literally. */
export function underPrefix(prefix: string, path: string): RegExp {
  return new RegExp(`^${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}${path}$`);
}

/** The route's pattern, as the log names it (routes.ts). */
const GET_ROUTE = '/v0/collections/:collection/records/:id';

/** Node's request listener that answers plain gets itself and gives every other request to `fastify`. */
export function withFastGet(fastify: Listener, context: FastGetContext): Listener {
  const getPath = underPrefix(context.prefix ?? '', `/v0/collections/(${SEGMENT})/records/(${SEGMENT})`);
  // A get reads the clock, which changes only with a commit: most answers in a row carry the same timestamp.
  let lastTimestamp = -1;
  let lastSeconds = '';
  const secondsOf = (timestamp: number): string => {
    if (timestamp !== lastTimestamp) {
      lastSeconds = timestampToSeconds(timestamp);
      lastTimestamp = timestamp;
    }
    return lastSeconds;
  };

  const answer = async (request: IncomingMessage, response: ServerResponse, collectionId: string, id: string, started: number, reqId: string, client: string): Promise<void> => {
    const { json, timestamp } = await context.service.get(collectionId, id, {});
    const body = recordEnvelope(json);
    const seconds = secondsOf(timestamp);
    // The same headers as fast-call.ts writes, written out in each: one writer shared by both cost a get 20-38% more
    // CPU (bench/README.md, http, "Tried and dropped").
    const headers: Record<string, string | number> = {
      'x-service-timestamp': seconds,
      'x-polybase-timestamp': seconds,
      'content-type': 'application/json; charset=utf-8',
    };
    const origin = request.headers.origin;
    if (typeof origin === 'string') context.cors.write(headers, origin);
    headers['x-request-id'] = reqId;
    if (context.shutdown.aborted) headers.connection = 'close';
    headers['content-length'] = Buffer.byteLength(body);
    response.writeHead(200, headers);
    response.end(body);
    // Logged when the answer is handed to the system, as fastify's onResponse hook logs (not at all for an answer
    // whose connection was destroyed before): most often at once, the socket having taken the whole answer.
    if (context.logRequests) {
      const log = (): void => logRequest(context.logger, { reqId, method: 'GET', url: loggedUrl(request.url!), route: GET_ROUTE, status: 200, ms: performance.now() - started, client });
      if (response.writableFinished && !response.destroyed) log();
      else response.once('finish', log);
    }
    context.metrics?.request('GET', GET_ROUTE, 200, performance.now() - started);
  };

  return (request, response) => {
    const target = plainGet(request, getPath);
    // The client address, worked out once: the rate limit counts it and the log line names it.
    const client = target === undefined || context.shutdown.aborted || context.closing() ? undefined : context.limits.address(request);
    if (target === undefined || client === undefined || !context.limits.tryRead(client)) {
      fastify(request, response);
      return;
    }
    const reqId = requestIdOf(request);
    answer(request, response, target.collectionId, target.id, performance.now(), reqId, client).catch((error: unknown) => {
      // A failure before anything was written (an unknown collection or record, a refused read, an internal
      // error) is answered, and an internal one logged, by the route itself, which meets it again (without
      // counting the read again).
      if (!response.headersSent) {
        context.limits.counted(request);
        fastify(request, response);
        return;
      }
      logInternalError(context.logger, { reqId, method: 'GET', url: request.url! }, error);
      response.destroy();
    });
  };
}

/** The collection and record ids of a request the fast path may answer; undefined for any other request. */
function plainGet(request: IncomingMessage, getPath: RegExp): { collectionId: string; id: string } | undefined {
  if (request.method !== 'GET') return undefined;
  const match = getPath.exec(request.url!);
  if (match === null) return undefined;
  const { headers } = request;
  if (headers['x-service-signature'] !== undefined || headers['x-polybase-signature'] !== undefined) return undefined;
  if (headers['transfer-encoding'] !== undefined || (headers['content-length'] !== undefined && headers['content-length'] !== '0')) return undefined;
  const collectionId = decodeSegment(match[1]!);
  const id = decodeSegment(match[2]!);
  if (collectionId === undefined || id === undefined) return undefined;
  return { collectionId, id };
}

/** The last percent-encoded segment decodeSegment decoded, and what it gave: a client asks for one collection (`ns%2FName`) many times in a row. */
let lastEncoded = '';
let lastDecoded: string | undefined;

/** A path segment percent-decoded as fastify's router decodes a parameter; undefined when the router would refuse it. */
export function decodeSegment(segment: string): string | undefined {
  if (!segment.includes('%')) return segment.length > MAX_PARAM_LENGTH ? undefined : segment;
  if (segment === lastEncoded) return lastDecoded;
  let decoded: string | undefined;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    decoded = undefined;
  }
  lastEncoded = segment;
  lastDecoded = decoded !== undefined && decoded.length > MAX_PARAM_LENGTH ? undefined : decoded;
  return lastDecoded;
}
