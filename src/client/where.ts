// The where and sort of a list, typed by a collection's query fields: an interface from each path that has an
// index to the type of value a filter on it takes (the generated `…Schema['queryFields']`). An array field with
// an `@index` is a query field typed as its array (`string[]`): it takes only `$contains` of one element. A field
// records may lack is an optional property (`score?: number`): only those take `$exists`; `$startsWith` takes
// only string fields.
//
// The operators the service accepts, their operands and limits are the store's table (src/store/where-operators.ts,
// imported directly: it imports nothing, so no server code comes with it): `Operators` gives each one's operand
// type and `COMPARISONS` the symbol the fluent `where(field, '>=', value)` takes for it (Firestore's names). A new
// operator of the service is one line there; the generated code does not change.

import { WHERE_OPERATORS } from '../wire/index.ts';

export { WHERE_LIMITS, WHERE_OPERATORS } from '../wire/index.ts';

type Table = typeof WHERE_OPERATORS;

/** The element type of an array field's values; never for any other field. */
export type ElementOf<T> = [T] extends [ReadonlyArray<infer E>] ? E : never;

/** Whether `T` is an array field's type (checked as a whole, not member by member of a union). */
type IsArray<T> = [T] extends [ReadonlyArray<unknown>] ? true : false;

/** What an operator takes on a field whose values are `T`: a value, a list of values, an array's element, a boolean or a prefix. */
type OperandOf<Kind, T> = Kind extends 'list'
  ? readonly T[]
  : Kind extends 'element'
    ? ElementOf<T>
    : Kind extends 'boolean'
      ? boolean
      : Kind extends 'prefix'
        ? string
        : T;

/** A query field's value type (an optional field's without `undefined`). */
export type FieldValue<Fields, Path extends keyof Fields> = Exclude<Fields[Path], undefined>;

/** Whether a query field is optional (`path?: T`): records may lack it. */
export type IsOptional<Fields, Path extends keyof Fields> = {} extends Pick<Fields, Path> ? true : false;

/**
 * Each operator of a field's condition, with the type of its operand for a field whose values are `T`. A list
 * operator takes at most its `maxValues` values (`$in` 30, `$nin` 10); `$contains`, an element of an array field.
 */
export type Operators<T> = { -readonly [K in keyof Table]: OperandOf<Table[K]['operand'], T> };

export type Operator = keyof Operators<unknown>;

/** Whether an operator whose table entry says `on` applies to a field of type `T` (optional or not). */
type Applies<On, T, Optional extends boolean> = IsArray<T> extends true
  ? On extends 'array' ? true : false
  : On extends 'scalar' ? true : On extends 'optional' ? Optional : On extends 'string' ? ([T] extends [string] ? true : false) : false;

/**
 * The operators of a field of type `T`: an array field's only `$contains`; every other field's the scalar ones,
 * `$exists` when it is optional and `$startsWith` when it is a string.
 */
export type OperatorFor<T, Optional extends boolean = false> = { [K in Operator]: Applies<Table[K]['on'], T, Optional> extends true ? K : never }[Operator];

/** The symbols of `Query.where(field, symbol, value)`, and the operator each one means. */
export const COMPARISONS = Object.fromEntries(Object.entries(WHERE_OPERATORS).map(([operator, { symbol }]) => [symbol, operator])) as {
  readonly [K in Operator as Table[K]['symbol']]: K;
};

export type Comparison = keyof typeof COMPARISONS;

/** The symbols a field of type `T` takes: those of its operators (`OperatorFor`). */
export type ComparisonFor<T, Optional extends boolean = false> = { [C in Comparison]: (typeof COMPARISONS)[C] extends OperatorFor<T, Optional> ? C : never }[Comparison];

/**
 * One field's condition as the wire has it: for an array field `{ $contains: element }`; for any other a bare
 * value (equality) or an object of its operators.
 */
export type FieldCondition<T, Optional extends boolean = false> = IsArray<T> extends true
  ? { [K in OperatorFor<T, Optional>]: Operators<T>[K] }
  : T | { [K in OperatorFor<T, Optional>]?: Operators<T>[K] };

/**
 * A where object: each key a query field, each value its condition; `$or` is any of its where objects (each may
 * have its own `$or`), and the fields beside it apply to every alternative.
 */
export type Where<Fields> = { [Path in keyof Fields]?: FieldCondition<FieldValue<Fields, Path>, IsOptional<Fields, Path>> } & {
  $or?: ReadonlyArray<Where<Fields>>;
};

export type Direction = 'asc' | 'desc';

/** The query fields a sort may name: every one but the array fields (an array has no single place in an order). */
export type SortField<Fields> = { [Path in keyof Fields]-?: IsArray<FieldValue<Fields, Path>> extends true ? never : Path }[keyof Fields] & string;

/** A sort: `[field, direction]` pairs, the first deciding the order. */
export type Sort<Fields> = ReadonlyArray<readonly [SortField<Fields>, Direction]>;

/** The operand type of `symbol` on a field of type `T`. */
export type Operand<T, Symbol extends Comparison> = Operators<T>[(typeof COMPARISONS)[Symbol]];
