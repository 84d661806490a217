// Aggregates beside count: `sum`, `avg`, `min` and `max` of number fields, over the records a where matches and
// the read filter accepts (reading.ts reads them as a count does, under the same scan bound).
//
// A record whose field is missing, null or not a number adds nothing to that field's aggregates (as Firestore's
// sum and avg skip non-numeric values); it still counts. `sum` of nothing is 0; `avg`, `min` and `max` of
// nothing are null. Sums are compensated (Neumaier), so adding many values loses no more than one rounding.

import { invalidQuery } from './errors.ts';
import type { JsonObject } from './index-entries.ts';
import { valueAtPath, type Layout } from './layout.ts';

export const AGGREGATE_KINDS = ['sum', 'avg', 'min', 'max'] as const;
export type AggregateKind = (typeof AGGREGATE_KINDS)[number];

/** The fields to aggregate, by kind: `{sum: ['price'], max: ['price', 'rating']}`. */
export type AggregateRequest = { readonly [K in AggregateKind]?: readonly string[] };

/** Each kind asked for, by field path. */
export type AggregateValues = { [K in AggregateKind]?: Record<string, number | null> };

/** How many fields one request may aggregate, over every kind. */
export const MAX_AGGREGATE_FIELDS = 20;

/** The field paths by kind, each checked to be a number field of the layout; a problem is a 400 naming it. */
export function checkAggregates(layout: Layout, request: AggregateRequest): AggregateRequest {
  if (typeof request !== 'object' || request === null) throw invalidQuery('aggregates must be an object of field lists by kind');
  let fields = 0;
  for (const [kind, paths] of Object.entries(request)) {
    if (!(AGGREGATE_KINDS as readonly string[]).includes(kind)) throw invalidQuery(`unknown aggregate "${kind}"; expected one of ${AGGREGATE_KINDS.join(', ')}`);
    if (!Array.isArray(paths) || paths.length === 0) throw invalidQuery(`${kind}: give at least one field`);
    for (const path of paths as unknown[]) {
      if (typeof path !== 'string') throw invalidQuery(`${kind}: a field path must be a string, got ${JSON.stringify(path)}`);
      const field = Object.hasOwn(layout.fields, path) ? layout.fields[path] : undefined;
      if (!field) throw invalidQuery(`${kind}: collection ${layout.collection} has no field "${path}"`);
      if (field.indexable?.kind !== 'number') {
        throw invalidQuery(`${kind}: field "${path}" of collection ${layout.collection} is ${field.typeText}; sum, avg, min and max take number fields`);
      }
      if (++fields > MAX_AGGREGATE_FIELDS) throw invalidQuery(`at most ${MAX_AGGREGATE_FIELDS} fields may be aggregated in one request`);
    }
  }
  return request;
}

interface FieldState {
  sum: number;
  /** The low-order part the sum lost (Neumaier's compensation). */
  compensation: number;
  /** How many records held a number in the field. */
  numbers: number;
  min: number;
  max: number;
}

/** Adds records' fields up, then gives each kind asked for. */
export class Aggregator {
  readonly #request: AggregateRequest;
  readonly #fields = new Map<string, FieldState>();

  constructor(request: AggregateRequest) {
    this.#request = request;
    for (const paths of Object.values(request)) {
      for (const path of paths ?? []) this.#fields.set(path, { sum: 0, compensation: 0, numbers: 0, min: Infinity, max: -Infinity });
    }
  }

  add(record: JsonObject): void {
    for (const [path, state] of this.#fields) {
      const value = valueAtPath(record, path);
      if (typeof value !== 'number' || !Number.isFinite(value)) continue;
      const sum = state.sum + value;
      state.compensation += Math.abs(state.sum) >= Math.abs(value) ? state.sum - sum + value : value - sum + state.sum;
      state.sum = sum;
      state.numbers++;
      if (value < state.min) state.min = value;
      if (value > state.max) state.max = value;
    }
  }

  values(): AggregateValues {
    const out: AggregateValues = {};
    for (const kind of AGGREGATE_KINDS) {
      const paths = this.#request[kind];
      if (!paths) continue;
      const byPath: Record<string, number | null> = Object.create(null) as Record<string, number | null>;
      for (const path of paths) byPath[path] = this.#value(kind, path, this.#fields.get(path)!);
      out[kind] = byPath;
    }
    return out;
  }

  #value(kind: AggregateKind, path: string, state: FieldState): number | null {
    switch (kind) {
      case 'sum':
        return finite(state.sum + state.compensation, `the sum of "${path}"`);
      case 'avg':
        return state.numbers === 0 ? null : finite(state.sum + state.compensation, `the sum of "${path}" (for its average)`) / state.numbers;
      case 'min':
        return state.numbers === 0 ? null : state.min;
      case 'max':
        return state.numbers === 0 ? null : state.max;
    }
  }
}

function finite(value: number, what: string): number {
  if (!Number.isFinite(value)) throw invalidQuery(`${what} is beyond the largest number (about 1.8e308); narrow the where`);
  return value;
}
