// The get fast path (src/service/fast-get.ts) against the fastify route as the reference: two apps over the same
// records, one with the fast path and one without, receive the same generated requests (ids with escapes and
// percent-encodings, unknown collections, missing and unreadable records, signed and unsigned, query strings,
// odd headers, other methods), and must answer with the same status, headers (but Date) and body, and log the same
// request lines (but the elapsed time).
import { Agent } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publicKeyOf, signRequest } from '../../src/auth/index.ts';
import { buildApp, RecordService } from '../../src/service/index.ts';
import { decodeSegment } from '../../src/service/fast-get.ts';
import { MAX_PARAM_LENGTH } from '../../src/service/errors.ts';
import { openSqliteStore } from '../../src/store/index.ts';
import { KEYS } from './support.ts';
import { answerTo, exchange, listenCounting, withoutTime, type Answer } from '../support/fast-path.ts';
import { memoryLogger } from '../support/log.ts';

const ITEM = '@public\ncollection Item {\n  id: string;\n  n: number;\n  constructor (id: string, n: number) { this.id = id; this.n = n; }\n}\n';
const SECRET = 'collection Secret {\n  id: string;\n  @read\n  owner: PublicKey;\n  constructor (id: string) { this.id = id; this.owner = ctx.publicKey; }\n}\n';
// Ids up to the store's longest (512 bytes), one with a NUL, and one that reads as a percent-encoding (`%2541` must
// be decoded once, to `%41`, not twice).
// A read through @delegate records: Doc d1 is alice's through one User; d-many needs more loads than a request may make.
const DELEGATED = '@public\ncollection User {\n  id: string;\n  @delegate key: PublicKey;\n  constructor (id: string) { this.id = id; this.key = ctx.publicKey; }\n}\ncollection Doc {\n  id: string;\n  @read owners: User[];\n  constructor (id: string, owners: User[]) { this.id = id; this.owners = owners; }\n}\n';
const ODD_IDS = ['item-1', 'a b', 'é', 'x/y', 'per%cent', 'semi;colon', 'q?mark', 'hash#', 'plus+sign', 'quote"', "'(*)!", 'A~._-', '日本', 'nul\u0000', '%41', 'L'.repeat(512), 'é'.repeat(256)];

interface Served {
  app: FastifyInstance;
  port: number;
  agent: Agent;
  lines: string[];
  /** Requests that reached fastify (its onRequest hook): those the fast path did not answer. */
  routed?: { count: number };
}

interface Case {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

let service: RecordService;
const served: Served[] = [];

async function serve(fastGet: boolean): Promise<Served> {
  return { ...(await listenCounting({ service, fastGet })), agent: new Agent({ keepAlive: true, maxSockets: 1 }) };
}

function send(server: Served, sent: Case): Promise<Answer> {
  return answerTo(server.port, server.agent, { method: sent.method, path: sent.path, headers: sent.headers }, (outgoing) => outgoing.end(sent.body));
}

const ENCODED_GET = /^\/v0\/collections\/[A-Za-z0-9%._~!*'()-]+\/records\/[A-Za-z0-9%._~!*'()-]+$/;


beforeAll(async () => {
  service = new RecordService(openSqliteStore(':memory:'));
  await service.initialise();
  await service.installSchema('fast/Item', ITEM);
  await service.installSchema('fast/Secret', SECRET);
  for (const [n, id] of ODD_IDS.entries()) await service.create('fast/Item', [id, n], {});
  await service.create('fast/Secret', ['s1'], { publicKey: publicKeyOf(KEYS.alice) });
  await service.installSchema('fast/User', DELEGATED);
  await service.installSchema('fast/Doc', DELEGATED);
  const users = [];
  for (let n = 1; n <= 7; n++) {
    await service.create('fast/User', [`u${n}`], { publicKey: publicKeyOf(KEYS.alice) });
    users.push({ collectionId: 'fast/User', id: `u${n}` });
  }
  await service.create('fast/Doc', ['d1', users.slice(0, 1)], {});
  await service.create('fast/Doc', ['d-many', users], {});
  served.push(await serve(true), await serve(false));
});

afterAll(async () => {
  for (const server of served) {
    server.agent.destroy();
    await server.app.close();
  }
  await service.store.close();
});

/** A path segment as a client might write it: plain, percent-encoded (all or some characters), or broken. */
function segmentArb(values: readonly string[]): fc.Arbitrary<string> {
  const value = fc.constantFrom(...values);
  return fc.oneof(
    { weight: 8, arbitrary: value.map((v) => encodeURIComponent(v)) },
    value.map((v) => [...v].map((c) => `%${Buffer.from(c).toString('hex').match(/../g)!.join('%')}`).join('').toUpperCase()),
    value.map((v) => encodeURIComponent(v).toLowerCase()),
    value.filter((v) => /^[\x21-\x7e]+$/.test(v)),
    fc.constantFrom('%', '%E9', '%zz', '%C3', 'a%2', `${'x'.repeat(4097)}`, `${'%41'.repeat(4097)}`, `${'y'.repeat(4096)}`, '..', '.', '', 'a;b', 'a|b', 'a{b}', 'a^b', 'a`b', '%00', '%C0%AF', '%ED%A0%80', '%2e%2e', 'a%2Fb', '%252F', '%2541'),
  );
}

/** Mostly `usual`, sometimes one of `others`: so that most requests come near the fast path's case. */
function mostly<T>(usual: fc.Arbitrary<T>, ...others: T[]): fc.Arbitrary<T> {
  return fc.oneof({ weight: 10, arbitrary: usual }, { weight: 1, arbitrary: fc.constantFrom(...others) });
}

const caseArb: fc.Arbitrary<Case> = fc
  .record({
    method: mostly(fc.constant('GET'), 'HEAD', 'OPTIONS', 'DELETE', 'POST'),
    prefix: mostly(fc.constant('/v0/collections/'), '/v0//collections/', '/V0/collections/', '/v0/collections', 'http://127.0.0.1/v0/collections/'),
    collection: segmentArb(['fast/Item', 'fast/Item', 'fast/Item', 'fast/Item', 'fast/Item', 'fast/Item', 'fast/Secret', 'fast/Doc', 'fast/User', 'fast/Nothing', 'Collection', 'fast/item', 'fast']),
    middle: mostly(fc.constant('/records/'), '/records//', '/record/', '/records'),
    id: segmentArb([...ODD_IDS, 'missing', 's1', 'd1', 'd-many', 'u1', 'fast/Item', 'Collection']),
    suffix: mostly(fc.constant(''), '/', '?', '?format=nft', '?since=0&waitFor=1ms', '?x=1', '?waitFor=1s', '#frag', ';x', '/call/f'),
    origin: mostly(fc.constant(undefined), 'https://app.example', '', 'null'),
    signature: mostly(fc.constant(undefined), 'alice', 'bob', 'garbage', 'both-alice', 'service-alice'),
    extra: mostly(fc.constant<Record<string, string>>({}), { accept: 'text/html' }, { 'content-length': '0' }, { 'content-type': 'text/plain' }, { 'last-event-id': '3' }, { 'content-encoding': 'gzip' }, { connection: 'close' }, { expect: '100-continue' }, { 'transfer-encoding': 'chunked' }, { 'content-length': '00' }, { 'x-polybase-signature': '' }),
    body: mostly(fc.constant(undefined), 'hello'),
  })
  .map(({ method, prefix, collection, middle, id, suffix, origin, signature, extra, body }) => {
    const headers: Record<string, string> = { ...extra };
    if (origin !== undefined) headers.origin = origin;
    const signed = (key: string) => signRequest(key, '', Date.now());
    if (signature === 'alice' || signature === 'bob') headers['x-polybase-signature'] = signed(KEYS[signature]);
    if (signature === 'service-alice') headers['x-service-signature'] = signed(KEYS.alice);
    if (signature === 'garbage') headers['x-polybase-signature'] = 'v=0,t=1,sig=0x12';
    if (signature === 'both-alice') headers['x-service-signature'] = headers['x-polybase-signature'] = signed(KEYS.alice);
    const withBody = body !== undefined && method !== 'HEAD' && extra['content-length'] === undefined;
    return { method, path: `${prefix}${collection}${middle}${id}${suffix}`, headers, ...(withBody ? { body } : {}) };
  });

describe('decodeSegment', () => {
  /** decodeSegment without its memory of the last segment. */
  const decodedOnce = (segment: string): string | undefined => {
    try {
      const decoded = decodeURIComponent(segment);
      return decoded.length > MAX_PARAM_LENGTH ? undefined : decoded;
    } catch {
      return undefined;
    }
  };

  it('decodes every segment of a sequence as decoding it alone does, repeated or not', () => {
    const long = `${'%41'.repeat(MAX_PARAM_LENGTH)}%41`;
    const segments = fc.constantFrom('bench%2FItem', 'ns%2FOther', 'plain', '%E0%A4%A', '%zz', '%41', long, 'x'.repeat(MAX_PARAM_LENGTH + 1), `${'a'.repeat(MAX_PARAM_LENGTH)}`);
    fc.assert(
      fc.property(fc.array(segments, { maxLength: 20 }), (sequence) => {
        for (const segment of sequence) expect(decodeSegment(segment)).toBe(decodedOnce(segment));
      }),
    );
  });
});

describe('the get fast path', () => {
  it('answers a plain get itself, with the route answer', async () => {
    const [fast, route] = served;
    const sent = { method: 'GET', path: '/v0/collections/fast%2FItem/records/a%20b', headers: { origin: 'https://app.example' } };
    const routedBefore = fast!.routed!.count;
    const answers = [await send(fast!, sent), await send(route!, sent)];
    expect(fast!.routed!.count).toBe(routedBefore);
    expect(answers[0]).toEqual(answers[1]);
    expect(answers[0]!.status).toBe(200);
    expect(JSON.parse(answers[0]!.body).data).toEqual({ id: 'a b', n: 1 });
    expect(answers[0]!.headers).toContain('access-control-allow-origin: *');
  });

  it('answers every request as the fastify route does', async () => {
    const [fast, route] = served;
    fast!.lines.length = 0;
    route!.lines.length = 0;
    let answeredPlain = 0;
    await fc.assert(
      fc.asyncProperty(caseArb, async (sent) => {
        const routedBefore = fast!.routed!.count;
        const viaFast = await send(fast!, sent);
        const viaRoute = await send(route!, sent);
        expect(viaFast, `${sent.method} ${sent.path} ${JSON.stringify(sent.headers)}`).toEqual(viaRoute);
        const unsigned = sent.headers['x-polybase-signature'] === undefined && sent.headers['x-service-signature'] === undefined;
        // Segments as encodeURIComponent writes them: the fast path's own case when the record is found.
        const bodiless = sent.body === undefined && sent.headers['transfer-encoding'] === undefined && (sent.headers['content-length'] ?? '0') === '0';
        const plain = sent.method === 'GET' && unsigned && ENCODED_GET.test(sent.path) && bodiless;
        if (viaFast.status === 200 && plain) {
          answeredPlain++;
          // Answered before fastify: no request reached it.
          expect(fast!.routed!.count, sent.path).toBe(routedBefore);
        }
      }),
      { numRuns: 500 },
    );
    // The corpus reached the fast path's own answers (unsigned plain gets that succeed), not only the cases it hands on.
    // About 55 of the 500 are such gets (binomial, standard deviation about 7): 20 is five deviations below, so the
    // check does not fail by the draw (it did at 50, about one run in ten).
    expect(answeredPlain).toBeGreaterThan(20);
    await expect.poll(() => fast!.lines.length).toBe(route!.lines.length);
    expect(fast!.lines.map(withoutTime)).toEqual(route!.lines.map(withoutTime));
  });
});

describe('the get fast path with pipelined requests', () => {
  it('answers requests sent together on one connection in order, as the route does, with the same log lines', async () => {
    const get = (path: string, headers = '') => `GET ${path} HTTP/1.1\r\nHost: test\r\n${headers}\r\n`;
    const requests = [
      get('/v0/collections/fast%2FItem/records/item-1'),
      get('/v0/collections/fast%2FItem/records/missing'), // the fast path hands it to fastify, after its own read
      get('/v0/collections/fast%2FSecret/records/s1', 'Origin: https://app.example\r\n'),
      get('/v0/collections/fast%2FItem/records/%C3%A9', 'Origin: https://app.example\r\n'),
      `HEAD /v0/collections/fast%2FItem/records/a%20b HTTP/1.1\r\nHost: test\r\n\r\n`,
      get('/v0/collections/fast%2FItem/records/plus+sign', 'Expect: 100-continue\r\n'),
      get('/v0/collections/fast%2FItem/records/item-1?format=nft'),
      get('/v0/collections/Collection/records/Collection', 'Connection: close\r\n'),
    ].join('');
    const logged = served.map((server) => server.lines.length);
    const [viaFast, viaRoute] = await Promise.all(served.map((server) => exchange(server.port, requests)));
    expect(viaFast.match(/HTTP\/1\.1 \d{3} /g)?.map((line) => line.trim())).toEqual(['HTTP/1.1 200', 'HTTP/1.1 404', 'HTTP/1.1 403', 'HTTP/1.1 200', 'HTTP/1.1 200', 'HTTP/1.1 100', 'HTTP/1.1 200', 'HTTP/1.1 200', 'HTTP/1.1 200']);
    expect(viaFast).toBe(viaRoute);
    const [fast, route] = served;
    await expect.poll(() => fast!.lines.length - logged[0]!).toBe(8);
    await expect.poll(() => route!.lines.length - logged[1]!).toBe(8);
    expect(fast!.lines.slice(logged[0]).map(withoutTime)).toEqual(route!.lines.slice(logged[1]).map(withoutTime));
  });
});

describe('the get fast path when the client goes away', () => {
  it('with the read still running: nothing is written or logged, and the server goes on', async () => {
    // A service whose reads take a while, as over a network to PostgreSQL.
    const slow = Object.create(service) as RecordService;
    slow.get = async (...args) => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      return service.get(...args);
    };
    const lines: string[] = [];
    const app = buildApp({ service: slow, logger: memoryLogger(lines), explorer: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as AddressInfo;
    try {
      for (const id of ['item-1', 'missing']) {
        const socket = connect(port, '127.0.0.1');
        socket.on('error', () => {});
        socket.write(`GET /v0/collections/fast%2FItem/records/${id} HTTP/1.1\r\nHost: test\r\n\r\n`);
        await new Promise((resolve) => setTimeout(resolve, 10));
        socket.destroy();
      }
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(lines).toEqual([]);
      const after = await exchange(port, 'GET /v0/collections/fast%2FItem/records/item-1 HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n');
      expect(after).toMatch(/^HTTP\/1\.1 200 OK/);
      await expect.poll(() => lines.length).toBe(1);
    } finally {
      await app.close();
    }
  });
});

describe('the get fast path while shutting down', () => {
  it('leaves gets to fastify, whose answer closes the connection', async () => {
    const shutdown = new AbortController();
    const app = buildApp({ service, shutdown: shutdown.signal, explorer: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const server: Served = { app, port: (app.server.address() as AddressInfo).port, agent: new Agent({ keepAlive: true, maxSockets: 1 }), lines: [] };
    try {
      const sent = { method: 'GET', path: '/v0/collections/fast%2FItem/records/item-1', headers: {} };
      expect((await send(server, sent)).headers).toContain('Connection: keep-alive');
      shutdown.abort();
      const answer = await send(server, sent);
      expect(answer.status).toBe(200);
      expect(answer.headers).toContain('connection: close');
    } finally {
      server.agent.destroy();
      await app.close();
    }
  });
});

describe('the get fast path on an internal error', () => {
  it('leaves the answer, and the log of the error, to the route', async () => {
    // A service whose get gives a timestamp that cannot be written: the failure comes after the read.
    const broken = Object.create(service) as RecordService;
    broken.get = async () => ({ json: '{"id":"x"}', timestamp: Number.NaN });
    const apps = await Promise.all(
      [true, false].map(async (fastGet) => {
        const lines: string[] = [];
        const app = buildApp({ service: broken, fastGet, logger: memoryLogger(lines), logRequests: false, explorer: false });
        await app.listen({ port: 0, host: '127.0.0.1' });
        const server: Served = { app, port: (app.server.address() as AddressInfo).port, agent: new Agent({ keepAlive: true, maxSockets: 1 }), lines };
        return server;
      }),
    );
    try {
      const sent = { method: 'GET', path: '/v0/collections/fast%2FItem/records/x', headers: {} };
      const [viaFast, viaRoute] = [await send(apps[0]!, sent), await send(apps[1]!, sent)];
      expect(viaFast).toEqual(viaRoute);
      expect(viaFast.status).toBe(500);
      for (const { lines } of apps) {
        expect(lines).toHaveLength(1);
        expect(JSON.parse(lines[0]!)).toMatchObject({ level: 'error', msg: 'internal error', method: 'GET', url: '/v0/collections/fast%2FItem/records/x', error: expect.stringMatching(/^RangeError/) });
      }
    } finally {
      for (const { app, agent } of apps) {
        agent.destroy();
        await app.close();
      }
    }
  });
});
