// The store's reading part: gets, lists (every where planned as a union of index ranges, planner.ts, and read by
// the merged reader, union-read.ts: paged with cursors, filtered by the caller's read permission, bounded in
// entries scanned and bytes returned) and counts.

import { randomBytes } from 'node:crypto';
import { decodeU64 } from './encoding.ts';
import { CURSOR_KEY_BYTES, SCAN_CURSOR_SIZES, decodeCursor, encodeCursor, encodeScanCursor, isSealedCursor } from './cursor.ts';
import { collectionNotFound, invalidCursor, invalidQuery, StoreError } from './errors.ts';
import type { CollectionIndexes, JsonObject } from './index-entries.ts';
import { readSearchPage } from './search-read.ts';
import { clockKey, clockTimestamp, collectionChangedKey, cursorKeyKey, layoutKey, recordKey } from './keys.ts';
import type { KvStore } from './kv.ts';
import type { LayoutCache } from './layout-cache.ts';
import { cachedPlan } from './plan-cache.ts';
import type { UnionPlan } from './planner.ts';
import type { RecentRecords } from './recent-records.ts';
import { byteBudget, parseRecord, RECORD_JSON_START } from './record-value.ts';
import { AGGREGATE_KINDS, Aggregator, checkAggregates, type AggregateRequest, type AggregateValues } from './aggregates.ts';
import type { ScanBounds, ScanCheck } from './scan-bounds.ts';
import { countRecords, DEFAULT_COUNT_SCAN_LIMIT, readUnionPage, unionCountSource } from './union-read.ts';
import { checkCollectionId, checkRecordId, parseLimit } from './validation.ts';

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
  /** Words to search for in the collection's `@search` fields (search-read.ts): the page is ordered by relevance. */
  readonly search?: unknown;
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
  /** The most index entries one count may read (default 100,000); past it the count is refused (`indexer/scan-limit-exceeded`). */
  readonly scanLimit?: number;
  /** Told what the planned query will read, before it reads anything; throwing refuses it (scan-bounds.ts). */
  readonly confine?: ScanCheck;
  /**
   * The record as the answer's schema has it, applied to each record read before the where is re-checked, the read
   * filter judges it and it is aggregated (the service casts the records a schema change's pass has not reached).
   */
  readonly inForm?: (record: JsonObject) => JsonObject | Promise<JsonObject>;
}

export interface AggregateQuery {
  readonly where?: unknown;
  /** The number fields to sum, average, and take the least and greatest of (aggregates.ts). */
  readonly aggregates: AggregateRequest;
}

export interface AggregateResult extends AggregateValues {
  readonly count: number;
  readonly timestamp: number;
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
  /**
   * A collection whose change stamp (see `ChangeFeed.lastChange`) to read with the clock, in the same read (the
   * result's `stamp`): the service checks its cached schema with the meta collection's stamp this way, instead of
   * in a read of its own before the list.
   */
  readonly stampOf?: string;
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
  /** The change stamp of `ListOptions.stampOf` (0 when it never changed), read with `timestamp`; only when asked. */
  readonly stamp?: number;
}

/** A list page whose records are their stored JSON texts. */
export interface RawListResult {
  readonly records: string[];
  readonly cursor: ListResult['cursor'];
  readonly timestamp: number;
  readonly stamp?: number;
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

export class RecordReader {
  readonly #kv: KvStore;
  readonly #layouts: LayoutCache;
  readonly #recent: RecentRecords;
  readonly #pageBytes: number;
  /** The key of sealed cursors, read (or made) by the first list that needs it. */
  #cursorKey: Promise<Buffer> | undefined;
  #lastStampKey: { collectionId: string; key: Buffer } | undefined;

  constructor(kv: KvStore, layouts: LayoutCache, recent: RecentRecords, pageBytes: number) {
    this.#kv = kv;
    this.#layouts = layouts;
    this.#recent = recent;
    this.#pageBytes = byteBudget(pageBytes);
  }

  // -------------------------------------------------------------------------------------------------------
  // Reading

  /** The current timestamp: every change so far has a timestamp at most this. */
  async timestamp(): Promise<number> {
    return clockTimestamp(await this.#kv.get(clockKey));
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
    const { clock: timestamp, version, text } = await this.#kv.getWithClock(recordKey(collectionId, id));
    if (version !== undefined && text !== undefined) return { text, version, timestamp };
    // A record exists only while its collection's layout does (both go in one commit), so the layout is read
    // only to tell an unknown collection from an unknown record.
    if (!(await this.#kv.get(layoutKey(collectionId)))) throw collectionNotFound(collectionId);
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
    const [clock, value, stamp] = await this.#kv.getMany([clockKey, recordKey(collectionId, id), collectionChangedKey(stampOf)]);
    const read = { timestamp: clockTimestamp(clock), stamp: stamp ? decodeU64(stamp) : 0 };
    if (value) return { record: parseRecord(value), version: decodeU64(value), ...read };
    // As in getJson: the layout tells an unknown collection from an unknown record.
    if (!(await this.#kv.get(layoutKey(collectionId)))) throw collectionNotFound(collectionId);
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
  ): Promise<{ records: T[]; cursor: ListResult['cursor']; timestamp: number; stamp?: number }> {
    checkCollectionId(collectionId);
    if (typeof query !== 'object' || query === null) throw invalidQuery('the query must be an object');
    const limit = parseLimit(query.limit);
    const given = (cursor: unknown) => cursor !== undefined && cursor !== null && cursor !== '';
    const hasAfter = given(query.after);
    const hasBefore = given(query.before);
    if (hasAfter && hasBefore) throw invalidCursor('invalid cursor, before and after cannot be used together');

    // The timestamp is read before any record, so that long-polling `since` it cannot miss a change; the stamp
    // asked for, in the same read.
    const stampOf = options.stampOf;
    const keys = stampOf === undefined ? [clockKey, layoutKey(collectionId)] : [clockKey, layoutKey(collectionId), this.#stampKey(stampOf)];
    const [clock, layoutBytes, stampBytes] = await this.#kv.getMany(keys);
    if (!layoutBytes) throw collectionNotFound(collectionId);
    const timestamp = clockTimestamp(clock);
    const read = stampOf === undefined ? { timestamp } : { timestamp, stamp: stampBytes ? decodeU64(stampBytes) : 0 };
    const indexes = this.#layouts.indexes(collectionId, layoutBytes);
    if (query.search !== undefined) return { ...(await this.#search(indexes, query, limit, hasBefore, readFilter, options, output)), ...read };
    const plan = cachedPlan(indexes, query.where, query.sort);
    await options.confine?.(scanBoundsOf(plan));

    const backward = hasBefore;
    const requestCursor = hasAfter || hasBefore ? ((backward ? query.before : query.after) as string) : undefined;
    // With a read filter, the entries read may be the caller's to see or not: the cursors are sealed. A sealed
    // request cursor is opened whether or not this request has a filter (the caller's permissions may change).
    const sealKey = readFilter !== undefined || isSealedCursor(requestCursor) ? await this.#sealKey() : undefined;
    // Index entries hold a copy of the record, so a page is one range read per range, however large the
    // collection; the read stops at the byte budget too (union-read.ts).
    const scanLimit = Math.max(limit, Math.floor(options.scanLimit ?? DEFAULT_SCAN_LIMIT));
    const page = await readUnionPage(this.#kv, indexes, plan, {
      limit,
      backward,
      position: requestCursor === undefined ? undefined : decodeCursor(requestCursor, plan.cursor.index, sealKey),
      readFilter,
      scanLimit,
      pageBytes: byteBudget(options.pageBytes ?? this.#pageBytes),
      textStart: RECORD_JSON_START,
      output,
    });
    // A range filtered during the scan (a second range field) that the bound stopped: its cost is the answer, not
    // a short page the caller could mistake for the end (docs/store.md, "Two range fields").
    if (page.cutShort && plan.scanFiltered) {
      throw new StoreError(
        'failed-precondition',
        'indexer/scan-limit-exceeded',
        `where: ${plan.scanFiltered}: this page read ${scanLimit} index entries (the most one request reads) and found ${page.records.length} of the ${limit} records asked for; narrow the indexed range, or add an @index that starts with the other field`,
      );
    }
    // Cursors in the order read: `start` goes back from the first entry, `end` on past the last. Without a read
    // filter they are the first and last entries read. With one, only the records returned, which the caller
    // sees anyway, place them (docs/store.md, "Lists with a read filter"): the answer is the one a store holding
    // only the records the caller may read would give. The one exception: the scan bound stopped the read before
    // the page was full and before the ranges ended. The next request must go on from there, so `end` is that
    // position, sealed at a fixed length. When nothing was read (returned), both repeat the request's cursor.
    const at = (position: Buffer | undefined, seal?: Buffer) => (position === undefined ? (requestCursor ?? null) : encodeCursor(plan.cursor.index.id, position, seal));
    let start: string | null;
    let end: string | null;
    if (!readFilter) {
      start = at(page.read.first);
      end = at(page.read.last);
    } else {
      start = at(page.returned.first, sealKey);
      end = page.cutShort ? scanCursor(plan.cursor.index.id, page.recent, sealKey!) : at(page.returned.last, sealKey);
    }
    const cursor = backward ? { before: end, after: start } : { before: start, after: end };
    return { records: page.records, cursor, ...read };
  }

  /** The key of a collection's change stamp; the last one asked for is kept (lists ask for the meta collection's). */
  #stampKey(collectionId: string): Buffer {
    if (this.#lastStampKey?.collectionId !== collectionId) {
      checkCollectionId(collectionId);
      this.#lastStampKey = { collectionId, key: collectionChangedKey(collectionId) };
    }
    return this.#lastStampKey.key;
  }

  /** A list with `search` (search-read.ts); confined as a list with the same where would be. */
  async #search<T>(indexes: CollectionIndexes, query: ListQuery, limit: number, backward: boolean, readFilter: ReadFilter | undefined, options: ListOptions, output: (text: string, parsed: JsonObject) => T) {
    const cursor = backward ? query.before : query.after;
    const requestCursor = cursor === undefined || cursor === null || cursor === '' ? undefined : (cursor as string);
    const sealKey = readFilter !== undefined || isSealedCursor(requestCursor) ? await this.#sealKey() : undefined;
    return readSearchPage(this.#kv, indexes, {
      search: query.search,
      where: query.where,
      sort: query.sort,
      limit,
      backward,
      cursor: requestCursor,
      readFilter,
      scanLimit: Math.max(limit, Math.floor(options.scanLimit ?? DEFAULT_SCAN_LIMIT)),
      pageBytes: byteBudget(options.pageBytes ?? this.#pageBytes),
      sealKey,
      confine: async (where) => {
        if (options.confine) await options.confine(scanBoundsOf(cachedPlan(indexes, where, undefined)));
      },
      output,
    });
  }

  /**
   * Plans the query (its where and sort) as `list` would, and hands `check` what it would read, reading nothing:
   * so a request that will wait before it lists (a long-poll) is refused at once rather than after the wait.
   */
  async checkQuery(collectionId: string, query: Pick<ListQuery, 'where' | 'sort'>, check: ScanCheck): Promise<void> {
    checkCollectionId(collectionId);
    const layoutBytes = await this.#kv.get(layoutKey(collectionId));
    if (!layoutBytes) throw collectionNotFound(collectionId);
    const indexes = this.#layouts.indexes(collectionId, layoutBytes);
    await check(scanBoundsOf(cachedPlan(indexes, query.where, query.sort)));
  }

  /**
   * How many records match the where and pass the read filter. It reads every entry of the query's ranges, so
   * it stops with `indexer/scan-limit-exceeded` past `scanLimit` of them (default 100,000).
   */
  async count(collectionId: string, query: CountQuery = {}, readFilter?: ReadFilter, options: CountOptions = {}): Promise<CountResult> {
    const { timestamp, source, scanLimit } = await this.#countScan(collectionId, query, options, () => undefined);
    return { count: await countRecords(this.#kv, source, readFilter, scanLimit, RECORD_JSON_START, undefined, 'count', options.inForm), timestamp };
  }

  /**
   * `count`, and the sums, averages, least and greatest values of number fields over the same records (the ones
   * that match and pass the read filter), read once under the count's scan bound (aggregates.ts).
   */
  async aggregate(collectionId: string, query: AggregateQuery, readFilter?: ReadFilter, options: CountOptions = {}): Promise<AggregateResult> {
    const scan = await this.#countScan(collectionId, query, options, (indexes) => checkAggregates(indexes.layout, query.aggregates));
    const aggregates = scan.checked;
    const aggregator = new Aggregator(aggregates);
    const what = ['count', ...AGGREGATE_KINDS.filter((kind) => aggregates[kind])].join(', ');
    const count = await countRecords(this.#kv, scan.source, readFilter, scan.scanLimit, RECORD_JSON_START, (record) => aggregator.add(record), what, options.inForm);
    return { count, ...aggregator.values(), timestamp: scan.timestamp };
  }

  /**
   * What a count (or an aggregate) reads: the store's clock, the ranges of the where's plan (confined by
   * `options.confine`) and the scan bound. `check` sees the collection's indexes before the plan is confined (an
   * aggregate checks its fields there), and its result is handed back.
   */
  async #countScan<T>(collectionId: string, query: CountQuery, options: CountOptions, check: (indexes: CollectionIndexes) => T) {
    checkCollectionId(collectionId);
    if (typeof query !== 'object' || query === null) throw invalidQuery('the query must be an object');
    const [clock, layoutBytes] = await this.#kv.getMany([clockKey, layoutKey(collectionId)]);
    if (!layoutBytes) throw collectionNotFound(collectionId);
    const timestamp = clockTimestamp(clock);
    const indexes = this.#layouts.indexes(collectionId, layoutBytes);
    const checked = check(indexes);
    const plan = cachedPlan(indexes, query.where, undefined);
    await options.confine?.(scanBoundsOf(plan));
    const scanLimit = Math.max(1, Math.floor(options.scanLimit ?? DEFAULT_COUNT_SCAN_LIMIT));
    return { timestamp, source: unionCountSource(indexes, plan), scanLimit, checked };
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
    const stored = await this.#kv.get(cursorKeyKey);
    if (stored) return stored;
    // Servers racing to make it all end with the one committed first: the transaction reads the key under the
    // commit lock, and writes its own only if there is none yet. (A transaction that writes nothing still
    // advances the clock, as defineCollection's with an unchanged layout does; this one runs once per database.)
    const fresh = randomBytes(CURSOR_KEY_BYTES);
    const { result } = await this.#kv.transact([cursorKeyKey], ([current]) =>
      current ? { ops: [], result: current } : { ops: [{ kind: 'put', key: cursorKeyKey, value: fresh }], result: fresh },
    );
    return result;
  }
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

/** What a plan reads, for `confine`: each range, with the alternative it serves and the fields it fixes. */
function scanBoundsOf(plan: UnionPlan): ScanBounds {
  return { ranges: plan.segments.map((segment) => segment.bounds) };
}
