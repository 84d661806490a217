// The `where` language (its operators: where-operators.ts): equality (a bare value or `$eq`), ranges (`$gt`,
// `$gte`, `$lt`, `$lte`), `$ne`, `$in`, `$nin`, `$contains` (an element of an array field), `$exists` (whether an
// optional field is set), `$startsWith` (a string field's prefix) and `$or` (a disjunction of where objects). A where is turned into
// its disjunctive normal form: a list of branches, each a conjunction of at most one filter per field, and a
// record matches when it matches any branch. The sizes are bounded like Firestore's: `$in` at most 30 values,
// `$nin` at most 10, and at most 30 branches once every `$or` is multiplied out.
//
// Missing fields, null and values of another type never match `$ne`, `$nin`, `$contains` or a range: they are
// one value (null) in an index, and a filter names a value of the field's type (docs/service.md).

import { encodeValue, NULL_VALUE, TAG, type KeyValue } from './encoding.ts';
import { queryKeyValue, recordKeyValue, type IndexableType } from './cast.ts';
import { invalidQuery, invalidQueryValue } from './errors.ts';
import { valueAtPath, type Layout } from './layout.ts';
import { WHERE_LIMITS, WHERE_OPERATOR_NAMES, WHERE_OPERATORS } from '../wire/index.ts';

export const MAX_IN_VALUES = WHERE_OPERATORS.$in.maxValues;
export const MAX_NIN_VALUES = WHERE_OPERATORS.$nin.maxValues;
export const MAX_BRANCHES = WHERE_LIMITS.branches;
/** How deep `$or` may nest (each level is a where inside an `$or` array); deeper is refused, not recursed into. */
export const MAX_OR_DEPTH = WHERE_LIMITS.orDepth;
const FIELD_OPERATORS: readonly string[] = WHERE_OPERATOR_NAMES;

export interface Bound {
  readonly value: KeyValue;
  readonly inclusive: boolean;
}

/** One field's filter in a branch. Every value is cast to the field's type (or, for $contains, its element's). */
export type FieldFilter =
  | { readonly kind: 'equal'; readonly path: string; readonly type: IndexableType; readonly value: KeyValue }
  | { readonly kind: 'in'; readonly path: string; readonly type: IndexableType; readonly values: readonly KeyValue[] }
  | { readonly kind: 'contains'; readonly path: string; readonly type: IndexableType; readonly value: KeyValue }
  /** `$startsWith`: a string field's values that begin with `prefix` (one index range, encoding.ts stringPrefixKey). */
  | { readonly kind: 'prefix'; readonly path: string; readonly type: IndexableType; readonly prefix: string }
  | {
      readonly kind: 'range';
      readonly path: string;
      readonly type: IndexableType;
      readonly lower?: Bound;
      readonly upper?: Bound;
      /** Values left out ($ne, $nin), in ascending key order, without repeats. */
      readonly excluded: readonly KeyValue[];
    };

/** A conjunction: at most one filter per field. */
export type Branch = readonly FieldFilter[];

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The where's branches (one when it has no `$or`); every problem is an `invalid-argument` error naming the field and operator. */
export function parseExtendedWhere(layout: Layout, where: unknown): Branch[] {
  const branches = normalise(layout, where, 'where', 0);
  if (branches.length === 0) throw invalidQuery('where: $or needs at least one where object');
  return branches;
}

function normalise(layout: Layout, where: unknown, context: string, depth: number): Branch[] {
  if (where === undefined || where === null) return [[]];
  if (!isPlainObject(where)) throw invalidQuery(`${context} must be a JSON object of field paths, got ${JSON.stringify(where)}`);
  const own: FieldFilter[] = [];
  let alternatives: Branch[] = [[]];
  for (const [path, node] of Object.entries(where)) {
    if (path === '$or') {
      if (depth === MAX_OR_DEPTH) throw invalidQuery(`${context}: $or nests more than ${MAX_OR_DEPTH} levels deep`);
      alternatives = conjoin(alternatives, disjunction(layout, node, `${context}.$or`, depth + 1), context);
      continue;
    }
    own.push(fieldFilter(layout, path, node, context));
  }
  return conjoin([own], alternatives, context);
}

function disjunction(layout: Layout, node: unknown, context: string, depth: number): Branch[] {
  if (!Array.isArray(node) || node.length === 0) throw invalidQuery(`${context} must be a non-empty JSON array of where objects, got ${preview(node)}`);
  if (node.length > MAX_BRANCHES) throw invalidQuery(`${context} has ${node.length} alternatives; at most ${MAX_BRANCHES} are allowed`);
  const branches: Branch[] = [];
  node.forEach((alternative, i) => {
    // A where may be absent (null), but an alternative of an $or may not: null is not "no condition" there.
    if (!isPlainObject(alternative)) throw invalidQuery(`${context}[${i}] must be a JSON object of field paths, got ${preview(alternative)}`);
    for (const branch of normalise(layout, alternative, `${context}[${i}]`, depth)) {
      branches.push(branch);
      if (branches.length > MAX_BRANCHES) throw tooManyBranches(context);
    }
  });
  return branches;
}

/** Every branch of `a` with every branch of `b`; a field filtered in both halves of a pair is refused. */
function conjoin(a: readonly Branch[], b: readonly Branch[], context: string): Branch[] {
  if (a.length * b.length > MAX_BRANCHES) throw tooManyBranches(context);
  const out: Branch[] = [];
  for (const left of a) {
    for (const right of b) {
      const paths = new Set(left.map((f) => f.path));
      const twice = right.find((f) => paths.has(f.path));
      if (twice) throw invalidQuery(`${context}: field "${twice.path}" is filtered both inside and outside an $or; put every filter of a field in one place`);
      out.push([...left, ...right]);
    }
  }
  return out;
}

function tooManyBranches(context: string) {
  return invalidQuery(`${context}: the where has more than ${MAX_BRANCHES} alternatives once every $or is multiplied out`);
}

interface FieldTypes {
  readonly scalar: IndexableType | null;
  readonly element: IndexableType | null;
}

function fieldTypes(layout: Layout, path: string, context: string): FieldTypes {
  const field = Object.hasOwn(layout.fields, path) ? layout.fields[path] : undefined;
  if (!field) throw invalidQuery(`${context}: collection ${layout.collection} has no field "${path}"`);
  const element = field.element ?? null;
  if (!field.indexable && !element) throw invalidQuery(`${context}: cannot query field "${path}" of type ${field.typeText}`);
  return { scalar: field.indexable, element };
}

function fieldFilter(layout: Layout, path: string, node: unknown, context: string): FieldFilter {
  const types = fieldTypes(layout, path, context);
  const keys = isPlainObject(node) ? Object.keys(node) : [];
  const isOperators = keys.length > 0 && keys.every((key) => key.startsWith('$'));
  if (types.element) {
    // An array field: only $contains says what to look for in it.
    if (!isOperators || keys.length !== 1 || keys[0] !== '$contains') {
      throw invalidQuery(`${context}: field "${path}" is an array (${layout.fields[path]!.typeText}); query it with {"$contains": value}`);
    }
    const value = (node as Record<string, unknown>).$contains;
    return { kind: 'contains', path, type: types.element, value: queryKeyValue(types.element, value, path) };
  }
  const type = types.scalar!;
  if (!isOperators) {
    if (isPlainObject(node) && keys.length === 0) throw invalidQueryValue(`${context}: field "${path}" has an empty object; expected a value or one of ${FIELD_OPERATORS.join(', ')}`);
    return { kind: 'equal', path, type, value: queryKeyValue(type, node, path) };
  }
  const ops = node as Record<string, unknown>;
  for (const key of keys) {
    if (key === '$contains') throw invalidQuery(`${context}: $contains at field "${path}" needs an array field, but "${path}" is ${layout.fields[path]!.typeText}`);
    if (!FIELD_OPERATORS.includes(key)) throw invalidQuery(`${context}: unknown operator "${key}" at field "${path}"; expected one of ${FIELD_OPERATORS.join(', ')}`);
  }
  for (const alone of ['$eq', '$in', '$startsWith']) {
    if (alone in ops && keys.length > 1) throw invalidQuery(`${context}: field "${path}" cannot combine ${alone} with other operators`);
  }
  if ('$exists' in ops) {
    const exists = existsOperand(layout, path, ops.$exists, context);
    if (!exists) {
      if (keys.length > 1) throw invalidQuery(`${context}: field "${path}" cannot combine {"$exists": false} with other operators (a missing field matches none of them)`);
      return { kind: 'equal', path, type, value: NULL_VALUE };
    }
    // {"$exists": true} is every value of the field's type: a range with no bounds (and any bounds given beside it).
  }
  if ('$startsWith' in ops) return { kind: 'prefix', path, type, prefix: prefixOperand(layout, path, ops.$startsWith, context) };
  if ('$eq' in ops) return { kind: 'equal', path, type, value: queryKeyValue(type, ops.$eq, path) };
  if ('$in' in ops) {
    const values = valueList(type, ops.$in, path, '$in', MAX_IN_VALUES, context);
    return values.length === 1 ? { kind: 'equal', path, type, value: values[0]! } : { kind: 'in', path, type, values };
  }
  if ('$gt' in ops && '$gte' in ops) throw invalidQuery(`${context}: field "${path}" has both $gt and $gte`);
  if ('$lt' in ops && '$lte' in ops) throw invalidQuery(`${context}: field "${path}" has both $lt and $lte`);
  const bound = (op: string): Bound | undefined => (op in ops ? { value: queryKeyValue(type, ops[op], path), inclusive: op.endsWith('e') } : undefined);
  const lower = bound('$gt') ?? bound('$gte');
  const upper = bound('$lt') ?? bound('$lte');
  const excluded = [
    ...('$ne' in ops ? [queryKeyValue(type, ops.$ne, path)] : []),
    ...('$nin' in ops ? valueList(type, ops.$nin, path, '$nin', MAX_NIN_VALUES, context) : []),
  ];
  return { kind: 'range', path, type, ...(lower ? { lower } : {}), ...(upper ? { upper } : {}), excluded: sortedUnique(excluded) };
}

/**
 * `$exists`'s operand, on a field that may be absent: declared optional (`name?: string`), or inside an optional
 * object. A missing field and a value that does not fit the field's type are one value in an index (null).
 */
function existsOperand(layout: Layout, path: string, operand: unknown, context: string): boolean {
  if (typeof operand !== 'boolean') throw invalidQueryValue(`${context}: $exists at field "${path}" takes true or false, got ${preview(operand)}`);
  if (!mayBeAbsent(layout, path)) {
    throw invalidQuery(
      `${context}: $exists at field "${path}": "${path}" is required (declared \`${path.split('.').at(-1)}: ${layout.fields[path]!.typeText}\`), so every record has it; $exists applies only to optional fields (declared with "?")`,
    );
  }
  return operand;
}

/** Whether the field, or an object it lies in, is optional. */
function mayBeAbsent(layout: Layout, path: string): boolean {
  const parts = path.split('.');
  return parts.some((_, i) => layout.fields[parts.slice(0, i + 1).join('.')]?.optional === true);
}

/** With the `u` flag a class of surrogates matches only one that is not half of a pair. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/** `$startsWith`'s operand: a well-formed string, on a string field. */
function prefixOperand(layout: Layout, path: string, operand: unknown, context: string): string {
  const field = layout.fields[path]!;
  if (field.indexable?.kind !== 'string') throw invalidQuery(`${context}: $startsWith at field "${path}" needs a string field, but "${path}" is ${field.typeText}`);
  if (typeof operand !== 'string') throw invalidQueryValue(`${context}: $startsWith at field "${path}" takes a string, got ${preview(operand)}`);
  // A lone surrogate has no UTF-8 bytes of its own (it is written as U+FFFD), so no index range means it.
  if (LONE_SURROGATE.test(operand)) throw invalidQueryValue(`${context}: $startsWith at field "${path}" takes well-formed Unicode text; ${preview(operand)} has a lone surrogate`);
  return operand;
}

function valueList(type: IndexableType, list: unknown, path: string, op: string, most: number, context: string): KeyValue[] {
  if (!Array.isArray(list) || list.length === 0) throw invalidQuery(`${context}: ${op} at field "${path}" must be a non-empty JSON array of values, got ${preview(list)}`);
  if (list.length > most) throw invalidQuery(`${context}: ${op} at field "${path}" has ${list.length} values; at most ${most} are allowed`);
  return sortedUnique(list.map((value) => queryKeyValue(type, value, path)));
}

/** Values in ascending key order, each once. */
export function sortedUnique(values: readonly KeyValue[]): KeyValue[] {
  const byKey = new Map<string, KeyValue>();
  for (const value of values) byKey.set(exactKey(value).toString('latin1'), value);
  return [...byKey.entries()].sort(([a], [b]) => Buffer.compare(Buffer.from(a, 'latin1'), Buffer.from(b, 'latin1'))).map(([, value]) => value);
}

/** A value's full ascending encoding: what re-checks compare. */
export function exactKey(value: KeyValue): Buffer {
  return encodeValue(value, 'asc', false);
}

function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

// -------------------------------------------------------------------------------------------------------------
// Matching a record: what re-checks an index read (index keys hold truncated long strings) and what the tests'
// brute-force filter is compared with.

/** Whether a record matches the where (any where a list takes): for push streams, which check each changed record. */
export function whereMatcher(layout: Layout, where: unknown): (record: unknown) => boolean {
  return branchesMatcher(parseExtendedWhere(layout, where));
}

/** A where's matcher: the branches' filters encoded once, then compared with each record's values. */
export function branchesMatcher(branches: readonly Branch[]): (record: unknown) => boolean {
  const tests = branches.map((branch) => branch.map(filterTest));
  // One alternative (every plain where) is its filters' conjunction, checked without a closure per filter.
  if (tests.length === 1) return allOf(tests[0]!);
  return (record) => tests.some((branch) => branch.every((test) => test(record)));
}

function allOf(tests: readonly ((record: unknown) => boolean)[]): (record: unknown) => boolean {
  if (tests.length === 1) return tests[0]!;
  return (record) => {
    for (const test of tests) if (!test(record)) return false;
    return true;
  };
}

function filterTest(filter: FieldFilter): (record: unknown) => boolean {
  const actual = (record: unknown) => exactKey(recordKeyValue(filter.type, valueAtPath(record, filter.path)));
  switch (filter.kind) {
    case 'equal': {
      const expected = exactKey(filter.value);
      return (record) => actual(record).equals(expected);
    }
    case 'in': {
      const expected = new Set(filter.values.map((v) => exactKey(v).toString('latin1')));
      return (record) => expected.has(actual(record).toString('latin1'));
    }
    case 'contains': {
      const expected = exactKey(filter.value);
      return (record) => {
        const array = valueAtPath(record, filter.path);
        return Array.isArray(array) && array.some((element) => exactKey(recordKeyValue(filter.type, element)).equals(expected));
      };
    }
    case 'prefix': {
      // Compared as UTF-8 bytes, as the index compares them (encoding.ts stringPrefixKey).
      const prefix = Buffer.from(filter.prefix, 'utf8');
      return (record) => {
        const value = valueAtPath(record, filter.path);
        if (typeof value !== 'string') return false;
        const bytes = Buffer.from(value, 'utf8');
        return bytes.length >= prefix.length && bytes.subarray(0, prefix.length).equals(prefix);
      };
    }
    case 'range': {
      const lower = filter.lower && { key: exactKey(filter.lower.value), inclusive: filter.lower.inclusive };
      const upper = filter.upper && { key: exactKey(filter.upper.value), inclusive: filter.upper.inclusive };
      const excluded = new Set(filter.excluded.map((v) => exactKey(v).toString('latin1')));
      return (record) => {
        const key = actual(record);
        // Null (missing) and values of another type are outside every range of the field's type.
        if (key[0] !== TAG[filter.type.kind]) return false;
        if (lower) {
          const cmp = Buffer.compare(key, lower.key);
          if (cmp < 0 || (cmp === 0 && !lower.inclusive)) return false;
        }
        if (upper) {
          const cmp = Buffer.compare(key, upper.key);
          if (cmp > 0 || (cmp === 0 && !upper.inclusive)) return false;
        }
        return !excluded.has(key.toString('latin1'));
      };
    }
  }
}
