// Two servers on one PostgreSQL database, as behind a load balancer: a key's write and gas budgets are shared
// (kept in the database), so a key flooding writes through both alternately gets the budget of one server, not
// twice it, while another key's writes keep succeeding; the limits documented as per process (reads, everything
// per client address, and key budgets with `shared: false`) are counted by each server on its own. Counts and
// statuses are asserted, never timings.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openPostgresStore } from '../../src/store/index.ts';
import { RateLimiter, type RateLimitOptions } from '../../src/service/index.ts';
import type { TokenTake } from '../../src/store/index.ts';
import { dropTablesAndStop, startTestPostgres, uniqueTableName, type TestPostgres } from '../support/postgres.ts';
import { KEYS, errorOf, hexOf, startTestServer, type Answer, type TestServer } from './support.ts';

const ITEM = `@public collection Item {
  id: string; n: number;
  constructor (id: string) { this.id = id; this.n = 0; }
  bump () { this.n += 1; }
  spin (times: number) { let i = 0; while (i < times) { i += 1; } this.n = i; }
}`;

let pg: TestPostgres;
const tables: string[] = [];
beforeAll(async () => {
  pg = await startTestPostgres();
}, 60_000);
afterAll(() => dropTablesAndStop(pg, tables), 60_000);

/** Generous where a test does not look: every request of these tests comes from 127.0.0.1. */
const OPEN: RateLimitOptions = { readsPerAddress: 1_000_000, writesPerAddress: 1_000_000, signaturesPerAddress: 1_000_000 };

/** Two servers, each with its own connection pool, on one new table; `lim/Item` records `a` and `b`. */
async function twoServers(rateLimits: RateLimitOptions): Promise<[TestServer, TestServer]> {
  const table = uniqueTableName('vellum_shared');
  tables.push(table);
  const open = () => openPostgresStore({ connectionString: pg.url, table });
  const a = await startTestServer({ store: await open(), rateLimits: { ...OPEN, ...rateLimits } });
  const b = await startTestServer({ store: await open(), rateLimits: { ...OPEN, ...rateLimits } });
  await a.createCollection('lim/Item', ITEM);
  for (const id of ['a', 'b']) expect((await a.create('lim/Item', [id])).status).toBe(200);
  return [a, b];
}

function expectLimited(answer: Answer | undefined, message: RegExp): void {
  expect(answer?.status, answer?.text).toBe(429);
  expect(errorOf(answer!)).toMatchObject({ code: 'resource-exhausted', reason: 'request/rate-limited' });
  expect(errorOf(answer!)?.message).toMatch(message);
  expect(Number(answer!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('limits shared by two servers on one PostgreSQL', () => {
  it('a key flooding writes through both servers is held to one budget, while another key keeps writing', async () => {
    const [a, b] = await twoServers({ writesPerKey: 5, burstSeconds: 1 });
    try {
      const started = Date.now();
      let bobDone = false;
      const flooded: { server: 'a' | 'b'; answer: Answer }[] = [];
      const bob: Answer[] = [];
      await Promise.all([
        // Four at a time, alternately through each server, for as long as the other key writes.
        ...Array.from({ length: 4 }, async (_, lane) => {
          for (let i = lane; !bobDone || flooded.length < 100; i += 4) {
            const server = i % 2 === 0 ? 'a' : 'b';
            flooded.push({ server, answer: await (server === 'a' ? a : b).call('lim/Item', 'a', 'bump', [], KEYS.alice) });
          }
        }),
        (async () => {
          // 4 per second, under its 5, alternately through each server.
          for (let i = 0; i < 8; i++) {
            await pause(250);
            bob.push(await (i % 2 === 0 ? a : b).call('lim/Item', 'b', 'bump', [], KEYS.bob));
          }
          bobDone = true;
        })(),
      ]);
      const seconds = (Date.now() - started) / 1000;
      const served = flooded.filter(({ answer }) => answer.status === 200);
      // One budget: the burst (5) plus the refill (5 a second) over the flood; per process it would be twice that.
      expect(served.length).toBeGreaterThanOrEqual(5);
      expect(served.length).toBeLessThanOrEqual(5 + Math.ceil(5 * seconds) + 1);
      expect(new Set(served.map(({ server }) => server))).toEqual(new Set(['a', 'b']));
      const refused = flooded.filter(({ answer }) => answer.status === 429);
      expect(served.length + refused.length).toBe(flooded.length);
      expect(new Set(refused.map(({ server }) => server))).toEqual(new Set(['a', 'b']));
      expectLimited(refused[0]?.answer, new RegExp(`^too many writes from key ${hexOf(KEYS.alice)} \\(the limit is 5 per second per key\\)`));
      expect(bob.map((answer) => answer.status)).toEqual(bob.map(() => 200));
      // Every write answered 200 was applied once, and no refused one was.
      expect((await b.record('lim/Item', 'a')).json.data.n).toBe(served.length);
      expect((await a.record('lim/Item', 'b')).json.data.n).toBe(8);
    } finally {
      await a.close();
      await b.close();
    }
  }, 120_000);

  it("a key's gas spent through one server is spent on the other; another key's is not", async () => {
    // One call of 5000 iterations uses more than the whole minute's budget: into a minute's debt.
    const [a, b] = await twoServers({ gasPerMinute: 1000 });
    try {
      expect((await a.call('lim/Item', 'a', 'spin', [5000], KEYS.alice)).status).toBe(200);
      await pause(200); // the gas is charged without waiting for the statement
      expectLimited(await b.call('lim/Item', 'a', 'spin', [10], KEYS.alice), new RegExp(`^too many function gas from key ${hexOf(KEYS.alice)} \\(the limit is 1000 gas per minute per key\\)`));
      expectLimited(await a.call('lim/Item', 'a', 'bump', [], KEYS.alice), /^too many function gas from key/);
      expect((await b.call('lim/Item', 'b', 'bump', [], KEYS.bob)).status).toBe(200);
    } finally {
      await a.close();
      await b.close();
    }
  }, 120_000);

  it("a key's gas is charged with its next write's statement, or by one of its own when no write follows", async () => {
    const table = uniqueTableName('vellum_fold');
    tables.push(table);
    const store = await openPostgresStore({ connectionString: pg.url, table });
    const buckets = store.kv.tokenBuckets!;
    const takes: TokenTake[][] = [];
    const take = buckets.take.bind(buckets);
    vi.spyOn(buckets, 'take').mockImplementation((given) => {
      takes.push([...given]);
      return take(given);
    });
    const limiter = new RateLimiter({ gasPerMinute: 1000 }, undefined, buckets);
    const gasTakes = () => takes.map((list) => list.filter((one) => one.bucket === 'gas:k').map((one) => one.cost));
    try {
      expect(await limiter.keyWrite('k')).toBeUndefined();
      limiter.spendKeyGas('k', 100); // a call's gas: charged by the next write's take, no statement of its own
      expect(await limiter.keyWrite('k')).toBeUndefined();
      expect(gasTakes()).toEqual([[0], [100]]);
      expect(takes.map((list) => list.length)).toEqual([2, 2]);
      // More than the bucket holds after the charge: refused for gas, the charge left for the next take.
      limiter.spendKeyGas('k', 990);
      expect(await limiter.keyWrite('k')).toMatchObject({ kind: 'gas', of: 'key', rate: 1000 });
      expect(gasTakes()).toEqual([[0], [100], [990]]);
      // No write follows (refused, it waits): the gas is charged by a statement of its own within GAS_FOLD_MS.
      await vi.waitFor(() => expect(gasTakes()).toEqual([[0], [100], [990], [990]]));
      expect(takes.at(-1)).toHaveLength(1);
      const { rows } = await (store.kv as unknown as { pool: { query: (text: string) => Promise<{ rows: { tokens: number }[] }> } }).pool.query(`SELECT tokens FROM ${table}_buckets WHERE name = 'gas:k'`);
      // 1000 - 100 - 990, plus what refilled meanwhile (1000 a minute): far below the 900 left without the charge.
      expect(rows[0]!.tokens).toBeLessThan(100);
    } finally {
      vi.restoreAllMocks();
      await store.close();
    }
  }, 60_000);

  it('reads, and limits per client address, are counted by each server on its own', async () => {
    const [a, b] = await twoServers({ readsPerKey: 3, writesPerAddress: 3, burstSeconds: 1 });
    try {
      const read = (s: TestServer) => s.record('lim/Item', 'a', KEYS.alice);
      const reads: Answer[] = [];
      for (let i = 0; i < 6 && reads.at(-1)?.status !== 429; i++) reads.push(await read(a));
      expectLimited(reads.at(-1), /^too many reads from key/);
      expect((await read(b)).status).toBe(200);

      const unsigned = (s: TestServer) => s.call('lim/Item', 'b', 'bump', []);
      const writes: Answer[] = [];
      for (let i = 0; i < 6 && writes.at(-1)?.status !== 429; i++) writes.push(await unsigned(a));
      expectLimited(writes.at(-1), /^too many writes from client address 127\.0\.0\.1/);
      expect((await unsigned(b)).status).toBe(200);
    } finally {
      await a.close();
      await b.close();
    }
  }, 120_000);

  it("with shared: false, a key's writes and gas are counted by each server on its own", async () => {
    const [a, b] = await twoServers({ writesPerKey: 3, burstSeconds: 1, gasPerMinute: 1000, shared: false });
    try {
      const writes: Answer[] = [];
      for (let i = 0; i < 6 && writes.at(-1)?.status !== 429; i++) writes.push(await a.call('lim/Item', 'a', 'bump', [], KEYS.alice));
      expectLimited(writes.at(-1), /^too many writes from key/);
      expect((await b.call('lim/Item', 'a', 'bump', [], KEYS.alice)).status).toBe(200);

      expect((await a.call('lim/Item', 'b', 'spin', [5000], KEYS.bob)).status).toBe(200);
      expectLimited(await a.call('lim/Item', 'b', 'bump', [], KEYS.bob), /^too many function gas from key/);
      expect((await b.call('lim/Item', 'b', 'bump', [], KEYS.bob)).status).toBe(200);
    } finally {
      await a.close();
      await b.close();
    }
  }, 120_000);
});
