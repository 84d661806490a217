// The query planner: every where (where.ts) is planned as a union of index ranges, merged in one order. A plain
// where (equalities and at most one range) is a union of one range.
//
// Each branch of the where is served by one index: its single-valued equalities (and `$in` lists, one range per
// value) fix the index's first fields, the "equality prefix"; at most one field is a range, and the fields after
// the prefix are the branch's order. `$ne` and `$nin` are ranges with gaps (one range per gap); an `$in` on the
// sort field is a range of single points. The ranges of every branch are read and merged by the key bytes after
// their equality prefix, the "order key": it holds the order fields and ends with the record id, so entries of
// different ranges compare in the query's order, and two entries with the same order key are one record (read
// once, however many branches match it). That needs every branch's order fields to be the same, in the same
// direction: the first branch decides them, and a later branch without an index of that order is refused with
// `indexer/missing-index` naming the `@index` that would serve it. The record id is never part of an equality
// prefix: an order key always ends with it.

import { createHash } from 'node:crypto';
import { encodeValue, prefixEnd, stringPrefixKey, typeTag, type Direction, type KeyValue } from './encoding.ts';
import { recordKeyValue, type IndexableType } from './cast.ts';
import { invalidQuery, StoreError } from './errors.ts';
import type { JsonObject } from './index-entries.ts';
import type { KeyRange } from './keys.ts';
import { valueAtPath, type IndexDefinition, type IndexField, type Layout } from './layout.ts';
import { fixesExactly, type FixedField, type ScanRange } from './scan-bounds.ts';
import { WHERE_LIMITS } from '../wire/index.ts';
import { branchesMatcher, exactKey, parseExtendedWhere, type Bound as FilterBound, type Branch, type FieldFilter } from './where.ts';

/** The most index ranges one query may read: every `$in` value, `$ne`/`$nin` gap and `$or` branch is one. */
export const MAX_RANGES = WHERE_LIMITS.ranges;

export interface Segment {
  readonly index: IndexDefinition;
  /** The equality prefix: the keys of the index's first fields, relative to its prefix. The order key follows. */
  readonly equalPrefix: Buffer;
  /** The range of keys, relative to the index's prefix; `lt` undefined means "to the end of the index". */
  readonly range: { readonly gte: Buffer; readonly lt: Buffer | undefined };
  /** The alternative of the where this range serves, and the fields it fixes (scan-bounds.ts). */
  readonly bounds: ScanRange;
}

export interface UnionPlan {
  /**
   * The order the ranges are merged in: the fields of every segment's index after its equality prefix, ending
   * with `id`. Its id (not any real index's) names the query's cursors, which hold an order key.
   */
  readonly order: IndexDefinition;
  /** The order key of a record in `order` (made once with the plan, which plans of repeated queries share). */
  readonly orderKeyOf: (record: JsonObject) => Buffer;
  /** Read every index from its largest key down. */
  readonly reverse: boolean;
  readonly segments: readonly Segment[];
  /** Whether a record matches the where (index keys hold truncated long strings, so entries are re-checked). */
  readonly matches: (record: unknown) => boolean;
  /**
   * Every entry of the ranges matches, and none needs re-checking: the where has no condition, or only equalities
   * that the one range's equality prefix holds exactly (no value cut in its key, `fixesExactly`), as the index
   * keys are made from the record's values as the matcher reads them.
   */
  readonly matchesAll: boolean;
  /**
   * What the query's cursors name. When every range lies in one index under one equality prefix (every query
   * without `$in`, `$contains` or `$or` on its prefix: one range, or the gaps of a `$ne`), that index, a position
   * being the equality prefix and the order key, as an index entry's key is; otherwise the merged `order`, a
   * position being the order key alone.
   */
  readonly cursor: { readonly index: IndexDefinition; readonly prefix: Buffer };
  /**
   * Present when an alternative has a second range field, which no index serves: what is filtered during the scan
   * of which range (`"b" is filtered during the scan of the index range on "a"`), for the scan bound's error.
   */
  readonly scanFiltered?: string;
}

/** The shape of one branch: which fields the index starts with, which one is a range, and the order after. */
interface BranchShape {
  /** Filters of the equality prefix, each with the values it takes (one range per combination). */
  readonly prefix: readonly { readonly filter: FieldFilter; readonly values: readonly KeyValue[] }[];
  /** The range field and its intervals (points for an equality or `$in` on a sort field). */
  readonly range: { readonly filter: FieldFilter; readonly intervals: readonly Interval[] } | undefined;
  readonly requirements: readonly SortRequirement[];
  /** A second range field, filtered during the scan of the first's range rather than by the index. */
  readonly scanned?: string;
  /** Two range fields and no sort chose between them: the other may be the indexed one instead. */
  readonly swappable: boolean;
}

interface Interval {
  readonly lower?: FilterBound;
  readonly upper?: FilterBound;
  /** `$startsWith`: every string beginning with it (instead of bounds). */
  readonly prefix?: string;
}

export function planUnion(layout: Layout, indexes: readonly IndexDefinition[], where: unknown, sort: unknown): UnionPlan {
  const branches = parseExtendedWhere(layout, where);
  const sorts = parseSort(layout, sort);
  const shared = branches.length > 1 ? unionOrder(branches, sorts) : undefined;
  let target: { index: IndexDefinition; start: number; suffix: readonly IndexField[]; reverse: boolean } | undefined;
  const segments: Segment[] = [];
  const scanFiltered: string[] = [];
  let exact = branches.length === 1;
  for (const [number, branch] of branches.entries()) {
    const { shape, index, reverse } = shapeAndIndex(layout, indexes, branch, shared ?? sorts, shared !== undefined, target);
    if (!heldExactly(shape)) exact = false;
    if (shape.scanned !== undefined) scanFiltered.push(`"${shape.scanned}" is filtered during the scan of the index range on "${shape.range!.filter.path}"`);
    target ??= { index, start: shape.prefix.length, suffix: index.fields.slice(shape.prefix.length), reverse };
    for (const segment of expand(index, shape, number)) {
      if (segments.length === MAX_RANGES) {
        throw invalidQuery(`where: the query reads more than ${MAX_RANGES} index ranges (each $in value, each gap left by $ne or $nin, and each $or alternative is one); narrow it`);
      }
      segments.push(segment);
    }
  }
  const order = orderOf(target!.index, target!.start);
  const one = segments[0];
  const inOne = one !== undefined && segments.every((s) => s.index === one.index && s.equalPrefix.equals(one.equalPrefix));
  return {
    order,
    orderKeyOf: (record) => orderKeyOf(order, record),
    reverse: target!.reverse,
    segments,
    matches: branchesMatcher(branches),
    matchesAll: exact,
    cursor: inOne ? { index: one.index, prefix: one.equalPrefix } : { index: order, prefix: Buffer.alloc(0) },
    ...(scanFiltered.length > 0 ? { scanFiltered: [...new Set(scanFiltered)].join('; ') } : {}),
  };
}

/**
 * Whether the branch's range holds only records that match it: every filter an equality of the index's prefix
 * whose value the key holds whole (a range, `$in` or `$contains`, or a cut string, is re-checked).
 */
function heldExactly(shape: BranchShape): boolean {
  if (shape.range !== undefined || shape.scanned !== undefined) return false;
  return shape.prefix.every(({ filter }) => filter.kind === 'equal' && fixesExactly(filter.value));
}

/**
 * The branch's shape and the index that serves it. Of two range fields with no sort to choose between them, the
 * first written is tried first, then the other (a count has no sort, and its list's sort may have chosen it).
 */
function shapeAndIndex(
  layout: Layout,
  indexes: readonly IndexDefinition[],
  branch: Branch,
  sorts: readonly SortRequirement[],
  shared: boolean,
  target: { suffix: readonly IndexField[]; reverse: boolean } | undefined,
): { shape: BranchShape; index: IndexDefinition; reverse: boolean } {
  const shape = branchShape(branch, sorts, shared, false);
  try {
    return { shape, ...chooseIndex(layout, indexes, shape, target) };
  } catch (error) {
    if (!shape.swappable) throw error;
    const other = branchShape(branch, sorts, shared, true);
    try {
      return { shape: other, ...chooseIndex(layout, indexes, other, target) };
    } catch {
      throw error; // the first choice's @index is the one to name
    }
  }
}

/** The merged orders made so far, by index and equality prefix length: a layout's indexes live as long as it does. */
const orders = new WeakMap<IndexDefinition, Map<number, IndexDefinition>>();

/**
 * The merged order of a plan whose first branch reads `index` after `start` equality fields: those fields, ending
 * with `id`. Its id (a hash of the fields, not any real index's) names the cursors of a union over several
 * equality prefixes or indexes. Made once per index and prefix length (hashing it cost most of planning a query).
 */
function orderOf(index: IndexDefinition, start: number): IndexDefinition {
  let byStart = orders.get(index);
  if (!byStart) orders.set(index, (byStart = new Map()));
  let order = byStart.get(start);
  if (!order) {
    const fields = index.fields.slice(start);
    const id = createHash('sha256').update(JSON.stringify(['merged order', fields])).digest('hex').slice(0, 16);
    byStart.set(start, (order = { id, fields, primary: false }));
  }
  return order;
}

/**
 * A union's order, the same for every branch: the sort, or else the one field the branches range over (a query
 * is ordered by its range field), or else none (each index's own, which the first branch decides).
 */
function unionOrder(branches: readonly Branch[], sorts: readonly SortRequirement[]): SortRequirement[] {
  if (sorts.length > 0) return [...sorts];
  // Each alternative's first range field orders it (a second one is filtered during the scan).
  const ranged = [...new Set(branches.flatMap((branch) => branch.filter(isInequality).slice(0, 1).map((f) => f.path)))];
  if (ranged.length > 1) {
    throw inequalityNotLast(`the alternatives of $or filter ranges on different fields (${ranged.map((p) => `"${p}"`).join(' and ')}); results are ordered by the range field, so they must all range over the same one`);
  }
  return ranged.length === 1 ? [{ path: ranged[0]!, direction: null }] : [];
}

/**
 * In a single branch, a sort on a single-valued equality field is dropped (every result has the same value);
 * in a union the order is shared, so such a field stays in it as a range of one point.
 */
function branchShape(branch: Branch, sorts: readonly SortRequirement[], shared: boolean, swap: boolean): BranchShape {
  const single = (f: FieldFilter) => f.kind === 'equal' || f.kind === 'contains';
  const dropped = new Set(shared ? [] : branch.filter((f) => single(f) && f.path !== 'id').map((f) => f.path));
  const requirements: SortRequirement[] = sorts.filter((s) => !dropped.has(s.path));
  const ordered = new Set(requirements.map((r) => r.path));
  const isRange = (f: FieldFilter) => isInequality(f) || f.path === 'id' || ordered.has(f.path);
  const ranges = branch.filter(isRange);
  if (ranges.length > 2) {
    throw inequalityNotLast(
      `at most two fields of one alternative may have a range filter ($gt, $gte, $lt, $lte, $ne, $nin, $exists, $startsWith, or $in or $eq on a sort field or on id), got ${ranges.map((r) => `"${r.path}"`).join(', ')}`,
    );
  }
  // Of two, the index serves the one the sort starts with, else the first written; the other is filtered during
  // the scan of that range (each entry re-checked, under the scan bound).
  const sorted = ranges.find((r) => r.path === requirements[0]?.path);
  const range = sorted ?? ranges[swap ? 1 : 0];
  const scanned = ranges.find((r) => r !== range);
  if (range) {
    if (requirements.length > 0 && requirements[0]!.path !== range.path) {
      throw inequalityNotLast(`the range filter on "${range.path}" needs "${range.path}" as the first sort field, but the sort starts with "${requirements[0]!.path}"`);
    }
    if (requirements.length === 0) requirements.push({ path: range.path, direction: null });
  }
  const prefix = branch.filter((f) => !isRange(f)).map((filter) => ({ filter, values: filter.kind === 'in' ? filter.values : [(filter as { value: KeyValue }).value] }));
  return {
    prefix,
    range: range && { filter: range, intervals: intervalsOf(range) },
    requirements,
    ...(scanned ? { scanned: scanned.path } : {}),
    swappable: scanned !== undefined && sorted === undefined && !swap,
  };
}

/** A filter that is a range of its field's values rather than points: `$gt…$lte`, `$ne`, `$nin`, `$exists: true`, `$startsWith`. */
function isInequality(filter: FieldFilter): boolean {
  return filter.kind === 'range' || filter.kind === 'prefix';
}

function intervalsOf(filter: FieldFilter): Interval[] {
  const point = (value: KeyValue): Interval => ({ lower: { value, inclusive: true }, upper: { value, inclusive: true } });
  switch (filter.kind) {
    case 'prefix':
      return [{ prefix: filter.prefix }];
    case 'equal':
    case 'contains':
      return [point(filter.value)];
    case 'in':
      return filter.values.map(point);
    case 'range': {
      // The gaps between the excluded values that lie within the bounds (the matcher re-checks the rest).
      const intervals: Interval[] = [];
      let lower = filter.lower;
      for (const value of filter.excluded) {
        const key = exactKey(value);
        if (filter.lower && Buffer.compare(key, exactKey(filter.lower.value)) < 0) continue;
        if (filter.upper && Buffer.compare(key, exactKey(filter.upper.value)) > 0) continue;
        intervals.push({ ...(lower ? { lower } : {}), upper: { value, inclusive: false } });
        lower = { value, inclusive: false };
      }
      intervals.push({ ...(lower ? { lower } : {}), ...(filter.upper ? { upper: filter.upper } : {}) });
      return intervals;
    }
  }
}

function chooseIndex(
  layout: Layout,
  indexes: readonly IndexDefinition[],
  shape: BranchShape,
  target: { suffix: readonly IndexField[]; reverse: boolean } | undefined,
): { index: IndexDefinition; reverse: boolean } {
  const prefixPaths = new Set(shape.prefix.map((p) => p.filter.path));
  for (const index of indexes) {
    const reverse = matches(index, prefixPaths, shape.requirements);
    if (reverse === undefined) continue;
    if (target && !(reverse === target.reverse && sameFields(index.fields.slice(prefixPaths.size), target.suffix))) continue;
    return { index, reverse };
  }
  const parts = [...prefixPaths];
  if (target) {
    // The later branch needs the first branch's order after its own equalities.
    const fields = target.suffix.map((f) => (target.reverse ? { ...f, direction: f.direction === 'asc' ? ('desc' as const) : ('asc' as const) } : f));
    parts.push(...fields.map((f) => (f.direction === 'desc' ? `[${f.path}, desc]` : f.path)));
  } else {
    parts.push(...shape.requirements.map((r) => (r.direction === 'desc' ? `[${r.path}, desc]` : r.path)));
  }
  if (parts.length > 1 && parts.at(-1) === 'id') parts.pop();
  throw new StoreError(
    'failed-precondition',
    'indexer/missing-index',
    `no index found matching the query; add \`@index(${parts.join(', ')});\` to collection ${layout.collection}`,
  );
}

function sameFields(a: readonly IndexField[], b: readonly IndexField[]): boolean {
  return a.length === b.length && a.every((f, i) => JSON.stringify(f) === JSON.stringify(b[i]));
}

/** The branch's ranges: one per combination of its prefix values and its range's intervals (empty ones left out). */
function expand(index: IndexDefinition, shape: BranchShape, branch: number): Segment[] {
  let combinations: Map<string, KeyValue>[] = [new Map()];
  for (const { filter, values } of shape.prefix) {
    combinations = combinations.flatMap((combination) => values.map((value) => new Map(combination).set(filter.path, value)));
    if (combinations.length > MAX_RANGES) break; // planUnion refuses the query
  }
  const k = shape.prefix.length;
  const segments: Segment[] = [];
  for (const values of combinations) {
    const equalities: Condition[] = shape.prefix.map(({ filter }) => {
      const value = values.get(filter.path)!;
      return { path: filter.path, type: filter.type, equal: value };
    });
    const equalPrefix = Buffer.concat(index.fields.slice(0, k).map((f) => encodeValue(values.get(f.path)!, f.direction)));
    const intervals = shape.range ? shape.range.intervals : [undefined];
    for (const interval of intervals) {
      const rangeCondition: Condition | undefined = interval && shape.range && { path: shape.range.filter.path, type: shape.range.filter.type, ...interval };
      const range = keyRange(index, equalities, rangeCondition);
      if (range.lt !== undefined && Buffer.compare(range.gte, range.lt) >= 0) continue;
      // The prefix's values are fixed; so is the range field's when an equality, `$in` or `$contains` put it there
      // (a field of the shared order): its interval is then one value.
      const fixed: FixedField[] = index.fields.slice(0, k).map((f) => ({ path: f.path, value: values.get(f.path)! }));
      if (interval && shape.range && !isInequality(shape.range.filter)) fixed.push({ path: shape.range.filter.path, value: interval.lower!.value });
      segments.push({ index, equalPrefix, range, bounds: { branch, fixed: fixed.filter((f) => fixesExactly(f.value)) } });
    }
  }
  return segments;
}

/** The order key of a record: its values of the order's fields, encoded as its index entries encode them. */
export function orderKeyOf(order: IndexDefinition, record: unknown): Buffer {
  const last = order.fields.length - 1;
  const parts = order.fields.map((field, i) =>
    i === last
      ? encodeValue({ kind: 'string', value: String((record as { id?: unknown }).id) }, field.direction, false)
      : encodeValue(recordKeyValue(field.type, valueAtPath(record, field.path)), field.direction),
  );
  return Buffer.concat(parts);
}

function inequalityNotLast(message: string): StoreError {
  return new StoreError('invalid-argument', 'indexer/query-inequality-not-last', `where: ${message}`);
}

// -------------------------------------------------------------------------------------------------------------
// Index matching, key ranges and sorts
//
// A range of index [f1 .. fn] serves a branch when its equality fields are exactly the first k fields (in any
// order and direction), then the range field, if any (also the first sort field, if there is a sort), then the
// remaining sort fields in order, all in the index's direction or all in the opposite one (the index is then read
// backwards). Indexes are tried shortest first. Every index ends with `id`, so ties are broken by id and the
// position of a record in an index is unique, which is what a cursor records.

/** One field's part of a range: an equality of the equality prefix, or the bounds of the range field. */
export interface Condition {
  readonly path: string;
  readonly type: IndexableType;
  readonly equal?: KeyValue;
  readonly lower?: FilterBound;
  readonly upper?: FilterBound;
  /** A string prefix, instead of bounds (`$startsWith`). */
  readonly prefix?: string;
}

export interface SortRequirement {
  readonly path: string;
  /** Null: either direction will do (a range filter with no sort on its field). */
  readonly direction: Direction | null;
}

/** Undefined when the index cannot serve the query, otherwise whether to read it backwards. */
export function matches(index: IndexDefinition, equalPaths: ReadonlySet<string>, requirements: readonly SortRequirement[]): boolean | undefined {
  const fields = index.fields;
  const k = equalPaths.size;
  if (fields.length < k + requirements.length) return undefined;
  // An array field's index holds a record once per element: only an equality on the element ($contains) reads it.
  if (fields.some((field) => field.array && !equalPaths.has(field.path))) return undefined;
  for (let i = 0; i < k; i++) if (!equalPaths.has(fields[i]!.path)) return undefined;
  let orientation: 'same' | 'opposite' | undefined;
  for (let j = 0; j < requirements.length; j++) {
    const field = fields[k + j]!;
    const requirement = requirements[j]!;
    if (field.path !== requirement.path) return undefined;
    if (requirement.direction === null) continue;
    const o = field.direction === requirement.direction ? 'same' : 'opposite';
    if (orientation !== undefined && orientation !== o) return undefined;
    orientation = o;
  }
  return orientation === 'opposite';
}

export function keyRange(index: IndexDefinition, equalities: readonly Condition[], range: Condition | undefined): Segment['range'] {
  const byPath = new Map(equalities.map((c) => [c.path, c.equal!]));
  const prefix = Buffer.concat(index.fields.slice(0, equalities.length).map((f) => encodeValue(byPath.get(f.path)!, f.direction)));
  if (!range) return { gte: prefix, lt: prefixEnd(prefix) };
  const field = index.fields[equalities.length]!;
  if (range.prefix !== undefined) {
    // Every key that begins with the prefix's bytes, and no other (encoding.ts stringPrefixKey).
    const start = Buffer.concat([prefix, stringPrefixKey(range.prefix, field.direction)]);
    return { gte: start, lt: prefixEnd(start) };
  }
  const tag = Buffer.concat([prefix, typeTag(range.type.kind, field.direction)]);
  // In a descending field, the value's upper bound is the key's lower bound.
  const [low, high] = field.direction === 'asc' ? [range.lower, range.upper] : [range.upper, range.lower];
  const at = (bound: FilterBound) => {
    const encoded = encodeValue(bound.value, field.direction);
    // A truncated long string is a lower-precision bound: include its whole run and let the re-check decide.
    const exact = encoded.equals(encodeValue(bound.value, field.direction, false));
    return { key: Buffer.concat([prefix, encoded]), inclusive: bound.inclusive || !exact };
  };
  let gte: Buffer = tag;
  if (low) {
    const { key, inclusive } = at(low);
    gte = inclusive ? key : prefixEnd(key)!;
  }
  let lt = prefixEnd(tag);
  if (high) {
    const { key, inclusive } = at(high);
    lt = inclusive ? prefixEnd(key) : key;
  }
  return { gte, lt };
}

/** A sort field's type; an array field has no single place in an order. */
function sortFieldType(layout: Layout, path: unknown): IndexableType {
  if (typeof path !== 'string') throw invalidQuery(`sort: a field path must be a string, got ${JSON.stringify(path)}`);
  const field = Object.hasOwn(layout.fields, path) ? layout.fields[path] : undefined;
  if (!field) throw invalidQuery(`sort: collection ${layout.collection} has no field "${path}"`);
  if (!field.indexable) throw invalidQuery(`sort: cannot query field "${path}" of type ${field.typeText}`);
  return field.indexable;
}

export function parseSort(layout: Layout, sort: unknown): SortRequirement[] {
  if (sort === undefined || sort === null) return [];
  if (!Array.isArray(sort)) throw invalidQuery(`sort must be a JSON array of [field, "asc" | "desc"] pairs, got ${JSON.stringify(sort)}`);
  const seen = new Set<string>();
  return sort.map((entry: unknown): SortRequirement => {
    const [path, direction = 'asc'] = Array.isArray(entry) ? entry : [entry];
    sortFieldType(layout, path);
    const dir = typeof direction === 'string' ? direction.toLowerCase() : direction;
    if (dir !== 'asc' && dir !== 'desc') throw invalidQuery(`sort: direction of "${path}" must be "asc" or "desc", got ${JSON.stringify(direction)}`);
    if (seen.has(path as string)) throw invalidQuery(`sort: field "${path}" appears twice`);
    seen.add(path as string);
    return { path: path as string, direction: dir };
  });
}

/** A segment's range under the index's key prefix. */
export function absoluteRange(prefix: Buffer, range: Segment['range']): KeyRange {
  return { gte: Buffer.concat([prefix, range.gte]), lt: range.lt ? Buffer.concat([prefix, range.lt]) : prefixEnd(prefix)! };
}
