// CORS answers, header by header, on every kind of answer: the get and call fast paths, fastify's routes, errors
// and preflights. By default any origin may read answers, without credentials; an origin is echoed with
// `Access-Control-Allow-Credentials: true` only when the operator listed it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CorsPolicy } from '../../src/service/index.ts';
import { startTestServer, type TestServer } from './support.ts';

const ITEM = '@public collection Item { id: string; n: number; constructor (id: string) { this.id = id; this.n = 0; } bump () { this.n += 1; } }';
const EXPOSED = 'X-Service-Timestamp, X-Polybase-Timestamp, Content-Type, Content-Length, Retry-After';

async function serverWith(origins?: string[]): Promise<TestServer> {
  const s = await startTestServer(origins ? { cors: { origins } } : {});
  await s.createCollection('cors/Item', ITEM);
  expect((await s.create('cors/Item', ['a'])).status).toBe(200);
  return s;
}

/** One of each kind of answer, from `origin`. */
async function answers(s: TestServer, origin: string) {
  const headers = { origin };
  return {
    fastGet: await s.get('/v0/collections/cors%2FItem/records/a', { headers }),
    routeGet: await s.get('/v0/collections/cors%2FItem/records/a?format=nft', { headers }),
    list: await s.get('/v0/collections/cors%2FItem/records', { headers }),
    fastCall: await s.post('/v0/collections/cors%2FItem/records/a/call/bump', { args: [] }, { headers }),
    routeCall: await s.post('/v0/collections/cors%2FItem/records/a/call/bump', undefined, { raw: '{"args":[]}', headers: { ...headers, 'content-type': 'text/plain' } }),
    notFound: await s.get('/v0/collections/cors%2FItem/records/nobody', { headers }),
    noRoute: await s.get('/v0/nowhere', { headers }),
    preflight: await s.request('OPTIONS', '/v0/collections/cors%2FItem/records', undefined, {
      headers: { ...headers, 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-polybase-signature, content-type' },
    }),
  };
}

function corsHeaders(answer: { headers: Headers }) {
  const get = (name: string) => answer.headers.get(name);
  return {
    origin: get('access-control-allow-origin'),
    credentials: get('access-control-allow-credentials'),
    expose: get('access-control-expose-headers'),
    vary: get('vary'),
  };
}

describe('by default', () => {
  let s: TestServer;
  beforeAll(async () => (s = await serverWith()));
  afterAll(() => s.close());

  it('any origin may read every kind of answer, and none gets credentials', async () => {
    const all = await answers(s, 'https://evil.example');
    expect(Object.values(all).map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200, 404, 404, 204]);
    for (const [kind, answer] of Object.entries(all)) {
      const expose = kind === 'preflight' ? null : EXPOSED; // exposed headers apply to answers, not preflights
      expect({ kind, ...corsHeaders(answer) }).toEqual({ kind, origin: '*', credentials: null, expose: expose ?? corsHeaders(answer).expose, vary: 'Origin' });
    }
    expect(all.preflight.headers.get('access-control-allow-methods')).toBe('POST');
    expect(all.preflight.headers.get('access-control-allow-headers')).toBe('x-polybase-signature, content-type');
    expect(all.preflight.headers.get('access-control-max-age')).toBe('3600');
  });

  it('a request without an Origin gets no CORS headers', async () => {
    const answer = await s.get('/v0/collections/cors%2FItem/records/a');
    expect(corsHeaders(answer)).toEqual({ origin: null, credentials: null, expose: null, vary: null });
  });
});

describe('with a list of origins', () => {
  let s: TestServer;
  let open: TestServer;
  beforeAll(async () => {
    s = await serverWith(['https://app.example', 'http://localhost:3000']);
    open = await serverWith(['https://app.example', '*']);
  });
  afterAll(async () => {
    await s.close();
    await open.close();
  });

  it('a listed origin is echoed with credentials, on every kind of answer', async () => {
    for (const origin of ['https://app.example', 'http://localhost:3000']) {
      for (const [kind, answer] of Object.entries(await answers(s, origin))) {
        expect({ kind, ...corsHeaders(answer), expose: undefined }).toEqual({ kind, origin, credentials: 'true', expose: undefined, vary: 'Origin' });
      }
    }
  });

  it('an origin not listed gets no Allow-Origin and no credentials, only Vary (an origin differing in case or port is another)', async () => {
    for (const origin of ['https://evil.example', 'https://app.example:8443', 'http://app.example', 'null']) {
      for (const [kind, answer] of Object.entries(await answers(s, origin))) {
        expect({ kind, ...corsHeaders(answer) }).toEqual({ kind, origin: null, credentials: null, expose: null, vary: 'Origin' });
      }
    }
  });

  it('with * in the list, an unlisted origin may read without credentials', async () => {
    for (const [kind, answer] of Object.entries(await answers(open, 'https://evil.example'))) {
      expect({ kind, origin: corsHeaders(answer).origin, credentials: corsHeaders(answer).credentials }).toEqual({ kind, origin: '*', credentials: null });
    }
    const listed = await open.get('/v0/collections/cors%2FItem/records/a', { headers: { origin: 'https://app.example' } });
    expect(corsHeaders(listed)).toMatchObject({ origin: 'https://app.example', credentials: 'true' });
  });

  it('Vary keeps what the route said besides Origin', async () => {
    const home = await s.get('/', { headers: { origin: 'https://app.example', accept: 'text/html' } });
    expect(home.headers.get('vary')).toBe('Accept, Origin');
  });
});

it('refuses origins that are not scheme://host[:port]', () => {
  for (const bad of ['app.example', 'https://app.example/path', 'ftp://app.example', 'https://*.example', '']) {
    expect(() => new CorsPolicy({ origins: [bad] }), bad).toThrow(/expected an origin such as https:\/\/app.example.com/);
  }
  expect(() => new CorsPolicy({ origins: ['https://App.Example', 'https://app.example/', '*'] })).not.toThrow();
});
