// Arithmetic on the sized numeric types of Polylang after 0.6 (`u32 i32 u64 i64 f32 f64`). Values are
// doubles, as every number is; an operation whose result leaves the type's range fails the call with an
// error naming the operation and its values (the Polylang compiler aborted too), instead of wrapping or
// losing precision. Integer division truncates towards zero and `%` keeps the dividend's sign (Rust's and
// the compiler's rules); dividing an integer by zero fails. `wrappingAdd` and friends wrap on purpose.
//
// Which expressions are sized is decided from declarations (sized-types.ts), by the rule the checker uses
// (arithmeticSize in src/lang/sized-numbers.ts).

import { SIZED_NUMBER_RANGES, sizedNumberProblem, type SizedNumberName } from '../lang/index.ts';
import { RuntimeFault } from './errors.ts';
import { toNumeric } from './operations.ts';

export type SizedOperator = '+' | '-' | '*' | '/' | '%' | '**';

export function arithmeticFault(message: string): RuntimeFault {
  return new RuntimeFault('function/arithmetic-error', message);
}

/** `a operator b` in the sized type `size`; fails when the result is not a value of the type. */
export function sizedArithmetic(operator: SizedOperator, size: SizedNumberName, a: unknown, b: unknown): number {
  const x = toNumeric(a, operator);
  const y = toNumeric(b, operator);
  const integer = SIZED_NUMBER_RANGES[size].integer;
  let result: number;
  switch (operator) {
    case '+':
      result = x + y;
      break;
    case '-':
      result = x - y;
      break;
    case '*':
      result = x * y;
      break;
    case '**':
      result = x ** y;
      break;
    case '/':
      if (y === 0) throw arithmeticFault(`${size} division by zero: ${x} / 0`);
      // Exact for whole numbers within ±2^53: x % y is exact, so x - x % y is a multiple of y.
      result = integer ? (x - (x % y)) / y : x / y;
      break;
    case '%':
      if (y === 0) throw arithmeticFault(`${size} division by zero: ${x} % 0`);
      result = x % y;
      break;
  }
  return checked(size, result, () => `${x} ${operator} ${y}`);
}

/** `-a` in the sized type `size` (`-1` is no u32). */
export function sizedNegate(size: SizedNumberName, a: unknown): number {
  const x = toNumeric(a, '-');
  return checked(size, -x, () => `-${x}`);
}

/** `a ± 1` for `++`/`--` in the sized type `size`. */
export function sizedStep(size: SizedNumberName, a: unknown, delta: 1 | -1, operator: '++' | '--'): number {
  const x = toNumeric(a, operator);
  return checked(size, x + delta, () => `${x} ${delta > 0 ? '+' : '-'} 1`);
}

/** The initial value of `let name: size = value`, if it is a value of the type. */
export function sizedValue(size: SizedNumberName, value: unknown, name: string): unknown {
  const problem = typeof value === 'number' ? sizedNumberProblem(size, value) : `${typeof value} is not a ${size}`;
  if (problem !== undefined) throw arithmeticFault(`let ${name}: ${size} = ${problem}`);
  return value === 0 ? 0 : value;
}

/** The result if it is a value of the type (-0 as 0), else the error naming the operation. */
function checked(size: SizedNumberName, result: number, operation: () => string): number {
  if (result === 0) return 0;
  const problem = sizedNumberProblem(size, result);
  if (problem === undefined) return result;
  const what = problem.includes('out of range') || !Number.isFinite(result) ? 'overflow' : 'arithmetic error';
  throw arithmeticFault(`${size} ${what}: ${operation()} = ${problem}`);
}

/**
 * The wrapping operations of Polylang's u32 (`a.wrappingAdd(b)`, `uint32WrappingSub(a, b)`, …) and their
 * i32 counterparts: the result modulo 2^32, in the type's range. Operands must be values of the type.
 */
export function wrapping(size: 'u32' | 'i32', operator: '+' | '-' | '*', a: unknown, b: unknown, name: string): number {
  const x = toNumeric(a, name);
  const y = toNumeric(b, name);
  for (const value of [x, y]) {
    const problem = sizedNumberProblem(size, value);
    if (problem !== undefined) throw arithmeticFault(`${name}: ${problem}`);
  }
  const result = operator === '*' ? Math.imul(x, y) : operator === '+' ? x + y : x - y;
  return size === 'u32' ? result >>> 0 : result | 0;
}
