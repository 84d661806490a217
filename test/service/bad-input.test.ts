// Bad input of every kind over HTTP: each request gets a clear JSON error (or answer), nothing changes that
// should not, and the server stays up. Also: concurrent writes to one record serialise.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signRequest } from '../../src/auth/index.ts';
import { KEYS, errorOf, startTestServer, type Answer, type TestServer } from './support.ts';

const SCHEMA = `
@public
collection Counter {
  id: string;
  value: number;
  label?: string;
  constructor (id: string) {
    this.id = id;
    this.value = 0;
  }
  increment () {
    this.value += 1;
  }
  add (n: number, label: string) {
    this.value += n;
    this.label = label;
  }
}
`;

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
  await s.createCollection('bad/Counter', SCHEMA);
  await s.create('bad/Counter', ['c1']);
});
afterAll(() => s.close());

async function snapshot(): Promise<string> {
  const listed = await s.list('bad/Counter', { limit: 1000 });
  return JSON.stringify(listed.json.data);
}

function expectCleanError(answer: Answer, status?: number): void {
  expect(answer.status, answer.text).toBeGreaterThanOrEqual(400);
  expect(answer.status, answer.text).toBeLessThan(500);
  if (status) expect(answer.status, answer.text).toBe(status);
  expect(answer.headers.get('content-type')).toMatch(/application\/json/);
  const error = errorOf(answer)!;
  expect(typeof error.code).toBe('string');
  expect(typeof error.reason).toBe('string');
  expect(error.message.length).toBeGreaterThan(0);
}

describe('bad input changes nothing and gets a clear error', () => {
  it('malformed and mistyped bodies', async () => {
    const before = await snapshot();
    const bodies = ['', ' ', '{', '{"args":', 'null', '"args"', '42', '[]', '{"args":null}', '{"args":{}}', '{"args":[1,2,3]}', '{"args":["x"]}', '{"args":[[1]]}', '{"args":[1e400]}', '\u0000', '{"args":[1],"args":[2,3,4]}'];
    for (const raw of bodies) {
      const answer = await s.post('/v0/collections/bad%2FCounter/records/c1/call/add', undefined, { raw });
      expectCleanError(answer, 400);
    }
    expect(await snapshot()).toBe(before);
  });

  it('random bodies and paths never crash the server or give a 500', async () => {
    const before = await snapshot();
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.string(), fc.json(), fc.jsonValue().map((v) => JSON.stringify({ args: v }))),
        fc.constantFrom('records', 'records/c1/call/add', 'records/c1/call/nope', 'records/nope/call/add'),
        async (raw, tail) => {
          const answer = await s.post(`/v0/collections/bad%2FCounter/${tail}`, undefined, { raw });
          expect(answer.status, answer.text).not.toBeGreaterThanOrEqual(500);
          if (answer.status >= 400) expectCleanError(answer);
        },
      ),
      { numRuns: 150 },
    );
    // Random args may legitimately create records (any string id) or add to c1; c1's other fields stay typed.
    const c1 = (await s.record('bad/Counter', 'c1')).json.data;
    expect(typeof c1.value).toBe('number');
    void before;
  });

  it('random query strings give 200 or a clean 400', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(fc.constantFrom('where', 'sort', 'limit', 'before', 'after', 'format', 'x'), fc.oneof(fc.string(), fc.json())),
        async (query) => {
          const answer = await s.list('bad/Counter', query);
          expect([200, 400]).toContain(answer.status);
          if (answer.status === 400) expectCleanError(answer);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('invalid percent-encoding, unknown routes and methods', async () => {
    for (const path of ['/v0/collections/%E0%A4%A/records', '/v0/collections/bad%2FCounter/records/%C3%28', '/v0/collections/bad%2FCounter/records/c1/call/%']) {
      expectCleanError(await s.get(path), 400);
      expectCleanError(await s.post(path, { args: [] }), 400);
    }
    for (const [method, path] of [['GET', '/v1/collections'], ['PUT', '/v0/collections/bad%2FCounter/records'], ['DELETE', '/'], ['PATCH', '/v0/health'], ['GET', '/v0/collections/bad%2FCounter/records/c1/call/increment']] as const) {
      expectCleanError(await s.request(method, path), 404);
    }
  });

  it('an oversize body is refused before it is read whole', async () => {
    const before = await snapshot();
    const answer = await s.post('/v0/collections/bad%2FCounter/records/c1/call/add', undefined, { raw: `{"args":[1,"${'y'.repeat(3 * 1024 * 1024)}"]}` });
    expectCleanError(answer, 413);
    expect(await snapshot()).toBe(before);
  });

  it('bad and replayed signatures', async () => {
    const before = await snapshot();
    const body = JSON.stringify({ args: [] });
    const good = signRequest(KEYS.alice, body);
    const signedAt = Date.now();
    const headers = [
      'nonsense',
      'v=0',
      'v=0,t=abc,h=eth-personal-sign,sig=0x00',
      good.replace(/sig=0x../, 'sig=0xzz'),
      // A changed t with pk: the key recovered from the signature is no longer the one claimed.
      signRequest(KEYS.alice, body, signedAt, { includePublicKey: true }).replace(/t=\d+/, `t=${signedAt - 1}`),
      `${good},pk=0x02${'00'.repeat(32)}`,
      'x'.repeat(5000),
    ];
    for (const header of headers) {
      const answer = await s.post('/v0/collections/bad%2FCounter/records/c1/call/increment', undefined, { raw: body, headers: { 'x-polybase-signature': header } });
      expectCleanError(answer, 400);
      expect(errorOf(answer)?.reason).toBe('auth/invalid-signature');
    }
    expect(await snapshot()).toBe(before);
    const first = await s.post('/v0/collections/bad%2FCounter/records/c1/call/increment', undefined, { raw: body, headers: { 'x-polybase-signature': good } });
    expect(first.status).toBe(200);
    const replay = await s.post('/v0/collections/bad%2FCounter/records/c1/call/increment', undefined, { raw: body, headers: { 'x-polybase-signature': good } });
    expectCleanError(replay, 400);
    expect((await s.record('bad/Counter', 'c1')).json.data.value).toBe(first.json.data.value);
  });

  it('100 concurrent long-polls each get an answer, and the server stays responsive', async () => {
    const since = (await s.list('bad/Counter')).headers.get('x-service-timestamp')!;
    const polls = Array.from({ length: 100 }, (_, i) =>
      i % 2 === 0 ? s.list('bad/Counter', { since, waitFor: '3s' }) : s.get(`/v0/collections/bad%2FCounter/records/c1?since=${since}&waitFor=3s`),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    const health = await s.get('/v0/health');
    expect(health.status).toBe(200);
    await s.call('bad/Counter', 'c1', 'increment', []);
    const answers = await Promise.all(polls);
    for (const answer of answers) expect(answer.status).toBe(200);
    // And with no change: every one answers 304.
    const quiet = answers[0]!.headers.get('x-service-timestamp')!;
    const idle = await Promise.all(Array.from({ length: 100 }, () => s.list('bad/Counter', { since: quiet, waitFor: '1s' })));
    for (const answer of idle) expect(answer.status).toBe(304);
  });
});

describe('concurrency', () => {
  it('200 concurrent increments of one counter end at 200', async () => {
    await s.create('bad/Counter', ['hot']);
    const answers = await Promise.all(Array.from({ length: 200 }, () => s.call('bad/Counter', 'hot', 'increment', [])));
    for (const answer of answers) expect(answer.status, answer.text).toBe(200);
    const values = answers.map((a) => a.json.data.value).sort((a, b) => a - b);
    expect(values).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    expect((await s.record('bad/Counter', 'hot')).json.data.value).toBe(200);
  });

  it('concurrent creates of one id: exactly one succeeds, the rest are 409', async () => {
    const answers = await Promise.all(Array.from({ length: 20 }, () => s.create('bad/Counter', ['once'])));
    expect(answers.filter((a) => a.status === 200).length).toBe(1);
    expect(answers.filter((a) => a.status === 409).length).toBe(19);
  });
});
