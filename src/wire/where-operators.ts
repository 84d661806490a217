// The where language's operators and limits, written once. The store parses wheres by this table (where.ts),
// the client types them from it (src/client/where.ts) and the explorer builds its query form from it (through
// vellum/client). This file imports nothing (src/wire/index.ts says why).
//
// For each operator: `symbol`, the comparison the client's fluent `where(field, symbol, value)` takes for it
// (Firestore's names); `label`, the explorer's; `operand`, what it takes (`value`: one value of the field's type,
// `list`: a non-empty array of at most `maxValues` of them, `element`: one element of an array field's type,
// `boolean`: true or false, `prefix`: a string); and `on`, the fields it applies to (`array`: only array fields,
// which take nothing else; `scalar`: every other; `optional`: a field declared with `?`, or inside one; `string`: a
// string field).

export const WHERE_OPERATORS = {
  $eq: { symbol: '==', label: '=', operand: 'value', on: 'scalar' },
  $gt: { symbol: '>', label: '>', operand: 'value', on: 'scalar' },
  $gte: { symbol: '>=', label: '≥', operand: 'value', on: 'scalar' },
  $lt: { symbol: '<', label: '<', operand: 'value', on: 'scalar' },
  $lte: { symbol: '<=', label: '≤', operand: 'value', on: 'scalar' },
  $ne: { symbol: '!=', label: '≠', operand: 'value', on: 'scalar' },
  $in: { symbol: 'in', label: 'in', operand: 'list', on: 'scalar', maxValues: 30 },
  $nin: { symbol: 'not-in', label: 'not in', operand: 'list', on: 'scalar', maxValues: 10 },
  $contains: { symbol: 'array-contains', label: 'contains', operand: 'element', on: 'array' },
  $exists: { symbol: 'exists', label: 'exists', operand: 'boolean', on: 'optional' },
  $startsWith: { symbol: 'starts-with', label: 'starts with', operand: 'prefix', on: 'string' },
} as const;

export type WhereOperator = keyof typeof WHERE_OPERATORS;

/** Every operator's name, in the table's order. */
export const WHERE_OPERATOR_NAMES = Object.keys(WHERE_OPERATORS) as WhereOperator[];

/** The bounds of one where, besides each list operator's `maxValues`. */
export const WHERE_LIMITS = {
  /** Alternatives once every `$or` is multiplied out. */
  branches: 30,
  /** Index ranges one query reads: each `$in` value, each gap left by `$ne`/`$nin` and each alternative is one. */
  ranges: 30,
  /** How deep `$or` may nest (each level is a where inside an `$or` array). */
  orDepth: 4,
} as const;
