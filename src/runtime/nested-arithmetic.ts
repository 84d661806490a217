// Arithmetic with an operand of the form `x op n` (a variable and a number literal under + - * / %), as
// in `s + i * 3` or `(t - i % 7) % m`: the parent's closure computes the inner operand itself instead of
// calling a closure for it. The compiled closures of every body share one copy of code per shape, so V8
// cannot inline one into another (it specialises a closure on its captured values only while its line
// has made a single closure), and a call per operand is much of the cost of an arithmetic loop.
//
// Each closure does exactly what fastBinary (binary.ts) does for the same expression: the left operand
// is evaluated before the right, and a number operand that is not a number takes the same general
// operation (add for `+`, numeric for the others). test/runtime/fast-paths.test.ts and the build property
// of test/runtime/properties.test.ts hold it to the general path.

import type { Operand } from './binary.ts';
import type { Eval, Frame } from './frame.ts';
import { add, getMember, numeric } from './operations.ts';

export type NestedOperator = '+' | '-' | '*' | '/' | '%';

export const NESTED_OPERATORS: readonly NestedOperator[] = ['+', '-', '*', '/', '%'];

/** The inner operand `slots[slot] op value`; `op` indexes NESTED_OPERATORS. */
export interface SlotNumber {
  slot: number;
  op: number;
  value: number;
}

/**
 * `slots[slot] op value`, as fastBinary's closure for a variable and a number computes it. The closures below
 * call it through a `const` of their factory, not by its module name: a module's top-level function (or, in
 * the bundle, the `var` esbuild makes of a top-level `const`) can be reassigned, so optimised code that inlines
 * it loads and compares it again at every call; a factory's `const` V8 folds to the function. Measured: the
 * arithmetic row's loop 123 → 119 instructions an iteration under tsx, 128 → 121 in the bundle.
 */
function slotNumber(f: Frame, slot: number, op: number, value: number): unknown {
  const a = f.slots[slot];
  if (typeof a === 'number') {
    switch (op) {
      case 0:
        return a + value;
      case 1:
        return a - value;
      case 2:
        return a * value;
      case 3:
        return a / value;
      default:
        return a % value;
    }
  }
  return op === 0 ? add(f.st, a, value) : numeric(NESTED_OPERATORS[op] as Exclude<NestedOperator, '+'>, a, value);
}

/** An outer operand as the closures read it: a slot, a number, or code (a `.length` is code too). */
interface Outer {
  slot: number;
  isNumber: boolean;
  value: number;
  code: Eval;
}

function outer(operand: Operand): Outer {
  switch (operand.kind) {
    case 'slot':
      return { slot: operand.slot, isNumber: false, value: 0, code: () => undefined };
    case 'number':
      return { slot: -1, isNumber: true, value: operand.value, code: () => undefined };
    case 'length': {
      const slot = operand.slot;
      return {
        slot: -1,
        isNumber: false,
        value: 0,
        code: (f) => {
          const t = f.slots[slot];
          return typeof t === 'string' || Array.isArray(t) ? t.length : getMember(t, 'length');
        },
      };
    }
    case 'other':
      return { slot: -1, isNumber: false, value: 0, code: operand.code };
  }
}

/** `left operator (x op n)`: the outer operand first, then the inner one. */
export function nestedOnRight(operator: NestedOperator, left: Operand, inner: SlotNumber): Eval {
  const { slot: leftSlot, isNumber, value: leftValue, code: l } = outer(left);
  const { slot: j, op, value: v } = inner;
  const innerValue = slotNumber; // see slotNumber
  switch (operator) {
    case '+':
      return (f) => {
        const a = leftSlot >= 0 ? f.slots[leftSlot] : isNumber ? leftValue : l(f);
        const b = innerValue(f, j, op, v);
        return typeof a === 'number' && typeof b === 'number' ? a + b : add(f.st, a, b);
      };
    case '-':
      return (f) => {
        const a = leftSlot >= 0 ? f.slots[leftSlot] : isNumber ? leftValue : l(f);
        const b = innerValue(f, j, op, v);
        return typeof a === 'number' && typeof b === 'number' ? a - b : numeric('-', a, b);
      };
    case '*':
      return (f) => {
        const a = leftSlot >= 0 ? f.slots[leftSlot] : isNumber ? leftValue : l(f);
        const b = innerValue(f, j, op, v);
        return typeof a === 'number' && typeof b === 'number' ? a * b : numeric('*', a, b);
      };
    case '/':
      return (f) => {
        const a = leftSlot >= 0 ? f.slots[leftSlot] : isNumber ? leftValue : l(f);
        const b = innerValue(f, j, op, v);
        return typeof a === 'number' && typeof b === 'number' ? a / b : numeric('/', a, b);
      };
    case '%':
      return (f) => {
        const a = leftSlot >= 0 ? f.slots[leftSlot] : isNumber ? leftValue : l(f);
        const b = innerValue(f, j, op, v);
        return typeof a === 'number' && typeof b === 'number' ? a % b : numeric('%', a, b);
      };
  }
}

/** `(x op n) operator right`: the inner operand first, then the outer one. */
export function nestedOnLeft(operator: NestedOperator, inner: SlotNumber, right: Operand): Eval {
  const { slot: i, op, value: v } = inner;
  const innerValue = slotNumber; // see slotNumber
  const { slot: rightSlot, isNumber, value: rightValue, code: r } = outer(right);
  switch (operator) {
    case '+':
      return (f) => {
        const a = innerValue(f, i, op, v);
        const b = rightSlot >= 0 ? f.slots[rightSlot] : isNumber ? rightValue : r(f);
        return typeof a === 'number' && typeof b === 'number' ? a + b : add(f.st, a, b);
      };
    case '-':
      return (f) => {
        const a = innerValue(f, i, op, v);
        const b = rightSlot >= 0 ? f.slots[rightSlot] : isNumber ? rightValue : r(f);
        return typeof a === 'number' && typeof b === 'number' ? a - b : numeric('-', a, b);
      };
    case '*':
      return (f) => {
        const a = innerValue(f, i, op, v);
        const b = rightSlot >= 0 ? f.slots[rightSlot] : isNumber ? rightValue : r(f);
        return typeof a === 'number' && typeof b === 'number' ? a * b : numeric('*', a, b);
      };
    case '/':
      return (f) => {
        const a = innerValue(f, i, op, v);
        const b = rightSlot >= 0 ? f.slots[rightSlot] : isNumber ? rightValue : r(f);
        return typeof a === 'number' && typeof b === 'number' ? a / b : numeric('/', a, b);
      };
    case '%':
      return (f) => {
        const a = innerValue(f, i, op, v);
        const b = rightSlot >= 0 ? f.slots[rightSlot] : isNumber ? rightValue : r(f);
        return typeof a === 'number' && typeof b === 'number' ? a % b : numeric('%', a, b);
      };
  }
}
