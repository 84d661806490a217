// The HTTP routes under /v0 and their envelopes (docs/service.md, "Routes"):
//   GET  /v0/collections/:collection/records                      → {data: [{data, block}], cursor}
//   GET  /v0/collections/:collection/records?count=true           → {count}
//   GET  /v0/collections/:collection/records?sum=f&avg=f&min=f&max=f → {count, sum: {f}, avg: {f}, min: {f}, max: {f}}
//   GET  /v0/collections/:collection/records[/:id]?stream=1       → Server-Sent Events (stream.ts)
//   GET  /v0/collections/:collection/records/:id                  → {data, block}
//   POST /v0/collections/:collection/records                      → {data}
//   POST /v0/collections/:collection/records/:id/call/:function   → {data} (null when the record was deleted)
// plus GET / (JSON; for a browser, a page linking to the explorer), GET /v0/health (liveness) and GET /v0/ready
// (readiness: 503 {"error", "reasons"} when not ready, readiness.ts). Path parameters arrive percent-decoded (`ns%2FName` is `ns/Name`).
// List and get answer with X-Service-Timestamp and X-Polybase-Timestamp: the `since` for the next long-poll.

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RecoveryPool } from '../auth/index.ts';
import { timestampToSeconds, type JsonObject } from '../store/index.ts';
import { invalidArgument, toErrorResponse } from './errors.ts';
import { Expander, planExpand } from './expand.ts';
import { homePage, wantsHtml } from './explorer.ts';
import { loggedUrl, type Logger } from './log.ts';
import type { ServiceMetrics } from './metrics.ts';
import type { RecordService } from './records.ts';
import { parseGetQuery, parseListQuery, parseWriteBody, parseWriteRequest, streamResumePoint, type LongPoll } from './request.ts';
import type { RequestLimits } from './request-limits.ts';
import { authenticate, type Caller } from './signature.ts';
import { prepareStream, runStream, tooManyStreams, type StreamRequest } from './stream.ts';

export const SERVICE_VERSION = '0.1.0';
/** Polybase never filled in a block hash; the client only reads the field. */
const BLOCK_JSON = JSON.stringify({ hash: `0x${'0'.repeat(64)}` });
const JSON_TYPE = 'application/json; charset=utf-8';

export interface RouteContext {
  service: RecordService;
  /** Where streams and long-polls log their opening and end. */
  logger: Logger;
  /** Counts open streams and long-polls, and signature checks. */
  metrics?: ServiceMetrics;
  /** Aborted when the server shuts down: waiting long-polls then answer 304 at once. */
  shutdown: AbortSignal;
  now: () => number;
  /** Recovers signers' keys off the event loop. */
  recoveryPool: RecoveryPool;
  /** The rate limits (request-limits.ts). */
  limits: RequestLimits;
  /** Whether the explorer is served (then a browser asking for `/` gets a page that links to it). */
  explorer?: boolean;
  /** The streams open now, and the most this server keeps open at once. */
  streams: { open: number; readonly max: number };
}

interface RecordParams {
  collection: string;
  id: string;
  function: string;
}

function rawBody(request: FastifyRequest): string {
  return typeof request.body === 'string' ? request.body : '';
}

/**
 * The caller of a request, within its limits (429 past them): a key recovery counts against the client address's
 * signature checks, then the request against the caller's reads or writes (a write also against its gas budget,
 * which the functions it runs are charged to through the caller's `onGas`).
 */
async function callerOf(request: FastifyRequest, context: RouteContext, work: 'read' | 'write'): Promise<Caller> {
  const { limits } = context;
  const address = limits.address(request.raw);
  const body = request.method === 'GET' ? '' : rawBody(request);
  let caller: Caller;
  try {
    caller = await authenticate(request.headers, request.method, body, context.recoveryPool, context.now(), () => limits.signatureCheck(address));
  } catch (error) {
    if (hasSignature(request)) context.metrics?.signatureChecked(false);
    throw error;
  }
  if (caller.publicKey) {
    request.signer = caller.publicKey.toHex();
    context.metrics?.signatureChecked(true);
  }
  if (work === 'read') {
    limits.read(address, caller.publicKey, request.raw);
    return caller;
  }
  const onGas = await limits.write(address, caller.publicKey);
  return onGas ? { ...caller, onGas } : caller;
}

function hasSignature(request: FastifyRequest): boolean {
  return request.headers['x-polybase-signature'] !== undefined || request.headers['x-service-signature'] !== undefined;
}

/** What a stream's or long-poll's log entries say of their request. */
function waitEntry(request: FastifyRequest, context: RouteContext) {
  return { reqId: request.id, url: loggedUrl(request.url), route: request.routeOptions.url, client: context.limits.address(request.raw), signer: request.signer };
}

function param(request: FastifyRequest, name: keyof RecordParams): string {
  const value = (request.params as Partial<RecordParams>)[name];
  if (typeof value !== 'string' || value === '') throw invalidArgument('request/invalid-url', `the ${name} in the path is empty`);
  return value;
}

/**
 * The answer to a get: the record's stored JSON text, as it is, in Polybase's envelope (also fast-get.ts), with the
 * records its references point to beside it when `expand` was asked (expand.ts).
 */
export function recordEnvelope(json: string, expand?: Record<string, unknown>): string {
  return expand === undefined ? `{"data":${json},"block":${BLOCK_JSON}}` : `{"data":${json},"block":${BLOCK_JSON},"expand":${JSON.stringify(expand)}}`;
}

function setTimestamp(reply: FastifyReply, timestamp: number): void {
  const seconds = timestampToSeconds(timestamp);
  reply.header('X-Service-Timestamp', seconds);
  reply.header('X-Polybase-Timestamp', seconds);
}

/**
 * Waits for a change after `since`; true when there was one. A client that goes away, or the server shutting
 * down, ends the wait early (as "no change").
 */
async function waitForChange(context: RouteContext, request: FastifyRequest, reply: FastifyReply, target: { collectionId: string; id?: string }, poll: LongPoll): Promise<boolean> {
  const client = watchClient(reply);
  const started = performance.now();
  context.logger.info({ ...waitEntry(request, context), waitMs: poll.waitMs }, 'long-poll open');
  context.metrics?.longPolls.inc();
  let changed = false;
  try {
    const signal = AbortSignal.any([client.gone, context.shutdown]);
    changed = (await context.service.store.waitForChange(target, poll.since, poll.waitMs, signal)) !== null;
    return changed;
  } finally {
    const ended = changed ? 'change' : client.gone.aborted ? 'client gone' : context.shutdown.aborted ? 'shutdown' : 'no change';
    context.logger.info({ reqId: request.id, ms: Math.round(performance.now() - started), ended }, 'long-poll close');
    context.metrics?.longPolls.dec();
    client.stop();
  }
}

/**
 * A signal that aborts when the client goes away: at once when it already has (the response's 'close' event,
 * emitted while the request was being read or checked, is not emitted again).
 */
function watchClient(reply: FastifyReply): { gone: AbortSignal; stop: () => void } {
  const gone = new AbortController();
  const onClose = () => gone.abort();
  reply.raw.once('close', onClose);
  if (reply.raw.destroyed) gone.abort();
  return { gone: gone.signal, stop: () => reply.raw.off('close', onClose) };
}

/**
 * Answers with a stream of Server-Sent Events. The query is checked and the starting result read first, so a bad
 * one is an ordinary error answer; then the reply is taken over from fastify and written to until the client
 * goes away or the server shuts down (which ends the stream at once).
 */
async function serveStream(context: RouteContext, request: FastifyRequest, reply: FastifyReply, stream: StreamRequest): Promise<void> {
  const { streams } = context;
  if (streams.open >= streams.max) throw tooManyStreams(streams.max);
  streams.open++;
  context.metrics?.streams.inc();
  try {
    await followStream(context, request, reply, stream);
  } finally {
    streams.open--;
    context.metrics?.streams.dec();
  }
}

async function followStream(context: RouteContext, request: FastifyRequest, reply: FastifyReply, stream: StreamRequest): Promise<void> {
  const prepared = await prepareStream(context.service, stream);
  const raw = reply.raw;
  const client = watchClient(reply);
  const signal = AbortSignal.any([client.gone, context.shutdown]);
  reply.hijack();
  // The stream logs its opening and its end itself: a client that goes away ends it with no answer handed over.
  request.streamed = true;
  const started = performance.now();
  context.logger.info(waitEntry(request, context), 'stream open');
  // The headers set so far (CORS) go out too: fastify no longer sends them.
  for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) raw.setHeader(name, value);
  raw.setHeader('x-request-id', request.id);
  raw.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
  const write = (text: string) =>
    new Promise<void>((resolve) => {
      if (signal.aborted || raw.write(text)) return resolve();
      const done = () => {
        raw.off('drain', done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      raw.once('drain', done);
      signal.addEventListener('abort', done, { once: true });
    });
  let reason: string | undefined;
  try {
    await runStream(context.service, prepared, { write, signal });
  } catch (error) {
    if (!signal.aborted) {
      const { body } = toErrorResponse(error);
      reason = body.error.reason;
      await write(`event: error\ndata: ${JSON.stringify(body)}\n\n`);
    }
  } finally {
    client.stop();
    raw.end();
    const ended = reason !== undefined ? 'error' : client.gone.aborted ? 'client gone' : context.shutdown.aborted ? 'shutdown' : 'end';
    context.logger.info({ reqId: request.id, ms: Math.round(performance.now() - started), ended, reason }, 'stream close');
  }
}

/** Not ready: 503, never cached. */
function request503(reply: FastifyReply): void {
  reply.code(503).header('cache-control', 'no-store');
}

function notModified(reply: FastifyReply, poll: LongPoll): FastifyReply {
  setTimestamp(reply, poll.since);
  return reply.code(304).send();
}

export function registerRoutes(app: FastifyInstance, context: RouteContext): void {
  const { service } = context;

  const about = { server: 'Vellum', version: SERVICE_VERSION, compatible: 'Polybase 0.6' };
  app.get('/', async (request, reply) => {
    if (!context.explorer) return about;
    // The same URL answers API clients with JSON and browsers with a page: caches must keep the two apart.
    reply.header('Vary', 'Accept');
    return wantsHtml(request) ? reply.type('text/html; charset=utf-8').send(homePage(about)) : about;
  });
  app.get('/v0/health', async () => ({ status: 'OK' }));
  app.get('/v0/ready', async (request, reply) => {
    const reasons = await service.readiness.check(service.store);
    if (reasons.length === 0) return { status: 'ready' };
    const error = { code: 'unavailable', reason: 'service/not-ready', message: `not ready: ${reasons.join('; ')}` };
    request.errorReason = error.reason;
    request503(reply);
    return reply.type(JSON_TYPE).send(JSON.stringify({ error, reasons }));
  });

  app.get('/v0/collections/:collection/records', async (request, reply) => {
    const collectionId = param(request, 'collection');
    const { query, longPoll, count, aggregates, stream, expand: paths } = parseListQuery(request.query);
    const caller = await callerOf(request, context, 'read');
    const expand = paths && (await planExpand(service, collectionId, paths));
    if (stream) {
      const resumeAfter = streamResumePoint(request.headers['last-event-id'], longPoll);
      return serveStream(context, request, reply, { target: { collectionId }, query, caller, resumeAfter, ...(expand ? { expand } : {}) });
    }
    if (longPoll) {
      // A list the service would refuse is refused now, not after the wait.
      await service.assertList(collectionId, count ? { where: query.where } : query, caller, count ? 'count' : 'list');
      if (!(await waitForChange(context, request, reply, { collectionId }, longPoll))) return notModified(reply, longPoll);
    }
    if (count && Object.keys(aggregates).length > 0) {
      const { timestamp, ...answer } = await service.aggregate(collectionId, query.where, aggregates, caller);
      setTimestamp(reply, timestamp);
      return reply.type(JSON_TYPE).send(JSON.stringify(answer));
    }
    if (count) {
      const counted = await service.count(collectionId, query.where, caller);
      setTimestamp(reply, counted.timestamp);
      return reply.type(JSON_TYPE).send(JSON.stringify({ count: counted.count }));
    }
    const result = await service.list(collectionId, query, caller);
    setTimestamp(reply, result.timestamp);
    // The records are already JSON texts (as stored): they go into the answer as they are.
    let data: string;
    if (expand) {
      const expander = new Expander(service, caller);
      const items: string[] = [];
      for (const record of result.records) items.push(recordEnvelope(record, await expander.expand(JSON.parse(record) as JsonObject, expand)));
      data = items.join(',');
    } else {
      data = result.records.map((record) => `{"data":${record},"block":${BLOCK_JSON}}`).join(',');
    }
    return reply.type(JSON_TYPE).send(`{"data":[${data}],"cursor":${JSON.stringify(result.cursor)}}`);
  });

  app.get('/v0/collections/:collection/records/:id', async (request, reply) => {
    const collectionId = param(request, 'collection');
    const id = param(request, 'id');
    const { longPoll, bare, stream, expand: paths } = parseGetQuery(request.query);
    const caller = await callerOf(request, context, 'read');
    const expand = paths && (await planExpand(service, collectionId, paths));
    if (stream) {
      await service.assertCollection(collectionId);
      const resumeAfter = streamResumePoint(request.headers['last-event-id'], longPoll);
      return serveStream(context, request, reply, { target: { collectionId, id }, query: {}, caller, resumeAfter, ...(expand ? { expand } : {}) });
    }
    if (longPoll) {
      await service.assertCollection(collectionId);
      if (!(await waitForChange(context, request, reply, { collectionId, id }, longPoll))) return notModified(reply, longPoll);
    }
    const { json, timestamp } = await service.get(collectionId, id, caller);
    setTimestamp(reply, timestamp);
    // The record is already JSON text (as stored): it goes into the answer as it is.
    const expanded = expand && (await new Expander(service, caller).expand(JSON.parse(json) as JsonObject, expand));
    return reply.type(JSON_TYPE).send(bare ? json : recordEnvelope(json, expanded));
  });

  app.post('/v0/collections/:collection/records', async (request) => {
    const collectionId = param(request, 'collection');
    const args = parseWriteBody(typeof request.body === 'string' ? request.body : undefined);
    const caller = await callerOf(request, context, 'write');
    return { data: await service.create(collectionId, args, caller) };
  });

  app.post('/v0/collections/:collection/records/:id/call/:function', async (request) => {
    const collectionId = param(request, 'collection');
    const id = param(request, 'id');
    const functionName = param(request, 'function');
    const { args, acceptDataLoss } = parseWriteRequest(typeof request.body === 'string' ? request.body : undefined);
    const caller = await callerOf(request, context, 'write');
    return { data: await service.call(collectionId, id, functionName, args, caller, acceptDataLoss === undefined ? {} : { acceptDataLoss }) };
  });

  // How far the pass over the stored records after a schema change has got on this server (migration-status.ts).
  app.get('/v0/collections/Collection/records/:id/migration', async (request) => {
    const caller = await callerOf(request, context, 'read');
    return { data: await service.migrationProgress(param(request, 'id'), caller) };
  });

  // The plan of a schema change (schema-plan.ts), for the body the `updateCode` call would send; nothing is written.
  app.post('/v0/collections/Collection/records/:id/plan/updateCode', async (request) => {
    const id = param(request, 'id');
    const { args } = parseWriteRequest(typeof request.body === 'string' ? request.body : undefined);
    const caller = await callerOf(request, context, 'write');
    return { data: await service.planUpdate(id, args, caller) };
  });
}
