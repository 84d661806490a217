// The call route's fast path: an unsigned `POST /v0/collections/:collection/records/:id/call/:function` with a
// plain JSON body, answered in Node's request listener before fastify, with the same status, headers, body and
// log line as the fastify route (routes.ts) and app.ts's error handler. Why: fastify's per-request machinery
// (request and reply objects, routing, the content-type parser, hooks, the reply path and its serializer) cost
// a call a good part of its HTTP side; see bench/README.md, http, "Plain gets and plain unsigned calls are answered before fastify".
//
// Which requests it takes is decided from the request line and headers alone, before a byte of the body is read;
// every other request goes to fastify untouched: another method or path, a query string, a path segment that is
// unusual (as fast-get.ts decides), a signature header (a signed call's key recovery and replay check), a body
// whose Content-Type is not `application/json` (with or without `charset=utf-8`), a Content-Encoding, a chunked
// body or one without a Content-Length, a Content-Length of 0 or above the body limit (fastify's 413), an
// `Expect` header, and every request once the server's shutdown signal is aborted or fastify is closing.
//
// A request it takes is its own to the end: it reads the body and answers every outcome, success or failure, as
// the route would: the body checked as UTF-8 as app.ts's content-type parser does (a refusal there closes the
// connection, as fastify's does), parsed by the route's own parseWriteRequest, then RecordService.call, every error
// through toErrorResponse, an internal one logged. A request whose client goes away before its body is complete
// gets no answer and no log line.
//
// test/service/fast-call.test.ts checks sameness against the route over a generated corpus of requests.

import { isUtf8 } from 'node:buffer';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CorsPolicy } from './cors.ts';
import type { RequestLimits } from './request-limits.ts';
import { invalidArgument, toErrorResponse } from './errors.ts';
import type { ServiceMetrics } from './metrics.ts';
import { logInternalError, loggedUrl, logRequest, requestIdOf, type Logger } from './log.ts';
import { decodeSegment, SEGMENT, underPrefix } from './fast-get.ts';
import type { RecordService } from './records.ts';
import { parseWriteRequest } from './request.ts';

type Listener = (request: IncomingMessage, response: ServerResponse) => void;

export interface FastCallContext {
  service: RecordService;
  /** The path the routes are mounted under ('' for the standalone server), as FastGetContext's. */
  prefix?: string;
  /** The CORS headers of an answer (app.ts's policy). */
  cors: CorsPolicy;
  /** The rate limits: a call over its address's limits goes to the route, which refuses it (429). */
  limits: RequestLimits;
  /** The largest body fastify accepts (app.ts's bodyLimit): a longer one goes to fastify, for its 413. */
  bodyLimit: number;
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

const JSON_TYPES = new Set(['application/json', 'application/json; charset=utf-8', 'application/json;charset=utf-8']);
const DIGITS = /^[1-9][0-9]{0,15}$/;

interface Outcome {
  status: number;
  body: string;
  /** Whether the connection closes after the answer. */
  close?: boolean;
  /** The error envelope's reason, for the log. */
  reason?: string;
}

function errorOutcome(error: unknown): Outcome {
  const { status, body } = toErrorResponse(error);
  return { status, body: JSON.stringify(body), reason: body.error.reason };
}

/** The route's pattern, as the log names it (routes.ts). */
const CALL_ROUTE = '/v0/collections/:collection/records/:id/call/:function';

interface CallTarget {
  collectionId: string;
  id: string;
  functionName: string;
}

/** Node's request listener that answers plain unsigned calls itself and gives every other request to `next`. */
export function withFastCall(next: Listener, context: FastCallContext): Listener {
  const callPath = underPrefix(context.prefix ?? '', `/v0/collections/(${SEGMENT})/records/(${SEGMENT})/call/(${SEGMENT})`);
  const answer = (request: IncomingMessage, response: ServerResponse, { status, body, close, reason }: Outcome, started: number, reqId: string, client: string): void => {
    // A body the content-type parser refused: fastify closes the connection after the answer (the header first).
    // The same headers as fast-get.ts writes, written out in each: one writer shared by both cost a get 20-38% more
    // CPU (bench/README.md, http, "Tried and dropped").
    const headers: Record<string, string | number> = close ? { connection: 'close' } : {};
    headers['content-type'] = 'application/json; charset=utf-8';
    const origin = request.headers.origin;
    if (typeof origin === 'string') context.cors.write(headers, origin);
    headers['x-request-id'] = reqId;
    if (context.shutdown.aborted) headers.connection = 'close';
    headers['content-length'] = Buffer.byteLength(body);
    response.writeHead(status, headers);
    response.end(body);
    // Logged when the answer is handed to the system, as fastify's onResponse hook logs: most often at once, the
    // socket having taken the whole answer.
    if (context.logRequests) {
      const log = (): void => logRequest(context.logger, { reqId, method: 'POST', url: loggedUrl(request.url!), route: CALL_ROUTE, status, ms: performance.now() - started, client, reason });
      if (response.writableFinished && !response.destroyed) log();
      else response.once('finish', log);
    }
    context.metrics?.request('POST', CALL_ROUTE, status, performance.now() - started);
  };

  const run = async (request: IncomingMessage, target: CallTarget, bytes: Buffer, caller: { onGas?: (gas: number) => void }, reqId: string): Promise<Outcome> => {
    if (!isUtf8(bytes)) return { ...errorOutcome(invalidArgument('request/invalid-body', 'request body is not valid UTF-8 text')), close: true };
    try {
      const { args, acceptDataLoss } = parseWriteRequest(bytes.toString('utf8'));
      const data = await context.service.call(target.collectionId, target.id, target.functionName, args, caller, acceptDataLoss === undefined ? {} : { acceptDataLoss });
      return { status: 200, body: JSON.stringify({ data }) };
    } catch (error) {
      if (toErrorResponse(error).internal) logInternalError(context.logger, { reqId, method: 'POST', url: request.url! }, error);
      return errorOutcome(error);
    }
  };

  return (request, response) => {
    const target = context.shutdown.aborted || context.closing() ? undefined : plainCall(request, context.bodyLimit, callPath);
    // The client address, worked out once: the rate limits count it and the log line names it.
    const client = target && context.limits.address(request);
    const caller = client === undefined ? undefined : context.limits.tryWrite(client);
    if (target === undefined || client === undefined || caller === undefined) {
      next(request, response);
      return;
    }
    const started = performance.now();
    const reqId = requestIdOf(request);
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    // A client gone before its body was complete: no answer, no log line (fastify logs none either: its
    // onResponse hook runs only for an answer that was written).
    request.on('error', () => response.destroy());
    request.on('end', () => {
      const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
      run(request, target, bytes, caller, reqId)
        .then((outcome) => {
          if (!response.destroyed) answer(request, response, outcome, started, reqId, client);
        })
        .catch((error: unknown) => {
          // Writing the answer failed (no outcome of the call itself gets here): reported, never left unhandled.
          logInternalError(context.logger, { reqId, method: 'POST', url: request.url! }, error);
          response.destroy();
        });
    });
  };
}

/** What a request the fast path may answer calls; undefined for any other request. */
function plainCall(request: IncomingMessage, bodyLimit: number, callPath: RegExp): CallTarget | undefined {
  if (request.method !== 'POST') return undefined;
  const match = callPath.exec(request.url!);
  if (match === null) return undefined;
  const { headers } = request;
  if (headers['x-service-signature'] !== undefined || headers['x-polybase-signature'] !== undefined) return undefined;
  if (headers['transfer-encoding'] !== undefined || headers['content-encoding'] !== undefined || headers.expect !== undefined) return undefined;
  const type = headers['content-type'];
  if (type === undefined || !JSON_TYPES.has(type.toLowerCase())) return undefined;
  const declared = headers['content-length'];
  if (declared === undefined || !DIGITS.test(declared)) return undefined;
  if (Number(declared) > bodyLimit) return undefined;
  const collectionId = decodeSegment(match[1]!);
  const id = decodeSegment(match[2]!);
  const functionName = decodeSegment(match[3]!);
  if (collectionId === undefined || id === undefined || functionName === undefined) return undefined;
  return { collectionId, id, functionName };
}
