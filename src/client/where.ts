// The where and sort of a list, typed by a collection's query fields: an interface from each path that has an
// index to the type of value a filter on it takes (the generated `…Schema['queryFields']`).
//
// The operators the service accepts are listed once, here: `Operators` gives each one's operand type and
// `COMPARISONS` the symbol the fluent `where(field, '>=', value)` takes for it. A new operator of the service is
// one line in each (for example `$in: readonly T[]` and `in: '$in'`); the generated code does not change.

/** Each operator of a field's condition, with the type of its operand for a field whose values are `T`. */
export interface Operators<T> {
  $eq: T;
  $gt: T;
  $gte: T;
  $lt: T;
  $lte: T;
}

export type Operator = keyof Operators<unknown>;

/** The symbols of `Query.where(field, symbol, value)`, and the operator each one means. */
export const COMPARISONS = {
  '==': '$eq',
  '>': '$gt',
  '>=': '$gte',
  '<': '$lt',
  '<=': '$lte',
} as const satisfies Record<string, Operator>;

export type Comparison = keyof typeof COMPARISONS;

/** One field's condition as the wire has it: a bare value means equality, or an object of operators. */
export type FieldCondition<T> = T | { [K in Operator]?: Operators<T>[K] };

/** A where object: each key a query field, each value its condition. */
export type Where<Fields> = { [Path in keyof Fields]?: FieldCondition<Fields[Path]> };

export type Direction = 'asc' | 'desc';

/** A sort: `[field, direction]` pairs, the first deciding the order. */
export type Sort<Fields> = ReadonlyArray<readonly [keyof Fields & string, Direction]>;

/** The operand type of `symbol` on a field of type `T`. */
export type Operand<T, Symbol extends Comparison> = Operators<T>[(typeof COMPARISONS)[Symbol]];
