// The embedded backend: one SQLite file through better-sqlite3, in WAL mode (or `:memory:` for tests).
//
// One table, `kv(key BLOB PRIMARY KEY, value BLOB) WITHOUT ROWID`, so the B-tree is ordered by key and every
// scan is a range over it. better-sqlite3 is synchronous, so a transaction (BEGIN IMMEDIATE ... COMMIT) runs
// without yielding and no other work of this process can interleave with it; BEGIN IMMEDIATE also serialises
// writers of other processes on the same file. Change notifications are in-process only: a second process
// writing the same file commits correctly, but this process's waiters only wake on their own timeout.
//
// Group commit: `transact` queues the transaction and a flush runs every queued one at the next turn of the
// event loop (setImmediate), in order, in one SQLite transaction. Each still reads, checks and writes on its own,
// with its own timestamp. One whose body throws has written nothing yet: it is rejected and the others go on.
// One whose writes fail (a disk or database error) takes the SQLite transaction down with it: it fails, and the
// rest of the batch runs again (bodies are pure, so running one again is safe). A failure of the batch itself
// (the database busy at BEGIN, COMMIT failing) fails every transaction in it. No savepoint per transaction:
// SQLite keeps a sub-journal copy of every page a savepoint changes, which cost about a sixth of a commit.
// Requests that arrive together (several connections) share one BEGIN, one COMMIT and the pages every commit
// writes (the clock, the change log, the stamps): fewer WAL frames per record.
//
// Checkpoints (copying the WAL back into the database file, with an fsync) run in a worker thread on a second
// connection (checkpoint-worker.js), asked for every CHECKPOINT_EVERY flushes: done inline by SQLite they took
// about a third of a commit's time on this path and stalled every request behind them. The main connection still
// checkpoints by itself if the WAL grows past WAL_LIMIT_PAGES (the worker fell behind or is gone).

import type Database from 'better-sqlite3';
import { openDatabase } from './sqlite-native.ts';
import { EventEmitter } from 'node:events';
import { Worker } from 'node:worker_threads';
import { clockKey, clockTimestamp, type KeyRange } from './keys.ts';
import { decodeU64Hex, encodeU64 } from './encoding.ts';
import { databaseUnavailable } from './errors.ts';
import { SqliteSearch } from './search-sqlite.ts';
import { nextTimestamp, type ClockedText, type KvEntry, type KvOp, type KvStore, type ScanOptions, type SearchHit, type SearchScan, type TextScanOptions, type TransactionBody } from './kv.ts';

export interface SqliteOptions {
  /** `synchronous` pragma in WAL mode: NORMAL (default; durable across process crashes) or FULL. */
  readonly synchronous?: 'NORMAL' | 'FULL';
  /** Page cache size in MiB (default 64): large enough to keep the upper levels of big indexes in memory. */
  readonly cacheMiB?: number;
  /** Read the file through a memory map of up to this many MiB (default 1024; 0 turns it off). */
  readonly mmapMiB?: number;
}

type Row = [Buffer, Buffer];

interface Job {
  readonly reads: readonly Buffer[];
  readonly body: TransactionBody<unknown>;
  readonly resolve: (outcome: { result: unknown; timestamp: number }) => void;
  readonly reject: (error: unknown) => void;
}

type Outcome = { ok: true; result: unknown; timestamp: number } | { ok: false; error: unknown };

/** The most transactions one flush commits together (bounds how long one flush holds the event loop). */
const MAX_BATCH = 64;
/** Flushes between two checkpoint requests to the worker (about ten WAL pages per commit). */
const CHECKPOINT_EVERY = 64;
/** The WAL size (pages) at which the main connection checkpoints by itself (SQLite's default is 1000). */
const WAL_LIMIT_PAGES = 10_000;
/** The most rows one statement of #apply puts or deletes. */
const MAX_ROWS_PER_WRITE = 8;
/** The most keys one statement of #read reads together (more are read one statement each). */
const MAX_KEYS_PER_READ = 4;
/** Byte-bounded text scans of at most this many rows first sum the rows' lengths (see scanText). */
const SUM_FIRST_MAX_ROWS = 128;

export class SqliteKv implements KvStore {
  readonly backend = 'sqlite';
  readonly db: Database.Database;
  readonly #events = new EventEmitter();
  readonly #get: Database.Statement<[Buffer]>;
  /** Statements reading 2 to MAX_KEYS_PER_READ keys at once, by the number of keys (see #read). */
  readonly #getSeveral = new Map<number, Database.Statement<Buffer[]>>();
  readonly #getWithClock: Database.Statement<[Buffer]>;
  /** The clock's hex as getWithClock last read it, and its value (null: no commit yet, 0). */
  #lastClockHex: string | null = null;
  #lastClock = 0;
  /** Statements writing 1 to MAX_ROWS_PER_WRITE puts, or deleting as many keys, at once, by the number of rows. */
  readonly #putSeveral: Database.Statement<Buffer[]>[] = [];
  readonly #deleteSeveral: Database.Statement<Buffer[]>[] = [];
  readonly #deleteRange: Database.Statement<[Buffer, Buffer]>;
  readonly #count: Database.Statement<[Buffer, Buffer]>;
  readonly #scan: Record<'asc' | 'desc', Database.Statement<[Buffer, Buffer, number]>>;
  readonly #scanText: Record<'asc' | 'desc', Database.Statement<[number, Buffer, Buffer, number]>>;
  readonly #textBytes: Record<'asc' | 'desc', Database.Statement<[number, Buffer, Buffer, number]>>;
  readonly #batch: Database.Transaction<(jobs: readonly Job[]) => Outcome[]>;
  /** The full-text search indexes (search-sqlite.ts). */
  readonly #search: SqliteSearch;
  #queue: Job[] = [];
  /** The transaction whose writes made the running batch fail (see #commit). */
  #failedJob: Job | undefined;
  readonly #path: string;
  #checkpointer: Worker | undefined;
  #checkpointing = false;
  #flushesSinceCheckpoint = 0;

  constructor(path = ':memory:', options: SqliteOptions = {}) {
    this.db = openDatabase(path);
    this.#path = path;
    try {
      this.#configure(path, options);
    } catch (error) {
      this.db.close(); // not a database, or locked by another process: the handle would stay open
      throw error;
    }
    this.#get = this.db.prepare<[Buffer]>('SELECT value FROM kv WHERE key = ?').pluck();
    this.#search = new SqliteSearch(this.db);
    // Several point reads in one statement (a get reads the clock and the record, a list the clock and the
    // layout, a call those and the meta collection's stamp): outside a transaction every statement opens a read
    // transaction of its own, so this is one WAL snapshot instead of several, the values are from the same
    // snapshot, and one call into SQLite.
    for (let count = 2; count <= MAX_KEYS_PER_READ; count++) {
      const columns = Array.from({ length: count }, () => '(SELECT value FROM kv WHERE key = ?)').join(', ');
      this.#getSeveral.set(count, this.db.prepare<Buffer[]>(`SELECT ${columns}`).raw());
    }
    // The version's hex and the text in one string: one value to hand over instead of two. The clock's key is in the
    // statement, not bound on every get.
    this.#getWithClock = this.db
      .prepare<[Buffer]>(`SELECT (SELECT hex(value) FROM kv WHERE key = X'${clockKey.toString('hex')}'), (SELECT hex(substr(value, 1, 8)) || CAST(substr(value, 9) AS TEXT) FROM kv WHERE key = ?)`)
      .raw();
    // REPLACE (delete the old row, insert the new one) measured about 20% cheaper than an upsert here; the table
    // has no triggers, foreign keys or other columns for the difference to matter.
    for (let rows = 1; rows <= MAX_ROWS_PER_WRITE; rows++) {
      this.#putSeveral[rows] = this.db.prepare(`INSERT OR REPLACE INTO kv (key, value) VALUES ${Array.from({ length: rows }, () => '(?, ?)').join(', ')}`);
      this.#deleteSeveral[rows] = this.db.prepare(`DELETE FROM kv WHERE key IN (${Array.from({ length: rows }, () => '?').join(', ')})`);
    }
    this.#deleteRange = this.db.prepare('DELETE FROM kv WHERE key >= ? AND key < ?');
    this.#count = this.db.prepare<[Buffer, Buffer]>('SELECT count(*) FROM kv WHERE key >= ? AND key < ?').pluck();
    // `LIMIT CAST(? AS INTEGER)`, not `LIMIT ?`: SQLite marks a bare LIMIT parameter as one the query plan depends
    // on, and better-sqlite3 binds every parameter on every call, so the statement was prepared again each time
    // (about 3.5 µs of the 5.5 µs a one-row scan took).
    const scan = (order: 'ASC' | 'DESC') =>
      this.db.prepare<[Buffer, Buffer, number]>(`SELECT key, value FROM kv WHERE key >= ? AND key < ? ORDER BY key ${order} LIMIT CAST(? AS INTEGER)`).raw();
    this.#scan = { asc: scan('ASC'), desc: scan('DESC') };
    // One string per row: no buffers, and no array per row (substr counts from 1).
    const scanText = (order: 'ASC' | 'DESC') =>
      this.db
        .prepare<[number, Buffer, Buffer, number]>(`SELECT CAST(substr(value, ? + 1) AS TEXT) FROM kv WHERE key >= ? AND key < ? ORDER BY key ${order} LIMIT CAST(? AS INTEGER)`)
        .pluck();
    this.#scanText = { asc: scanText('ASC'), desc: scanText('DESC') };
    // The UTF-8 bytes those texts would take, from the lengths SQLite keeps with the rows (no value is read).
    const textBytes = (order: 'ASC' | 'DESC') =>
      this.db
        .prepare<[number, Buffer, Buffer, number]>(
          `SELECT coalesce(sum(bytes), 0) FROM (SELECT length(value) - ? AS bytes FROM kv WHERE key >= ? AND key < ? ORDER BY key ${order} LIMIT CAST(? AS INTEGER))`,
        )
        .pluck();
    this.#textBytes = { asc: textBytes('ASC'), desc: textBytes('DESC') };
    this.#batch = this.db.transaction((jobs: readonly Job[]) => {
      let last = clockTimestamp(this.#get.get(clockKey) as Buffer | undefined);
      const outcomes: Outcome[] = [];
      for (const job of jobs) {
        const timestamp = nextTimestamp(last);
        let writes: { ops: KvOp[]; result: unknown };
        try {
          writes = job.body(this.#read(job.reads), timestamp);
        } catch (error) {
          // Nothing of this transaction is written yet; but some SQLite errors (I/O) end the whole transaction.
          if (jobs.length === 1 || !this.db.inTransaction) throw error;
          outcomes.push({ ok: false, error });
          continue;
        }
        // A failure here throws out of the batch, which rolls back whole; #commit then runs the others again.
        try {
          this.#apply(writes.ops);
        } catch (error) {
          this.#failedJob = job;
          throw error;
        }
        outcomes.push({ ok: true, result: writes.result, timestamp });
        last = timestamp;
      }
      if (outcomes.some((outcome) => outcome.ok)) this.#putSeveral[1]!.run(clockKey, encodeU64(last));
      return outcomes;
    });
  }

  /** The connection's settings and the table; throws for a file that is not a database or is locked. */
  #configure(path: string, options: SqliteOptions): void {
    if (path !== ':memory:') {
      this.db.pragma('journal_mode = WAL');
      this.db.pragma(`synchronous = ${options.synchronous ?? 'NORMAL'}`);
      this.db.pragma('busy_timeout = 5000');
      this.db.pragma(`wal_autocheckpoint = ${WAL_LIMIT_PAGES}`);
      // Reads of a large database come straight from the OS page cache instead of a read() per page.
      this.db.pragma(`mmap_size = ${1024 * 1024 * Math.max(0, Math.floor(options.mmapMiB ?? 1024))}`);
    }
    this.db.pragma(`cache_size = ${-1024 * Math.max(2, Math.floor(options.cacheMiB ?? 64))}`);
    this.db.exec('CREATE TABLE IF NOT EXISTS kv (key BLOB PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID');
  }

  async get(key: Buffer): Promise<Buffer | undefined> {
    return this.#get.get(key) as Buffer | undefined;
  }

  async getMany(keys: readonly Buffer[]): Promise<(Buffer | undefined)[]> {
    return this.#read(keys);
  }

  async getWithClock(key: Buffer): Promise<ClockedText> {
    const [clock, versioned] = this.#getWithClock.get(key) as [string | null, string | null];
    // The clock moves only with a commit: most reads in a row find the one decoded last.
    if (clock !== this.#lastClockHex) {
      this.#lastClockHex = clock;
      this.#lastClock = clock === null ? 0 : decodeU64Hex(clock);
    }
    return {
      clock: this.#lastClock,
      version: versioned === null ? undefined : decodeU64Hex(versioned),
      text: versioned === null ? undefined : versioned.slice(16),
    };
  }

  /** The keys' values, read one after the other without yielding (a few of them in one statement). */
  #read(keys: readonly Buffer[]): (Buffer | undefined)[] {
    const several = this.#getSeveral.get(keys.length);
    if (several) return (several.get(...keys) as (Buffer | null)[]).map((value) => value ?? undefined);
    return keys.map((key) => this.#get.get(key) as Buffer | undefined);
  }

  async scan(range: KeyRange, options: ScanOptions): Promise<KvEntry[]> {
    const rows = this.#scan[options.reverse ? 'desc' : 'asc'].all(range.gte, range.lt, options.limit) as Row[];
    return rows.map(([key, value]) => ({ key, value }));
  }

  async scanText(range: KeyRange, options: TextScanOptions, skip: number): Promise<string[]> {
    const order = options.reverse ? 'desc' : 'asc';
    const args = [skip, range.gte, range.lt, options.limit] as const;
    const maxBytes = options.maxBytes ?? Infinity;
    // `all` builds every text at once; a row at a time (to stop at the budget) costs about 0.2 µs a row more, a
    // sixth of a list of 100. So a short read whose rows' lengths say they fit is read with `all`. Longer reads
    // skip that check: it walks every row the read could return, far past the page when records are large.
    if (maxBytes === Infinity || (options.limit <= SUM_FIRST_MAX_ROWS && (this.#textBytes[order].get(...args) as number) <= maxBytes)) {
      return this.#scanText[order].all(...args) as string[];
    }
    const texts: string[] = [];
    let bytes = 0;
    for (const text of this.#scanText[order].iterate(...args) as IterableIterator<string>) {
      texts.push(text);
      bytes += Buffer.byteLength(text);
      if (bytes >= maxBytes) break;
    }
    return texts;
  }

  async count(range: KeyRange): Promise<number> {
    return this.#count.get(range.gte, range.lt) as number;
  }

  async search(index: string, scan: SearchScan): Promise<SearchHit[]> {
    return this.#search.search(index, scan);
  }

  transact<T>(reads: readonly Buffer[], body: TransactionBody<T>): Promise<{ result: T; timestamp: number }> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ reads, body, resolve: resolve as Job['resolve'], reject });
      if (this.#queue.length === 1) setImmediate(() => this.#flush());
    });
  }

  /** Commits the queued transactions (at most MAX_BATCH per SQLite transaction) and answers each. */
  #flush(): void {
    while (this.#queue.length > 0) this.#commit(this.#queue.splice(0, MAX_BATCH));
  }

  #commit(jobs: readonly Job[]): void {
    let outcomes: Outcome[];
    this.#failedJob = undefined;
    try {
      outcomes = this.#batch.immediate(jobs);
    } catch (error) {
      // Nothing of the batch was written. When one transaction's writes failed, it fails and the others run
      // again together; any other failure (the database busy or unwritable at BEGIN or COMMIT) is every
      // transaction's, and is reported to each at once rather than retried one by one (each retry could wait
      // the whole busy timeout, with the event loop blocked).
      const failed = this.#failedJob as Job | undefined; // set inside the batch, which TypeScript cannot see
      if (failed === undefined || jobs.length === 1) {
        for (const job of jobs) job.reject(unavailable(error));
        return;
      }
      failed.reject(unavailable(error));
      const others = jobs.filter((job) => job !== failed);
      if (others.length > 0) this.#commit(others);
      return;
    }
    if (++this.#flushesSinceCheckpoint >= CHECKPOINT_EVERY) this.#requestCheckpoint();
    // Waiters hear of the commits before the committers' own continuations run, as with a single commit.
    if (outcomes.some((outcome) => outcome.ok)) this.#events.emit('commit');
    outcomes.forEach((outcome, i) => {
      if (outcome.ok) jobs[i]!.resolve({ result: outcome.result, timestamp: outcome.timestamp });
      else jobs[i]!.reject(outcome.error);
    });
  }

  /** Asks the worker for a checkpoint (starting it the first time); one at a time. */
  #requestCheckpoint(): void {
    if (this.#path === ':memory:' || this.#checkpointing) return;
    this.#flushesSinceCheckpoint = 0;
    try {
      this.#checkpointer ??= this.#startCheckpointer();
    } catch {
      // No worker threads here: checkpointing stays with the main connection, at WAL_LIMIT_PAGES.
      return;
    }
    this.#checkpointing = true;
    this.#checkpointer.postMessage('checkpoint');
  }

  #startCheckpointer(): Worker {
    const worker = new Worker(new URL('./checkpoint-worker.js', import.meta.url), { workerData: { path: this.#path } });
    worker.unref(); // an idle checkpointer never keeps the process alive
    worker.on('message', () => {
      this.#checkpointing = false;
    });
    // On an error or an exit, the main connection's own checkpoints at WAL_LIMIT_PAGES take over; a later
    // request starts a new worker.
    const gone = () => {
      if (this.#checkpointer !== worker) return;
      this.#checkpointing = false;
      this.#checkpointer = undefined;
    };
    worker.on('error', gone);
    worker.on('exit', gone);
    return worker;
  }

  async #stopCheckpointer(): Promise<void> {
    const worker = this.#checkpointer;
    if (!worker) return;
    this.#checkpointer = undefined;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage('close');
    const timer = setTimeout(() => void worker.terminate(), 5000);
    await exited;
    clearTimeout(timer);
  }

  onCommit(listener: () => void): () => void {
    this.#events.on('commit', listener);
    return () => this.#events.off('commit', listener);
  }

  async close(): Promise<void> {
    // Transactions already queued are committed (their callers were promised an answer).
    if (this.db.open) this.#flush();
    await this.#stopCheckpointer();
    this.#events.removeAllListeners();
    if (this.db.open) this.db.close();
  }

  /**
   * Writes a transaction's ops in order. A run of puts (or of deletes) goes to SQLite in statements of up to
   * MAX_ROWS_PER_WRITE rows: one call per statement instead of one per row, about a quarter less CPU for a call's
   * six puts (bench/README.md). The rows of one INSERT are written in order, so a key put twice in a run keeps its
   * last value, as with one statement per put.
   */
  #apply(ops: readonly KvOp[]): void {
    let at = 0;
    while (at < ops.length) {
      const op = ops[at]!;
      if (op.kind === 'deleteRange') {
        this.#deleteRange.run(op.range.gte, op.range.lt);
        at++;
        continue;
      }
      if (op.kind !== 'put' && op.kind !== 'delete') {
        this.#search.apply(op);
        at++;
        continue;
      }
      let end = at + 1;
      while (end < ops.length && end - at < MAX_ROWS_PER_WRITE && ops[end]!.kind === op.kind) end++;
      const params: Buffer[] = [];
      for (let i = at; i < end; i++) {
        const next = ops[i] as Extract<KvOp, { kind: 'put' | 'delete' }>;
        params.push(next.key);
        if (next.kind === 'put') params.push(next.value);
      }
      (op.kind === 'put' ? this.#putSeveral : this.#deleteSeveral)[end - at]!.run(...params);
      at = end;
    }
  }

}

/**
 * SQLite's errors of a database it cannot write now (held by another process past the busy timeout, a full or
 * failing disk, a read-only file) as an `unavailable` StoreError with a message saying which; any
 * other error unchanged. The commit that met one wrote nothing.
 */
function unavailable(error: unknown): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return error;
  const what =
    code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')
      ? 'the database is locked by another process'
      : code === 'SQLITE_FULL'
        ? 'the disk is full'
        : code.startsWith('SQLITE_IOERR')
          ? 'the database file could not be read or written'
          : code.startsWith('SQLITE_READONLY')
            ? 'the database file is read-only'
            : undefined;
  if (what === undefined) return error;
  return databaseUnavailable('SQLite', what, error as Error);
}

export function openSqlite(path = ':memory:', options: SqliteOptions = {}): SqliteKv {
  return new SqliteKv(path, options);
}
