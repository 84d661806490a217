// The mutable state of one execution: gas left, call depth, the selfdestruct flag and where the
// running statement is (for error positions). One ExecState per `execute`, never shared.

import type { Span } from '../lang/index.ts';
import { RuntimeFault, limitFault } from './errors.ts';
import { GAS, type ExecutionLimits } from './limits.ts';
import type { RuntimeObject } from './values.ts';

export class ExecState {
  // Initialised to a small integer at its declaration (not left `undefined` until the constructor):
  // V8 then keeps the field in its small-integer representation, and `st.gas -= cost`, the most
  // frequent write of the interpreter, needs no boxing. Measured: about 17% off a push/splice loop.
  gas = 0;
  depth = 0;
  /** Tree levels below the running function's body: the calls in progress, where each was made (see invoke). */
  nesting = 0;
  selfdestructed = false;
  /** The statement running now, for the position of an error: an index into `spans`, or -1. */
  at = -1;
  /** What the function logged with `log(...)`: returned beside the result, never stored. */
  logs: string[] | undefined = undefined;
  #logChars = 0;

  constructor(
    readonly limits: ExecutionLimits,
    /** `ctx` / `$auth` as the function sees it: a frozen object with `publicKey` when signed. */
    readonly ctx: RuntimeObject,
    /** The positions of the running collection's statements (its compiler's table). */
    readonly spans: readonly Span[] = [],
  ) {
    // `| 0` (exact: resolveLimits allows at most MAX_GAS, 10^9, a whole number) stores a small integer even
    // when `limits.gas` was read as a boxed number (a limits object whose `gas` field V8 keeps as a double,
    // as it does for the limits a caller builds). One boxed store would turn the field to doubles for every
    // ExecState, and each `st.gas -= cost` then writes to a heap number: about 3x slower statements.
    this.gas = limits.gas | 0;
  }

  /** The position of the statement running now (or that was running when an error was raised). */
  get span(): Span | null {
    return this.at >= 0 ? (this.spans[this.at] ?? null) : null;
  }

  /** Adds a line to the call's log, paying 1 gas per 16 characters; the log as a whole is capped like a string. */
  log(line: string): void {
    this.#logChars += line.length;
    if (this.#logChars > this.limits.maxStringLength) {
      throw limitFault(`log too long: ${this.#logChars} characters logged (the limit is ${this.limits.maxStringLength})`);
    }
    charge(this, Math.floor(line.length / GAS.charsPerGas));
    (this.logs ??= []).push(line);
  }

  get gasUsed(): number {
    return this.limits.gas - Math.max(this.gas, 0);
  }
}

export function outOfGas(st: ExecState): RuntimeFault {
  st.gas = -1;
  return new RuntimeFault('function/out-of-gas', `out of gas: the call needs more than its limit of ${st.limits.gas} gas`);
}

export function charge(st: ExecState, amount: number): void {
  if ((st.gas -= amount) < 0) throw outOfGas(st);
}

/** Gas and the length cap for a string of `length` code units being created. */
export function allocateString(st: ExecState, length: number): void {
  if (length > st.limits.maxStringLength) {
    throw limitFault(`string too long: ${length} characters (the limit is ${st.limits.maxStringLength})`);
  }
  if (length >= CHARS_PER_GAS && (st.gas -= Math.floor(length / CHARS_PER_GAS)) < 0) throw outOfGas(st);
}

const CHARS_PER_GAS = GAS.charsPerGas;

/** Gas and the length cap for an array growing to `newLength` by `added` elements. */
export function allocateElements(st: ExecState, newLength: number, added: number): void {
  if (newLength > st.limits.maxArrayLength) {
    throw limitFault(`array too long: ${newLength} elements (the limit is ${st.limits.maxArrayLength})`);
  }
  if (added > 0) charge(st, added * GAS.element);
}
