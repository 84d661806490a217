// `for (…; i < n; i++)` over two variables, the most common loop, as countedLoop (fused-shapes.ts) runs it
// without its branches on the shape: one closure for a body of one statement, one for a longer body.
//
// The same closure is written out four times (upTo0…upTo3), and a loop takes the copy its first statement's
// shape selects. V8 keeps one set of type feedback and one optimised code per line of source, shared by
// every closure that line made: with a single copy, the call of the first statement sees every loop's first
// statement (a push in one body, `x += …` in another, `x = …` in a third), becomes polymorphic, and is no
// longer inlined. A copy per shape keeps that call site on one kind of target, whatever other bodies run.
// Measured with the bench bodies compiled in one process, after the four bench loops had run: an empty
// counted loop 17-21 ns per iteration with one copy, 4.4 ns with its own copy.
//
// Every copy is the same code; keep them identical when editing (the tests hold each to the general path
// through the bodies that select it).
//
// A copy's closure does nothing before its loop: the loop's `init` runs in a closure of its own, and the frame's
// fields are read inside the loop. V8 allocates a closure's type feedback lazily, during its first call, so code
// before the loop, run once a call, could still be without feedback when the loop's first call had V8 optimise
// the closure (a race with the concurrent compile, lost in about half the processes): that code deoptimised on
// its next entry ("insufficient type feedback") and every later call ran the loop through on-stack-replacement
// code. With nothing before the loop, `--trace-deopt` shows no such deoptimisation.

import type { Exec } from './frame.ts';
import { compare, toNumeric } from './operations.ts';
import { outOfGas } from './state.ts';

/** The copy of the loop a body's first statement selects, by its shape; anything unmarked takes `other`. */
export const LOOP_COPY = Object.freeze({ other: 0, push: 1, update: 2, assign: 3 });

const loopCopies = new WeakMap<Exec, number>();

/** Marks a statement's closure with the loop copy it selects when it comes first in a loop body. */
export function withLoopCopy(copy: number, statement: Exec): Exec {
  loopCopies.set(statement, copy);
  return statement;
}

/** The counted loop `for (init; slots[slot] < slots[boundSlot]; slots[slot]++) { first; rest }`. */
export function upTo(slot: number, boundSlot: number, init: Exec | null, first: Exec, rest: Exec | null, cost: number, span: number): Exec {
  const loop = upToCopy(slot, boundSlot, first, rest, cost, span);
  return init ? initThenLoop(init, loop) : loop;
}

function upToCopy(slot: number, boundSlot: number, first: Exec, rest: Exec | null, cost: number, span: number): Exec {
  switch (loopCopies.get(first) ?? LOOP_COPY.other) {
    case LOOP_COPY.push:
      return upTo1(slot, boundSlot, first, rest, cost, span);
    case LOOP_COPY.update:
      return upTo2(slot, boundSlot, first, rest, cost, span);
    case LOOP_COPY.assign:
      return upTo3(slot, boundSlot, first, rest, cost, span);
    default:
      return upTo0(slot, boundSlot, first, rest, cost, span);
  }
}

/** The loop's `init` (a statement, always NORMAL), then the loop: kept out of the loop's closure (see above). */
function initThenLoop(init: Exec, loop: Exec): Exec {
  return (f) => {
    init(f);
    return loop(f);
  };
}

function upTo0(slot: number, boundSlot: number, first: Exec, rest: Exec | null, cost: number, span: number): Exec {
  if (rest === null) {
    return (f) => {
      for (;;) {
        const st = f.st;
        const slots = f.slots;
        if ((st.gas -= cost) < 0) throw outOfGas(st);
        st.at = span;
        const a = slots[slot];
        const b = slots[boundSlot];
        if (!(typeof a === 'number' && typeof b === 'number' ? a < b : compare(st, '<', a, b))) return 0 /* NORMAL */;
        const completion = first(f);
        if (completion === 1 /* BREAK */) return 0 /* NORMAL */;
        if (completion === 3 /* RETURN */) return 3 /* RETURN */;
        const current = slots[slot];
        slots[slot] = (typeof current === 'number' ? current : toNumeric(current, '++')) + 1;
      }
    };
  }
  return (f) => {
    for (;;) {
      const st = f.st;
      const slots = f.slots;
      if ((st.gas -= cost) < 0) throw outOfGas(st);
      st.at = span;
      const a = slots[slot];
      const b = slots[boundSlot];
      if (!(typeof a === 'number' && typeof b === 'number' ? a < b : compare(st, '<', a, b))) return 0 /* NORMAL */;
      let completion = first(f);
      if (completion === 0 /* NORMAL */) completion = rest(f);
      if (completion === 1 /* BREAK */) return 0 /* NORMAL */;
      if (completion === 3 /* RETURN */) return 3 /* RETURN */;
      const current = slots[slot];
      slots[slot] = (typeof current === 'number' ? current : toNumeric(current, '++')) + 1;
    }
  };
}

function upTo1(slot: number, boundSlot: number, first: Exec, rest: Exec | null, cost: number, span: number): Exec {
  if (rest === null) {
    return (f) => {
      for (;;) {
        const st = f.st;
        const slots = f.slots;
        if ((st.gas -= cost) < 0) throw outOfGas(st);
        st.at = span;
        const a = slots[slot];
        const b = slots[boundSlot];
        if (!(typeof a === 'number' && typeof b === 'number' ? a < b : compare(st, '<', a, b))) return 0 /* NORMAL */;
        const completion = first(f);
        if (completion === 1 /* BREAK */) return 0 /* NORMAL */;
        if (completion === 3 /* RETURN */) return 3 /* RETURN */;
        const current = slots[slot];
        slots[slot] = (typeof current === 'number' ? current : toNumeric(current, '++')) + 1;
      }
    };
  }
  return (f) => {
    for (;;) {
      const st = f.st;
      const slots = f.slots;
      if ((st.gas -= cost) < 0) throw outOfGas(st);
      st.at = span;
      const a = slots[slot];
      const b = slots[boundSlot];
      if (!(typeof a === 'number' && typeof b === 'number' ? a < b : compare(st, '<', a, b))) return 0 /* NORMAL */;
      let completion = first(f);
      if (completion === 0 /* NORMAL */) completion = rest(f);
      if (completion === 1 /* BREAK */) return 0 /* NORMAL */;
      if (completion === 3 /* RETURN */) return 3 /* RETURN */;
      const current = slots[slot];
      slots[slot] = (typeof current === 'number' ? current : toNumeric(current, '++')) + 1;
    }
  };
}

function upTo2(slot: number, boundSlot: number, first: Exec, rest: Exec | null, cost: number, span: number): Exec {
  if (rest === null) {
    return (f) => {
      for (;;) {
        const st = f.st;
        const slots = f.slots;
        if ((st.gas -= cost) < 0) throw outOfGas(st);
        st.at = span;
        const a = slots[slot];
        const b = slots[boundSlot];
        if (!(typeof a === 'number' && typeof b === 'number' ? a < b : compare(st, '<', a, b))) return 0 /* NORMAL */;
        const completion = first(f);
        if (completion === 1 /* BREAK */) return 0 /* NORMAL */;
        if (completion === 3 /* RETURN */) return 3 /* RETURN */;
        const current = slots[slot];
        slots[slot] = (typeof current === 'number' ? current : toNumeric(current, '++')) + 1;
      }
    };
  }
  return (f) => {
    for (;;) {
      const st = f.st;
      const slots = f.slots;
      if ((st.gas -= cost) < 0) throw outOfGas(st);
      st.at = span;
      const a = slots[slot];
      const b = slots[boundSlot];
      if (!(typeof a === 'number' && typeof b === 'number' ? a < b : compare(st, '<', a, b))) return 0 /* NORMAL */;
      let completion = first(f);
      if (completion === 0 /* NORMAL */) completion = rest(f);
      if (completion === 1 /* BREAK */) return 0 /* NORMAL */;
      if (completion === 3 /* RETURN */) return 3 /* RETURN */;
      const current = slots[slot];
      slots[slot] = (typeof current === 'number' ? current : toNumeric(current, '++')) + 1;
    }
  };
}

function upTo3(slot: number, boundSlot: number, first: Exec, rest: Exec | null, cost: number, span: number): Exec {
  if (rest === null) {
    return (f) => {
      for (;;) {
        const st = f.st;
        const slots = f.slots;
        if ((st.gas -= cost) < 0) throw outOfGas(st);
        st.at = span;
        const a = slots[slot];
        const b = slots[boundSlot];
        if (!(typeof a === 'number' && typeof b === 'number' ? a < b : compare(st, '<', a, b))) return 0 /* NORMAL */;
        const completion = first(f);
        if (completion === 1 /* BREAK */) return 0 /* NORMAL */;
        if (completion === 3 /* RETURN */) return 3 /* RETURN */;
        const current = slots[slot];
        slots[slot] = (typeof current === 'number' ? current : toNumeric(current, '++')) + 1;
      }
    };
  }
  return (f) => {
    for (;;) {
      const st = f.st;
      const slots = f.slots;
      if ((st.gas -= cost) < 0) throw outOfGas(st);
      st.at = span;
      const a = slots[slot];
      const b = slots[boundSlot];
      if (!(typeof a === 'number' && typeof b === 'number' ? a < b : compare(st, '<', a, b))) return 0 /* NORMAL */;
      let completion = first(f);
      if (completion === 0 /* NORMAL */) completion = rest(f);
      if (completion === 1 /* BREAK */) return 0 /* NORMAL */;
      if (completion === 3 /* RETURN */) return 3 /* RETURN */;
      const current = slots[slot];
      slots[slot] = (typeof current === 'number' ? current : toNumeric(current, '++')) + 1;
    }
  };
}
