// The record store: records, their index entries and the change log, on a sorted key-value backend.
//
// - `defineCollection` stores a collection's layout and (re)builds its indexes.
// - `get` and `list` read; `list` plans the query onto one index range, pages with cursors, applies the
//   caller's read filter while filling the page, and bounds how many entries one request scans and how many bytes
//   of records one page holds.
// - `commit` writes several records of several collections atomically, with their index entries, the change
//   log, optimistic version checks and a replay-protection claim, all in one transaction.
// - `waitForChange` answers long-polls from the change feed.

import { randomBytes } from 'node:crypto';
import { decodeU64, encodeU64, keySuccessor } from './encoding.ts';
import { ChangeFeed, changeLogEntries, type Change, type ChangeTarget, type CommitChanges } from './changes.ts';
import { CURSOR_KEY_BYTES, SCAN_CURSOR_SIZES, decodeCursor, encodeCursor, encodeScanCursor, isSealedCursor } from './cursor.ts';
import { collectionNotFound, ConflictError, invalidCursor, invalidQuery, SignatureReplayError } from './errors.ts';
import { CollectionIndexes, type JsonObject, type StoredLayout } from './index-entries.ts';
import {
  changeKey,
  clockKey,
  clockTimestamp,
  collectionChangedKey,
  collectionIndexesPrefix,
  cursorKeyKey,
  indexPrefix,
  layoutKey,
  layoutVersionKey,
  prefixRange,
  recordDeletedKey,
  recordDeletedPrefix,
  recordKey,
  recordPrefix,
  signatureExpiryKey,
  signatureExpiryRange,
  signatureKey,
} from './keys.ts';
import type { KvOp, KvStore } from './kv.ts';
import type { Layout } from './layout.ts';
import { absoluteRange, planQuery, recordMatches } from './planner.ts';
import { checkClaim, checkCollectionId, checkExpectations, checkRecordId, checkStampExpectations, checkWrites, parseLimit } from './validation.ts';
import { RecentRecords, type RecentEntries } from './recent-records.ts';
import { planUnion, type UnionPlan } from './union-planner.ts';
import { planScanBounds, type ScanBounds, type ScanCheck } from './scan-bounds.ts';
import { countRecords, DEFAULT_COUNT_SCAN_LIMIT, readUnionPage, RECENT_KEYS, unionCountSource, type CountSource } from './union-read.ts';
import { isExtendedWhere } from './where.ts';

export type { JsonObject } from './index-entries.ts';

export { DEFAULT_LIMIT, MAX_LIMIT } from './validation.ts';
/** How many index entries one list request may read, unless the caller says otherwise. */
export const DEFAULT_SCAN_LIMIT = 5000;
/**
 * How many bytes of record text (UTF-8) one list page may hold, unless the store or the caller says otherwise. A
 * page ends at the first record that brings it to this size, before `limit`: 1,000 records of 1 MB would make an
 * answer longer than a string can be (and about 2 GB of memory). Its `after` cursor is that record, so the next
 * page goes on from there. Pages of ordinary records never come near it.
 */
export const DEFAULT_PAGE_BYTES = 32 * 1024 * 1024;

export interface ListQuery {
  readonly where?: unknown;
  readonly sort?: unknown;
  readonly limit?: unknown;
  readonly after?: unknown;
  readonly before?: unknown;
}

/** The caller's read permission: only records it accepts are returned. */
export type ReadFilter = (record: JsonObject) => boolean | Promise<boolean>;

export interface CountQuery {
  readonly where?: unknown;
}

export interface CountOptions {
  /** The most index entries one count may read (default 100,000); past it the count is a 400. */
  readonly scanLimit?: number;
  /** Told what the planned query will read, before it reads anything; throwing refuses it (scan-bounds.ts). */
  readonly confine?: ScanCheck;
}

export interface CountResult {
  readonly count: number;
  /** The store's timestamp when the count began (the `since` of a long-poll). */
  readonly timestamp: number;
}

export interface ListOptions {
  /** The most index entries to read for this request (default 5000, never less than the limit). */
  readonly scanLimit?: number;
  /** The page ends at the record that brings its texts to this many bytes (default: the store's `pageBytes`). */
  readonly pageBytes?: number;
  /** Told what the planned query will read, before it reads anything; throwing refuses it (scan-bounds.ts). */
  readonly confine?: ScanCheck;
}

export interface ListResult {
  readonly records: JsonObject[];
  /**
   * Without a read filter, `after` continues after the last entry read and `before` goes back from the first
   * one. With one, they are at the last and first records returned, and sealed; a page cut short by the scan
   * bound has its `after` (`before` when paging back) at the last entry read instead, sealed at a fixed length.
   * When nothing was read (with a read filter: returned), both repeat the request's cursor (so polling `after` at
   * the end keeps its place), or are null.
   */
  readonly cursor: { readonly before: string | null; readonly after: string | null };
  /** The store's timestamp when the request began: send it back as `since` to long-poll for changes. */
  readonly timestamp: number;
}

/** A list page whose records are their stored JSON texts. */
export interface RawListResult {
  readonly records: string[];
  readonly cursor: ListResult['cursor'];
  readonly timestamp: number;
}

/** A record read as its stored JSON text. */
export interface RawGetResult {
  readonly text: string | null;
  readonly version: number | null;
  readonly timestamp: number;
}

export interface GetResult {
  readonly record: JsonObject | null;
  /** The timestamp of the commit that wrote this version of the record (null when there is no record). */
  readonly version: number | null;
  readonly timestamp: number;
}

export type Write =
  | { readonly kind: 'put'; readonly collectionId: string; readonly record: JsonObject }
  | { readonly kind: 'delete'; readonly collectionId: string; readonly id: string };

/** The commit goes ahead only if the record is still at `version` (null: the record must not exist). */
export interface Expectation {
  readonly collectionId: string;
  readonly id: string;
  readonly version: number | null;
}

/** Marks a request signature as used until `expiresAt` (ms since the epoch). */
export interface SignatureClaim {
  readonly signature: string;
  readonly expiresAt: number;
  /** Defaults to Date.now(). */
  readonly now?: number;
}

/** The commit goes ahead only if the collection's change stamp (its last change's timestamp, 0 for none) is `stamp`. */
export interface StampExpectation {
  readonly collectionId: string;
  readonly stamp: number;
}

export interface CommitRequest {
  readonly writes?: readonly Write[];
  readonly expect?: readonly Expectation[];
  readonly expectStamps?: readonly StampExpectation[];
  readonly claimSignature?: SignatureClaim;
}

export interface RebuildProgress {
  readonly collectionId: string;
  /** The ids of the indexes being built. */
  readonly indexes: readonly string[];
  readonly done: number;
  readonly total: number;
}

export interface DefineOptions {
  readonly onProgress?: (progress: RebuildProgress) => void;
  /** Records per rebuild transaction (default 500). */
  readonly batchSize?: number;
  /**
   * Record bytes per rebuild transaction (default BUILD_BATCH_BYTES): a batch ends at the record that reaches
   * them, so a collection of large records is not read 500 at a time. A batch holds at least one record.
   */
  readonly batchBytes?: number;
  /**
   * The record as the collection's new schema has it (null: it already conforms, or cannot be made to). When
   * given and the layout's fields changed, every record is passed through it in the same batches as an index
   * build, and each one it changes is rewritten like a commit (new version, index entries, change-log entry),
   * so long-polls see it. The pass is marked in the stored layout and resumes if interrupted.
   */
  readonly conform?: (record: JsonObject) => JsonObject | null;
  /**
   * A record that must still hold what the caller expects when the layout is stored (read in the same
   * transaction): the service's schema record, so that a layout made from a schema that a later update has
   * already replaced is never stored over the later one's. When it does not hold, nothing is written or built.
   */
  readonly onlyIf?: { readonly collectionId: string; readonly id: string; readonly holds: (record: JsonObject | null) => boolean };
}

/** The default `batchBytes` of an index build: 16 MiB of record JSON. */
export const BUILD_BATCH_BYTES = 16 * 1024 * 1024;

export interface DefineResult {
  /** Ids of the indexes added (built for the existing records). */
  readonly added: readonly string[];
  /** Ids of the indexes removed (their entries deleted). */
  readonly removed: readonly string[];
  /** How many records were indexed by the rebuild. */
  readonly rebuilt: number;
  /** True when `onlyIf` did not hold: nothing was stored. */
  readonly superseded?: true;
}

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
  /**
   * Each collection's layout as last read, with the layout version it was read at when known (read in the same
   * transaction, which committed: see #committedLayout).
   */
  readonly #layouts = new Map<string, { readonly bytes: Buffer; readonly indexes: CollectionIndexes; readonly version: number | undefined }>();
  readonly #recent = new RecentRecords();
  readonly #retentionMs: number;
  readonly #housekeepingEvery: number;
  readonly #pageBytes: number;
  #commitsSinceHousekeeping = 0;
  /** The key of sealed cursors, read (or made) by the first list that needs it. */
  #cursorKey: Promise<Buffer> | undefined;

  constructor(kv: KvStore, options: StoreOptions = {}) {
    this.kv = kv;
    this.changes = new ChangeFeed(kv);
    this.#retentionMs = options.changeRetentionMs ?? 24 * 60 * 60 * 1000;
    this.#housekeepingEvery = options.housekeepingEvery ?? 1000;
    this.#pageBytes = byteBudget(options.pageBytes ?? DEFAULT_PAGE_BYTES);
  }

  // -------------------------------------------------------------------------------------------------------
  // Collections

  /**
   * Stores the collection's layout. New or changed indexes are built for the existing records (in batches, with
   * progress reports) while writes go on: every commit already maintains them, and queries use them once they
   * are complete. Removed indexes are deleted. Running it again with the same layout does nothing, and after an
   * interruption it resumes the unfinished builds.
   */
  async defineCollection(collectionId: string, layout: Layout, options: DefineOptions = {}): Promise<DefineResult> {
    checkCollectionId(collectionId);
    const key = layoutKey(collectionId);
    const versionKey = layoutVersionKey(collectionId);
    const onlyIf = options.onlyIf;
    const keys = onlyIf ? [key, versionKey, recordKey(onlyIf.collectionId, onlyIf.id)] : [key, versionKey];
    const { result } = await this.kv.transact(keys, ([current, version, required], timestamp) => {
      if (onlyIf && !onlyIf.holds(required ? parseRecord(required) : null)) return { ops: [], result: undefined };
      const old = current ? parseStoredLayout(current) : undefined;
      const oldIds = new Set(old?.layout.indexes.filter((i) => !i.primary).map((i) => i.id) ?? []);
      const newIds = new Set(layout.indexes.filter((i) => !i.primary).map((i) => i.id));
      const added = [...newIds].filter((id) => !oldIds.has(id));
      const removed = [...oldIds].filter((id) => !newIds.has(id));
      const building = [...new Set([...added, ...(old?.building ?? []).filter((id) => newIds.has(id))])];
      const fieldsChanged = old !== undefined && JSON.stringify(old.layout.fields) !== JSON.stringify(layout.fields);
      const conforming = old?.conforming === true || (options.conform !== undefined && fieldsChanged);
      const stored: StoredLayout = conforming ? { layout, building, conforming } : { layout, building };
      const bytes = Buffer.from(JSON.stringify(stored));
      const ops: KvOp[] = current?.equals(bytes) ? [] : [{ kind: 'put', key, value: bytes }];
      // A data folder written before layout versions gets its version here (see #committedLayout).
      if (ops.length > 0 || !version) ops.push({ kind: 'put', key: versionKey, value: encodeU64(timestamp) });
      for (const id of removed) ops.push({ kind: 'deleteRange', range: prefixRange(indexPrefix(collectionId, id)) });
      return { ops, result: { added, removed, building, conforming, bytes } };
    });
    if (!result) return { added: [], removed: [], rebuilt: 0, superseded: true };
    let rebuilt = 0;
    if (result.building.length > 0 || (result.conforming && options.conform)) {
      rebuilt = await this.#build(collectionId, result.bytes, result.building, options);
    }
    return { added: result.added, removed: result.removed, rebuilt };
  }

  async #build(collectionId: string, layoutBytes: Buffer, building: readonly string[], options: DefineOptions): Promise<number> {
    const key = layoutKey(collectionId);
    const stored = parseStoredLayout(layoutBytes);
    const indexes = new CollectionIndexes(collectionId, stored);
    const only = new Set(building);
    const batchSize = Math.max(1, Math.floor(options.batchSize ?? 500));
    const batchBytes = byteBudget(options.batchBytes ?? BUILD_BATCH_BYTES);
    // Records are cast when the layout says a cast is due and the caller says how; otherwise the mark stays.
    const conform = stored.conforming ? options.conform : undefined;
    const left: StoredLayout = stored.conforming && !conform ? { layout: stored.layout, building: [], conforming: true } : { layout: stored.layout, building: [] };
    const ready = Buffer.from(JSON.stringify(left));
    // Another process may run the same build at the same time: its finished layout is as good as ours.
    const check = (current: Buffer | undefined): 'building' | 'ready' => {
      if (current?.equals(layoutBytes)) return 'building';
      if (current?.equals(ready)) return 'ready';
      throw layoutChanged(collectionId);
    };
    const records = prefixRange(recordPrefix(collectionId));
    const total = await this.kv.count(records);
    let done = 0;
    options.onProgress?.({ collectionId, indexes: building, done, total });
    let from = records.gte;
    for (;;) {
      // The next records' texts, up to the batch's count and bytes; a record's key follows from its id.
      const texts = await this.kv.scanText({ gte: from, lt: records.lt }, { limit: batchSize, maxBytes: batchBytes }, RECORD_JSON_START);
      if (texts.length === 0) break;
      const keys = texts.map((text) => recordKey(collectionId, String((JSON.parse(text) as JsonObject).id)));
      // Re-read the records inside the transaction: one changed since the scan is indexed as it is now.
      const { result: state } = await this.kv.transact([key, ...keys], ([current, ...values], timestamp) => {
        if (check(current) === 'ready') return { ops: [], result: 'ready' as const };
        const deletes: KvOp[] = [];
        const puts: KvOp[] = [];
        const changes: Change[] = [];
        values.forEach((value, i) => {
          if (!value) return;
          const record = parseRecord(value);
          const cast = conform?.(record);
          if (!cast) {
            for (const entry of indexes.entriesOf(record, only)) puts.push({ kind: 'put', key: entry, value });
            return;
          }
          // Rewritten as a commit rewrites a record: a new version, every entry holding the new value.
          const castValue = recordValue(encodeU64(timestamp), JSON.stringify(cast));
          const newEntries = indexes.entriesOf(cast);
          const newSet = new Set(newEntries.map((k) => k.toString('latin1')));
          for (const entry of indexes.entriesOf(record)) if (!newSet.has(entry.toString('latin1'))) deletes.push({ kind: 'delete', key: entry });
          for (const entry of newEntries) puts.push({ kind: 'put', key: entry, value: castValue });
          puts.push({ kind: 'put', key: keys[i]!, value: castValue });
          changes.push({ collectionId, id: String(cast.id), kind: 'put' });
        });
        if (changes.length > 0) {
          puts.push({ kind: 'put', key: collectionChangedKey(collectionId), value: encodeU64(timestamp) });
          puts.push(...changeLogEntries(timestamp, changes));
        }
        return { ops: [...deletes, ...puts], result: 'building' as const };
      });
      if (state === 'ready') return done;
      done += texts.length;
      // Records created during the build can make `done` pass the count taken at the start.
      options.onProgress?.({ collectionId, indexes: building, done, total: Math.max(done, total) });
      from = keySuccessor(keys.at(-1)!);
    }
    await this.kv.transact([key], ([current], timestamp) => ({
      ops: check(current) === 'building' ? [{ kind: 'put', key, value: ready }, { kind: 'put', key: layoutVersionKey(collectionId), value: encodeU64(timestamp) }] : [],
      result: undefined,
    }));
    return done;
  }

  /** Deletes the collection: its layout, records, index entries and deletion stamps. */
  async deleteCollection(collectionId: string): Promise<void> {
    checkCollectionId(collectionId);
    await this.kv.transact([layoutKey(collectionId)], ([current], timestamp) => {
      if (!current) throw collectionNotFound(collectionId);
      const drop: Change[] = [{ collectionId, id: '', kind: 'drop' }];
      const ops: KvOp[] = [
        { kind: 'delete', key: layoutKey(collectionId) },
        { kind: 'delete', key: layoutVersionKey(collectionId) },
        { kind: 'deleteRange', range: prefixRange(recordPrefix(collectionId)) },
        { kind: 'deleteRange', range: prefixRange(collectionIndexesPrefix(collectionId)) },
        { kind: 'deleteRange', range: prefixRange(recordDeletedPrefix(collectionId)) },
        { kind: 'put', key: collectionChangedKey(collectionId), value: encodeU64(timestamp) },
        ...changeLogEntries(timestamp, drop),
      ];
      return { ops, result: undefined };
    });
    this.#layouts.delete(collectionId);
  }

  /** The collection's layout, or null when it is not defined. */
  async getLayout(collectionId: string): Promise<Layout | null> {
    const bytes = await this.kv.get(layoutKey(collectionId));
    return bytes ? this.#indexes(collectionId, bytes).layout : null;
  }

  /** Ids of the collection's indexes that are still being built (empty when all are usable). */
  async buildingIndexes(collectionId: string): Promise<readonly string[]> {
    const bytes = await this.kv.get(layoutKey(collectionId));
    if (!bytes) throw collectionNotFound(collectionId);
    return [...this.#indexes(collectionId, bytes).building];
  }

  /** Whether the collection's records are still being cast to a changed schema (see `DefineOptions.conform`). */
  async conforming(collectionId: string): Promise<boolean> {
    const bytes = await this.kv.get(layoutKey(collectionId));
    if (!bytes) throw collectionNotFound(collectionId);
    return parseStoredLayout(bytes).conforming === true;
  }

  /**
   * Calls `visit` with the collection's records in key order, in batches of at most `batchSize` records or about
   * `batchBytes` of record JSON (as an index build reads them), so a large collection is never in memory at once.
   * Each batch is read on its own: records written meanwhile may or may not be seen.
   */
  async forEachRecordBatch(collectionId: string, visit: (records: JsonObject[]) => void | Promise<void>, options: Pick<DefineOptions, 'batchSize' | 'batchBytes'> = {}): Promise<void> {
    checkCollectionId(collectionId);
    const batchSize = Math.max(1, Math.floor(options.batchSize ?? 500));
    const batchBytes = byteBudget(options.batchBytes ?? BUILD_BATCH_BYTES);
    const records = prefixRange(recordPrefix(collectionId));
    let from = records.gte;
    for (;;) {
      const texts = await this.kv.scanText({ gte: from, lt: records.lt }, { limit: batchSize, maxBytes: batchBytes }, RECORD_JSON_START);
      if (texts.length === 0) return;
      const batch = texts.map((text) => JSON.parse(text) as JsonObject);
      await visit(batch);
      from = keySuccessor(recordKey(collectionId, String(batch.at(-1)!.id)));
    }
  }

  /** The collection's layout ready for use, from its stored bytes (a version is cached with it only once known). */
  #indexes(collectionId: string, bytes: Buffer): CollectionIndexes {
    const cached = this.#layouts.get(collectionId);
    if (cached?.bytes.equals(bytes)) return cached.indexes;
    const indexes = new CollectionIndexes(collectionId, parseStoredLayout(bytes));
    this.#layouts.set(collectionId, { bytes, indexes, version: undefined });
    return indexes;
  }

  /**
   * Caches `version` as the one `indexes` (the collection's cached layout, if it still is) was read at, by a
   * commit that has committed. Not from inside its transaction: a SQLite group commit's transaction reads what
   * the earlier ones of its batch wrote, and when the batch's COMMIT fails, their timestamps are given out again,
   * one of them maybe to another layout's version.
   */
  #layoutCommittedAt(collectionId: string, indexes: CollectionIndexes, version: number): void {
    const cached = this.#layouts.get(collectionId);
    if (cached?.indexes === indexes && cached.version !== version) this.#layouts.set(collectionId, { ...cached, version });
  }

  /**
   * The layout a commit writes under, from what its transaction read: the collection's layout version and, when
   * `read`, its layout. Every write of a layout key writes the version key in the same transaction, so a version
   * equal to the one a cached layout was read at means the cached layout is current, and the layout row (which
   * overflows a B-tree page: about 1 KB for a 4-field schema) need not be read. A different version without the
   * layout read throws StaleLayout: the commit runs again reading it. The version read with the layout is cached
   * only once the commit has committed (#layoutCommittedAt). A layout without a version (a data folder written
   * before versions) gets one in this commit's writes (`versionPuts`); it is not cached as current until a later
   * commit reads it back, since this transaction may still fail and its timestamp be taken by another.
   */
  #committedLayout(collectionId: string, version: Buffer | undefined, bytes: Buffer | undefined, read: boolean, versionPuts: KvOp[], timestamp: number): CollectionIndexes {
    const versionNumber = version ? decodeU64(version) : undefined;
    const cached = this.#layouts.get(collectionId);
    if (versionNumber !== undefined && cached?.version === versionNumber) return cached.indexes;
    if (!read) throw new StaleLayout();
    if (!bytes) throw collectionNotFound(collectionId);
    if (versionNumber === undefined) versionPuts.push({ kind: 'put', key: layoutVersionKey(collectionId), value: encodeU64(timestamp) });
    return this.#indexes(collectionId, bytes);
  }

  // -------------------------------------------------------------------------------------------------------
  // Reading

  /** The current timestamp: every change so far has a timestamp at most this. */
  async timestamp(): Promise<number> {
    return clockTimestamp(await this.kv.get(clockKey));
  }

  async get(collectionId: string, id: string): Promise<GetResult> {
    const { text, version, timestamp } = await this.getJson(collectionId, id);
    return { record: text === null ? null : (JSON.parse(text) as JsonObject), version, timestamp };
  }

  /**
   * The record as this store last committed it, with its version, without reading the database; undefined when
   * it is not among the recent updates kept (recent-records.ts; a record only created is not kept). Another process may have changed it since: use
   * it only for a write whose commit expects this version, and read the record when that commit conflicts.
   */
  lastCommitted(collectionId: string, id: string): { record: JsonObject; version: number } | undefined {
    const recent = this.#recent.get(collectionId, id);
    return recent && { record: JSON.parse(recent.text) as JsonObject, version: recent.version };
  }

  /** `get`, but the record is its stored JSON text, exactly as `JSON.stringify` wrote it (see `listJson`). */
  async getJson(collectionId: string, id: string): Promise<RawGetResult> {
    checkCollectionId(collectionId);
    checkRecordId(id);
    // The timestamp is read before (or, on PostgreSQL, with) the record, so that long-polling `since` it cannot
    // miss a change.
    const { clock: timestamp, version, text } = await this.kv.getWithClock(recordKey(collectionId, id));
    if (version !== undefined && text !== undefined) return { text, version, timestamp };
    // A record exists only while its collection's layout does (both go in one commit), so the layout is read
    // only to tell an unknown collection from an unknown record.
    if (!(await this.kv.get(layoutKey(collectionId)))) throw collectionNotFound(collectionId);
    return { text: null, version: null, timestamp };
  }

  /**
   * `get`, and in the same read the change stamp of the collection `stampOf` (0 when it never changed; see
   * `ChangeFeed.lastChange`): the service checks its cached schema with the meta collection's stamp, and a write
   * reads it with the record it changes instead of in a read of its own.
   */
  async getWithStamp(collectionId: string, id: string, stampOf: string): Promise<GetResult & { readonly stamp: number }> {
    checkCollectionId(collectionId);
    checkRecordId(id);
    checkCollectionId(stampOf);
    const [clock, value, stamp] = await this.kv.getMany([clockKey, recordKey(collectionId, id), collectionChangedKey(stampOf)]);
    const read = { timestamp: clockTimestamp(clock), stamp: stamp ? decodeU64(stamp) : 0 };
    if (value) return { record: parseRecord(value), version: decodeU64(value), ...read };
    // As in getJson: the layout tells an unknown collection from an unknown record.
    if (!(await this.kv.get(layoutKey(collectionId)))) throw collectionNotFound(collectionId);
    return { record: null, version: null, ...read };
  }

  async list(collectionId: string, query: ListQuery = {}, readFilter?: ReadFilter, options: ListOptions = {}): Promise<ListResult> {
    return this.#list(collectionId, query, readFilter, options, (text, parsed) => parsed ?? (JSON.parse(text) as JsonObject));
  }

  /**
   * `list`, but each record is its stored JSON text, exactly as `JSON.stringify` wrote it (so a caller can put it
   * into an answer without parsing and serialising it again). A record is parsed only when the query has
   * conditions to re-check or a read filter is given.
   */
  async listJson(collectionId: string, query: ListQuery = {}, readFilter?: ReadFilter, options: ListOptions = {}): Promise<RawListResult> {
    return this.#list(collectionId, query, readFilter, options, (text) => text);
  }

  async #list<T>(
    collectionId: string,
    query: ListQuery,
    readFilter: ReadFilter | undefined,
    options: ListOptions,
    /** Makes a result of a record's text, and of the record itself when it was already parsed. */
    output: (text: string, parsed: JsonObject | undefined) => T,
  ): Promise<{ records: T[]; cursor: ListResult['cursor']; timestamp: number }> {
    checkCollectionId(collectionId);
    if (typeof query !== 'object' || query === null) throw invalidQuery('the query must be an object');
    const limit = parseLimit(query.limit);
    const given = (cursor: unknown) => cursor !== undefined && cursor !== null && cursor !== '';
    const hasAfter = given(query.after);
    const hasBefore = given(query.before);
    if (hasAfter && hasBefore) throw invalidCursor('invalid cursor, before and after cannot be used together');

    // The timestamp is read before any record, so that long-polling `since` it cannot miss a change.
    const [clock, layoutBytes] = await this.kv.getMany([clockKey, layoutKey(collectionId)]);
    if (!layoutBytes) throw collectionNotFound(collectionId);
    const timestamp = clockTimestamp(clock);
    const indexes = this.#indexes(collectionId, layoutBytes);
    if (isExtendedWhere(query.where)) {
      const union = planUnion(indexes.layout, indexes.usable, query.where, query.sort);
      await options.confine?.(unionScanBounds(union));
      return { ...(await this.#listUnion(indexes, union, query, limit, readFilter, options, output)), timestamp };
    }
    const plan = planQuery(indexes.layout, indexes.usable, query.where, query.sort);
    await options.confine?.(planScanBounds(plan));
    const prefix = indexes.prefixOf(plan.index);
    let { gte, lt } = absoluteRange(prefix, plan.range);

    const backward = hasBefore;
    const requestCursor = hasAfter || hasBefore ? ((backward ? query.before : query.after) as string) : undefined;
    const scanReverse = plan.reverse !== backward;
    // With a read filter, the entries read may be the caller's to see or not: the cursors are sealed. A sealed
    // request cursor is opened whether or not this request has a filter (the caller's permissions may change).
    const sealKey = readFilter !== undefined || isSealedCursor(requestCursor) ? await this.#sealKey() : undefined;
    if (requestCursor !== undefined) {
      const position = Buffer.concat([prefix, decodeCursor(requestCursor, plan.index, sealKey)]);
      if (!scanReverse) gte = maxKey(gte, keySuccessor(position));
      else lt = minKey(lt, position);
    }

    const scanLimit = Math.max(limit, Math.floor(options.scanLimit ?? DEFAULT_SCAN_LIMIT));
    const pageBytes = byteBudget(options.pageBytes ?? this.#pageBytes);
    const records: T[] = [];
    /** The UTF-8 bytes of the texts of the records in the page. */
    let bytes = 0;
    const mustParse = plan.conditions.length > 0 || readFilter !== undefined;
    // The first and last entries read, and the first and last returned (in the order read). An entry's key is a
    // function of the record it holds (the commit that replaces a record relies on that to find its old
    // entries), so the keys the cursors and the next range need are computed from these records instead of being
    // read with every entry; a record already parsed for the filters is not parsed again for its key.
    let first: Entry | undefined;
    let last: Entry | undefined;
    let firstReturned: Entry | undefined;
    let lastReturned: Entry | undefined;
    /**
     * With a read filter: the latest records read from the last one returned on (from the start when none was),
     * at most RECENT_KEYS of them, among which a scan-position cursor may step back (scanCursor), never to
     * before a record returned.
     */
    let recent: JsonObject[] = [];
    const keyOf = (entry: Entry) => indexes.keyOf(plan.index, entry.parsed ?? (JSON.parse(entry.text) as JsonObject));
    let scanned = 0;
    /** Whether the range has no entries left past the last one read. */
    let exhausted = false;
    while (records.length < limit && bytes < pageBytes && scanned < scanLimit) {
      if (Buffer.compare(gte, lt) >= 0) {
        exhausted = true;
        break;
      }
      // Without conditions or a read filter every entry read is returned, so exactly the rest of the page is read;
      // with them, at least 32 entries a round, as some may be left out.
      const want = Math.min(scanLimit - scanned, mustParse ? Math.max(limit - records.length, 32) : limit - records.length);
      // Index entries hold a copy of the record, so a page is one range read, however large the collection. The
      // read stops at the rest of the byte budget too, so it never holds much more than a page's worth of texts.
      const maxBytes = pageBytes - bytes;
      const texts = await this.kv.scanText({ gte, lt }, { reverse: scanReverse, limit: want, maxBytes }, RECORD_JSON_START);
      let bytesRead = 0;
      for (const text of texts) {
        scanned++;
        const size = Buffer.byteLength(text);
        bytesRead += size;
        const parsed: JsonObject | undefined = mustParse ? (JSON.parse(text) as JsonObject) : undefined;
        const entry: Entry = { text, parsed };
        first ??= entry;
        last = entry;
        if (parsed && !(recordMatches(parsed, plan.conditions) && (!readFilter || (await readFilter(parsed))))) {
          if (readFilter) {
            recent.push(parsed);
            if (recent.length > RECENT_KEYS) recent = recent.slice(-RECENT_KEYS);
          }
          continue;
        }
        records.push(output(text, parsed));
        firstReturned ??= entry;
        lastReturned = entry;
        if (readFilter) recent = [parsed!];
        bytes += size;
        if (records.length === limit || bytes >= pageBytes) break;
      }
      // Fewer entries than asked for, and not because of the byte budget: the range is exhausted.
      if ((texts.length < want && bytesRead < maxBytes) || last === undefined) {
        exhausted = true;
        break;
      }
      const lastKey = keyOf(last);
      if (!scanReverse) gte = keySuccessor(lastKey);
      else lt = lastKey;
    }

    if (backward) records.reverse();
    const position = (entry: Entry) => keyOf(entry).subarray(prefix.length);
    // Cursors in the order read: `start` goes back from the first entry, `end` on past the last.
    let start: string | null;
    let end: string | null;
    if (!readFilter) {
      start = first === undefined ? (requestCursor ?? null) : encodeCursor(plan.index.id, position(first));
      end = last === undefined ? (requestCursor ?? null) : encodeCursor(plan.index.id, position(last));
    } else {
      // Only the records returned, which the caller sees anyway, place the cursors: the answer is the one a store
      // holding only the records the caller may read would give (docs/store.md, "Lists with a read filter"). The one
      // exception: the scan bound stopped the read before the page was full and before the range ended. The next
      // request must go on from there, so `end` is that position, sealed at a fixed length.
      start = firstReturned === undefined ? (requestCursor ?? null) : encodeCursor(plan.index.id, position(firstReturned), sealKey);
      end = lastReturned === undefined ? (requestCursor ?? null) : encodeCursor(plan.index.id, position(lastReturned), sealKey);
      const cutShort = !exhausted && records.length < limit && bytes < pageBytes;
      if (cutShort) end = scanCursor(plan.index.id, recent.map((record) => position({ text: '', parsed: record })), sealKey!);
    }
    const cursor = backward ? { before: end, after: start } : { before: start, after: end };
    return { records, cursor, timestamp };
  }

  /** A page of a union plan (`$ne`, `$in`, `$nin`, `$contains`, `$or`): its ranges merged in order (union-read.ts). */
  async #listUnion<T>(
    indexes: CollectionIndexes,
    plan: UnionPlan,
    query: ListQuery,
    limit: number,
    readFilter: ReadFilter | undefined,
    options: ListOptions,
    output: (text: string, parsed: JsonObject | undefined) => T,
  ): Promise<{ records: T[]; cursor: ListResult['cursor'] }> {
    const given = (cursor: unknown) => cursor !== undefined && cursor !== null && cursor !== '';
    const backward = given(query.before);
    const requestCursor = backward || given(query.after) ? ((backward ? query.before : query.after) as string) : undefined;
    // As in #list: the entries read may be ones the caller may not see, so with a read filter the cursors are sealed.
    const sealKey = readFilter !== undefined || isSealedCursor(requestCursor) ? await this.#sealKey() : undefined;
    const page = await readUnionPage(this.kv, indexes, plan, {
      limit,
      backward,
      position: requestCursor === undefined ? undefined : decodeCursor(requestCursor, plan.order, sealKey),
      readFilter,
      scanLimit: Math.max(limit, Math.floor(options.scanLimit ?? DEFAULT_SCAN_LIMIT)),
      pageBytes: byteBudget(options.pageBytes ?? this.#pageBytes),
      textStart: RECORD_JSON_START,
      output,
    });
    // The cursors follow #list's rules: without a read filter, the entries read; with one, the records returned
    // (sealed), or, when the scan bound cut the page short, a fixed-length scan cursor (docs/store.md).
    const at = (key: Buffer | undefined, seal?: Buffer) => (key === undefined ? (requestCursor ?? null) : encodeCursor(plan.order.id, key, seal));
    let start: string | null;
    let end: string | null;
    if (!readFilter) {
      start = at(page.read.first);
      end = at(page.read.last);
    } else {
      start = at(page.returned.first, sealKey);
      end = page.cutShort ? scanCursor(plan.order.id, page.recent, sealKey!) : at(page.returned.last, sealKey);
    }
    const cursor = backward ? { before: end, after: start } : { before: start, after: end };
    return { records: page.records, cursor };
  }

  /**
   * Plans the query (its where and sort) as `list` would, and hands `check` what it would read, reading nothing:
   * so a request that will wait before it lists (a long-poll) is refused at once rather than after the wait.
   */
  async checkQuery(collectionId: string, query: Pick<ListQuery, 'where' | 'sort'>, check: ScanCheck): Promise<void> {
    checkCollectionId(collectionId);
    const layoutBytes = await this.kv.get(layoutKey(collectionId));
    if (!layoutBytes) throw collectionNotFound(collectionId);
    const indexes = this.#indexes(collectionId, layoutBytes);
    if (isExtendedWhere(query.where)) await check(unionScanBounds(planUnion(indexes.layout, indexes.usable, query.where, query.sort)));
    else await check(planScanBounds(planQuery(indexes.layout, indexes.usable, query.where, query.sort)));
  }

  /**
   * How many records match the where and pass the read filter. It reads every entry of the query's ranges, so
   * it stops with 400 `indexer/scan-limit-exceeded` past `scanLimit` of them (default 100,000).
   */
  async count(collectionId: string, query: CountQuery = {}, readFilter?: ReadFilter, options: CountOptions = {}): Promise<CountResult> {
    checkCollectionId(collectionId);
    if (typeof query !== 'object' || query === null) throw invalidQuery('the query must be an object');
    const [clock, layoutBytes] = await this.kv.getMany([clockKey, layoutKey(collectionId)]);
    if (!layoutBytes) throw collectionNotFound(collectionId);
    const timestamp = clockTimestamp(clock);
    const indexes = this.#indexes(collectionId, layoutBytes);
    let source: CountSource;
    if (isExtendedWhere(query.where)) {
      const union = planUnion(indexes.layout, indexes.usable, query.where, undefined);
      await options.confine?.(unionScanBounds(union));
      source = unionCountSource(indexes, union);
    } else {
      const plan = planQuery(indexes.layout, indexes.usable, query.where, undefined);
      await options.confine?.(planScanBounds(plan));
      const prefix = indexes.prefixOf(plan.index);
      source = {
        sources: [{ base: prefix, range: absoluteRange(prefix, plan.range) }],
        orderKeyOf: (record) => indexes.keyOf(plan.index, record).subarray(prefix.length),
        matches: (record) => recordMatches(record, plan.conditions),
        matchesAll: plan.conditions.length === 0,
      };
    }
    const scanLimit = Math.max(1, Math.floor(options.scanLimit ?? DEFAULT_COUNT_SCAN_LIMIT));
    return { count: await countRecords(this.kv, source, readFilter, scanLimit, RECORD_JSON_START), timestamp };
  }

  /** The key of sealed cursors: read once per store, made by the first list of the database that needs one. */
  #sealKey(): Promise<Buffer> {
    this.#cursorKey ??= this.#loadCursorKey().catch((error: unknown) => {
      this.#cursorKey = undefined; // the next list tries again
      throw error;
    });
    return this.#cursorKey;
  }

  async #loadCursorKey(): Promise<Buffer> {
    const stored = await this.kv.get(cursorKeyKey);
    if (stored) return stored;
    // Servers racing to make it all end with the one committed first: the transaction reads the key under the
    // commit lock, and writes its own only if there is none yet. (A transaction that writes nothing still
    // advances the clock, as defineCollection's with an unchanged layout does; this one runs once per database.)
    const fresh = randomBytes(CURSOR_KEY_BYTES);
    const { result } = await this.kv.transact([cursorKeyKey], ([current]) =>
      current ? { ops: [], result: current } : { ops: [{ kind: 'put', key: cursorKeyKey, value: fresh }], result: fresh },
    );
    return result;
  }

  // -------------------------------------------------------------------------------------------------------
  // Writing

  /**
   * Commits the writes atomically with their index entries and a change-log entry. Throws ConflictError (and
   * writes nothing) when an expectation no longer holds, SignatureReplayError when the signature is already
   * claimed, and `collection/not-found` when a collection is not defined.
   */
  async commit(request: CommitRequest): Promise<{ timestamp: number }> {
    const writes = request.writes ?? [];
    const expectations = request.expect ?? [];
    const texts = checkWrites(writes);
    checkExpectations(expectations);
    const stampExpectations = request.expectStamps ?? [];
    checkStampExpectations(stampExpectations);
    const claim = request.claimSignature;
    if (claim) checkClaim(claim);
    const checked = { writes, expectations, stampExpectations, claim, texts };
    try {
      return await this.#commit(checked, false);
    } catch (error) {
      if (!(error instanceof StaleLayout)) throw error;
      return this.#commit(checked, true);
    }
  }

  /** A checked commit; `readLayouts`: read every collection's layout, not only its version (see #committedLayout). */
  async #commit(checked: CheckedCommit, readLayouts: boolean): Promise<{ timestamp: number }> {
    const { writes, expectations, stampExpectations, claim, texts } = checked;
    const reads: Buffer[] = [];
    const slots = new Map<string, number>();
    const slot = (key: Buffer): number => {
      const text = key.toString('latin1');
      let at = slots.get(text);
      if (at === undefined) {
        at = reads.push(key) - 1;
        slots.set(text, at);
      }
      return at;
    };
    const collections = [...new Set(writes.map((w) => w.collectionId))];
    const versionSlots = collections.map((c) => slot(layoutVersionKey(c)));
    // The layout itself only when no version of it is cached (see #committedLayout).
    const layoutSlots = collections.map((c) => (readLayouts || this.#layouts.get(c)?.version === undefined ? slot(layoutKey(c)) : -1));
    const writeSlots = writes.map((w) => slot(recordKey(w.collectionId, w.kind === 'put' ? String(w.record.id) : w.id)));
    const expectSlots = expectations.map((e) => slot(recordKey(e.collectionId, e.id)));
    const claimSlot = claim ? slot(signatureKey(claim.signature)) : -1;
    const stampSlots = stampExpectations.map((e) => slot(collectionChangedKey(e.collectionId)));

    /** Which puts replaced a stored record (only those are kept in the recent records: see below). */
    const replaced: boolean[] = [];
    /** Each put's index entry keys as committed, with the layout they follow (kept with the record: #oldEntries). */
    const committedEntries: (RecentEntries | undefined)[] = [];
    /** Each collection's layout as this commit used it, and the version it was read at (when it was read). */
    const layoutsUsed: CollectionIndexes[] = [];
    const layoutVersionsRead: (Buffer | undefined)[] = [];
    const { timestamp } = await this.kv.transact(reads, (current, timestamp) => {
      // The deletes go first and the puts after them: no key is put and then deleted by one commit (each record
      // appears once, and its keys are its own), so the order changes nothing, and PostgreSQL writes each group
      // with one statement.
      const deletes: KvOp[] = [];
      const puts: KvOp[] = [];
      const indexes = new Map<string, CollectionIndexes>();
      collections.forEach((c, i) => {
        const layoutSlot = layoutSlots[i]!;
        const read = layoutSlot !== -1;
        const version = current[versionSlots[i]!];
        const layout = this.#committedLayout(c, version, read ? current[layoutSlot] : undefined, read, puts, timestamp);
        indexes.set(c, layout);
        layoutsUsed[i] = layout;
        layoutVersionsRead[i] = read ? version : undefined;
      });
      // The claim is checked before the expectations: a replayed create finds its own record already there,
      // and must be reported as the replay it is, not as a taken id.
      if (claim) {
        const existing = current[claimSlot];
        const now = claim.now ?? Date.now();
        if (existing && decodeU64(existing) > now) throw new SignatureReplayError();
        if (existing) deletes.push({ kind: 'delete', key: signatureExpiryKey(decodeU64(existing), claim.signature) });
        puts.push({ kind: 'put', key: signatureKey(claim.signature), value: encodeU64(claim.expiresAt) });
        puts.push({ kind: 'put', key: signatureExpiryKey(claim.expiresAt, claim.signature), value: Buffer.from(claim.signature) });
      }
      stampExpectations.forEach((e, i) => {
        const value = current[stampSlots[i]!];
        const stamp = value ? decodeU64(value) : 0;
        if (stamp !== e.stamp) {
          throw new ConflictError(`collection "${e.collectionId}" changed since it was read (expected its stamp ${e.stamp}, found ${stamp})`, e.collectionId, '');
        }
      });
      expectations.forEach((e, i) => {
        const value = current[expectSlots[i]!];
        const version = value ? decodeU64(value) : null;
        if (version !== e.version) {
          throw new ConflictError(
            `record "${e.id}" in collection "${e.collectionId}" changed since it was read (expected version ${e.version}, found ${version})`,
            e.collectionId,
            e.id,
          );
        }
      });

      const changes: Change[] = [];
      const stamp = encodeU64(timestamp);
      writes.forEach((write, i) => {
        const collectionIndexes = indexes.get(write.collectionId)!;
        const oldValue = current[writeSlots[i]!];
        replaced[i] = oldValue !== undefined;
        const id = write.kind === 'put' ? String(write.record.id) : write.id;
        const oldEntries = oldValue ? this.#oldEntries(write.collectionId, id, oldValue, collectionIndexes) : NO_ENTRIES;
        if (write.kind === 'delete') {
          if (!oldValue) return;
          for (const key of oldEntries) deletes.push({ kind: 'delete', key: Buffer.from(key, 'latin1') });
          deletes.push({ kind: 'delete', key: reads[writeSlots[i]!]! });
          puts.push({ kind: 'put', key: recordDeletedKey(write.collectionId, write.id), value: stamp });
          changes.push({ collectionId: write.collectionId, id: write.id, kind: 'delete' });
          return;
        }
        const key = reads[writeSlots[i]!]!;
        const value = recordValue(stamp, texts[i]!);
        const newEntries = collectionIndexes.entriesOf(write.record);
        if (oldValue) {
          const newKeys = newEntries.map((entry) => entry.toString('latin1'));
          committedEntries[i] = { layout: collectionIndexes, keys: newKeys };
          for (const key of removedKeys(oldEntries, newKeys)) deletes.push({ kind: 'delete', key: Buffer.from(key, 'latin1') });
        }
        // Every entry holds the record's current value, so all of them are written.
        for (const entry of newEntries) puts.push({ kind: 'put', key: entry, value });
        puts.push({ kind: 'put', key, value });
        changes.push({ collectionId: write.collectionId, id, kind: 'put' });
      });
      if (changes.length > 0) {
        for (const c of new Set(changes.map((change) => change.collectionId))) puts.push({ kind: 'put', key: collectionChangedKey(c), value: stamp });
        for (const entry of changeLogEntries(timestamp, changes)) puts.push(entry);
      }
      return { ops: [...deletes, ...puts], result: undefined };
    });
    collections.forEach((c, i) => {
      const version = layoutVersionsRead[i];
      if (version) this.#layoutCommittedAt(c, layoutsUsed[i]!, decodeU64(version));
    });
    writes.forEach((write, i) => {
      // A record updated is likely to be updated again; one just created, less so, and keeping every new record
      // of a stream of creates only churns the cache (and the old generation of the heap: creates got slower).
      if (write.kind === 'put' && replaced[i]) this.#recent.committed(write.collectionId, String(write.record.id), texts[i]!, timestamp, committedEntries[i]);
      else this.#recent.deleted(write.collectionId, write.kind === 'put' ? String(write.record.id) : write.id);
    });
    if (++this.#commitsSinceHousekeeping >= this.#housekeepingEvery) {
      this.#commitsSinceHousekeeping = 0;
      this.housekeeping().catch(() => {
        // Best effort: the next round tries again.
      });
    }
    return { timestamp };
  }

  /**
   * The index entry keys (latin1) of the record stored as `value`, which a commit replacing or deleting it removes:
   * those this store committed with that very version under the same layout object (a version is its commit's
   * timestamp, unique in the database, so the record is the one they were computed from), else computed from the
   * stored record.
   */
  #oldEntries(collectionId: string, id: string, value: Buffer, indexes: CollectionIndexes): readonly string[] {
    const recent = this.#recent.get(collectionId, id);
    if (recent?.entries?.layout === indexes && recent.version === decodeU64(value)) return recent.entries.keys;
    return indexes.entriesOf(parseRecord(value)).map((entry) => entry.toString('latin1'));
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

const NO_ENTRIES: readonly string[] = [];

/** A commit's request, checked. */
interface CheckedCommit {
  readonly writes: readonly Write[];
  readonly expectations: readonly Expectation[];
  readonly stampExpectations: readonly StampExpectation[];
  readonly claim: SignatureClaim | undefined;
  /** Each put's record as JSON (checkWrites; undefined for a delete). */
  readonly texts: readonly (string | undefined)[];
}

/** Thrown by a commit's transaction when the layout changed since it was cached and was not read (see #committedLayout). */
class StaleLayout extends Error {}

/**
 * The old keys that are not among the new ones. A record's keys come index by index in the layout's order, so an
 * entry that did not change is usually at the same place: checked there first, and a search of the new keys
 * (a Set only for records with many keys, from array fields) only for the others.
 */
function removedKeys(oldKeys: readonly string[], newKeys: readonly string[]): string[] {
  const removed: string[] = [];
  if (oldKeys.length === 0) return removed;
  const many = newKeys.length > 16 ? new Set(newKeys) : undefined;
  oldKeys.forEach((key, i) => {
    if (newKeys[i] === key) return;
    if (many ? !many.has(key) : !newKeys.includes(key)) removed.push(key);
  });
  return removed;
}

/** A record's stored value: its version (the commit timestamp, a u64), then its JSON from this byte on. */
const RECORD_JSON_START = 8;

function recordValue(version: Buffer, json: string): Buffer {
  const value = Buffer.allocUnsafe(RECORD_JSON_START + Buffer.byteLength(json, 'utf8'));
  version.copy(value, 0);
  value.write(json, RECORD_JSON_START, 'utf8');
  return value;
}

function recordText(value: Buffer): string {
  return value.toString('utf8', RECORD_JSON_START);
}

function parseRecord(value: Buffer): JsonObject {
  return JSON.parse(recordText(value)) as JsonObject;
}

function parseStoredLayout(bytes: Buffer): StoredLayout {
  return JSON.parse(bytes.toString('utf8')) as StoredLayout;
}

function layoutChanged(collectionId: string): ConflictError {
  return new ConflictError(`the layout of collection "${collectionId}" changed while its indexes were being built`, collectionId, '');
}

/** A page byte budget: at least 1 (NaN too), so that a page always holds a record when there is one. */
function byteBudget(bytes: number): number {
  return bytes >= 1 ? bytes : 1;
}

/** An index entry read by a list: its record's text, and the record when it was parsed to be checked. */
interface Entry {
  readonly text: string;
  readonly parsed: JsonObject | undefined;
}

/**
 * The cursor of a scan stopped by its bound, at the last entry read (`recent`: the positions of the latest
 * entries read that the next request may go on from, in the order read, at most RECENT_KEYS). Every such cursor
 * has one length (SCAN_CURSOR_SIZES.small), so it carries nothing of the entry's values: when the last entry's
 * position is too long for it, the cursor steps back to the latest entry that fits (the next request reads the
 * rest again, at most RECENT_KEYS entries). Only when none of them fits is it the large size.
 */
function scanCursor(indexId: string, recent: readonly Buffer[], sealKey: Buffer): string {
  for (let i = recent.length - 1; i >= 0; i--) {
    const cursor = encodeScanCursor(indexId, recent[i]!, sealKey, SCAN_CURSOR_SIZES.small);
    if (cursor !== undefined) return cursor;
  }
  const last = recent.at(-1)!;
  // A position longer than any cursor may hold is refused when it comes back, as a plain one of it would be.
  return encodeScanCursor(indexId, last, sealKey, SCAN_CURSOR_SIZES.large) ?? encodeCursor(indexId, last, sealKey);
}

function unionScanBounds(plan: UnionPlan): ScanBounds {
  return { ranges: plan.segments.map((segment) => segment.bounds) };
}

function maxKey(a: Buffer, b: Buffer): Buffer {
  return Buffer.compare(a, b) >= 0 ? a : b;
}

function minKey(a: Buffer, b: Buffer): Buffer {
  return Buffer.compare(a, b) <= 0 ? a : b;
}
