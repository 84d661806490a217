// What `for (let k in xs)` (Polylang after 0.6) iterates: an array's indexes, as numbers (Polylang's meaning,
// not JavaScript's string indexes), or a map's keys (as numbers for a map with number keys). The list is taken
// when the loop starts, as JavaScript's for…in does, and paid for per entry.

import { jsFault } from './errors.ts';
import { charge, type ExecState } from './state.ts';
import { PublicKey, type RuntimeObject } from './values.ts';

export function forInItems(st: ExecState, value: unknown, source: string, numericKeys: boolean): readonly unknown[] {
  if (Array.isArray(value) || value instanceof Uint8Array) {
    charge(st, value.length);
    return Array.from({ length: value.length }, (_, i) => i);
  }
  if (typeof value === 'object' && value !== null && !(value instanceof PublicKey)) {
    const keys = Object.keys(value as RuntimeObject);
    charge(st, keys.length);
    return numericKeys ? keys.map(Number) : keys;
  }
  throw jsFault(`${source} is not an array or a map (for…in)`);
}
