// The query planner: a list query's `where` and `sort` become one contiguous range of one index.
//
// A query is served by index [f1 .. fn] when
//   - the equality fields are exactly its first k fields (in any order and direction),
//   - then the range field, if any (it must also be the first sort field, if there is a sort),
//   - then the remaining sort fields in order, all in the index's direction or all in the opposite one (the
//     index is then read backwards). A sort on an equality field is dropped: every result has the same value.
// Indexes are tried shortest first. Every index ends with `id`, so ties are broken by id and the position of a
// record in an index is unique, which is what a cursor records.

import { encodeValue, prefixEnd, TAG, typeTag, type Direction, type KeyValue } from './encoding.ts';
import { queryKeyValue, recordKeyValue, type IndexableType } from './cast.ts';
import { invalidQuery, invalidQueryValue, StoreError } from './errors.ts';
import { valueAtPath, type IndexDefinition, type Layout } from './layout.ts';
import type { KeyRange } from './keys.ts';

export type Where = Record<string, unknown>;
export type Sort = readonly (readonly [string, string])[];

interface Bound {
  readonly value: KeyValue;
  readonly inclusive: boolean;
  /** The value's full ascending encoding, for re-checks. */
  readonly key: Buffer;
}

export interface Condition {
  readonly path: string;
  readonly type: IndexableType;
  readonly equal?: KeyValue;
  /** The equality value's full ascending encoding, for re-checks. */
  readonly equalKey?: Buffer;
  readonly lower?: Bound;
  readonly upper?: Bound;
}

export interface Plan {
  readonly index: IndexDefinition;
  /** Read the index from its largest key down. */
  readonly reverse: boolean;
  /** The range of keys, relative to the index's prefix; `lt` undefined means "to the end of the index". */
  readonly range: { readonly gte: Buffer; readonly lt: Buffer | undefined };
  /** Every where condition, to re-check records against (index keys hold truncated long strings). */
  readonly conditions: readonly Condition[];
}

export interface SortRequirement {
  readonly path: string;
  /** Null: either direction will do (a range filter with no sort on its field). */
  readonly direction: Direction | null;
}

const OPERATORS = new Set(['$eq', '$gt', '$gte', '$lt', '$lte']);

export function planQuery(layout: Layout, indexes: readonly IndexDefinition[], where: unknown, sort: unknown): Plan {
  const conditions = parseWhere(layout, where);
  const sortEntries = parseSort(layout, sort);

  const equalities = conditions.filter((c) => c.equal !== undefined);
  const ranges = conditions.filter((c) => c.equal === undefined);
  if (ranges.length > 1) {
    throw new StoreError(
      'invalid-argument',
      'indexer/query-inequality-not-last',
      `only one field may have a range filter ($gt, $gte, $lt, $lte), got ${ranges.map((r) => `"${r.path}"`).join(' and ')}`,
    );
  }
  const range = ranges[0];
  const equalPaths = new Set(equalities.map((c) => c.path));
  const sorts = sortEntries.filter((s) => !equalPaths.has(s.path));
  const requirements: SortRequirement[] = [...sorts];
  if (range) {
    if (sorts.length > 0 && sorts[0]!.path !== range.path) {
      throw new StoreError(
        'invalid-argument',
        'indexer/query-inequality-not-last',
        `the range filter on "${range.path}" needs "${range.path}" as the first sort field, but the sort starts with "${sorts[0]!.path}"`,
      );
    }
    if (sorts.length === 0) requirements.push({ path: range.path, direction: null });
  }

  for (const index of indexes) {
    const reverse = matches(index, equalPaths, requirements);
    if (reverse === undefined) continue;
    return { index, reverse, range: keyRange(index, equalities, range), conditions };
  }
  throw new StoreError(
    'failed-precondition',
    'indexer/missing-index',
    `no index found matching the query; add \`@index(${suggestIndex(equalities, requirements)});\` to collection ${layout.collection}`,
  );
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

export function keyRange(index: IndexDefinition, equalities: readonly Condition[], range: Condition | undefined): Plan['range'] {
  const byPath = new Map(equalities.map((c) => [c.path, c.equal!]));
  const prefix = Buffer.concat(index.fields.slice(0, equalities.length).map((f) => encodeValue(byPath.get(f.path)!, f.direction)));
  if (!range) return { gte: prefix, lt: prefixEnd(prefix) };
  const field = index.fields[equalities.length]!;
  const tag = Buffer.concat([prefix, typeTag(range.type.kind, field.direction)]);
  // In a descending field, the value's upper bound is the key's lower bound.
  const [low, high] = field.direction === 'asc' ? [range.lower, range.upper] : [range.upper, range.lower];
  const at = (bound: Bound) => {
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

function suggestIndex(equalities: readonly Condition[], requirements: readonly SortRequirement[]): string {
  const parts = [
    ...equalities.map((c) => c.path),
    ...requirements.map((r) => (r.direction === 'desc' ? `[${r.path}, desc]` : r.path)),
  ];
  if (parts.length > 1 && parts.at(-1) === 'id' && requirements.at(-1)?.direction !== 'desc') parts.pop();
  return parts.join(', ');
}

// -------------------------------------------------------------------------------------------------------------
// Parsing where and sort, as received over HTTP (already JSON-parsed)

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fieldType(layout: Layout, path: unknown, context: string): IndexableType {
  if (typeof path !== 'string') throw invalidQuery(`${context}: a field path must be a string, got ${JSON.stringify(path)}`);
  const field = Object.hasOwn(layout.fields, path) ? layout.fields[path] : undefined;
  if (!field) throw invalidQuery(`${context}: collection ${layout.collection} has no field "${path}"`);
  if (field.element && context === 'where') throw invalidQuery(`where: field "${path}" is an array (${field.typeText}); query it with {"$contains": value}`);
  if (!field.indexable) throw invalidQuery(`${context}: cannot query field "${path}" of type ${field.typeText}`);
  return field.indexable;
}

export function parseWhere(layout: Layout, where: unknown): Condition[] {
  if (where === undefined || where === null) return [];
  if (!isPlainObject(where)) throw invalidQuery(`where must be a JSON object of field paths, got ${JSON.stringify(where)}`);
  const conditions: Condition[] = [];
  for (const [path, node] of Object.entries(where)) {
    const type = fieldType(layout, path, 'where');
    const keys = isPlainObject(node) ? Object.keys(node) : [];
    const isOperators = keys.length > 0 && keys.every((key) => key.startsWith('$'));
    if (!isOperators) {
      if (isPlainObject(node) && keys.length === 0) throw invalidQueryValue(`where: field "${path}" has an empty object; expected a value or $eq, $gt, $gte, $lt, $lte`);
      conditions.push(equality(path, type, queryKeyValue(type, node, path)));
      continue;
    }
    const ops = node as Record<string, unknown>;
    for (const key of keys) {
      if (!OPERATORS.has(key)) throw invalidQuery(`where: unknown operator "${key}" at field "${path}"; expected $eq, $gt, $gte, $lt or $lte`);
    }
    if ('$eq' in ops) {
      if (keys.length > 1) throw invalidQuery(`where: field "${path}" cannot combine $eq with other operators`);
      conditions.push(equality(path, type, queryKeyValue(type, ops.$eq, path)));
      continue;
    }
    if ('$gt' in ops && '$gte' in ops) throw invalidQuery(`where: field "${path}" has both $gt and $gte`);
    if ('$lt' in ops && '$lte' in ops) throw invalidQuery(`where: field "${path}" has both $lt and $lte`);
    const bound = (op: string): Bound | undefined => {
      if (!(op in ops)) return undefined;
      const value = queryKeyValue(type, ops[op], path);
      return { value, inclusive: op.endsWith('e'), key: encodeValue(value, 'asc', false) };
    };
    const lower = bound('$gt') ?? bound('$gte');
    const upper = bound('$lt') ?? bound('$lte');
    conditions.push({ path, type, ...(lower ? { lower } : {}), ...(upper ? { upper } : {}) });
  }
  return conditions;
}

function equality(path: string, type: IndexableType, value: KeyValue): Condition {
  return { path, type, equal: value, equalKey: encodeValue(value, 'asc', false) };
}

export function parseSort(layout: Layout, sort: unknown): SortRequirement[] {
  if (sort === undefined || sort === null) return [];
  if (!Array.isArray(sort)) throw invalidQuery(`sort must be a JSON array of [field, "asc" | "desc"] pairs, got ${JSON.stringify(sort)}`);
  const seen = new Set<string>();
  return sort.map((entry: unknown): SortRequirement => {
    const [path, direction = 'asc'] = Array.isArray(entry) ? entry : [entry];
    fieldType(layout, path, 'sort');
    const dir = typeof direction === 'string' ? direction.toLowerCase() : direction;
    if (dir !== 'asc' && dir !== 'desc') throw invalidQuery(`sort: direction of "${path}" must be "asc" or "desc", got ${JSON.stringify(direction)}`);
    if (seen.has(path as string)) throw invalidQuery(`sort: field "${path}" appears twice`);
    seen.add(path as string);
    return { path: path as string, direction: dir };
  });
}

// -------------------------------------------------------------------------------------------------------------
// Re-checking a record against the conditions

export function recordMatches(record: unknown, conditions: readonly Condition[]): boolean {
  for (const c of conditions) {
    const actual = encodeValue(recordKeyValue(c.type, valueAtPath(record, c.path)), 'asc', false);
    if (c.equalKey !== undefined) {
      if (!actual.equals(c.equalKey)) return false;
      continue;
    }
    // A range never matches null or a value of another type: its key range is bounded by the type's tag.
    if (actual[0] !== TAG[c.type.kind]) return false;
    if (c.lower) {
      const cmp = Buffer.compare(actual, c.lower.key);
      if (cmp < 0 || (cmp === 0 && !c.lower.inclusive)) return false;
    }
    if (c.upper) {
      const cmp = Buffer.compare(actual, c.upper.key);
      if (cmp > 0 || (cmp === 0 && !c.upper.inclusive)) return false;
    }
  }
  return true;
}

/** The plan's range under the index's key prefix. */
export function absoluteRange(prefix: Buffer, range: Plan['range']): KeyRange {
  return { gte: Buffer.concat([prefix, range.gte]), lt: range.lt ? Buffer.concat([prefix, range.lt]) : prefixEnd(prefix)! };
}
