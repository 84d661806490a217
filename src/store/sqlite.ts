// The embedded backend: one SQLite file through better-sqlite3, in WAL mode (or `:memory:` for tests).
//
// One table, `kv(key BLOB PRIMARY KEY, value BLOB) WITHOUT ROWID`, so the B-tree is ordered by key and every
// scan is a range over it. better-sqlite3 is synchronous, so a transaction (BEGIN IMMEDIATE ... COMMIT) runs
// without yielding and no other work of this process can interleave with it; BEGIN IMMEDIATE also serialises
// writers of other processes on the same file. Change notifications are in-process only: a second process
// writing the same file commits correctly, but this process's waiters only wake on their own timeout.

import Database from 'better-sqlite3';
import { EventEmitter } from 'node:events';
import { clockKey, type KeyRange } from './keys.ts';
import { decodeU64, encodeU64 } from './encoding.ts';
import { nextTimestamp, type KvEntry, type KvOp, type KvStore, type ScanOptions, type TransactionBody } from './kv.ts';

export interface SqliteOptions {
  /** `synchronous` pragma in WAL mode: NORMAL (default; durable across process crashes) or FULL. */
  readonly synchronous?: 'NORMAL' | 'FULL';
  /** Page cache size in MiB (default 64): large enough to keep the upper levels of big indexes in memory. */
  readonly cacheMiB?: number;
  /** Read the file through a memory map of up to this many MiB (default 1024; 0 turns it off). */
  readonly mmapMiB?: number;
}

type Row = [Buffer, Buffer];

export class SqliteKv implements KvStore {
  readonly backend = 'sqlite';
  readonly db: Database.Database;
  readonly #events = new EventEmitter();
  readonly #get: Database.Statement<[Buffer]>;
  readonly #put: Database.Statement<[Buffer, Buffer]>;
  readonly #delete: Database.Statement<[Buffer]>;
  readonly #deleteRange: Database.Statement<[Buffer, Buffer]>;
  readonly #count: Database.Statement<[Buffer, Buffer]>;
  readonly #scan: Record<'asc' | 'desc', Database.Statement<[Buffer, Buffer, number]>>;
  readonly #transaction: Database.Transaction<(reads: readonly Buffer[], body: TransactionBody<unknown>) => { result: unknown; timestamp: number }>;

  constructor(path = ':memory:', options: SqliteOptions = {}) {
    this.db = new Database(path);
    if (path !== ':memory:') {
      this.db.pragma('journal_mode = WAL');
      this.db.pragma(`synchronous = ${options.synchronous ?? 'NORMAL'}`);
      this.db.pragma('busy_timeout = 5000');
      // Reads of a large database come straight from the OS page cache instead of a read() per page.
      this.db.pragma(`mmap_size = ${1024 * 1024 * Math.max(0, Math.floor(options.mmapMiB ?? 1024))}`);
    }
    this.db.pragma(`cache_size = ${-1024 * Math.max(2, Math.floor(options.cacheMiB ?? 64))}`);
    this.db.exec('CREATE TABLE IF NOT EXISTS kv (key BLOB PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID');
    this.#get = this.db.prepare<[Buffer]>('SELECT value FROM kv WHERE key = ?').pluck();
    this.#put = this.db.prepare('INSERT INTO kv (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value');
    this.#delete = this.db.prepare('DELETE FROM kv WHERE key = ?');
    this.#deleteRange = this.db.prepare('DELETE FROM kv WHERE key >= ? AND key < ?');
    this.#count = this.db.prepare<[Buffer, Buffer]>('SELECT count(*) FROM kv WHERE key >= ? AND key < ?').pluck();
    const scan = (order: 'ASC' | 'DESC') =>
      this.db.prepare<[Buffer, Buffer, number]>(`SELECT key, value FROM kv WHERE key >= ? AND key < ? ORDER BY key ${order} LIMIT ?`).raw();
    this.#scan = { asc: scan('ASC'), desc: scan('DESC') };
    this.#transaction = this.db.transaction((reads: readonly Buffer[], body: TransactionBody<unknown>) => {
      const previous = this.#get.get(clockKey) as Buffer | undefined;
      const timestamp = nextTimestamp(previous ? decodeU64(previous) : 0);
      const current = reads.map((key) => this.#get.get(key) as Buffer | undefined);
      const { ops, result } = body(current, timestamp);
      for (const op of ops) this.#apply(op);
      this.#put.run(clockKey, encodeU64(timestamp));
      return { result, timestamp };
    });
  }

  async get(key: Buffer): Promise<Buffer | undefined> {
    return this.#get.get(key) as Buffer | undefined;
  }

  async scan(range: KeyRange, options: ScanOptions): Promise<KvEntry[]> {
    const rows = this.#scan[options.reverse ? 'desc' : 'asc'].all(range.gte, range.lt, options.limit) as Row[];
    return rows.map(([key, value]) => ({ key, value }));
  }

  async count(range: KeyRange): Promise<number> {
    return this.#count.get(range.gte, range.lt) as number;
  }

  async transact<T>(reads: readonly Buffer[], body: TransactionBody<T>): Promise<{ result: T; timestamp: number }> {
    const outcome = this.#transaction.immediate(reads, body) as { result: T; timestamp: number };
    this.#events.emit('commit');
    return outcome;
  }

  onCommit(listener: () => void): () => void {
    this.#events.on('commit', listener);
    return () => this.#events.off('commit', listener);
  }

  async close(): Promise<void> {
    this.#events.removeAllListeners();
    if (this.db.open) this.db.close();
  }

  #apply(op: KvOp): void {
    switch (op.kind) {
      case 'put':
        this.#put.run(op.key, op.value);
        return;
      case 'delete':
        this.#delete.run(op.key);
        return;
      case 'deleteRange':
        this.#deleteRange.run(op.range.gte, op.range.lt);
        return;
    }
  }
}

export function openSqlite(path = ':memory:', options: SqliteOptions = {}): SqliteKv {
  return new SqliteKv(path, options);
}
