// The shared backend: PostgreSQL through `pg`, for several service processes on one database.
//
// The SQL is deliberately small and portable (see docs/store.md): one table `(key BYTEA PRIMARY KEY, value
// BYTEA NOT NULL)`, point reads, range scans with ORDER BY key and LIMIT, multi-row INSERT ... ON CONFLICT DO UPDATE, DELETE by key and by range, and SELECT ... FOR UPDATE on
// the clock row as the commit lock. Change notifications use LISTEN/NOTIFY (`pg_notify` inside the commit, so
// it is delivered only if the commit happens).

import { createRequire } from 'node:module';
import type pg from 'pg';
import { EventEmitter } from 'node:events';
import { clockKey, clockTimestamp, type KeyRange } from './keys.ts';
import { decodeU64, encodeU64 } from './encoding.ts';
import { nextTimestamp, type ClockedText, type KvEntry, type KvOp, type KvStore, type ScanOptions, type SearchHit, type SearchOp, type SearchScan, type TextScanOptions, type TransactionBody } from './kv.ts';
import { StoreError, databaseUnavailable } from './errors.ts';
import { PostgresBuckets } from './postgres-buckets.ts';
import { PostgresSearch } from './search-postgres.ts';

export interface PostgresOptions {
  /** A `postgres://` URL; or give `pool` settings instead. */
  readonly connectionString?: string;
  readonly pool?: pg.PoolConfig;
  /** The table name (letters, digits, underscores); several stores can share one database under different names. */
  readonly table?: string;
  /**
   * How this process learns of other processes' commits: `'listen'` (default) uses LISTEN/NOTIFY; engines
   * without it (some distributed Postgres-compatible databases) use `{ pollMs }`, which checks the change log
   * that often instead (and sends no NOTIFY); `'none'` only sees this process's own commits.
   */
  readonly notifications?: 'listen' | 'none' | { readonly pollMs: number };
}

// Loaded when a store is first opened, so a program that imports the library without using PostgreSQL does not load it.
const load = createRequire(import.meta.url);
let pgModule: typeof pg | undefined;
function pgLibrary(): typeof pg {
  return (pgModule ??= load('pg') as typeof pg);
}

const TABLE_NAME = /^[a-z_][a-z0-9_]{0,40}$/;
const ROWS_PER_STATEMENT = 500;
/** Multi-row puts of up to this many rows are prepared statements (one per row count and connection). */
const NAMED_PUT_ROWS = 32;
const RETRYABLE = new Set(['40001', '40P01']); // serialization failure, deadlock
const MAX_ATTEMPTS = 5;
/**
 * Bounds on waiting for the database (each can be changed through `pool`): a statement blocked behind another
 * session's lock, a connection attempt to a server that does not answer, a query whose answer never comes (the
 * server stopped or the network is gone). Without them a request waits forever. Long-polls hold no statement.
 */
const TIMEOUTS: pg.PoolConfig = { statement_timeout: 30_000, connectionTimeoutMillis: 10_000, query_timeout: 40_000 };

export class PostgresKv implements KvStore {
  readonly backend = 'postgres';
  readonly pool: pg.Pool;
  readonly table: string;
  /** Token buckets shared by every process on the database, in the table `<table>_buckets` (postgres-buckets.ts). */
  readonly tokenBuckets: PostgresBuckets;
  /** The full-text search indexes, in tables `<table>_s_<index>` (search-postgres.ts). */
  readonly #search: PostgresSearch;
  readonly #channel: string;
  readonly #events = new EventEmitter();
  readonly #sql: Record<'get' | 'clock' | 'reads' | 'count' | 'scanAsc' | 'scanDesc' | 'scanTextAsc' | 'scanTextDesc' | 'scanTextBoundedAsc' | 'scanTextBoundedDesc', string>;
  #listener: pg.Client | undefined;
  #closed = false;
  #reconnectTimer: NodeJS.Timeout | undefined;
  #pollTimer: NodeJS.Timeout | undefined;
  readonly #notify: boolean;

  private constructor(pool: pg.Pool, table: string, notify: boolean) {
    this.pool = pool;
    this.table = table;
    this.#notify = notify;
    this.#channel = `${table}_commits`;
    this.#search = new PostgresSearch(table, table);
    this.tokenBuckets = new PostgresBuckets(`${table}_buckets`, (query) => this.#query(query));
    this.#events.setMaxListeners(0);
    const t = table;
    const range = 'key >= $1 AND key < $2';
    const scanTextBounded = (order: 'ASC' | 'DESC') =>
      `SELECT substring(value from $4::int) AS text FROM (` +
      `SELECT key, value, coalesce(sum(octet_length(value) - $4::int + 1) OVER (ORDER BY key ${order} ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS before ` +
      `FROM ${t} WHERE ${range} ORDER BY key ${order} LIMIT $3) page WHERE before < $5::bigint ORDER BY key ${order}`;
    this.#sql = {
      get: `SELECT value FROM ${t} WHERE key = $1`,
      clock: `SELECT value FROM ${t} WHERE key = $1 FOR UPDATE`,
      reads: `SELECT key, value FROM ${t} WHERE key = ANY($1::bytea[])`,
      count: `SELECT count(*) AS n FROM ${t} WHERE ${range}`,
      scanAsc: `SELECT key, value FROM ${t} WHERE ${range} ORDER BY key ASC LIMIT $3`,
      scanDesc: `SELECT key, value FROM ${t} WHERE ${range} ORDER BY key DESC LIMIT $3`,
      // Only the value, from byte $4 on (counting from 1): no keys to send.
      scanTextAsc: `SELECT substring(value from $4::int) AS text FROM ${t} WHERE ${range} ORDER BY key ASC LIMIT $3`,
      scanTextDesc: `SELECT substring(value from $4::int) AS text FROM ${t} WHERE ${range} ORDER BY key DESC LIMIT $3`,
      // The same, up to the entry whose text brings them to $5 bytes: each entry's bytes before it are summed from
      // the lengths PostgreSQL keeps with each value, and only the values kept are read.
      scanTextBoundedAsc: scanTextBounded('ASC'),
      scanTextBoundedDesc: scanTextBounded('DESC'),
    };
  }

  static async open(options: PostgresOptions): Promise<PostgresKv> {
    const table = options.table ?? 'vellum_kv';
    if (!TABLE_NAME.test(table)) throw new RangeError(`invalid table name "${table}" (letters, digits and underscores)`);
    const pool = new (pgLibrary().Pool)({ max: 10, ...TIMEOUTS, ...options.pool, ...(options.connectionString ? { connectionString: options.connectionString } : {}) });
    pool.on('error', () => {
      // An idle client lost its connection; the pool replaces it on the next checkout.
    });
    // An 'error' event with no listener ends the process, and a checked-out client has none of the pool's: a
    // connection killed at the wrong moment (seen under a write load with pg_terminate_backend) emits one on a
    // client whose statement already failed. The statement's own error is what the caller sees.
    pool.on('connect', (client) => client.on('error', () => {}));
    const notifications = options.notifications ?? 'listen';
    const kv = new PostgresKv(pool, table, notifications === 'listen');
    try {
      await kv.#createTable();
      if (notifications === 'listen') await kv.#listen();
      else if (notifications !== 'none') {
        const pollMs = Math.max(10, notifications.pollMs);
        kv.#pollTimer = setInterval(() => kv.#events.emit('commit'), pollMs);
        kv.#pollTimer.unref();
      }
    } catch (error) {
      await pool.end();
      throw error;
    }
    return kv;
  }

  async #createTable(): Promise<void> {
    const create = `CREATE TABLE IF NOT EXISTS ${this.table} (key BYTEA PRIMARY KEY, value BYTEA NOT NULL)`;
    try {
      await this.pool.query(create);
    } catch {
      await this.pool.query(create); // two processes creating it at once: the loser's retry sees it
    }
    await this.#checkShape();
    await this.pool.query(`INSERT INTO ${this.table} (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING`, [clockKey, encodeU64(0)]);
  }

  /** A table of that name made by something else would fail later with errors that name no table: refuse it now. */
  async #checkShape(): Promise<void> {
    const { rows } = await this.pool.query<{ name: string; type: string }>(
      `SELECT column_name AS name, data_type AS type FROM information_schema.columns
       WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`,
      [this.table],
    );
    const found = rows.map((row) => `${row.name} ${row.type}`).join(', ');
    if (found !== 'key bytea, value bytea') {
      throw new Error(`table "${this.table}" exists but is not a Vellum store: expected the columns key bytea, value bytea; found ${found}`);
    }
  }

  async #listen(): Promise<void> {
    const client = new (pgLibrary().Client)(this.pool.options);
    client.on('notification', () => this.#events.emit('commit'));
    client.on('error', () => this.#reconnectLater(client));
    client.on('end', () => this.#reconnectLater(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${this.#channel}`);
    } catch (error) {
      client.end().catch(() => {});
      throw error;
    }
    if (this.#closed) {
      await client.end().catch(() => {}); // closed while connecting
      return;
    }
    this.#listener = client;
    this.#events.emit('commit'); // commits made while not listening are picked up now
  }

  #reconnectLater(client: pg.Client): void {
    if (this.#closed || this.#listener !== client) return;
    this.#listener = undefined;
    client.end().catch(() => {});
    this.#listenLater();
  }

  /** Tries LISTEN again in a second, and again every second until it works (the database may be down a while). */
  #listenLater(): void {
    if (this.#closed || this.#reconnectTimer) return;
    this.#reconnectTimer = setTimeout(() => {
      this.#reconnectTimer = undefined;
      if (!this.#closed) this.#listen().catch(() => this.#listenLater());
    }, 1000);
    this.#reconnectTimer.unref();
  }

  /** A statement on any pooled connection; a lost or unreachable database is a StoreError that says so. */
  async #query<R extends pg.QueryResultRow>(query: pg.QueryConfig | string, values?: unknown[]): Promise<pg.QueryResult<R>> {
    try {
      return await this.pool.query<R>(query as pg.QueryConfig, values);
    } catch (error) {
      throw unavailable(error);
    }
  }

  async get(key: Buffer): Promise<Buffer | undefined> {
    const result = await this.#query<{ value: Buffer }>({ name: `${this.table}_get`, text: this.#sql.get, values: [key] });
    return result.rows[0]?.value;
  }

  async getMany(keys: readonly Buffer[]): Promise<(Buffer | undefined)[]> {
    if (keys.length === 0) return [];
    const result = await this.#query<{ key: Buffer; value: Buffer }>({ name: `${this.table}_reads`, text: this.#sql.reads, values: [keys] });
    return inKeyOrder(keys, result.rows);
  }

  async getWithClock(key: Buffer): Promise<ClockedText> {
    const [clock, value] = await this.getMany([clockKey, key]);
    return { clock: clockTimestamp(clock), version: value && decodeU64(value), text: value?.toString('utf8', 8) };
  }

  async scan(range: KeyRange, options: ScanOptions): Promise<KvEntry[]> {
    const name = options.reverse ? 'scanDesc' : 'scanAsc';
    const result = await this.#query<{ key: Buffer; value: Buffer }>({
      name: `${this.table}_${name}`,
      text: this.#sql[name],
      values: [range.gte, range.lt, options.limit],
    });
    return result.rows.map((row) => ({ key: row.key, value: row.value }));
  }

  async scanText(range: KeyRange, options: TextScanOptions, skip: number): Promise<string[]> {
    const bounded = options.maxBytes !== undefined && options.maxBytes !== Infinity;
    const name = bounded ? (options.reverse ? 'scanTextBoundedDesc' : 'scanTextBoundedAsc') : options.reverse ? 'scanTextDesc' : 'scanTextAsc';
    // In binary format a BYTEA arrives as its raw bytes, with no hexadecimal (twice the size) to send and decode;
    // `pg` hands them over already decoded as UTF-8 (`toString` also covers a version that gives a Buffer).
    // (`binary` is a query option of `pg` that its type declarations leave out.)
    const query: pg.QueryConfig & { binary: boolean } = {
      name: `${this.table}_${name}`,
      text: this.#sql[name],
      values: bounded ? [range.gte, range.lt, options.limit, skip + 1, Math.ceil(options.maxBytes!)] : [range.gte, range.lt, options.limit, skip + 1],
      binary: true,
    };
    const result = await this.#query<{ text: string | Buffer }>(query);
    return result.rows.map((row) => row.text.toString());
  }

  async count(range: KeyRange): Promise<number> {
    const result = await this.#query<{ n: string }>(this.#sql.count, [range.gte, range.lt]);
    return Number(result.rows[0]!.n);
  }

  async search(index: string, scan: SearchScan): Promise<SearchHit[]> {
    return this.#search.search((text, values) => this.#query(text, values), index, scan);
  }

  async transact<T>(reads: readonly Buffer[], body: TransactionBody<T>): Promise<{ result: T; timestamp: number }> {
    for (let attempt = 1; ; attempt++) {
      try {
        const outcome = await this.#transactOnce(reads, body);
        this.#events.emit('commit');
        return outcome;
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        if (attempt >= MAX_ATTEMPTS || typeof code !== 'string' || !RETRYABLE.has(code)) throw unavailable(error);
      }
    }
  }

  async #transactOnce<T>(reads: readonly Buffer[], body: TransactionBody<T>): Promise<{ result: T; timestamp: number }> {
    const client = await this.pool.connect();
    let broken = false;
    // While a client is checked out the pool does not listen for its errors, and an 'error' event without a
    // listener ends the process: a connection killed between two statements (or its end arriving after the
    // statement's error) must only mark the client broken.
    const onError = () => {
      broken = true;
    };
    client.on('error', onError);
    try {
      await client.query('BEGIN');
      const clock = await client.query<{ value: Buffer }>({ name: `${this.table}_clock`, text: this.#sql.clock, values: [clockKey] });
      const timestamp = nextTimestamp(clockTimestamp(clock.rows[0]?.value));
      const rows = reads.length > 0 ? (await client.query<{ key: Buffer; value: Buffer }>({ name: `${this.table}_reads`, text: this.#sql.reads, values: [reads] })).rows : [];
      const { ops, result } = body(inKeyOrder(reads, rows), timestamp);
      // The new clock is the last write, so it joins the last run of puts, and the notification rides on that
      // statement: fewer round trips while the commit lock is held.
      await this.#apply(client, [...ops, { kind: 'put', key: clockKey, value: encodeU64(timestamp) }], this.#notify ? String(timestamp) : undefined);
      await client.query('COMMIT');
      return { result, timestamp };
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {
        broken = true;
      });
      throw error;
    } finally {
      client.off('error', onError);
      client.release(broken);
    }
  }

  /**
   * Applies the writes in order, with consecutive puts (and consecutive deletes) sent as one statement. With
   * `notify`, the last statement (a run of puts: the clock is the last write) also sends the commit's NOTIFY, once
   * per row, which PostgreSQL delivers once (identical notifications of one transaction are folded into one).
   */
  async #apply(client: pg.PoolClient, ops: readonly KvOp[], notify?: string): Promise<void> {
    let i = 0;
    while (i < ops.length) {
      const op = ops[i]!;
      if (op.kind === 'deleteRange') {
        await client.query(`DELETE FROM ${this.table} WHERE key >= $1 AND key < $2`, [op.range.gte, op.range.lt]);
        i++;
        continue;
      }
      if (op.kind !== 'put' && op.kind !== 'delete') {
        let end = i;
        while (end < ops.length && ops[end]!.kind.startsWith('search')) end++;
        await this.#search.apply(client, ops.slice(i, end) as SearchOp[]);
        i = end;
        continue;
      }
      let end = i;
      while (end < ops.length && end - i < ROWS_PER_STATEMENT && ops[end]!.kind === op.kind) end++;
      const group = ops.slice(i, end);
      i = end;
      if (op.kind === 'delete') {
        await client.query(`DELETE FROM ${this.table} WHERE key = ANY($1::bytea[])`, [group.map((o) => (o as { key: Buffer }).key)]);
        continue;
      }
      // The same key twice in one INSERT ... ON CONFLICT is an error in PostgreSQL: the last write wins.
      const rows = new Map<string, [Buffer, Buffer]>();
      for (const put of group as { key: Buffer; value: Buffer }[]) rows.set(put.key.toString('hex'), [put.key, put.value]);
      const values: (Buffer | string)[] = [];
      const tuples: string[] = [];
      for (const [key, value] of rows.values()) {
        tuples.push(`($${values.length + 1}, $${values.length + 2})`);
        values.push(key, value);
      }
      const notifying = notify !== undefined && i === ops.length;
      if (notifying) values.push(this.#channel, notify);
      const returning = notifying ? ` RETURNING pg_notify($${values.length - 1}::text, $${values.length}::text)` : '';
      // Named (prepared once per connection) for the small statements a record commit sends.
      const name = tuples.length <= NAMED_PUT_ROWS ? `${this.table}_put${tuples.length}${notifying ? 'n' : ''}` : undefined;
      await client.query({
        ...(name ? { name } : {}),
        text: `INSERT INTO ${this.table} (key, value) VALUES ${tuples.join(', ')} ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value${returning}`,
        values,
      });
    }
  }

  onCommit(listener: () => void): () => void {
    this.#events.on('commit', listener);
    return () => this.#events.off('commit', listener);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.tokenBuckets.close();
    clearTimeout(this.#reconnectTimer);
    clearInterval(this.#pollTimer);
    this.#events.removeAllListeners();
    const listener = this.#listener;
    this.#listener = undefined;
    await listener?.end().catch(() => {});
    await this.pool.end();
  }

  /** Drops the table (tests and tools). */
  async drop(): Promise<void> {
    const { rows } = await this.pool.query<{ name: string }>(
      `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_name LIKE $1`,
      [`${this.table}\\_s\\_%`],
    );
    for (const { name } of rows) await this.pool.query(`DROP TABLE IF EXISTS ${name}`);
    await this.pool.query(`DROP TABLE IF EXISTS ${this.table}, ${this.tokenBuckets.table}`);
  }
}

/** Node's errors for a connection that failed or broke. */
const NETWORK_ERRORS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE']);
/** SQLSTATEs of a database that cannot serve now: shutting down or starting, out of connections, a statement timeout. */
const UNAVAILABLE_STATES = new Set(['57P01', '57P02', '57P03', '53300', '57014', '55P03']);

/**
 * An error of a database that is down, unreachable or too slow, as a StoreError whose message says so (the
 * service answers it with its envelope); any other error unchanged.
 */
function unavailable(error: unknown): unknown {
  if (!(error instanceof Error) || error instanceof StoreError) return error;
  const code = (error as { code?: unknown }).code;
  const lost =
    (typeof code === 'string' && (NETWORK_ERRORS.has(code) || UNAVAILABLE_STATES.has(code) || code.startsWith('08'))) ||
    /^Connection terminated|^Query read timeout|^timeout exceeded when trying to connect|^Client has encountered a connection error/.test(error.message);
  if (!lost) return error;
  const what = code === '57014' ? 'a statement took longer than the statement timeout' : 'the database is unavailable';
  return databaseUnavailable('PostgreSQL', what, error);
}

/** The rows' values in the order of `keys` (undefined where no row has the key). */
function inKeyOrder(keys: readonly Buffer[], rows: readonly { key: Buffer; value: Buffer }[]): (Buffer | undefined)[] {
  const found = new Map<string, Buffer>();
  for (const row of rows) found.set(row.key.toString('latin1'), row.value);
  return keys.map((key) => found.get(key.toString('latin1')));
}

export function openPostgres(options: PostgresOptions): Promise<PostgresKv> {
  return PostgresKv.open(options);
}
