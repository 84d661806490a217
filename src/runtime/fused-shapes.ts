// Fused closures for the common shapes of statements: a counted `for` loop with its test and update inlined,
// an `if` over a simple comparison or a length guard, `list.push(x)`, `list.splice(a, b)`, `text.slice(a, b)`.
// Each does exactly what the general closures do (same order of evaluation, checks and gas);
// test/runtime/fast-paths.test.ts and the build property of test/runtime/properties.test.ts hold them to
// the general path (`fastPaths: false`).

import type { Operand } from './binary.ts';
import { sliceString, spliceRange } from './builtins.ts';
import { limitFault } from './errors.ts';
import type { Eval, Exec, Frame } from './frame.ts';
import { GAS } from './limits.ts';
import { add, compare, getMember, numeric, strictEquals, toNumeric } from './operations.ts';
import { allocateString, outOfGas, type ExecState } from './state.ts';
import { LOOP_COPY, upTo, withLoopCopy } from './counted-loops.ts';
import type { RuntimeObject } from './values.ts';

/** `array.push(value)` as the built-in does it (gas first, then the length cap), for one item. */
export function pushOne(st: ExecState, array: unknown[], value: unknown, cost: number): number {
  if ((st.gas -= cost) < 0) throw outOfGas(st);
  return appendOne(st, array, value);
}

/** Appends `value` to `array` within the array length limit, its gas already paid. */
function appendOne(st: ExecState, array: unknown[], value: unknown): number {
  if (array.length >= st.limits.maxArrayLength) {
    throw limitFault(`array too long: ${array.length + 1} elements (the limit is ${st.limits.maxArrayLength})`);
  }
  return array.push(value);
}

/** A map, inline object or record (not an array, bytes or key), without calling out of the closure. */
export function isPlainMap(value: unknown): value is RuntimeObject {
  // Runtime objects are the only values without Object.prototype in their chain (values.ts); `instanceof`
  // compiles to a walk of the chain, where Object.getPrototypeOf of a dictionary-mode object is a call.
  return typeof value === 'object' && value !== null && !(value instanceof Object);
}

export const COMPARISONS = ['<', '<=', '>', '>=', '===', '!=='] as const;

export interface SimpleComparison {
  /** Index into COMPARISONS. */
  code: number;
  left: Extract<Operand, { kind: 'slot' | 'length' }>;
  right: Extract<Operand, { kind: 'slot' | 'number' }>;
}

/** An `if` over a simple comparison, with the comparison inlined (same gas and results as the general `if`). */
export function comparisonBranch(comparison: SimpleComparison, consequent: Exec, alternate: Exec | null, cost: number, span: number): Exec {
  const { code, left, right } = comparison;
  const leftSlot = left.slot;
  const leftLength = left.kind === 'length';
  const rightSlot = right.kind === 'slot' ? right.slot : -1;
  const rightValue = right.kind === 'number' ? right.value : 0;
  const operator = COMPARISONS[code]!;
  if (leftLength && right.kind === 'number' && code <= 3) return lengthBranch(code, leftSlot, rightValue, consequent, alternate, cost, span);
  return (f) => {
    const st = f.st;
    if ((st.gas -= cost) < 0) throw outOfGas(st);
    st.at = span;
    const slots = f.slots;
    let a = slots[leftSlot];
    if (leftLength) a = typeof a === 'string' || Array.isArray(a) ? a.length : getMember(a, 'length');
    const b = rightSlot >= 0 ? slots[rightSlot] : rightValue;
    let go: boolean;
    if (typeof a === 'number' && typeof b === 'number') {
      switch (code) {
        case 0: go = a < b; break;
        case 1: go = a <= b; break;
        case 2: go = a > b; break;
        case 3: go = a >= b; break;
        case 4: go = a === b; break;
        default: go = a !== b;
      }
    } else if (code === 4) {
      go = strictEquals(st, a, b);
    } else if (code === 5) {
      go = !strictEquals(st, a, b);
    } else {
      go = compare(st, operator as '<' | '<=' | '>' | '>=', a, b);
    }
    if (go) return consequent(f);
    return alternate ? alternate(f) : 0 /* NORMAL */;
  };
}

/**
 * `if (xs.length > n)` (or `<`, `<=`, `>=`), the guard of most loops that trim a list or a string: one
 * closure per operator, so that each compares without a switch (same gas and results as comparisonBranch).
 */
function lengthBranch(code: number, slot: number, bound: number, consequent: Exec, alternate: Exec | null, cost: number, span: number): Exec {
  if (alternate === null) return lengthGuard(code, slot, bound, consequent, cost, span);
  switch (code) {
    case 0:
      return (f) => {
        const st = f.st;
        if ((st.gas -= cost) < 0) throw outOfGas(st);
        st.at = span;
        const t = f.slots[slot];
        const a = typeof t === 'string' || Array.isArray(t) ? t.length : getMember(t, 'length');
        return (typeof a === 'number' ? a < bound : compare(st, '<', a, bound)) ? consequent(f) : alternate(f);
      };
    case 1:
      return (f) => {
        const st = f.st;
        if ((st.gas -= cost) < 0) throw outOfGas(st);
        st.at = span;
        const t = f.slots[slot];
        const a = typeof t === 'string' || Array.isArray(t) ? t.length : getMember(t, 'length');
        return (typeof a === 'number' ? a <= bound : compare(st, '<=', a, bound)) ? consequent(f) : alternate(f);
      };
    case 2:
      return (f) => {
        const st = f.st;
        if ((st.gas -= cost) < 0) throw outOfGas(st);
        st.at = span;
        const t = f.slots[slot];
        const a = typeof t === 'string' || Array.isArray(t) ? t.length : getMember(t, 'length');
        return (typeof a === 'number' ? a > bound : compare(st, '>', a, bound)) ? consequent(f) : alternate(f);
      };
    default:
      return (f) => {
        const st = f.st;
        if ((st.gas -= cost) < 0) throw outOfGas(st);
        st.at = span;
        const t = f.slots[slot];
        const a = typeof t === 'string' || Array.isArray(t) ? t.length : getMember(t, 'length');
        return (typeof a === 'number' ? a >= bound : compare(st, '>=', a, bound)) ? consequent(f) : alternate(f);
      };
  }
}

/** lengthBranch without an `else`: the guard that is false on most iterations returns without a call. */
function lengthGuard(code: number, slot: number, bound: number, consequent: Exec, cost: number, span: number): Exec {
  switch (code) {
    case 0:
      return (f) => {
        const st = f.st;
        if ((st.gas -= cost) < 0) throw outOfGas(st);
        st.at = span;
        const t = f.slots[slot];
        const a = typeof t === 'string' || Array.isArray(t) ? t.length : getMember(t, 'length');
        return (typeof a === 'number' ? a < bound : compare(st, '<', a, bound)) ? consequent(f) : 0 /* NORMAL */;
      };
    case 1:
      return (f) => {
        const st = f.st;
        if ((st.gas -= cost) < 0) throw outOfGas(st);
        st.at = span;
        const t = f.slots[slot];
        const a = typeof t === 'string' || Array.isArray(t) ? t.length : getMember(t, 'length');
        return (typeof a === 'number' ? a <= bound : compare(st, '<=', a, bound)) ? consequent(f) : 0 /* NORMAL */;
      };
    case 2:
      return (f) => {
        const st = f.st;
        if ((st.gas -= cost) < 0) throw outOfGas(st);
        st.at = span;
        const t = f.slots[slot];
        const a = typeof t === 'string' || Array.isArray(t) ? t.length : getMember(t, 'length');
        return (typeof a === 'number' ? a > bound : compare(st, '>', a, bound)) ? consequent(f) : 0 /* NORMAL */;
      };
    default:
      return (f) => {
        const st = f.st;
        if ((st.gas -= cost) < 0) throw outOfGas(st);
        st.at = span;
        const t = f.slots[slot];
        const a = typeof t === 'string' || Array.isArray(t) ? t.length : getMember(t, 'length');
        return (typeof a === 'number' ? a >= bound : compare(st, '>=', a, bound)) ? consequent(f) : 0 /* NORMAL */;
      };
  }
}

export interface CountedLoop {
  slot: number;
  inclusive: boolean;
  bound: Operand;
  delta: number;
}

/** A `for` loop over a counter, with its test and update inlined (same gas and results as the general loop). */
export function countedLoop(loop: CountedLoop, init: Exec | null, [first, rest]: [Exec, Exec | null], cost: number, span: number): Exec {
  const { slot, inclusive, bound, delta } = loop;
  const boundSlot = bound.kind === 'slot' ? bound.slot : -1;
  const boundValue = bound.kind === 'number' ? bound.value : 0;
  const operator = inclusive ? '<=' : '<';
  if (boundSlot >= 0 && !inclusive && delta === 1) return upTo(slot, boundSlot, init, first, rest, cost, span);
  return (f) => {
    const st = f.st;
    const slots = f.slots;
    if (init) init(f);
    for (;;) {
      if ((st.gas -= cost) < 0) throw outOfGas(st);
      st.at = span;
      const a = slots[slot];
      const b = boundSlot >= 0 ? slots[boundSlot] : boundValue;
      const go = typeof a === 'number' && typeof b === 'number' ? (inclusive ? a <= b : a < b) : compare(st, operator, a, b);
      if (!go) return 0 /* NORMAL */;
      let completion = first(f);
      if (completion === 0 /* NORMAL */ && rest !== null) completion = rest(f);
      if (completion === 1 /* BREAK */) return 0 /* NORMAL */;
      if (completion === 3 /* RETURN */) return 3 /* RETURN */;
      const current = slots[slot];
      slots[slot] = (typeof current === 'number' ? current : toNumeric(current, delta > 0 ? '++' : '--')) + delta;
    }
  };
}

/** `x += v` on a variable (`literal`: v is the number or string `fixed`), as the general statement and assignment do it. */
export function addToSlot(slot: number, literal: boolean, fixed: unknown, value: Eval, cost: number, span: number): Exec {
  return withLoopCopy(LOOP_COPY.update, (f) => {
    const st = f.st;
    if ((st.gas -= cost) < 0) throw outOfGas(st);
    st.at = span;
    const slots = f.slots;
    const a = slots[slot];
    const b = literal ? fixed : value(f);
    if (typeof a === 'number' && typeof b === 'number') slots[slot] = a + b;
    else if (typeof a === 'string' && typeof b === 'string') {
      const length = a.length + b.length;
      if (length >= GAS.charsPerGas) allocateString(st, length);
      slots[slot] = a + b;
    } else slots[slot] = add(st, a, b);
    return 0 /* NORMAL */;
  });
}

/** `x -= v` on a variable, as addToSlot. */
export function subtractFromSlot(slot: number, literal: boolean, fixed: unknown, value: Eval, cost: number, span: number): Exec {
  return withLoopCopy(LOOP_COPY.update, (f) => {
    const st = f.st;
    if ((st.gas -= cost) < 0) throw outOfGas(st);
    st.at = span;
    const slots = f.slots;
    const a = slots[slot];
    const b = literal ? fixed : value(f);
    slots[slot] = typeof a === 'number' && typeof b === 'number' ? a - b : numeric('-', a, b);
    return 0 /* NORMAL */;
  });
}

/**
 * `list.push(item);` on a variable (a variable item: pushSlotStatement): an array takes the item here (`item`'s
 * code), anything else takes the general method call (`generic`), which fails as it would.
 */
export function pushStatement(
  receiverSlot: number,
  itemSlot: number,
  item: Eval,
  generic: (f: Frame, receiver: unknown) => unknown,
  pushCost: number,
  cost: number,
  span: number,
): Exec {
  if (itemSlot >= 0) return pushSlotStatement(receiverSlot, itemSlot, generic, pushCost, cost, span);
  return withLoopCopy(LOOP_COPY.push, (f) => {
    const st = f.st;
    if ((st.gas -= cost) < 0) throw outOfGas(st);
    st.at = span;
    const target = f.slots[receiverSlot];
    if (!Array.isArray(target)) {
      generic(f, target);
      return 0 /* NORMAL */;
    }
    pushOne(st, target, item(f), pushCost);
    return 0 /* NORMAL */;
  });
}

/**
 * `list.push(x);` of a variable onto an array in a variable: the statement's gas and the push's in one
 * subtraction, since nothing between them (reading two variables) can fail or be seen. When the gas runs out,
 * the position is what the two charges give: the previous statement's if the statement's own charge fails,
 * this statement's if the push's does (it is charged after the statement records its position).
 */
function pushSlotStatement(
  receiverSlot: number,
  itemSlot: number,
  generic: (f: Frame, receiver: unknown) => unknown,
  pushCost: number,
  cost: number,
  span: number,
): Exec {
  const total = cost + pushCost;
  return withLoopCopy(LOOP_COPY.push, (f) => {
    const st = f.st;
    const target = f.slots[receiverSlot];
    if (!Array.isArray(target)) {
      if ((st.gas -= cost) < 0) throw outOfGas(st);
      st.at = span;
      generic(f, target);
      return 0 /* NORMAL */;
    }
    if ((st.gas -= total) < 0) {
      if (st.gas + pushCost >= 0) st.at = span;
      throw outOfGas(st);
    }
    st.at = span;
    appendOne(st, target, f.slots[itemSlot]);
    return 0 /* NORMAL */;
  });
}

/**
 * A statement that is a call with a fused closure of its own (`list.splice(0, 25);`): what the general
 * expression statement does, in a closure of its own, so that its call of the expression sees one kind of
 * closure whatever other statements a program has.
 */
export function callStatement(call: Eval, cost: number, span: number): Exec {
  return (f) => {
    const st = f.st;
    if ((st.gas -= cost) < 0) throw outOfGas(st);
    st.at = span;
    call(f);
    return 0 /* NORMAL */;
  };
}

/**
 * `list.splice(start, count)` with two arguments: on an array, the arguments, then the built-in's gas (its
 * base and an amount per element of the receiver, as builtins.ts charges it after the arguments), then
 * spliceRange, without the general call's argument array and its shared dispatch; anything else takes the
 * general method call (`generic`), which fails or dispatches as it would. `receiverSlot` is the receiver's
 * variable (or -1: `receiver` is its code); `literals` the two arguments when both are number literals.
 */
export function spliceCall(
  receiverSlot: number,
  receiver: Eval,
  start: Eval,
  count: Eval,
  literals: readonly [number, number] | null,
  generic: (f: Frame, receiver: unknown) => unknown,
  base: number,
  perElement: number,
): Eval {
  if (receiverSlot >= 0 && literals !== null) {
    const [from, length] = literals;
    return (f) => {
      const target = f.slots[receiverSlot];
      if (!Array.isArray(target)) return generic(f, target);
      const st = f.st;
      if ((st.gas -= base + perElement * target.length) < 0) throw outOfGas(st);
      return spliceRange(st, target, from, length);
    };
  }
  return (f) => {
    const target = receiverSlot >= 0 ? f.slots[receiverSlot] : receiver(f);
    if (!Array.isArray(target)) return generic(f, target);
    const a = start(f);
    const b = count(f);
    const st = f.st;
    if ((st.gas -= base + perElement * target.length) < 0) throw outOfGas(st);
    return spliceRange(st, target, a, b);
  };
}

/**
 * `text.slice(start)` or `text.slice(start, end)` on a variable: on a string, the arguments, then the built-in's
 * base gas (builtins.ts charges it after the arguments), then sliceString, which pays per character of the
 * result, without the general call's argument array and its shared dispatch; anything else (an array's
 * `slice`, a value without one) takes the general method call (`generic`), which dispatches or fails as it would.
 */
export function sliceCall(
  receiverSlot: number,
  start: Eval,
  end: Eval | null,
  generic: (f: Frame, receiver: unknown) => unknown,
  base: number,
  perChar: number,
): Eval {
  return (f) => {
    const target = f.slots[receiverSlot];
    if (typeof target !== 'string') return generic(f, target);
    const a = start(f);
    const b = end === null ? undefined : end(f);
    const st = f.st;
    if ((st.gas -= base) < 0) throw outOfGas(st);
    return sliceString(st, target, a, b, perChar);
  };
}
