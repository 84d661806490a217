// The server's log (src/service/log.ts): a structured entry per request, with its request id (taken from
// X-Request-Id or generated, and returned), route, status, time, client, signer and error reason; the same from
// the fast paths; entries when a stream or long-poll opens and closes; with logRequests: false (`vellum serve
// --quiet`) no request entries, but an internal error is still logged with its details. Then the readable form.
import { afterEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { formatEntry, logRequest } from '../../src/service/log.ts';
import { entriesOf, memoryLogger } from '../support/log.ts';
import { hexOf, KEYS, startTestServer, type TestServer } from './support.ts';

let s: TestServer | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SCHEMA = '@public collection Note { id: string; text: string; constructor (id: string, text: string) { this.id = id; this.text = text; } }';

async function serverLogging(logRequests?: boolean): Promise<{ server: TestServer; lines: string[] }> {
  const lines: string[] = [];
  s = await startTestServer({ logger: memoryLogger(lines), ...(logRequests === undefined ? {} : { logRequests }) });
  return { server: s, lines };
}

describe('request log', () => {
  it('logs an entry per request with its id, route, status, time, client, signer and reason', async () => {
    const { server, lines } = await serverLogging();
    const health = await server.get('/v0/health', { headers: { 'x-request-id': 'from-the-proxy-1' } });
    expect(health.headers.get('x-request-id')).toBe('from-the-proxy-1');
    const missing = await server.get('/v0/collections/Nope/records?limit=1');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('x-request-id')).toMatch(UUID);
    const created = await server.post('/v0/collections/Collection/records', { args: ['log/Note', SCHEMA] }, { key: KEYS.alice });
    expect(created.status).toBe(200);
    await expect.poll(() => lines.length).toBe(3);
    const [first, second, third] = entriesOf(lines);
    expect(first).toMatchObject({ level: 'info', msg: 'request', reqId: 'from-the-proxy-1', method: 'GET', url: '/v0/health', route: '/v0/health', status: 200, client: '127.0.0.1' });
    expect(first!.ms).toBeTypeOf('number');
    expect(second).toMatchObject({ reqId: missing.headers.get('x-request-id'), status: 404, route: '/v0/collections/:collection/records', reason: 'collection/not-found' });
    expect(third).toMatchObject({ method: 'POST', status: 200, signer: hexOf(KEYS.alice) });
    // An id that is not 1-200 visible ASCII characters is replaced, not echoed.
    const odd = await server.get('/v0/health', { headers: { 'x-request-id': 'a b' } });
    expect(odd.headers.get('x-request-id')).toMatch(UUID);
  });

  it('logs the fast paths\' gets and calls as the routes do, with the request id returned', async () => {
    const { server, lines } = await serverLogging();
    await server.createCollection('log/Note', SCHEMA);
    expect((await server.post('/v0/collections/log%2FNote/records', { args: ['n1', 'hello'] })).status).toBe(200);
    lines.length = 0;
    const got = await server.get('/v0/collections/log%2FNote/records/n1', { headers: { 'x-request-id': 'get-1' } });
    expect(got.status).toBe(200);
    expect(got.headers.get('x-request-id')).toBe('get-1');
    const call = await server.post('/v0/collections/log%2FNote/records/n1/call/nothing', { args: [] });
    expect(call.status).toBe(404);
    expect(call.headers.get('x-request-id')).toMatch(UUID);
    await expect.poll(() => lines.length).toBe(2);
    const [get, called] = entriesOf(lines);
    expect(get).toMatchObject({ reqId: 'get-1', method: 'GET', route: '/v0/collections/:collection/records/:id', status: 200, client: '127.0.0.1' });
    expect(called).toMatchObject({ reqId: call.headers.get('x-request-id'), method: 'POST', route: '/v0/collections/:collection/records/:id/call/:function', status: 404, reason: call.json.error.reason });
  });

  it('logs an internal error with its stack, at level error, and the 500 answer', async () => {
    const { server, lines } = await serverLogging();
    server.server.service.get = () => Promise.reject(new Error('the disk caught fire'));
    expect((await server.record('Collection', 'x')).status).toBe(500);
    await expect.poll(() => lines.length).toBe(2);
    const entries = entriesOf(lines);
    expect(entries.find((entry) => entry.msg === 'internal error')).toMatchObject({ level: 'error', method: 'GET', url: '/v0/collections/Collection/records/x', error: expect.stringMatching(/^Error: the disk caught fire\n\s+at /) });
    expect(entries.find((entry) => entry.msg === 'request')).toMatchObject({ level: 'error', status: 500 });
  });

  it('with logRequests: false logs no request entries, only the internal error', async () => {
    const { server, lines } = await serverLogging(false);
    server.server.service.get = () => Promise.reject(new Error('the disk caught fire'));
    expect((await server.get('/v0/health')).status).toBe(200);
    expect((await server.record('Collection', 'x')).status).toBe(500);
    expect(entriesOf(lines).map((entry) => entry.msg)).toEqual(['internal error']);
  });

  it('logs a long-poll and a stream when they open and when they close', async () => {
    const { server, lines } = await serverLogging();
    const poll = await server.get(`/v0/collections/Collection/records?since=${(Date.now() / 1000).toFixed(4)}&waitFor=300ms`, { headers: { 'x-request-id': 'poll-1' } });
    expect(poll.status).toBe(304);
    await expect.poll(() => entriesOf(lines).filter((entry) => entry.reqId === 'poll-1').map((entry) => entry.msg)).toEqual(['long-poll open', 'long-poll close', 'request']);
    expect(entriesOf(lines).find((entry) => entry.msg === 'long-poll close')).toMatchObject({ ended: 'no change' });

    const controller = new AbortController();
    const stream = await fetch(`${server.url}/v0/collections/Collection/records?stream=1`, { headers: { 'x-request-id': 'stream-1' }, signal: controller.signal });
    expect(stream.headers.get('x-request-id')).toBe('stream-1');
    await expect.poll(() => entriesOf(lines).filter((entry) => entry.reqId === 'stream-1').map((entry) => entry.msg)).toEqual(['stream open']);
    expect(entriesOf(lines).find((entry) => entry.msg === 'stream open')).toMatchObject({ route: '/v0/collections/:collection/records', client: '127.0.0.1' });
    controller.abort();
    await expect.poll(() => entriesOf(lines).filter((entry) => entry.reqId === 'stream-1').map((entry) => entry.msg)).toEqual(['stream open', 'stream close']);
    expect(entriesOf(lines).find((entry) => entry.msg === 'stream close')).toMatchObject({ ended: 'client gone' });
  });
});

describe('the request entry', () => {
  it('is the line pino writes for the same entry (made by hand for speed), at the level its status says', () => {
    const lines: string[] = [];
    const logger = pino({ base: undefined, formatters: { level: (label: string) => ({ level: label }) } }, { write: (line: string) => void lines.push(line) });
    const entries = [
      { reqId: 'a"b\\c', method: 'GET', url: '/v0/x?q="é"\u0001', route: '/v0/x', status: 200, ms: 1.23456, client: '::1', signer: '0xab', reason: undefined },
      { reqId: 'r2', method: 'POST', url: '/v0/y', route: undefined, status: 503, ms: 10, client: undefined, reason: 'service/not-ready' },
      { reqId: 'r3', method: 'GET', url: '/z', route: '/z', status: 500, ms: 0.004, client: '127.0.0.1', reason: 'internal/unexpected' },
    ];
    for (const entry of entries) {
      logRequest(logger, { ...entry });
      const level = entry.status === 503 ? 'warn' : entry.status >= 500 ? 'error' : 'info';
      logger[level]({ ...entry, ms: Math.round(entry.ms * 100) / 100 }, 'request');
    }
    const parsed = lines.map((line) => {
      const { time, ...rest } = JSON.parse(line) as Record<string, unknown>;
      expect(time).toBeTypeOf('number');
      return rest;
    });
    for (let i = 0; i < parsed.length; i += 2) expect(parsed[i]).toEqual(parsed[i + 1]);
    expect(parsed.map((entry) => entry.level)).toEqual(['info', 'info', 'warn', 'warn', 'error', 'error']);
    logger.level = 'error';
    logRequest(logger, { ...entries[0]! });
    expect(lines).toHaveLength(6);
  });
});

describe('readable log lines (a terminal)', () => {
  it('shows a request as one short line, other fields after it, and a stack on lines of its own', () => {
    const time = Date.UTC(2026, 10, 27, 23, 1, 2, 345);
    expect(formatEntry(JSON.stringify({ level: 'info', time, msg: 'request', reqId: 'r1', method: 'GET', url: '/v0/health', route: '/v0/health', status: 200, ms: 1.25, client: '127.0.0.1' }))).toBe(
      '23:01:02.345 INFO  GET /v0/health 200 1.25ms reqId=r1 route=/v0/health client=127.0.0.1',
    );
    expect(formatEntry(JSON.stringify({ level: 'error', time, msg: 'internal error', url: '/x', error: 'Error: boom\n    at f (a.ts:1:1)' }))).toBe('23:01:02.345 ERROR internal error url=/x\nError: boom\n    at f (a.ts:1:1)');
    expect(formatEntry(JSON.stringify({ level: 'info', time, msg: 'listening on http://127.0.0.1:8080 (SQLite in ./data)' }))).toBe('23:01:02.345 INFO  listening on http://127.0.0.1:8080 (SQLite in ./data)');
  });
});
