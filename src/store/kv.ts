// The one storage interface: a sorted map from byte keys to byte values, with serialised transactions.
// Both backends (sqlite.ts, postgres.ts) implement it and pass the same conformance suite.
//
// A transaction names the keys it reads up front. The backend takes the database-wide commit lock (the clock
// row), reads those keys as they are now, picks the commit timestamp (greater than every earlier one, close to
// the wall clock in microseconds), and calls `body` with the values and the timestamp. `body` is synchronous
// and pure: it returns the writes, or throws to abort (nothing is written); a backend may run it again
// (PostgreSQL after a serialization failure, SQLite when another transaction of its batch failed to write). The
// writes, and the clock, are committed atomically. Because every transaction holds the same lock, transactions
// are serial, timestamps follow commit order, and a transaction never sees half of another.

import type { KeyRange } from './keys.ts';
import type { TokenBuckets } from './token-buckets.ts';

export interface KvEntry {
  readonly key: Buffer;
  readonly value: Buffer;
}

export type KvOp =
  | { readonly kind: 'put'; readonly key: Buffer; readonly value: Buffer }
  | { readonly kind: 'delete'; readonly key: Buffer }
  | { readonly kind: 'deleteRange'; readonly range: KeyRange }
  | SearchOp;

/**
 * The writes of full-text search indexes, which live beside the map (an FTS5 table on SQLite, a table with a GIN
 * index over a tsvector on PostgreSQL; docs/store.md, "Full-text search"). `index` names one (search-layout.ts's
 * searchTableId: letters and digits); the tokens come from search-tokens.ts, so neither database folds or splits text.
 */
export type SearchOp =
  /** Makes the index's tables if they do not exist. */
  | { readonly kind: 'searchCreate'; readonly index: string }
  /** Drops the index's tables if they exist. */
  | { readonly kind: 'searchDrop'; readonly index: string }
  /** Puts (or replaces) the record `id`, whose record key is `key`, with these tokens. */
  | { readonly kind: 'searchPut'; readonly index: string; readonly id: string; readonly key: Buffer; readonly tokens: readonly string[] }
  /** Removes the record `id` (nothing when it is not there). */
  | { readonly kind: 'searchDelete'; readonly index: string; readonly id: string };

/** A position in a search's order: fewer tokens first, then the record id (byte order of its UTF-8). */
export interface SearchPosition {
  readonly tokens: number;
  readonly id: string;
}

export interface SearchScan {
  /** Tokens each matching record must hold whole. */
  readonly whole: readonly string[];
  /** A token prefix each matching record must hold. */
  readonly prefix: string;
  /** Start strictly after (before, with `reverse`) this position. */
  readonly from?: SearchPosition;
  /** Largest position first. */
  readonly reverse?: boolean;
  readonly limit: number;
}

export interface SearchHit extends SearchPosition {
  /** The record's stored JSON text. */
  readonly text: string;
}

export interface ScanOptions {
  /** Largest key first. */
  readonly reverse?: boolean;
  readonly limit: number;
}

export interface TextScanOptions extends ScanOptions {
  /**
   * Stop after the text that brings the UTF-8 bytes of the texts returned to this many or more (so at least one
   * text comes back when the range has an entry): a page of large records is never all in memory at once.
   */
  readonly maxBytes?: number;
}

export interface ClockedText {
  readonly clock: number;
  readonly version: number | undefined;
  readonly text: string | undefined;
}

export type TransactionBody<T> = (current: (Buffer | undefined)[], timestamp: number) => { ops: KvOp[]; result: T };

export interface KvStore {
  readonly backend: 'sqlite' | 'postgres';
  /** Token buckets every process on this store shares (token-buckets.ts): PostgreSQL's; none on SQLite. */
  readonly tokenBuckets?: TokenBuckets;
  get(key: Buffer): Promise<Buffer | undefined>;
  /**
   * The values of several keys, in their order (undefined where a key is absent), in one call: SQLite reads them
   * one after the other without yielding (no commit of this process comes between), PostgreSQL in one statement
   * (one snapshot, one round trip).
   */
  getMany(keys: readonly Buffer[]): Promise<(Buffer | undefined)[]>;
  /**
   * A get's read: the clock (the last commit's timestamp; 0 before the first) and, read with it (SQLite: one
   * statement, without yielding; PostgreSQL: one statement, one snapshot), a versioned value (an 8-byte version,
   * then UTF-8 text: a record) as its version and its text; both undefined when the key is absent. On SQLite the
   * database makes the numbers' hex and the text itself: no buffer per value (each buffer SQLite hands over is an
   * allocation of its own, and two of them cost a get about as much CPU as the read, much of it in the garbage
   * collector's threads).
   */
  getWithClock(key: Buffer): Promise<ClockedText>;
  scan(range: KeyRange, options: ScanOptions): Promise<KvEntry[]>;
  /**
   * The values `scan` would return, each as the UTF-8 text of its bytes from `skip` on (a record value: after its
   * 8-byte version), without the keys. A page of records then needs no buffer per entry: SQLite builds the
   * strings itself, about four times faster than handing over two buffers a row.
   */
  scanText(range: KeyRange, options: TextScanOptions, skip: number): Promise<string[]>;
  count(range: KeyRange): Promise<number>;
  /**
   * The records of a search index matching the scan, in its order (SearchPosition), with their texts; an index
   * that does not exist has none.
   */
  search(index: string, scan: SearchScan): Promise<SearchHit[]>;
  /** Runs one serialised transaction (see above); resolves with the body's result and the commit timestamp. */
  transact<T>(reads: readonly Buffer[], body: TransactionBody<T>): Promise<{ result: T; timestamp: number }>;
  /**
   * Calls `listener` after commits: every commit of this process, and on PostgreSQL every commit of any
   * process sharing the database (LISTEN/NOTIFY). Several commits may be reported by one call.
   */
  onCommit(listener: () => void): () => void;
  close(): Promise<void>;
}

/** The next commit timestamp: microseconds since the epoch, strictly after the previous one. */
export function nextTimestamp(previous: number): number {
  return Math.max(previous + 1, Date.now() * 1000);
}
