// Abuse controls, tested as an attacker would try them: a flood from one key is throttled while another key's
// requests keep being answered; limits per client address on the fast paths and the routes; the gas budget; the
// signature-check budget, spent before any key is recovered; X-Forwarded-For believed only from a trusted proxy,
// and only as far as trusted proxies wrote it. Every refusal is 429 `request/rate-limited` in the envelope with
// Retry-After. On SQLite and PostgreSQL. (Counts and statuses are asserted, never timings.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signRequest } from '../../src/auth/index.ts';
import { Buckets, ClientAddresses, RateLimiter, type ServerOptions } from '../../src/service/index.ts';
import { openPostgresStore, openSqliteStore, type RecordStore } from '../../src/store/index.ts';
import { dropTablesAndStop, startTestPostgres, uniqueTableName, type TestPostgres } from '../support/postgres.ts';
import { KEYS, errorOf, hexOf, startTestServer, type Answer, type TestServer } from './support.ts';

const ITEM = `@public collection Item {
  id: string; n: number;
  constructor (id: string) { this.id = id; this.n = 0; }
  bump () { this.n += 1; }
  spin (times: number) { let i = 0; while (i < times) { i += 1; } this.n = i; }
}`;

function expectLimited(answer: Answer, message: RegExp): void {
  expect(answer.status, answer.text).toBe(429);
  expect(errorOf(answer)).toMatchObject({ code: 'resource-exhausted', reason: 'request/rate-limited' });
  expect(errorOf(answer)?.message).toMatch(message);
  expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
}

describe('token buckets (a clock the test moves)', () => {
  it('a bucket gives its burst, then refills at its rate, and says how long to wait', () => {
    let now = 0;
    const buckets = new Buckets(10, 20, 1000); // 10 per second, 20 at once
    let taken = 0;
    while (buckets.take('a', now) === 0) taken++;
    expect(taken).toBe(20);
    expect(buckets.take('a', now)).toBeCloseTo(0.1);
    expect(buckets.take('b', now)).toBe(0); // another client has its own
    now += 500;
    taken = 0;
    while (buckets.take('a', now) === 0) taken++;
    expect(taken).toBe(5);
  });

  it('gas is charged after the work, into debt of at most one budget, and refused while none is left', () => {
    let now = 0;
    const limiter = new RateLimiter({ gasPerMinute: 600 }, () => now);
    expect(limiter.gas('k', true)).toBeUndefined();
    limiter.spendGas('k', 10_000);
    expect(limiter.gas('k', true)).toMatchObject({ kind: 'gas', of: 'key', rate: 600 });
    now += 60_000; // the debt is one minute's budget: a minute later there is gas again
    expect(limiter.gas('k', true)?.retryAfter ?? 0).toBeLessThanOrEqual(0.1);
    now += 100;
    expect(limiter.gas('k', true)).toBeUndefined();
  });

  it('tracks at most maxTracked clients, dropping the oldest', () => {
    const buckets = new Buckets(1, 1, 3);
    for (const client of ['a', 'b', 'c', 'd']) buckets.take(client, 0);
    expect(buckets.tracked).toBe(3);
  });

  it('refuses limits that are not positive numbers', () => {
    for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) expect(() => new RateLimiter({ readsPerKey: bad })).toThrow(/readsPerKey must be a positive number/);
  });
});

describe('client addresses', () => {
  it('X-Forwarded-For is ignored unless the connection comes from a trusted proxy', () => {
    expect(new ClientAddresses().of('127.0.0.1', '10.0.0.1')).toBe('127.0.0.1');
    expect(new ClientAddresses(['10.9.0.0/16']).of('127.0.0.1', '10.0.0.1')).toBe('127.0.0.1');
  });

  it('from a trusted proxy, the rightmost address no trusted proxy wrote', () => {
    const behindTwo = new ClientAddresses(['127.0.0.1', '10.0.0.0/8']);
    expect(behindTwo.of('127.0.0.1', '203.0.113.7')).toBe('203.0.113.7');
    // A client writing its own X-Forwarded-For cannot pass for another: the proxy appended the real address.
    expect(behindTwo.of('127.0.0.1', '198.51.100.1, 203.0.113.7')).toBe('203.0.113.7');
    expect(behindTwo.of('127.0.0.1', '203.0.113.7, 10.1.2.3')).toBe('203.0.113.7');
    expect(behindTwo.of('::ffff:127.0.0.1', '203.0.113.7')).toBe('203.0.113.7');
    expect(behindTwo.of('127.0.0.1', ['198.51.100.1', '203.0.113.7'])).toBe('203.0.113.7');
    // Garbage where an address should be: the chain is believed only up to it.
    expect(behindTwo.of('127.0.0.1', 'garbage, 10.1.2.3')).toBe('10.1.2.3');
    expect(behindTwo.of('127.0.0.1', 'garbage')).toBe('127.0.0.1');
  });

  it('counts IPv6 clients by their /64', () => {
    const addresses = new ClientAddresses(['loopback']);
    expect(addresses.of('2001:db8:1:2:aaaa::1', undefined)).toBe('2001:db8:1:2::/64');
    expect(addresses.of('2001:db8:1:2:bbbb::9', undefined)).toBe('2001:db8:1:2::/64');
    expect(addresses.of('2001:db8::1', undefined)).toBe('2001:db8:0:0::/64');
    expect(addresses.of('::1', '2001:0db8:0001:0003::5')).toBe('2001:db8:1:3::/64');
  });

  it('refuses what is not an address, a network or loopback', () => {
    for (const bad of ['proxy.local', '10.0.0.0/33', '10.0.0.1/8/1', '*']) expect(() => new ClientAddresses([bad]), bad).toThrow(/expected a proxy address or network/);
  });
});

type Backend = { name: string; store: () => Promise<RecordStore> };
let pg: TestPostgres | undefined;
const tables: string[] = [];
afterAll(() => dropTablesAndStop(pg, tables), 60_000);
const BACKENDS: Backend[] = [
  { name: 'SQLite', store: async () => openSqliteStore(':memory:') },
  {
    name: 'PostgreSQL',
    store: async () => {
      pg ??= await startTestPostgres();
      const table = uniqueTableName('vellum_limits');
      tables.push(table);
      return openPostgresStore({ connectionString: pg.url, table });
    },
  },
];

async function limitedServer(backend: Backend, options: Partial<ServerOptions>): Promise<TestServer> {
  const s = await startTestServer({ store: await backend.store(), ...options });
  await s.createCollection('lim/Item', ITEM);
  for (const id of ['a', 'b']) expect((await s.create('lim/Item', [id])).status).toBe(200);
  return s;
}

/** `count` requests, `parallel` at a time; the answers in order. */
async function flood(count: number, parallel: number, send: (i: number) => Promise<Answer>): Promise<Answer[]> {
  const answers: Answer[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < count) {
        const i = next++;
        answers[i] = await send(i);
      }
    }),
  );
  return answers;
}

for (const backend of BACKENDS) {
  describe(`over HTTP (${backend.name})`, () => {
    it('a flood of thousands of reads from one key is throttled while another key keeps being answered', async () => {
      // Generous per address (both keys come from 127.0.0.1), tight per key.
      const s = await limitedServer(backend, { rateLimits: { readsPerKey: 50, readsPerAddress: 1_000_000, burstSeconds: 1 } });
      try {
        const signedAt = Date.now();
        // A read signature is reused, as the Polybase client does: one recovery, then the verified-read cache.
        const flooder = signRequest(KEYS.alice, '', signedAt);
        const other = signRequest(KEYS.bob, '', signedAt);
        const get = (signature: string) => s.get('/v0/collections/lim%2FItem/records/a', { headers: { 'x-polybase-signature': signature } });
        const started = Date.now();
        let otherAnswers: Answer[] = [];
        const [flooded] = await Promise.all([
          flood(3000, 16, () => get(flooder)),
          (async () => {
            // The other key's requests, spread over the flood, one at a time (40 < its 50 per second).
            otherAnswers = await flood(40, 1, () => get(other));
          })(),
        ]);
        const seconds = (Date.now() - started) / 1000;
        const served = flooded.filter((answer) => answer.status === 200).length;
        const limited = flooded.filter((answer) => answer.status === 429);
        expect(served + limited.length).toBe(3000);
        // At most the burst plus the refill over the flood's duration.
        expect(served).toBeLessThanOrEqual(50 + Math.ceil(50 * seconds) + 1);
        expect(limited.length).toBeGreaterThan(3000 - 50 - Math.ceil(50 * seconds) - 1);
        expectLimited(limited[0]!, new RegExp(`^too many reads from key ${hexOf(KEYS.alice)} \\(the limit is 50 per second per key\\); retry after 1 s$`));
        expect(otherAnswers.map((answer) => answer.status)).toEqual(otherAnswers.map(() => 200));
      } finally {
        await s.close();
      }
    }, 120_000);

    it('unsigned reads and calls are limited per client address, on the fast paths and the routes alike', async () => {
      const s = await limitedServer(backend, { rateLimits: { readsPerAddress: 20, writesPerAddress: 10, burstSeconds: 1 } });
      try {
        // The setup's collection and two creates took write tokens from this address, and on an idle machine the
        // reads below can end before they refill (seen in CI: 9 calls admitted): past one burst (1 s) both buckets
        // are full again.
        await new Promise((resolve) => setTimeout(resolve, 1100));
        const gets = await flood(200, 8, (i) => (i % 2 === 0 ? s.get('/v0/collections/lim%2FItem/records/a') : s.get('/v0/collections/lim%2FItem/records?limit=1')));
        const servedGets = gets.filter((answer) => answer.status === 200).length;
        expect(servedGets).toBeGreaterThanOrEqual(20);
        expect(servedGets).toBeLessThan(200);
        expectLimited(gets.find((answer) => answer.status === 429)!, /^too many reads from client address 127\.0\.0\.1 \(the limit is 20 per second per address\)/);
        const calls = await flood(100, 4, (i) =>
          i % 2 === 0
            ? s.call('lim/Item', 'b', 'bump', []) // the call fast path
            : s.post('/v0/collections/lim%2FItem/records/b/call/bump', undefined, { raw: '{"args":[]}', headers: { 'content-type': 'text/plain' } }),
        );
        const servedCalls = calls.filter((answer) => answer.status === 200).length;
        // The burst (10) is let through; on PostgreSQL one of four concurrent bumps of one record may still end in
        // a write conflict after its retries, which is not the limiter's answer (seen once in CI: 9 served).
        const admitted = calls.filter((answer) => answer.status !== 429);
        const statuses = calls.map((answer) => answer.status).join(' ');
        expect(admitted.length, statuses).toBeGreaterThanOrEqual(10);
        expect(servedCalls, statuses).toBeGreaterThanOrEqual(1);
        expect(servedCalls, statuses).toBeLessThan(100);
        expectLimited(calls.find((answer) => answer.status === 429)!, /^too many writes from client address 127\.0\.0\.1/);
        // Every call answered 200 was applied once, and no refused one was.
        await new Promise((resolve) => setTimeout(resolve, 1100));
        expect((await s.record('lim/Item', 'b')).json.data.n).toBe(servedCalls);
      } finally {
        await s.close();
      }
    }, 120_000);

    it('a key that spent its gas budget is refused calls until it refills; another key is not', async () => {
      const s = await limitedServer(backend, { rateLimits: { gasPerMinute: 20_000 } });
      try {
        const spin = (key: string) => s.call('lim/Item', 'a', 'spin', [2000], key);
        const answers: Answer[] = [];
        for (let i = 0; i < 20 && answers.at(-1)?.status !== 429; i++) answers.push(await spin(KEYS.alice));
        expect(answers.at(-1)?.status).toBe(429);
        expect(answers.length).toBeGreaterThan(1);
        expectLimited(answers.at(-1)!, new RegExp(`^too many function gas from key ${hexOf(KEYS.alice)} \\(the limit is 20000 gas per minute per key\\)`));
        expect((await spin(KEYS.bob)).status).toBe(200);
      } finally {
        await s.close();
      }
    }, 120_000);

    it('signature checks are limited per client address before any key is recovered', async () => {
      const s = await limitedServer(backend, { rateLimits: { signaturesPerAddress: 3, burstSeconds: 1 } });
      try {
        // The setup's signed create took a token from this address: past one burst (1 s) the bucket is full again.
        await new Promise((resolve) => setTimeout(resolve, 1100));
        const answers: Answer[] = [];
        for (let i = 0; i < 6; i++) answers.push(await s.create('lim/Item', [`s${i}`], KEYS.carol));
        const statuses = answers.map((answer) => answer.status);
        expect(statuses.filter((status) => status === 200).length).toBeGreaterThanOrEqual(3);
        expect(statuses).toContain(429);
        expectLimited(answers.find((answer) => answer.status === 429)!, /^too many signature checks from client address 127\.0\.0\.1 \(the limit is 3 per second per address\)/);
        // A refused create wrote nothing.
        const refusedIds = answers.flatMap((answer, i) => (answer.status === 429 ? [`s${i}`] : []));
        for (const id of refusedIds) expect((await s.record('lim/Item', id)).status).toBe(404);
      } finally {
        await s.close();
      }
    }, 120_000);

    it('behind a trusted proxy, each forwarded client has its own limit; without one, X-Forwarded-For changes nothing', async () => {
      // A burst of 5 that refills one a second: a flood of 20 meets the limit even on a slow, loaded machine, and
      // each 429 names the bucket it came from, whatever was refilled meanwhile.
      const limits = { readsPerAddress: 1, burstSeconds: 5 };
      const trusting = await limitedServer(backend, { rateLimits: limits, trustProxy: ['127.0.0.1'] });
      const plain = await limitedServer(backend, { rateLimits: limits });
      try {
        const from = (s: TestServer, forwarded: string) => s.get('/v0/collections/lim%2FItem/records/a', { headers: { 'x-forwarded-for': forwarded } });
        const first = await flood(20, 1, () => from(trusting, '203.0.113.7'));
        expect(first.map((answer) => answer.status).slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
        expectLimited(first.find((answer) => answer.status === 429)!, /from client address 203\.0\.113\.7 /);
        expect((await from(trusting, '203.0.113.8')).status).toBe(200);
        // Spoofing an address to the left of the one the proxy wrote does not help: the same bucket answers.
        const spoofed = await flood(10, 1, () => from(trusting, '198.51.100.1, 203.0.113.7'));
        expectLimited(spoofed.find((answer) => answer.status === 429)!, /from client address 203\.0\.113\.7 /);

        const untrusted = await flood(20, 1, () => from(plain, '203.0.113.7'));
        expectLimited(untrusted.find((answer) => answer.status === 429)!, /from client address 127\.0\.0\.1 /);
        const other = await flood(10, 1, () => from(plain, '203.0.113.8'));
        expectLimited(other.find((answer) => answer.status === 429)!, /from client address 127\.0\.0\.1 /);
      } finally {
        await trusting.close();
        await plain.close();
      }
    }, 120_000);
  });
}
