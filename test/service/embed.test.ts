// Embedding (src/service/embed.ts): Vellum mounted under a prefix in an existing fastify app, beside the app's
// own routes and hooks, and as a node:http handler; the unchanged Polybase client runs against both, on SQLite
// and PostgreSQL. The mounted answers are compared with the standalone server's for the same requests, and the
// edges a mount keeps (the request timeout, the Host check, long ids, closing) are checked over raw sockets.
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { Polybase } from '@polybase/client';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signRequest } from '../../src/auth/index.ts';
import { ethPersonalSigner } from '../../src/client/index.ts';
import {
  buildApp,
  createRecordService,
  createVellumHandler,
  RecordService,
  ServiceNotReadyError,
  startServer,
  vellum,
  type RunningServer,
  type VellumHandler,
} from '../../src/service/index.ts';
import { openPostgresStore, openSqliteStore, type RecordStore } from '../../src/store/index.ts';
import { startTestPostgres, uniqueTableName, type TestPostgres } from '../support/postgres.ts';
import { KEYS, TEST_SCHEMA_ACCESS, jwkOf } from './support.ts';

// As every test server: the test keys may create collections (the default lets only admins), no rate limits.
const ACCESS = { schemaAccess: TEST_SCHEMA_ACCESS, rateLimits: false } as const;

const SCHEMA = `
@public
collection City {
  id: string;
  name: string;
  population: number;
  mayor?: PublicKey;

  constructor (id: string, name: string, population: number) {
    this.id = id;
    this.name = name;
    this.population = population;
    this.mayor = ctx.publicKey;
  }

  grow (by: number) {
    if (this.mayor != ctx.publicKey) {
      throw error('only the mayor');
    }
    this.population = this.population + by;
  }
}
`;

function urlOf(server: Server): string {
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('not listening');
  return `http://127.0.0.1:${address.port}`;
}

/** What the Polybase client does against a Vellum at `baseURL` (`…/v0`): every kind of route, signed and not. */
async function polybaseRoundTrip(baseURL: string): Promise<void> {
  const db = new Polybase({ baseURL, defaultNamespace: 'embed', signer: ethPersonalSigner(KEYS.alice) });
  const collections = await db.applySchema(SCHEMA);
  expect(collections.map((c) => c.id)).toEqual(['embed/City']);
  const cities = db.collection('City');
  const created = await cities.create(['london', 'London', 8_000_000]);
  expect(created.data.mayor).toEqual(jwkOf(KEYS.alice));
  await cities.create(['paris', 'Paris', 2_100_000]);
  await cities.create(['oslo', 'Oslo', 700_000]);
  expect((await cities.record('london').call('grow', [1])).data.population).toBe(8_000_001);
  expect((await cities.record('london').get()).data.population).toBe(8_000_001);
  expect((await cities.record('nowhere').get()).exists()).toBe(false);
  const big = await cities.where('population', '>', 1_000_000).sort('population', 'desc').get();
  expect(big.data.map((r) => r.data.id)).toEqual(['london', 'paris']);
  const other = new Polybase({ baseURL, defaultNamespace: 'embed', signer: ethPersonalSigner(KEYS.bob) });
  await expect(other.collection('City').record('london').call('grow', [1])).rejects.toMatchObject({ reason: 'function/collection-error', statusCode: 400 });

  // A long-poll through the mount: the change arrives.
  const seen: number[] = [];
  let changed!: () => void;
  const arrived = new Promise<void>((resolve) => (changed = resolve));
  const stop = cities.record('paris').onSnapshot((snapshot) => {
    seen.push(snapshot.data.population);
    if (snapshot.data.population === 2_100_005) changed();
  });
  await new Promise((resolve) => setTimeout(resolve, 300));
  await cities.record('paris').call('grow', [5]);
  await arrived;
  stop();
  expect(seen[0]).toBe(2_100_000);
}

interface Backend {
  name: string;
  open(): Promise<RecordStore>;
}

let postgres: TestPostgres;
beforeAll(async () => {
  postgres = await startTestPostgres();
}, 120_000);
afterAll(() => postgres?.stop());

const backends: Backend[] = [
  { name: 'SQLite', open: async () => openSqliteStore(':memory:') },
  { name: 'PostgreSQL', open: () => openPostgresStore({ connectionString: postgres.url, table: uniqueTableName('embed') }) },
];

describe.each(backends)('the fastify plugin on $name', (backend) => {
  let host: FastifyInstance;
  let url: string;
  const hostSaw: string[] = [];
  beforeAll(async () => {
    host = Fastify();
    // The app's own route and hooks, as an app that mounts Vellum has them.
    host.get('/hello', async () => ({ hello: 'world' }));
    host.addHook('onRequest', async (request) => {
      hostSaw.push(`onRequest ${request.url}`);
    });
    host.addHook('onResponse', async (request, reply) => {
      hostSaw.push(`onResponse ${request.url} ${reply.statusCode}`);
    });
    await host.register(vellum, { ...ACCESS, prefix: '/db', store: await backend.open() });
    await host.listen({ port: 0, host: '127.0.0.1' });
    url = urlOf(host.server);
  });
  afterAll(() => host.close());

  it('serves the Polybase client under the prefix', async () => {
    await polybaseRoundTrip(`${url}/db/v0`);
  });

  it('leaves the app its own routes, and the app its 404 outside the prefix', async () => {
    expect(await (await fetch(`${url}/hello`)).json()).toEqual({ hello: 'world' });
    const outside = await fetch(`${url}/v0/health`);
    expect(outside.status).toBe(404);
    expect(await outside.json()).toMatchObject({ message: 'Route GET:/v0/health not found' });
    const inside = await fetch(`${url}/db/v0/nothing`);
    expect(inside.status).toBe(404);
    expect(await inside.json()).toEqual({ error: { code: 'not-found', reason: 'route/not-found', message: 'no route for GET /db/v0/nothing' } });
  });

  it("runs the app's onRequest and onResponse hooks for Vellum's requests, the fast paths' included", async () => {
    hostSaw.length = 0;
    // A plain get of a found record: the standalone server answers it before fastify (fast-get.ts).
    expect((await fetch(`${url}/db/v0/collections/embed%2FCity/records/oslo`)).status).toBe(200);
    expect(hostSaw).toEqual(['onRequest /db/v0/collections/embed%2FCity/records/oslo', 'onResponse /db/v0/collections/embed%2FCity/records/oslo 200']);
  });

  it('takes record ids longer than the app router\'s parameter limit (100 by default)', async () => {
    const id = 'k'.repeat(300);
    const body = JSON.stringify({ args: [id, 'Long', 1] });
    const created = await fetch(`${url}/db/v0/collections/embed%2FCity/records`, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
    expect(created.status).toBe(200);
    const read = await fetch(`${url}/db/v0/collections/embed%2FCity/records/${id}`);
    expect(((await read.json()) as { data: { id: string } }).data.id).toBe(id);
  });
});

describe('the mounted answers are the standalone server\'s', () => {
  let standalone: RunningServer;
  let host: FastifyInstance;
  let mountedUrl: string;
  beforeAll(async () => {
    standalone = await startServer({ ...ACCESS, port: 0, store: openSqliteStore(':memory:'), explorer: false, bodyLimit: 2000 });
    host = Fastify();
    await host.register(vellum, { ...ACCESS, prefix: '/db', store: openSqliteStore(':memory:'), bodyLimit: 2000 });
    await host.listen({ port: 0, host: '127.0.0.1' });
    mountedUrl = `${urlOf(host.server)}/db`;
    const schema = `@public collection Item { id: string; n: number; constructor (id: string) { this.id = id; this.n = 0; } add (by: number) { this.n += by; } }`;
    for (const base of [standalone.url, mountedUrl]) {
      const body = JSON.stringify({ args: ['ns/Item', schema] });
      const made = await fetch(`${base}/v0/collections/Collection/records`, { method: 'POST', body, headers: { 'x-polybase-signature': signRequest(KEYS.admin, body) } });
      expect(made.status).toBe(200);
      await fetch(`${base}/v0/collections/ns%2FItem/records`, { method: 'POST', body: JSON.stringify({ args: ['a'] }) });
    }
  });
  afterAll(async () => {
    await standalone.close();
    await host.close();
  });

  const json = { 'content-type': 'application/json' };
  const cases: { name: string; method: string; path: string; body?: string; headers?: Record<string, string> }[] = [
    { name: 'a plain get (fast path)', method: 'GET', path: '/v0/collections/ns%2FItem/records/a', headers: { origin: 'https://app.example' } },
    { name: 'a missing record', method: 'GET', path: '/v0/collections/ns%2FItem/records/zzz' },
    { name: 'a missing collection', method: 'GET', path: '/v0/collections/ns%2FNone/records' },
    { name: 'a list', method: 'GET', path: '/v0/collections/ns%2FItem/records?limit=5' },
    { name: 'a bad where', method: 'GET', path: '/v0/collections/ns%2FItem/records?where=%7B' },
    { name: 'a plain call (fast path)', method: 'POST', path: '/v0/collections/ns%2FItem/records/a/call/add', body: '{"args":[2]}', headers: json },
    { name: 'a call with a bad argument', method: 'POST', path: '/v0/collections/ns%2FItem/records/a/call/add', body: '{"args":["x"]}', headers: json },
    { name: 'a body that is not JSON', method: 'POST', path: '/v0/collections/ns%2FItem/records', body: '{"args":', headers: { 'content-type': 'text/plain' } },
    { name: 'a body over the limit', method: 'POST', path: '/v0/collections/ns%2FItem/records', body: `{"args":["${'x'.repeat(3000)}"]}`, headers: json },
    { name: 'a compressed body', method: 'POST', path: '/v0/collections/ns%2FItem/records', body: '{"args":["b"]}', headers: { ...json, 'content-encoding': 'gzip' } },
    { name: 'a bad signature', method: 'POST', path: '/v0/collections/ns%2FItem/records', body: '{"args":["c"]}', headers: { ...json, 'x-polybase-signature': 'v=0,t=1,h=x' } },
    { name: 'a CORS preflight', method: 'OPTIONS', path: '/v0/collections/ns%2FItem/records', headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' } },
    { name: 'health', method: 'GET', path: '/v0/health' },
    { name: 'the about answer', method: 'GET', path: '/' },
  ];

  it.each(cases)('$name', async ({ method, path, body, headers }) => {
    const answers = [];
    for (const base of [standalone.url, mountedUrl]) {
      const response = await fetch(`${base}${path === '/' ? '' : path}`, { method, body, headers });
      const kept = [...response.headers].filter(([name]) => !['date', 'keep-alive', 'connection', 'x-service-timestamp', 'x-polybase-timestamp', 'x-request-id'].includes(name));
      // Each answer has a request id of its own (generated, or the X-Request-Id sent): present on both, never equal.
      expect(response.headers.get('x-request-id')).toMatch(/./);
      answers.push({ status: response.status, headers: kept, body: await response.text() });
    }
    expect(answers[1]).toEqual(answers[0]);
  });
});

/** Writes `text` on a new connection and reads until the server closes it (or `ms` pass). */
function exchange(port: number, text: string, ms = 5000): Promise<{ received: string; closed: boolean }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ received, closed: false });
    }, ms);
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ received, closed: true });
    });
    socket.write(text);
  });
}

describe('the edges a mount keeps', () => {
  let host: FastifyInstance;
  let port: number;
  beforeAll(async () => {
    host = Fastify();
    await host.register(vellum, { ...ACCESS, prefix: '/db', store: openSqliteStore(':memory:'), requestTimeoutMs: 1000, bodyLimit: 1000 });
    await host.listen({ port: 0, host: '127.0.0.1' });
    port = Number(new URL(urlOf(host.server)).port);
  });
  afterAll(() => host.close());

  it('a body stopped short of its Content-Length gets the 408 envelope, and the connection closes', async () => {
    const { received, closed } = await exchange(port, 'POST /db/v0/collections/Collection/records HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 40\r\n\r\n{"args":');
    expect(received).toMatch(/^HTTP\/1\.1 408 /);
    expect(received).toContain('"reason":"request/timeout"');
    expect(closed).toBe(true);
  });

  it('a long-poll longer than the request timeout is answered (waiting does not count)', async () => {
    const first = await fetch(`http://127.0.0.1:${port}/db/v0/collections/Collection/records`);
    const since = first.headers.get('x-service-timestamp');
    const started = Date.now();
    const polled = await fetch(`http://127.0.0.1:${port}/db/v0/collections/Collection/records?since=${since}&waitFor=2s`);
    expect(polled.status).toBe(304);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
  });

  it('two Host headers get the 400 envelope', async () => {
    const { received } = await exchange(port, 'GET /db/v0/health HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n');
    expect(received).toMatch(/^HTTP\/1\.1 400 /);
    expect(received).toContain('"reason":"request/invalid-http"');
  });

  it("Expect: 100-continue is the server's: Node sends 100 Continue itself, then a Content-Length over the limit gets the 413 envelope at once", async () => {
    const { received } = await exchange(
      port,
      'POST /db/v0/collections/Collection/records HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: 1500\r\n\r\n',
      2000,
    );
    // The standalone server answers 413 without the 100 (http-edges.ts): the client then never sends the body.
    expect(received).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 413 /);
    expect(received).toContain('"reason":"request/body-too-large"');
  });

  it("closing the app ends a waiting long-poll at once", async () => {
    const other = Fastify();
    await other.register(vellum, { ...ACCESS, prefix: '/db', store: openSqliteStore(':memory:') });
    await other.listen({ port: 0, host: '127.0.0.1' });
    const base = `${urlOf(other.server)}/db/v0/collections/Collection/records`;
    const since = (await fetch(base)).headers.get('x-service-timestamp');
    const polling = fetch(`${base}?since=${since}&waitFor=60s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const started = Date.now();
    await other.close();
    expect((await polling).status).toBe(304);
    expect(Date.now() - started).toBeLessThan(5000);
  });
});

describe('the node:http handler', () => {
  let handler: VellumHandler;
  let server: Server;
  let url: string;
  beforeAll(async () => {
    handler = await createVellumHandler({ ...ACCESS, prefix: '/db', store: openSqliteStore(':memory:') });
    server = createServer((request, response) => {
      if (request.url === '/db' || request.url!.startsWith('/db/')) handler(request, response);
      else response.end('mine');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = urlOf(server);
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await handler.close();
  });

  it('serves the Polybase client under its prefix, beside the server\'s own answers', async () => {
    await polybaseRoundTrip(`${url}/db/v0`);
    expect(await (await fetch(`${url}/other`)).text()).toBe('mine');
    expect(handler.service.ready).toBe(true);
  });

  it('answers a path outside its prefix with the 404 envelope', async () => {
    const outside = await createVellumHandler({ ...ACCESS, prefix: '/db', store: openSqliteStore(':memory:') });
    const bare = createServer(outside);
    await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
    try {
      const answer = await fetch(`${urlOf(bare)}/elsewhere`);
      expect(answer.status).toBe(404);
      expect(await answer.json()).toMatchObject({ error: { reason: 'route/not-found' } });
    } finally {
      await new Promise((resolve) => bare.close(resolve));
      await outside.close();
    }
  });
});

describe('mistakes in the embedding code are clear errors', () => {
  it('host.register(buildApp) fails, naming the plugin to use', async () => {
    const host = Fastify();
    await expect(host.register(buildApp as never)).rejects.toThrow(/register the plugin: app\.register\(vellum/);
    await host.close();
  });

  it('a service made with new is refused until initialised; createRecordService gives a ready one', async () => {
    const store = openSqliteStore(':memory:');
    const service = new RecordService(store);
    expect(service.ready).toBe(false);
    expect(() => buildApp({ service })).toThrow(ServiceNotReadyError);
    await expect(service.installSchema('a/B', '@public collection B { id: string; constructor (id: string) { this.id = id; } }')).rejects.toThrow(/createRecordService/);
    await expect(service.list('Collection', {}, {})).rejects.toThrow(ServiceNotReadyError);
    const ready = await createRecordService(store);
    expect(ready.ready).toBe(true);
    expect(await ready.installSchema('a/B', '@public collection B { id: string; constructor (id: string) { this.id = id; } }')).toBe('created');
    await store.close();
  });

  it('a bad prefix, or the explorer under a prefix, is refused when registering', async () => {
    await expect(createVellumHandler({ prefix: 'db', store: openSqliteStore(':memory:') })).rejects.toThrow(/prefix must start with \//);
    const host = Fastify();
    await expect(host.register(vellum, { ...ACCESS, prefix: '/db', store: openSqliteStore(':memory:'), explorer: {} })).rejects.toThrow(/explorer cannot be served under a prefix/);
    await host.close().catch(() => {});
  });
});
