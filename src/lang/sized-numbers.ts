// What the sized numeric types of later Polylang mean in Vellum: a number (a double, as `number` is)
// whose value must lie in the type's range, and for the integer types be a whole number. 64-bit
// integers are limited to ±(2^53−1), the integers a double holds exactly: a value Vellum cannot
// represent exactly is refused instead of silently rounded.

import type { SizedNumberName } from './words.ts';

export interface SizedNumberRange {
  readonly name: SizedNumberName;
  readonly integer: boolean;
  readonly min: number;
  readonly max: number;
  /** Integer types whose arithmetic is checked (leaving the range fails the call). */
  readonly bits: 32 | 64;
}

/** The largest finite f32. */
export const F32_MAX = 3.4028234663852886e38;

export const SIZED_NUMBER_RANGES: Readonly<Record<SizedNumberName, SizedNumberRange>> = {
  u32: { name: 'u32', integer: true, min: 0, max: 2 ** 32 - 1, bits: 32 },
  i32: { name: 'i32', integer: true, min: -(2 ** 31), max: 2 ** 31 - 1, bits: 32 },
  u64: { name: 'u64', integer: true, min: 0, max: Number.MAX_SAFE_INTEGER, bits: 64 },
  i64: { name: 'i64', integer: true, min: -Number.MAX_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER, bits: 64 },
  f32: { name: 'f32', integer: false, min: -F32_MAX, max: F32_MAX, bits: 32 },
  f64: { name: 'f64', integer: false, min: -Number.MAX_VALUE, max: Number.MAX_VALUE, bits: 64 },
};

/** The range as a person reads it: `whole numbers from 0 to 4294967295`. */
export function describeRange(name: SizedNumberName): string {
  const range = SIZED_NUMBER_RANGES[name];
  if (!range.integer) return `finite numbers from ${range.min} to ${range.max}`;
  return `whole numbers from ${range.min} to ${range.max}`;
}

/** Why `value` is not a value of the type, or undefined when it is. */
export function sizedNumberProblem(name: SizedNumberName, value: number): string | undefined {
  const range = SIZED_NUMBER_RANGES[name];
  if (!Number.isFinite(value)) return `${value} is not a ${name} (${describeRange(name)})`;
  if (range.integer && !Number.isInteger(value)) return `${value} is not a ${name}: not a whole number`;
  if (value < range.min || value > range.max) {
    const limit = range.bits === 64 && range.integer ? ' (Vellum limits 64-bit integers to ±(2^53−1))' : '';
    return `${value} is out of range for ${name} (${describeRange(name)})${limit}`;
  }
  return undefined;
}

export function isSizedNumberValue(name: SizedNumberName, value: unknown): value is number {
  return typeof value === 'number' && sizedNumberProblem(name, value) === undefined;
}

/** The operators whose result keeps a sized type (and is checked against its range at run time). */
export const SIZED_ARITHMETIC: ReadonlySet<string> = new Set(['+', '-', '*', '/', '%', '**']);

/**
 * The type of `left op right` for a sized arithmetic operator, from the operands' sizes (undefined
 * for a plain `number`): a sized type with itself or with a plain number keeps the sized type; two
 * different sized types do not mix (`'mixed'`: the checker reports it, as the Polylang compiler did).
 */
export function arithmeticSize(left: SizedNumberName | undefined, right: SizedNumberName | undefined): SizedNumberName | undefined | 'mixed' {
  if (left === undefined) return right;
  if (right === undefined || right === left) return left;
  return 'mixed';
}
