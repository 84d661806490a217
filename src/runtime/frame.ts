// Frames and calls of compiled functions: a running function's locals are the slots of its Frame (one per
// local the resolver numbered, src/lang/resolver.ts); statements return a completion code, expressions a
// value. `invoke` enters a function: call depth, nesting and the call's gas are checked here.

import type { FunctionDeclaration } from '../lang/index.ts';
import { limitFault } from './errors.ts';
import { CALL_NESTING_LEVELS, GAS, MAX_NESTING_LEVELS } from './limits.ts';
import { outOfGas, type ExecState } from './state.ts';
import type { RuntimeObject } from './values.ts';

/**
 * A statement's completion: 0 NORMAL (go on), 1 BREAK, 2 CONTINUE, 3 RETURN (`Frame.ret` holds the value).
 * They are written as literal numbers, each followed by a comment naming it: constants imported from this
 * module would be reloaded, with a check that they are initialised, at every comparison of the optimised loops
 * (tsx compiles each file alone, so it inlines neither an imported `const` nor an imported `const enum`).
 */
export type Completion = 0 | 1 | 2 | 3;

export class Frame {
  ret: unknown = undefined;
  constructor(
    readonly self: RuntimeObject,
    readonly st: ExecState,
    readonly slots: unknown[],
  ) {}
}

export type Eval = (f: Frame) => unknown;
export type Exec = (f: Frame) => Completion;

export interface CompiledFunction {
  name: string;
  declaration: FunctionDeclaration;
  parameterCount: number;
  slotCount: number;
  /** The tree depth of the body (see nesting.ts). */
  nestingDepth: number;
  body: Exec;
}

/**
 * Calls a function of the collection on `self` (the entry call and `this.f(...)`); `siteDepth` is the tree
 * depth of the call in the caller's body. The nesting of the calls in progress, counted in tree levels, must
 * stay within MAX_NESTING_LEVELS, so that no call depends on the size of the host's stack.
 */
export function invoke(st: ExecState, self: RuntimeObject, fn: CompiledFunction, args: readonly unknown[], siteDepth = 0): unknown {
  if (st.depth >= st.limits.maxCallDepth) {
    throw limitFault(`call depth limit exceeded: more than ${st.limits.maxCallDepth} nested calls of collection functions`);
  }
  const outerNesting = st.nesting;
  const nesting = outerNesting + siteDepth + CALL_NESTING_LEVELS;
  if (nesting + fn.nestingDepth > MAX_NESTING_LEVELS) {
    throw limitFault(
      `nesting limit exceeded: the calls in progress would nest statements and expressions ${nesting + fn.nestingDepth} levels deep, more than ${MAX_NESTING_LEVELS} (each call counts ${CALL_NESTING_LEVELS}, plus the depth of the call in its function and the depth of the function called)`,
    );
  }
  if ((st.gas -= GAS.call) < 0) throw outOfGas(st);
  // Built by push so the array is packed (no holes): slot reads stay on V8's fast path.
  const slots: unknown[] = [];
  const n = Math.min(args.length, fn.parameterCount);
  for (let i = 0; i < n; i++) slots.push(args[i]);
  for (let i = n; i < fn.slotCount; i++) slots.push(undefined);
  const frame = new Frame(self, st, slots);
  const caller = st.at;
  st.depth++;
  st.nesting = nesting;
  const completion = fn.body(frame);
  st.nesting = outerNesting;
  st.depth--;
  st.at = caller;
  return completion === 3 /* RETURN */ ? frame.ret : undefined;
}

/** Statements run in order; the first completion other than NORMAL ends the sequence. */
export function sequence(statements: Exec[]): Exec {
  switch (statements.length) {
    case 0:
      return () => 0 /* NORMAL */;
    case 1:
      return statements[0]!;
    case 2: {
      const [a, b] = statements as [Exec, Exec];
      return (f) => {
        const completion = a(f);
        return completion !== 0 /* NORMAL */ ? completion : b(f);
      };
    }
    default:
      return (f) => {
        for (let i = 0; i < statements.length; i++) {
          const completion = statements[i]!(f);
          if (completion !== 0 /* NORMAL */) return completion;
        }
        return 0 /* NORMAL */;
      };
  }
}
