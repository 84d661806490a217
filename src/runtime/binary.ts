// Binary operators on numbers, specialised by the shape of their operands so that the common cases
// (a variable and a number literal, two variables) evaluate without calling an operand closure. Each
// falls back to the general operation (operations.ts) when an operand is not a number.
//
// The cases are written out per operator and shape on purpose: each closure then has its own code, so
// V8 optimises the arithmetic inline instead of calling through a shared helper. Every operator has
// the same six shapes in the same order; keep them uniform when editing.

import type { Eval } from './frame.ts';
import { add, compare, getMember, numeric, strictEquals } from './operations.ts';

/** An operand known at compile time: a variable's slot, the `.length` of one, a number literal, or code. */
export type Operand =
  | { kind: 'slot'; slot: number }
  | { kind: 'length'; slot: number }
  | { kind: 'number'; value: number }
  | { kind: 'other'; code: Eval };

export type FastOperator = '+' | '-' | '*' | '/' | '%' | '<' | '<=' | '>' | '>=' | '===' | '!==';

export function isFastOperator(operator: string): operator is FastOperator {
  return FAST_OPERATORS.has(operator);
}

const FAST_OPERATORS = new Set<string>(['+', '-', '*', '/', '%', '<', '<=', '>', '>=', '===', '!==']);

function lengthOf(target: unknown): unknown {
  return typeof target === 'string' || Array.isArray(target) ? target.length : getMember(target, 'length');
}

function evalOf(operand: Operand): Eval {
  if (operand.kind === 'other') return operand.code;
  if (operand.kind === 'slot') {
    const slot = operand.slot;
    return (f) => f.slots[slot];
  }
  if (operand.kind === 'length') {
    const slot = operand.slot;
    return (f) => lengthOf(f.slots[slot]);
  }
  const value = operand.value;
  return () => value;
}

export function fastBinary(operator: FastOperator, left: Operand, right: Operand): Eval {
  switch (operator) {
    case '+': {
      if (left.kind === 'length' && right.kind === 'number') {
        const i = left.slot;
        const b = right.value;
        return (f) => {
          const t = f.slots[i];
          const a = typeof t === 'string' || Array.isArray(t) ? t.length : getMember(t, 'length');
          return typeof a === 'number' ? a + b : add(f.st, a, b);
        };
      }
      if (left.kind === 'slot' && right.kind === 'number') {
        const i = left.slot;
        const b = right.value;
        return (f) => {
          const a = f.slots[i];
          return typeof a === 'number' ? a + b : add(f.st, a, b);
        };
      }
      if (left.kind === 'slot' && right.kind === 'slot') {
        const i = left.slot;
        const j = right.slot;
        return (f) => {
          const a = f.slots[i];
          const b = f.slots[j];
          return typeof a === 'number' && typeof b === 'number' ? a + b : add(f.st, a, b);
        };
      }
      if (right.kind === 'number') {
        const l = evalOf(left);
        const b = right.value;
        return (f) => {
          const a = l(f);
          return typeof a === 'number' ? a + b : add(f.st, a, b);
        };
      }
      if (left.kind === 'slot') {
        const i = left.slot;
        const r = evalOf(right);
        return (f) => {
          const a = f.slots[i];
          const b = r(f);
          return typeof a === 'number' && typeof b === 'number' ? a + b : add(f.st, a, b);
        };
      }
      const l = evalOf(left);
      const r = evalOf(right);
      return (f) => {
        const a = l(f);
        const b = r(f);
        return typeof a === 'number' && typeof b === 'number' ? a + b : add(f.st, a, b);
      };
    }
    case '-': {
      if (left.kind === 'length' && right.kind === 'number') {
        const i = left.slot;
        const b = right.value;
        return (f) => {
          const t = f.slots[i];
          const a = typeof t === 'string' || Array.isArray(t) ? t.length : getMember(t, 'length');
          return typeof a === 'number' ? a - b : numeric('-', a, b);
        };
      }
      if (left.kind === 'slot' && right.kind === 'number') {
        const i = left.slot;
        const b = right.value;
        return (f) => {
          const a = f.slots[i];
          return typeof a === 'number' ? a - b : numeric('-', a, b);
        };
      }
      if (left.kind === 'slot' && right.kind === 'slot') {
        const i = left.slot;
        const j = right.slot;
        return (f) => {
          const a = f.slots[i];
          const b = f.slots[j];
          return typeof a === 'number' && typeof b === 'number' ? a - b : numeric('-', a, b);
        };
      }
      if (right.kind === 'number') {
        const l = evalOf(left);
        const b = right.value;
        return (f) => {
          const a = l(f);
          return typeof a === 'number' ? a - b : numeric('-', a, b);
        };
      }
      if (left.kind === 'slot') {
        const i = left.slot;
        const r = evalOf(right);
        return (f) => {
          const a = f.slots[i];
          const b = r(f);
          return typeof a === 'number' && typeof b === 'number' ? a - b : numeric('-', a, b);
        };
      }
      const l = evalOf(left);
      const r = evalOf(right);
      return (f) => {
        const a = l(f);
        const b = r(f);
        return typeof a === 'number' && typeof b === 'number' ? a - b : numeric('-', a, b);
      };
    }
    case '*': {
      if (left.kind === 'length' && right.kind === 'number') {
        const i = left.slot;
        const b = right.value;
        return (f) => {
          const t = f.slots[i];
          const a = typeof t === 'string' || Array.isArray(t) ? t.length : getMember(t, 'length');
          return typeof a === 'number' ? a * b : numeric('*', a, b);
        };
      }
      if (left.kind === 'slot' && right.kind === 'number') {
        const i = left.slot;
        const b = right.value;
        return (f) => {
          const a = f.slots[i];
          return typeof a === 'number' ? a * b : numeric('*', a, b);
        };
      }
      if (left.kind === 'slot' && right.kind === 'slot') {
        const i = left.slot;
        const j = right.slot;
        return (f) => {
          const a = f.slots[i];
          const b = f.slots[j];
          return typeof a === 'number' && typeof b === 'number' ? a * b : numeric('*', a, b);
        };
      }
      if (right.kind === 'number') {
        const l = evalOf(left);
        const b = right.value;
        return (f) => {
          const a = l(f);
          return typeof a === 'number' ? a * b : numeric('*', a, b);
        };
      }
      if (left.kind === 'slot') {
        const i = left.slot;
        const r = evalOf(right);
        return (f) => {
          const a = f.slots[i];
          const b = r(f);
          return typeof a === 'number' && typeof b === 'number' ? a * b : numeric('*', a, b);
        };
      }
      const l = evalOf(left);
      const r = evalOf(right);
      return (f) => {
        const a = l(f);
        const b = r(f);
        return typeof a === 'number' && typeof b === 'number' ? a * b : numeric('*', a, b);
      };
    }
    case '/': {
      if (left.kind === 'length' && right.kind === 'number') {
        const i = left.slot;
        const b = right.value;
        return (f) => {
          const t = f.slots[i];
          const a = typeof t === 'string' || Array.isArray(t) ? t.length : getMember(t, 'length');
          return typeof a === 'number' ? a / b : numeric('/', a, b);
        };
      }
      if (left.kind === 'slot' && right.kind === 'number') {
        const i = left.slot;
        const b = right.value;
        return (f) => {
          const a = f.slots[i];
          return typeof a === 'number' ? a / b : numeric('/', a, b);
        };
      }
      if (left.kind === 'slot' && right.kind === 'slot') {
        const i = left.slot;
        const j = right.slot;
        return (f) => {
          const a = f.slots[i];
          const b = f.slots[j];
          return typeof a === 'number' && typeof b === 'number' ? a / b : numeric('/', a, b);
        };
      }
      if (right.kind === 'number') {
        const l = evalOf(left);
        const b = right.value;
        return (f) => {
          const a = l(f);
          return typeof a === 'number' ? a / b : numeric('/', a, b);
        };
      }
      if (left.kind === 'slot') {
        const i = left.slot;
        const r = evalOf(right);
        return (f) => {
          const a = f.slots[i];
          const b = r(f);
          return typeof a === 'number' && typeof b === 'number' ? a / b : numeric('/', a, b);
        };
      }
      const l = evalOf(left);
      const r = evalOf(right);
      return (f) => {
        const a = l(f);
        const b = r(f);
        return typeof a === 'number' && typeof b === 'number' ? a / b : numeric('/', a, b);
      };
    }
    case '%': {
      if (left.kind === 'length' && right.kind === 'number') {
        const i = left.slot;
        const b = right.value;
        return (f) => {
          const t = f.slots[i];
          const a = typeof t === 'string' || Array.isArray(t) ? t.length : getMember(t, 'length');
          return typeof a === 'number' ? a % b : numeric('%', a, b);
        };
      }
      if (left.kind === 'slot' && right.kind === 'number') {
        const i = left.slot;
        const b = right.value;
        return (f) => {
          const a = f.slots[i];
          return typeof a === 'number' ? a % b : numeric('%', a, b);
        };
      }
      if (left.kind === 'slot' && right.kind === 'slot') {
        const i = left.slot;
        const j = right.slot;
        return (f) => {
          const a = f.slots[i];
          const b = f.slots[j];
          return typeof a === 'number' && typeof b === 'number' ? a % b : numeric('%', a, b);
        };
      }
      if (right.kind === 'number') {
        const l = evalOf(left);
        const b = right.value;
        return (f) => {
          const a = l(f);
          return typeof a === 'number' ? a % b : numeric('%', a, b);
        };
      }
      if (left.kind === 'slot') {
        const i = left.slot;
        const r = evalOf(right);
        return (f) => {
          const a = f.slots[i];
          const b = r(f);
          return typeof a === 'number' && typeof b === 'number' ? a % b : numeric('%', a, b);
        };
      }
      const l = evalOf(left);
      const r = evalOf(right);
      return (f) => {
        const a = l(f);
        const b = r(f);
        return typeof a === 'number' && typeof b === 'number' ? a % b : numeric('%', a, b);
      };
    }
    case '<': {
      if (left.kind === 'length' && right.kind === 'number') {
        const i = left.slot;
        const b = right.value;
        return (f) => {
          const t = f.slots[i];
          const a = typeof t === 'string' || Array.isArray(t) ? t.length : getMember(t, 'length');
          return typeof a === 'number' ? a < b : compare(f.st, '<', a, b);
        };
      }
      if (left.kind === 'slot' && right.kind === 'number') {
        const i = left.slot;
        const b = right.value;
        return (f) => {
          const a = f.slots[i];
          return typeof a === 'number' ? a < b : compare(f.st, '<', a, b);
        };
      }
      if (left.kind === 'slot' && right.kind === 'slot') {
        const i = left.slot;
        const j = right.slot;
        return (f) => {
          const a = f.slots[i];
          const b = f.slots[j];
          return typeof a === 'number' && typeof b === 'number' ? a < b : compare(f.st, '<', a, b);
        };
      }
      if (right.kind === 'number') {
        const l = evalOf(left);
        const b = right.value;
        return (f) => {
          const a = l(f);
          return typeof a === 'number' ? a < b : compare(f.st, '<', a, b);
        };
      }
      if (left.kind === 'slot') {
        const i = left.slot;
        const r = evalOf(right);
        return (f) => {
          const a = f.slots[i];
          const b = r(f);
          return typeof a === 'number' && typeof b === 'number' ? a < b : compare(f.st, '<', a, b);
        };
      }
      const l = evalOf(left);
      const r = evalOf(right);
      return (f) => {
        const a = l(f);
        const b = r(f);
        return typeof a === 'number' && typeof b === 'number' ? a < b : compare(f.st, '<', a, b);
      };
    }
    case '<=': {
      if (left.kind === 'length' && right.kind === 'number') {
        const i = left.slot;
        const b = right.value;
        return (f) => {
          const t = f.slots[i];
          const a = typeof t === 'string' || Array.isArray(t) ? t.length : getMember(t, 'length');
          return typeof a === 'number' ? a <= b : compare(f.st, '<=', a, b);
        };
      }
      if (left.kind === 'slot' && right.kind === 'number') {
        const i = left.slot;
        const b = right.value;
        return (f) => {
          const a = f.slots[i];
          return typeof a === 'number' ? a <= b : compare(f.st, '<=', a, b);
        };
      }
      if (left.kind === 'slot' && right.kind === 'slot') {
        const i = left.slot;
        const j = right.slot;
        return (f) => {
          const a = f.slots[i];
          const b = f.slots[j];
          return typeof a === 'number' && typeof b === 'number' ? a <= b : compare(f.st, '<=', a, b);
        };
      }
      if (right.kind === 'number') {
        const l = evalOf(left);
        const b = right.value;
        return (f) => {
          const a = l(f);
          return typeof a === 'number' ? a <= b : compare(f.st, '<=', a, b);
        };
      }
      if (left.kind === 'slot') {
        const i = left.slot;
        const r = evalOf(right);
        return (f) => {
          const a = f.slots[i];
          const b = r(f);
          return typeof a === 'number' && typeof b === 'number' ? a <= b : compare(f.st, '<=', a, b);
        };
      }
      const l = evalOf(left);
      const r = evalOf(right);
      return (f) => {
        const a = l(f);
        const b = r(f);
        return typeof a === 'number' && typeof b === 'number' ? a <= b : compare(f.st, '<=', a, b);
      };
    }
    case '>': {
      if (left.kind === 'length' && right.kind === 'number') {
        const i = left.slot;
        const b = right.value;
        return (f) => {
          const t = f.slots[i];
          const a = typeof t === 'string' || Array.isArray(t) ? t.length : getMember(t, 'length');
          return typeof a === 'number' ? a > b : compare(f.st, '>', a, b);
        };
      }
      if (left.kind === 'slot' && right.kind === 'number') {
        const i = left.slot;
        const b = right.value;
        return (f) => {
          const a = f.slots[i];
          return typeof a === 'number' ? a > b : compare(f.st, '>', a, b);
        };
      }
      if (left.kind === 'slot' && right.kind === 'slot') {
        const i = left.slot;
        const j = right.slot;
        return (f) => {
          const a = f.slots[i];
          const b = f.slots[j];
          return typeof a === 'number' && typeof b === 'number' ? a > b : compare(f.st, '>', a, b);
        };
      }
      if (right.kind === 'number') {
        const l = evalOf(left);
        const b = right.value;
        return (f) => {
          const a = l(f);
          return typeof a === 'number' ? a > b : compare(f.st, '>', a, b);
        };
      }
      if (left.kind === 'slot') {
        const i = left.slot;
        const r = evalOf(right);
        return (f) => {
          const a = f.slots[i];
          const b = r(f);
          return typeof a === 'number' && typeof b === 'number' ? a > b : compare(f.st, '>', a, b);
        };
      }
      const l = evalOf(left);
      const r = evalOf(right);
      return (f) => {
        const a = l(f);
        const b = r(f);
        return typeof a === 'number' && typeof b === 'number' ? a > b : compare(f.st, '>', a, b);
      };
    }
    case '>=': {
      if (left.kind === 'length' && right.kind === 'number') {
        const i = left.slot;
        const b = right.value;
        return (f) => {
          const t = f.slots[i];
          const a = typeof t === 'string' || Array.isArray(t) ? t.length : getMember(t, 'length');
          return typeof a === 'number' ? a >= b : compare(f.st, '>=', a, b);
        };
      }
      if (left.kind === 'slot' && right.kind === 'number') {
        const i = left.slot;
        const b = right.value;
        return (f) => {
          const a = f.slots[i];
          return typeof a === 'number' ? a >= b : compare(f.st, '>=', a, b);
        };
      }
      if (left.kind === 'slot' && right.kind === 'slot') {
        const i = left.slot;
        const j = right.slot;
        return (f) => {
          const a = f.slots[i];
          const b = f.slots[j];
          return typeof a === 'number' && typeof b === 'number' ? a >= b : compare(f.st, '>=', a, b);
        };
      }
      if (right.kind === 'number') {
        const l = evalOf(left);
        const b = right.value;
        return (f) => {
          const a = l(f);
          return typeof a === 'number' ? a >= b : compare(f.st, '>=', a, b);
        };
      }
      if (left.kind === 'slot') {
        const i = left.slot;
        const r = evalOf(right);
        return (f) => {
          const a = f.slots[i];
          const b = r(f);
          return typeof a === 'number' && typeof b === 'number' ? a >= b : compare(f.st, '>=', a, b);
        };
      }
      const l = evalOf(left);
      const r = evalOf(right);
      return (f) => {
        const a = l(f);
        const b = r(f);
        return typeof a === 'number' && typeof b === 'number' ? a >= b : compare(f.st, '>=', a, b);
      };
    }
    case '===': {
      if (left.kind === 'length' && right.kind === 'number') {
        const i = left.slot;
        const b = right.value;
        return (f) => {
          const t = f.slots[i];
          const a = typeof t === 'string' || Array.isArray(t) ? t.length : getMember(t, 'length');
          return typeof a === 'number' ? a === b : strictEquals(f.st, a, b);
        };
      }
      if (left.kind === 'slot' && right.kind === 'number') {
        const i = left.slot;
        const b = right.value;
        return (f) => {
          const a = f.slots[i];
          return typeof a === 'number' ? a === b : strictEquals(f.st, a, b);
        };
      }
      if (left.kind === 'slot' && right.kind === 'slot') {
        const i = left.slot;
        const j = right.slot;
        return (f) => {
          const a = f.slots[i];
          const b = f.slots[j];
          return typeof a === 'number' ? a === b : strictEquals(f.st, a, b);
        };
      }
      if (right.kind === 'number') {
        const l = evalOf(left);
        const b = right.value;
        return (f) => {
          const a = l(f);
          return typeof a === 'number' ? a === b : strictEquals(f.st, a, b);
        };
      }
      if (left.kind === 'slot') {
        const i = left.slot;
        const r = evalOf(right);
        return (f) => {
          const a = f.slots[i];
          const b = r(f);
          return typeof a === 'number' ? a === b : strictEquals(f.st, a, b);
        };
      }
      const l = evalOf(left);
      const r = evalOf(right);
      return (f) => {
        const a = l(f);
        const b = r(f);
        return typeof a === 'number' ? a === b : strictEquals(f.st, a, b);
      };
    }
    case '!==': {
      if (left.kind === 'length' && right.kind === 'number') {
        const i = left.slot;
        const b = right.value;
        return (f) => {
          const t = f.slots[i];
          const a = typeof t === 'string' || Array.isArray(t) ? t.length : getMember(t, 'length');
          return typeof a === 'number' ? a !== b : !strictEquals(f.st, a, b);
        };
      }
      if (left.kind === 'slot' && right.kind === 'number') {
        const i = left.slot;
        const b = right.value;
        return (f) => {
          const a = f.slots[i];
          return typeof a === 'number' ? a !== b : !strictEquals(f.st, a, b);
        };
      }
      if (left.kind === 'slot' && right.kind === 'slot') {
        const i = left.slot;
        const j = right.slot;
        return (f) => {
          const a = f.slots[i];
          const b = f.slots[j];
          return typeof a === 'number' ? a !== b : !strictEquals(f.st, a, b);
        };
      }
      if (right.kind === 'number') {
        const l = evalOf(left);
        const b = right.value;
        return (f) => {
          const a = l(f);
          return typeof a === 'number' ? a !== b : !strictEquals(f.st, a, b);
        };
      }
      if (left.kind === 'slot') {
        const i = left.slot;
        const r = evalOf(right);
        return (f) => {
          const a = f.slots[i];
          const b = r(f);
          return typeof a === 'number' ? a !== b : !strictEquals(f.st, a, b);
        };
      }
      const l = evalOf(left);
      const r = evalOf(right);
      return (f) => {
        const a = l(f);
        const b = r(f);
        return typeof a === 'number' ? a !== b : !strictEquals(f.st, a, b);
      };
    }
  }
}
