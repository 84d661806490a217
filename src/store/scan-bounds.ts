// What a planned query will read, told before it reads anything: for each index range, the fields whose value
// that range fixes. A caller that must know a query reads only certain records (the service's confinement of
// lists on private collections, docs/service.md "Private records in lists") decides from this, because it is
// the plan actually run, not the where as written: a filter the planner applied only as a re-check after the
// read would not appear here.

import { encodeValue, type KeyValue } from './encoding.ts';

/** A field every entry of a range holds exactly this value in (for an array field: holds as an element). */
export interface FixedField {
  readonly path: string;
  readonly value: KeyValue;
}

export interface ScanRange {
  /** Which alternative of the where (its `$or` multiplied out, docs/service.md) the range serves; 0 without `$or`. */
  readonly branch: number;
  readonly fixed: readonly FixedField[];
}

export interface ScanBounds {
  readonly ranges: readonly ScanRange[];
}

/**
 * Called once the query is planned and before any entry is read; throwing refuses the query, and nothing is read.
 */
export type ScanCheck = (bounds: ScanBounds) => void | Promise<void>;

/**
 * Whether the index key of the value is the value itself: a string (or a reference's collection id or id) longer
 * than an index keeps is cut, and a range on it holds every value sharing the kept start, so it fixes nothing.
 */
export function fixesExactly(value: KeyValue): boolean {
  if (value.kind !== 'string' && value.kind !== 'reference') return true; // only strings are cut
  return encodeValue(value).equals(encodeValue(value, 'asc', false));
}
