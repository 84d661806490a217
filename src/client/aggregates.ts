// Sums, averages, least and greatest values of number fields beside a count (the service's `sum=`, `avg=`,
// `min=`, `max=`; docs/service.md): typed by the schema's `aggregateFields` (every number field, indexed or not),
// or by its number query fields when a hand-written schema has none, so only number fields are named, and the
// answer has one value per field asked for.

import { unexpectedAnswer } from './errors.ts';
import type { FieldValue } from './where.ts';

export const AGGREGATE_KINDS = ['sum', 'avg', 'min', 'max'] as const;
export type AggregateKind = (typeof AGGREGATE_KINDS)[number];

/** The query fields whose values are numbers: the ones sum, avg, min and max take. */
export type NumberField<Fields> = { [P in keyof Fields]-?: [FieldValue<Fields, P>] extends [number] ? P : never }[keyof Fields] & string;

/** The fields a schema's aggregates take: its `aggregateFields`, or else its number query fields. */
export type AggregateField<S extends { queryFields: object; aggregateFields?: string }> = S extends { aggregateFields: infer F extends string }
  ? F
  : NumberField<S['queryFields']>;

/** The fields to aggregate, by kind (`Field`: a union of field paths): `{ sum: ['price'], max: ['price', 'weight'] }`. */
export type AggregateSpec<Field extends string> = { readonly [K in AggregateKind]?: readonly Field[] };

/**
 * The answer: the count, and for each kind asked for its value by field. A sum of no number is 0; an average,
 * least or greatest value of none is null.
 */
export type Aggregates<Spec> = { readonly count: number } & {
  readonly [K in keyof Spec & AggregateKind]: { readonly [P in Spec[K] extends readonly (infer F)[] ? F & string : never]: K extends 'sum' ? number : number | null };
};

/** The query parameters of a spec: `{ sum: 'price', max: 'price,weight' }`. */
export function aggregateParameters(spec: { readonly [K in AggregateKind]?: readonly string[] }): Record<string, string> {
  const out: Record<string, string> = {};
  for (const kind of AGGREGATE_KINDS) {
    const fields = spec[kind];
    if (fields === undefined) continue;
    if (fields.length === 0) throw new TypeError(`aggregate: ${kind} names no field; leave it out or name one`);
    out[kind] = fields.join(',');
  }
  if (Object.keys(out).length === 0) throw new TypeError('aggregate: name a field for at least one of sum, avg, min, max (or use count())');
  return out;
}

/** The answer's body, checked to be `{count, sum?: {…}, …}`. */
export function aggregatesOf(status: number, body: unknown): Record<string, unknown> {
  const ok = typeof body === 'object' && body !== null && typeof (body as { count?: unknown }).count === 'number';
  if (!ok) throw unexpectedAnswer(status, 'a body that is not { "count": n, … }');
  return body as Record<string, unknown>;
}
