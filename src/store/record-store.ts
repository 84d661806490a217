// The record store: records, their index entries and the change log, on a sorted key-value backend. It is the
// one face of three parts sharing a layout cache and the recent records:
//
// - defining (defining.ts): `defineCollection` stores a collection's layout, (re)builds its indexes and casts its
//   records to a changed schema; `deleteCollection`, `forEachRecordBatch`.
// - reading (reading.ts): `get` and `list` read; `list` plans the query onto index ranges, pages with cursors,
//   applies the caller's read filter while filling the page, and bounds how many entries one request scans and
//   how many bytes of records one page holds; `count`.
// - committing (committing.ts, commit-plan.ts): `commit` writes several records of several collections
//   atomically, with their index entries, the change log, optimistic version checks and a replay-protection
//   claim, all in one transaction.
// - `waitForChange` answers long-polls from the change feed.

import { decodeU64, encodeU64 } from './encoding.ts';
import { ChangeFeed, type ChangeTarget, type CommitChanges } from './changes.ts';
import { CollectionDefiner, type DefineOptions, type DefineResult } from './defining.ts';
import { Committer } from './committing.ts';
import { ConflictError } from './errors.ts';
import type { JsonObject } from './index-entries.ts';
import { changeKey, signatureExpiryRange, signatureKey } from './keys.ts';
import type { KvOp, KvStore } from './kv.ts';
import type { Layout } from './layout.ts';
import { LayoutCache } from './layout-cache.ts';
import {
  DEFAULT_PAGE_BYTES,
  RecordReader,
  type AggregateQuery,
  type AggregateResult,
  type CountOptions,
  type CountQuery,
  type CountResult,
  type GetResult,
  type ListOptions,
  type ListQuery,
  type ListResult,
  type RawGetResult,
  type RawListResult,
  type ReadFilter,
} from './reading.ts';
import { RecentRecords } from './recent-records.ts';
import type { ScanCheck } from './scan-bounds.ts';
import type { CommitRequest } from './writes.ts';

export type { JsonObject } from './index-entries.ts';
export { DEFAULT_LIMIT, MAX_LIMIT } from './validation.ts';
export {
  DEFAULT_PAGE_BYTES,
  DEFAULT_SCAN_LIMIT,
  type AggregateQuery,
  type AggregateResult,
  type CountOptions,
  type CountQuery,
  type CountResult,
  type GetResult,
  type ListOptions,
  type ListQuery,
  type ListResult,
  type RawGetResult,
  type RawListResult,
  type ReadFilter,
} from './reading.ts';
export { BUILD_BATCH_BYTES, type DefineOptions, type DefineResult, type RebuildProgress } from './defining.ts';
export type { CommitRequest, Expectation, SignatureClaim, StampExpectation, Write } from './writes.ts';

export interface StoreOptions {
  /** How long change-log entries are kept (default 24 hours; long-polls need only the last minutes). */
  readonly changeRetentionMs?: number;
  /** Forget expired signature claims and old change-log entries after this many commits (default 1000). */
  readonly housekeepingEvery?: number;
  /** The byte budget of a list page's record texts (default DEFAULT_PAGE_BYTES, 32 MiB). */
  readonly pageBytes?: number;
}

export class RecordStore {
  readonly kv: KvStore;
  readonly changes: ChangeFeed;
  readonly #definer: CollectionDefiner;
  readonly #reader: RecordReader;
  readonly #committer: Committer;
  readonly #retentionMs: number;
  readonly #housekeepingEvery: number;
  #commitsSinceHousekeeping = 0;

  constructor(kv: KvStore, options: StoreOptions = {}) {
    this.kv = kv;
    this.changes = new ChangeFeed(kv);
    this.#retentionMs = options.changeRetentionMs ?? 24 * 60 * 60 * 1000;
    this.#housekeepingEvery = options.housekeepingEvery ?? 1000;
    const layouts = new LayoutCache();
    const recent = new RecentRecords();
    this.#definer = new CollectionDefiner(kv, layouts);
    this.#reader = new RecordReader(kv, layouts, recent, options.pageBytes ?? DEFAULT_PAGE_BYTES);
    this.#committer = new Committer(kv, layouts, recent);
  }

  // -------------------------------------------------------------------------------------------------------
  // Collections (defining.ts)

  /**
   * Stores the collection's layout. New or changed indexes are built for the existing records (in batches, with
   * progress reports) while writes go on: every commit already maintains them, and queries use them once they
   * are complete. Removed indexes are deleted. Running it again with the same layout does nothing, and after an
   * interruption it resumes the unfinished builds.
   */
  defineCollection(collectionId: string, layout: Layout, options: DefineOptions = {}): Promise<DefineResult> {
    return this.#definer.defineCollection(collectionId, layout, options);
  }

  /** Deletes the collection: its layout, records, index entries and deletion stamps. */
  deleteCollection(collectionId: string): Promise<void> {
    return this.#definer.deleteCollection(collectionId);
  }

  /** The collection's layout, or null when it is not defined. */
  getLayout(collectionId: string): Promise<Layout | null> {
    return this.#definer.getLayout(collectionId);
  }

  /** Ids of the collection's indexes that are still being built (empty when all are usable). */
  buildingIndexes(collectionId: string): Promise<readonly string[]> {
    return this.#definer.buildingIndexes(collectionId);
  }

  /** Whether the collection's records are still being cast to a changed schema (see `DefineOptions.conform`). */
  conforming(collectionId: string): Promise<boolean> {
    return this.#definer.conforming(collectionId);
  }

  /** The collection's records in key order, in bounded batches (see CollectionDefiner.forEachRecordBatch). */
  forEachRecordBatch(collectionId: string, visit: (records: JsonObject[]) => void | Promise<void>, options: Pick<DefineOptions, 'batchSize' | 'batchBytes'> = {}): Promise<void> {
    return this.#definer.forEachRecordBatch(collectionId, visit, options);
  }

  // -------------------------------------------------------------------------------------------------------
  // Reading (reading.ts)

  /** The current timestamp: every change so far has a timestamp at most this. */
  timestamp(): Promise<number> {
    return this.#reader.timestamp();
  }

  get(collectionId: string, id: string): Promise<GetResult> {
    return this.#reader.get(collectionId, id);
  }

  /** The record as this store last committed it, with its version, without reading the database (RecordReader.lastCommitted). */
  lastCommitted(collectionId: string, id: string): { record: JsonObject; version: number } | undefined {
    return this.#reader.lastCommitted(collectionId, id);
  }

  /** `get`, but the record is its stored JSON text, exactly as `JSON.stringify` wrote it (see `listJson`). */
  getJson(collectionId: string, id: string): Promise<RawGetResult> {
    return this.#reader.getJson(collectionId, id);
  }

  /** `get`, and in the same read the change stamp of the collection `stampOf` (RecordReader.getWithStamp). */
  getWithStamp(collectionId: string, id: string, stampOf: string): Promise<GetResult & { readonly stamp: number }> {
    return this.#reader.getWithStamp(collectionId, id, stampOf);
  }

  list(collectionId: string, query: ListQuery = {}, readFilter?: ReadFilter, options: ListOptions = {}): Promise<ListResult> {
    return this.#reader.list(collectionId, query, readFilter, options);
  }

  /** `list`, but each record is its stored JSON text, exactly as `JSON.stringify` wrote it (RecordReader.listJson). */
  listJson(collectionId: string, query: ListQuery = {}, readFilter?: ReadFilter, options: ListOptions = {}): Promise<RawListResult> {
    return this.#reader.listJson(collectionId, query, readFilter, options);
  }

  /** Plans the query as `list` would and hands `check` what it would read, reading nothing. */
  checkQuery(collectionId: string, query: Pick<ListQuery, 'where' | 'sort'>, check: ScanCheck): Promise<void> {
    return this.#reader.checkQuery(collectionId, query, check);
  }

  /** How many records match the where and pass the read filter (RecordReader.count). */
  count(collectionId: string, query: CountQuery = {}, readFilter?: ReadFilter, options: CountOptions = {}): Promise<CountResult> {
    return this.#reader.count(collectionId, query, readFilter, options);
  }

  /** `count` with sums, averages, least and greatest values of number fields (RecordReader.aggregate). */
  aggregate(collectionId: string, query: AggregateQuery, readFilter?: ReadFilter, options: CountOptions = {}): Promise<AggregateResult> {
    return this.#reader.aggregate(collectionId, query, readFilter, options);
  }

  // -------------------------------------------------------------------------------------------------------
  // Writing (committing.ts)

  /**
   * Commits the writes atomically with their index entries and a change-log entry. Throws ConflictError (and
   * writes nothing) when an expectation no longer holds, SignatureReplayError when the signature is already
   * claimed, and `collection/not-found` when a collection is not defined.
   */
  async commit(request: CommitRequest): Promise<{ timestamp: number }> {
    const committed = await this.#committer.commit(request);
    if (++this.#commitsSinceHousekeeping >= this.#housekeepingEvery) {
      this.#commitsSinceHousekeeping = 0;
      this.housekeeping().catch(() => {
        // Best effort: the next round tries again.
      });
    }
    return committed;
  }

  /** Forgets expired signature claims and change-log entries older than the retention (also run every N commits). */
  async housekeeping(): Promise<void> {
    await this.pruneSignatures();
    await this.pruneChanges((await this.timestamp()) - this.#retentionMs * 1000);
  }

  // -------------------------------------------------------------------------------------------------------
  // Change feed and housekeeping

  /** Resolves with the timestamp of a change newer than `since`, or null at the timeout (see ChangeFeed). */
  waitForChange(target: ChangeTarget, since: number, timeoutMs: number, signal?: AbortSignal): Promise<number | null> {
    return this.changes.waitForChange(target, since, timeoutMs, signal);
  }

  changesSince(since: number, limit?: number): Promise<CommitChanges[]> {
    return this.changes.changesSince(since, limit);
  }

  /** Forgets change-log entries older than `before` (a timestamp). */
  async pruneChanges(before: number): Promise<void> {
    await this.kv.transact([], () => ({ ops: [{ kind: 'deleteRange', range: { gte: changeKey(0), lt: changeKey(Math.max(0, Math.floor(before))) } }], result: undefined }));
  }

  /** Forgets signature claims that expired before `now`; returns how many. */
  async pruneSignatures(now = Date.now()): Promise<number> {
    let forgotten = 0;
    for (;;) {
      const expired = await this.kv.scan(signatureExpiryRange(now), { limit: 500 });
      if (expired.length === 0) return forgotten;
      await this.kv.transact([], () => ({
        ops: expired.flatMap((entry): KvOp[] => {
          const expiresAt = decodeU64(entry.key, 1);
          const signature = entry.value.toString('utf8');
          return [{ kind: 'delete', key: entry.key }, ...(expiresAt < now ? [{ kind: 'delete' as const, key: signatureKey(signature) }] : [])];
        }),
        result: undefined,
      }));
      forgotten += expired.length;
      if (expired.length < 500) return forgotten;
    }
  }

  async close(): Promise<void> {
    this.changes.close();
    await this.kv.close();
  }
}

/** Runs `operation` again (with a short random pause) while it fails with a ConflictError. */
export async function retryOnConflict<T>(operation: () => Promise<T>, attempts = 100): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await operation();
    } catch (error) {
      if (!(error instanceof ConflictError) || attempt >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(50, 2 ** attempt)));
    }
  }
}

// ---------------------------------------------------------------------------------------------------------
// Validation and decoding
