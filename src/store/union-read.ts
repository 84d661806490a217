// Reading a plan (planner.ts: a union of index ranges, one range for a plain where): a list page, merged from its
// ranges in order, and a count of the records a query matches.

import { keySuccessor } from './encoding.ts';
import { StoreError } from './errors.ts';
import type { CollectionIndexes, JsonObject } from './index-entries.ts';
import type { KvStore } from './kv.ts';
import { MergedScan, type MergedEntry, type MergeSource } from './merged-scan.ts';
import { absoluteRange, type UnionPlan } from './planner.ts';

export interface UnionPageRequest<T> {
  readonly limit: number;
  /** Going back from `position` (a `before` cursor) instead of on from it. */
  readonly backward: boolean;
  /** The position of the request's cursor, in the plan's cursor index (`UnionPlan.cursor`). */
  readonly position: Buffer | undefined;
  readonly readFilter: ((record: JsonObject) => boolean | Promise<boolean>) | undefined;
  readonly scanLimit: number;
  readonly pageBytes: number;
  readonly textStart: number;
  /** Makes a result of a record's text, and of the record itself when it was already parsed. */
  readonly output: (text: string, parsed: JsonObject | undefined) => T;
}

export interface UnionPage<T> {
  /** The records, in the query's order (reversed when reading backwards). */
  readonly records: T[];
  /**
   * Positions in the plan's cursor index (`UnionPlan.cursor`), in the order read: the first and last entries
   * read, and the first and last records returned.
   */
  readonly read: { readonly first: Buffer | undefined; readonly last: Buffer | undefined };
  readonly returned: { readonly first: Buffer | undefined; readonly last: Buffer | undefined };
  /** The scan bound stopped the read before the page was full and before the ranges ended. */
  readonly cutShort: boolean;
  /**
   * When cut short: the positions of the entries read since the last record returned, latest last (at most
   * RECENT_KEYS), among which a fixed-length scan cursor may step back (reading.ts), never to before a record
   * returned.
   */
  readonly recent: readonly Buffer[];
}

/**
 * How many of the latest entries' keys a page keeps for a scan cursor to step back among: the most entries the
 * next request reads again.
 */
export const RECENT_KEYS = 64;

/** The plan's ranges as merge sources, each starting after (or, backwards, before) the cursor's position. */
function sourcesOf(indexes: CollectionIndexes, plan: UnionPlan, position: Buffer | undefined, scanReverse: boolean): MergeSource[] {
  const sources: MergeSource[] = [];
  for (const segment of plan.segments) {
    const prefix = indexes.prefixOf(segment.index);
    const base = Buffer.concat([prefix, segment.equalPrefix]);
    let { gte, lt } = absoluteRange(prefix, segment.range);
    if (position !== undefined) {
      // A position in the segment's own index, or an order key under each range's equality prefix.
      const at = Buffer.concat([plan.cursor.index === plan.order ? base : prefix, position]);
      if (!scanReverse) gte = maxKey(gte, keySuccessor(at));
      else lt = minKey(lt, at);
    }
    sources.push({ base, range: { gte, lt } });
  }
  return sources;
}

export async function readUnionPage<T>(kv: KvStore, indexes: CollectionIndexes, plan: UnionPlan, request: UnionPageRequest<T>): Promise<UnionPage<T>> {
  const { limit, pageBytes, scanLimit, readFilter } = request;
  const scanReverse = plan.reverse !== request.backward;
  const scan = new MergedScan(kv, sourcesOf(indexes, plan, request.position, scanReverse), {
    reverse: scanReverse,
    orderKeyOf: plan.orderKeyOf,
    textStart: request.textStart,
  });
  // Without conditions or a read filter every entry read is returned, so exactly the rest of the page is read;
  // with them, at least 32 entries a round, as some may be left out.
  const filtered = !plan.matchesAll || readFilter !== undefined;
  const records: T[] = [];
  let bytes = 0;
  let scanned = 0;
  // The entries that place the cursors. An entry's position is computed from its record only for these (its key
  // is a function of the record it holds), so a page without conditions parses no record but the last.
  let first: MergedEntry | undefined;
  let last: MergedEntry | undefined;
  let firstReturned: MergedEntry | undefined;
  let lastReturned: MergedEntry | undefined;
  let recent: MergedEntry[] = [];
  let exhausted = false;
  while (records.length < limit && bytes < pageBytes && scanned < scanLimit) {
    const rest = Math.min(limit - records.length, scanLimit - scanned);
    const entry = scan.take() ?? (await scan.next(filtered ? Math.min(Math.max(rest, 32), scanLimit - scanned) : rest, pageBytes - bytes));
    if (!entry) {
      exhausted = true;
      break;
    }
    scanned++;
    first ??= entry;
    last = entry;
    if (filtered && !((plan.matchesAll || plan.matches(entry.record)) && (!readFilter || (await readFilter(entry.record))))) {
      if (readFilter) {
        recent.push(entry);
        if (recent.length > RECENT_KEYS) recent = recent.slice(-RECENT_KEYS);
      }
      continue;
    }
    records.push(request.output(entry.text, entry.parsed));
    bytes += entry.bytes;
    firstReturned ??= entry;
    lastReturned = entry;
    if (readFilter) recent = [entry];
  }
  // The bound stopped the read: a page neither full nor at the end of its ranges (take() tells whether any is left).
  const cutShort = !exhausted && records.length < limit && bytes < pageBytes && (scan.take() ?? (await scan.next(1, 1))) !== undefined;
  if (request.backward) records.reverse();
  return {
    records,
    read: { first: positionOf(plan, first), last: positionOf(plan, last) },
    returned: { first: positionOf(plan, firstReturned), last: positionOf(plan, lastReturned) },
    cutShort,
    recent: cutShort ? recent.map((entry) => positionOf(plan, entry)!) : [],
  };
}

/** An entry's position in the plan's cursor index (`UnionPlan.cursor`). */
function positionOf(plan: UnionPlan, entry: MergedEntry | undefined): Buffer | undefined {
  return entry && (plan.cursor.prefix.length === 0 ? entry.orderKey : Buffer.concat([plan.cursor.prefix, entry.orderKey]));
}

/** How many index entries a count reads, unless the caller says otherwise. */
export const DEFAULT_COUNT_SCAN_LIMIT = 100_000;

export interface CountSource {
  readonly sources: readonly MergeSource[];
  readonly orderKeyOf: (record: JsonObject) => Buffer;
  readonly matches: (record: JsonObject) => boolean;
  /** Every entry matches (no condition to re-check): records are not parsed for it. */
  readonly matchesAll?: boolean;
  /** What is filtered during the scan rather than by an index (UnionPlan.scanFiltered), for the bound's error. */
  readonly scanFiltered?: string;
}

/** The sources of a union plan, for counting. */
export function unionCountSource(indexes: CollectionIndexes, plan: UnionPlan): CountSource {
  return {
    sources: sourcesOf(indexes, plan, undefined, false),
    orderKeyOf: plan.orderKeyOf,
    matches: plan.matches,
    matchesAll: plan.matchesAll,
    ...(plan.scanFiltered ? { scanFiltered: plan.scanFiltered } : {}),
  };
}

/**
 * The number of records of the sources that match and pass the read filter, each handed to `visit` (aggregates,
 * aggregates.ts). Past `scanLimit` entries read, it stops with `indexer/scan-limit-exceeded` rather than reading on without bound;
 * `what` names the request in that error (`count`, or the aggregates asked for).
 */
export async function countRecords(
  kv: KvStore,
  count: CountSource,
  readFilter: ((record: JsonObject) => boolean | Promise<boolean>) | undefined,
  scanLimit: number,
  textStart: number,
  visit?: (record: JsonObject) => void,
  what = 'count',
  inForm?: (record: JsonObject) => JsonObject | Promise<JsonObject>,
): Promise<number> {
  const scan = new MergedScan(kv, count.sources, { reverse: false, orderKeyOf: count.orderKeyOf, textStart });
  let scanned = 0;
  let matched = 0;
  for (;;) {
    const entry = scan.take() ?? (await scan.next(Math.min(500, scanLimit - scanned + 1), 16 * 1024 * 1024));
    if (!entry) return matched;
    if (++scanned > scanLimit) {
      throw new StoreError(
        'failed-precondition',
        'indexer/scan-limit-exceeded',
        `${what} reads at most ${scanLimit} index entries, and this query has more${count.scanFiltered ? ` (${count.scanFiltered}, ${matched} matching so far)` : ''}; narrow the where to count fewer records at once`,
      );
    }
    // The record is parsed only when something looks at it (a count without conditions reads none).
    if (inForm) {
      const record = await inForm(entry.record);
      if ((count.matchesAll || count.matches(record)) && (!readFilter || (await readFilter(record)))) {
        matched++;
        visit?.(record);
      }
    } else if ((count.matchesAll || count.matches(entry.record)) && (!readFilter || (await readFilter(entry.record)))) {
      matched++;
      visit?.(entry.record);
    }
  }
}

function maxKey(a: Buffer, b: Buffer): Buffer {
  return Buffer.compare(a, b) >= 0 ? a : b;
}

function minKey(a: Buffer, b: Buffer): Buffer {
  return Buffer.compare(a, b) <= 0 ? a : b;
}
