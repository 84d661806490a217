// Token buckets in PostgreSQL (token-buckets.ts), shared by every process on the database: a table
// `<table>_buckets (name, tokens, at, rate, capacity)`, made on the first take. A take is one statement: an
// INSERT … ON CONFLICT DO UPDATE per bucket that refills the bucket from the time stored with it, by the
// database's clock (the processes' clocks never meet), and takes only when it then holds enough (a refused take
// updates nothing, so it returns no row). Several takes are chained in one statement, each made only if the one
// before was. The row lock of ON CONFLICT DO UPDATE makes each take atomic: two processes taking from one bucket
// at once are serialised on its row, and only on it (no commit lock: records' commits do not wait for buckets).
//
// The table is UNLOGGED: no write-ahead log per take. A crash of the database empties it, which gives every
// client a full bucket again (as a restarted process's memory does). A bucket whose row is full again is the
// same as no row: those rows are deleted every minute, so the table holds only the clients active lately.

import type pg from 'pg';
import type { TokenBuckets, TokenRefusal, TokenTake } from './token-buckets.ts';

const MAX_TAKES = 4;
const MAX_NAME_CHARS = 200;
const SWEEP_MS = 60_000;
const NOW = 'extract(epoch FROM clock_timestamp())::float8';

type Query = <R extends pg.QueryResultRow>(query: pg.QueryConfig) => Promise<pg.QueryResult<R>>;

interface Answer {
  granted: number;
  tokens: number | null;
  at: number | null;
  now: number;
}

/** The statement making `count` takes in a chain; parameters 5 per take: name, rate, capacity, cost, need. */
function takeStatement(table: string, count: number): string {
  const ctes = [`now AS (SELECT ${NOW} AS t)`];
  for (let i = 0; i < count; i++) {
    const [name, rate, capacity, cost, need] = [1, 2, 3, 4, 5].map((n) => `$${5 * i + n}::${n === 1 ? 'text' : 'float8'}`);
    const refilled = 'least(EXCLUDED.capacity, b.tokens + greatest(0, EXCLUDED.at - b.at) * EXCLUDED.rate)';
    ctes.push(
      `t${i} AS (INSERT INTO ${table} AS b (name, tokens, at, rate, capacity) ` +
        `SELECT ${name}, greatest(-${capacity}, ${capacity} - ${cost}), now.t, ${rate}, ${capacity} FROM now ` +
        `WHERE ${capacity} >= ${need}${i > 0 ? ` AND EXISTS (SELECT FROM t${i - 1})` : ''} ` +
        `ON CONFLICT (name) DO UPDATE SET tokens = greatest(-EXCLUDED.capacity, ${refilled} - ${cost}), ` +
        `at = greatest(b.at, EXCLUDED.at), rate = EXCLUDED.rate, capacity = EXCLUDED.capacity ` +
        `WHERE ${refilled} >= ${need} RETURNING 1)`,
    );
  }
  const granted = Array.from({ length: count }, (_, i) => `(SELECT count(*) FROM t${i})`).join(' + ');
  const names = Array.from({ length: count }, (_, i) => `$${5 * i + 1}::text`).join(', ');
  // The refused bucket as it was when the statement began (it changed nothing in it): for the time to wait.
  return (
    `WITH ${ctes.join(', ')} SELECT g.n::int AS granted, b.tokens, b.at, now.t AS now ` +
    `FROM (SELECT ${granted} AS n) g CROSS JOIN now LEFT JOIN ${table} b ON b.name = (ARRAY[${names}])[g.n + 1]`
  );
}

function checked(take: TokenTake): void {
  if (typeof take.bucket !== 'string' || take.bucket.length > MAX_NAME_CHARS) throw new RangeError(`a token bucket's name is a string of at most ${MAX_NAME_CHARS} characters`);
  for (const field of ['rate', 'capacity', 'cost'] as const) {
    if (!(Number.isFinite(take[field]) && take[field] >= 0)) throw new RangeError(`a token take's ${field} must be a finite number, not negative; got ${String(take[field])}`);
  }
  if (!(take.rate > 0)) throw new RangeError('a token bucket\'s rate must be positive');
  if (take.need !== undefined && (Number.isNaN(take.need) || take.need === Infinity)) throw new RangeError(`a token take's need must be a number below infinity; got ${String(take.need)}`);
}

export class PostgresBuckets implements TokenBuckets {
  readonly table: string;
  readonly #query: Query;
  #created: Promise<void> | undefined;
  #sweeper: NodeJS.Timeout | undefined;
  #closed = false;

  /** `query`: runs a statement on the store's pool (its errors already say when the database is unavailable). */
  constructor(table: string, query: Query) {
    this.table = table;
    this.#query = query;
  }

  async take(takes: readonly TokenTake[]): Promise<TokenRefusal | undefined> {
    if (takes.length === 0) return undefined;
    if (takes.length > MAX_TAKES) throw new RangeError(`at most ${MAX_TAKES} token takes in one call, got ${takes.length}`);
    for (const take of takes) checked(take);
    await (this.#created ??= this.#create());
    const values = takes.flatMap((take) => [take.bucket, take.rate, take.capacity, take.cost, take.need ?? take.cost]);
    const { rows } = await this.#query<Answer>({ name: `${this.table}_take${takes.length}`, text: takeStatement(this.table, takes.length), values });
    const answer = rows[0]!;
    if (answer.granted >= takes.length) return undefined;
    const refused = takes[answer.granted]!;
    const need = refused.need ?? refused.cost;
    if (need > refused.capacity) return { index: answer.granted, retryAfter: Infinity };
    const held = answer.tokens === null || answer.at === null ? refused.capacity : Math.min(refused.capacity, answer.tokens + Math.max(0, answer.now - answer.at) * refused.rate);
    return { index: answer.granted, retryAfter: Math.max(0, need - held) / refused.rate };
  }

  /** Stops the sweeps (the store closes its pool after). */
  close(): void {
    this.#closed = true;
    clearInterval(this.#sweeper);
  }

  /** Deletes the rows of buckets that are full again (as good as none), returning how many. */
  async sweep(): Promise<number> {
    if (this.#created === undefined) return 0;
    await this.#created;
    const result = await this.#query({ text: `DELETE FROM ${this.table} WHERE at + (capacity - tokens) / rate < ${NOW}` });
    return result.rowCount ?? 0;
  }

  async #create(): Promise<void> {
    const create = `CREATE UNLOGGED TABLE IF NOT EXISTS ${this.table} (name TEXT PRIMARY KEY, tokens FLOAT8 NOT NULL, at FLOAT8 NOT NULL, rate FLOAT8 NOT NULL, capacity FLOAT8 NOT NULL)`;
    try {
      try {
        await this.#query({ text: create });
      } catch {
        await this.#query({ text: create }); // two processes creating it at once: the loser's retry sees it
      }
    } catch (error) {
      this.#created = undefined; // the next take tries again
      throw error;
    }
    if (this.#closed || this.#sweeper) return;
    this.#sweeper = setInterval(() => void this.sweep().catch(() => {}), SWEEP_MS);
    this.#sweeper.unref();
  }
}
