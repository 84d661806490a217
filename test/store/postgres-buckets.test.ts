// Token buckets in PostgreSQL, shared by every process on the database: taken atomically (two stores taking
// from one bucket at once never both get its last token), refilled by the database's clock, chained takes
// stopping at the first refusal, debt for work already done, and the sweep of full buckets. Rates are chosen so
// that the test's own duration refills a negligible amount or a known minimum; no timing is asserted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresKv, openPostgres } from '../../src/store/index.ts';
import { dropTablesAndStop, startTestPostgres, uniqueTableName, type TestPostgres } from '../support/postgres.ts';

let pg: TestPostgres;
const tables: string[] = [];
let a: PostgresKv;
let b: PostgresKv;
beforeAll(async () => {
  pg = await startTestPostgres();
  const table = uniqueTableName('vellum_buckets');
  tables.push(table);
  // Two stores on one table: two processes.
  a = await openPostgres({ connectionString: pg.url, table, notifications: 'none' });
  b = await openPostgres({ connectionString: pg.url, table, notifications: 'none' });
}, 60_000);
afterAll(async () => {
  await a?.close();
  await b?.close();
  await dropTablesAndStop(pg, tables);
}, 60_000);

/** Nearly no refill during a test: one token per 10,000 s. */
const SLOW = { rate: 0.0001, capacity: 10, cost: 1 };

describe('PostgreSQL token buckets', () => {
  it('a bucket gives its capacity across both stores, then refuses, saying how long until a token', async () => {
    let granted = 0;
    let refusal;
    for (let i = 0; i < 14; i++) {
      refusal = await (i % 2 === 0 ? a : b).tokenBuckets.take([{ bucket: 'burst', ...SLOW }]);
      if (refusal === undefined) granted++;
    }
    expect(granted).toBe(10);
    expect(refusal?.index).toBe(0);
    expect(refusal?.retryAfter).toBeGreaterThan(9000); // nearly a whole token at 1 per 10,000 s
    expect(refusal?.retryAfter).toBeLessThanOrEqual(10_000);
    expect(await a.tokenBuckets.take([{ bucket: 'another', ...SLOW }])).toBeUndefined();
  });

  it('concurrent takes from two stores never hand out more than the bucket holds', async () => {
    const takes = Array.from({ length: 60 }, (_, i) => (i % 2 === 0 ? a : b).tokenBuckets.take([{ bucket: 'race', ...SLOW, capacity: 25 }]));
    const answers = await Promise.all(takes);
    expect(answers.filter((answer) => answer === undefined).length).toBe(25);
  });

  it('refills at its rate by the database clock', async () => {
    const fast = { bucket: 'refill', rate: 100, capacity: 5, cost: 5 };
    expect(await a.tokenBuckets.take([fast])).toBeUndefined();
    const refused = await b.tokenBuckets.take([fast]);
    expect(refused?.retryAfter).toBeGreaterThan(0);
    expect(refused?.retryAfter).toBeLessThanOrEqual(0.05);
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(await b.tokenBuckets.take([fast])).toBeUndefined();
  });

  it('chained takes stop at the first refused: it and the later ones take nothing', async () => {
    const empty = { bucket: 'chain-empty', ...SLOW, capacity: 1 };
    const later = { bucket: 'chain-later', ...SLOW, capacity: 1 };
    expect(await a.tokenBuckets.take([empty])).toBeUndefined();
    expect(await a.tokenBuckets.take([{ bucket: 'chain-first', ...SLOW }, empty, later])).toMatchObject({ index: 1 });
    expect(await b.tokenBuckets.take([later])).toBeUndefined(); // still full: the chain did not take from it
    expect(await b.tokenBuckets.take([later])).toMatchObject({ index: 0 });
  });

  it('a check (a tiny need, no cost) takes nothing; spending (need -Infinity) goes into debt of at most the capacity', async () => {
    const check = { bucket: 'gas', rate: 0.0001, capacity: 100, cost: 0, need: 1e-9 };
    for (let i = 0; i < 3; i++) expect(await a.tokenBuckets.take([check])).toBeUndefined();
    expect(await b.tokenBuckets.take([{ ...check, cost: 1000, need: -Infinity }])).toBeUndefined();
    const refused = await a.tokenBuckets.take([check]);
    expect(refused).toMatchObject({ index: 0 });
    // The debt is -100 (one capacity), not -900: a refill of 100 tokens at 0.0001 per second.
    expect(refused!.retryAfter).toBeGreaterThan(0.99e6);
    expect(refused!.retryAfter).toBeLessThanOrEqual(1e6 + 1);
  });

  it('a take that needs more than the capacity is never allowed', async () => {
    expect(await a.tokenBuckets.take([{ bucket: 'never', ...SLOW, cost: 11 }])).toEqual({ index: 0, retryAfter: Infinity });
  });

  it('refuses bad takes before any statement', async () => {
    await expect(a.tokenBuckets.take([{ bucket: 'x', rate: 0, capacity: 1, cost: 1 }])).rejects.toThrow(/rate must be positive/);
    await expect(a.tokenBuckets.take([{ bucket: 'x', rate: 1, capacity: Number.NaN, cost: 1 }])).rejects.toThrow(/capacity must be a finite number/);
    await expect(a.tokenBuckets.take([{ bucket: 'x'.repeat(201), rate: 1, capacity: 1, cost: 1 }])).rejects.toThrow(/at most 200 characters/);
  });

  it('the sweep deletes the buckets that are full again, and only those', async () => {
    await a.tokenBuckets.take([{ bucket: 'sweep-full-soon', rate: 1000, capacity: 1, cost: 1 }]);
    await a.tokenBuckets.take([{ bucket: 'sweep-kept', ...SLOW }]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await a.tokenBuckets.sweep();
    const { rows } = await a.pool.query<{ name: string }>(`SELECT name FROM ${a.tokenBuckets.table} WHERE name LIKE 'sweep-%'`);
    expect(rows.map((row) => row.name)).toEqual(['sweep-kept']);
  });
});
