// Limits of one execution and the gas schedule of the interpreter. Gas is counted in whole units and
// depends only on the program and its inputs, so the same call uses the same gas on every machine.
// The costs of built-ins are data in the catalogue (src/lang/builtins.ts); these are the rest.

export interface ExecutionLimits {
  /** Gas available to the call. */
  gas: number;
  /** How deep functions of the collection may call each other (`this.f()` inside `this.g()`). */
  maxCallDepth: number;
  /** Longest string a function may build, in UTF-16 code units. */
  maxStringLength: number;
  /** Longest array a function may build. */
  maxArrayLength: number;
  /**
   * Longest JSON text, in UTF-16 code units, of the record a call leaves (and of each record it changes, and of
   * its return value). Gas pays for what a function allocates, but one string may be referenced many times.
   * The default is the service's request body limit: a record is stored once per index, so its size multiplies.
   */
  maxRecordSize: number;
}

export const DEFAULT_LIMITS: Readonly<ExecutionLimits> = Object.freeze({
  gas: 10_000_000,
  maxCallDepth: 100,
  maxStringLength: 1 << 20,
  maxArrayLength: 1 << 20,
  maxRecordSize: 1 << 20,
});

/**
 * How deeply the calls in progress may nest statements and expressions in all, in tree levels: each call counts
 * CALL_NESTING_LEVELS, plus the depth of the call in its caller's body, plus the depth of the body called
 * (see nesting.ts). The compiled closures nest as the tree does, so this bounds the host stack an execution
 * uses, whatever the program: measured, 2,000 levels of the costliest nodes (nested statements) use well under
 * half of a 500 KB stack (node --stack-size=500), and Node's default is about 984 KB. A fixed constant, not a
 * per-call limit, so that a call succeeds or fails the same way on every machine.
 */
export const MAX_NESTING_LEVELS = 1250;

/** What one call of a collection function counts towards MAX_NESTING_LEVELS (its frames, in tree levels). */
export const CALL_NESTING_LEVELS = 4;

/** The most gas a caller may ask for: keeps every call within a few seconds. */
export const MAX_GAS = 1_000_000_000;

export function resolveLimits(limits: Partial<ExecutionLimits> | undefined): ExecutionLimits {
  // Plain loops, no entries/fromEntries/filter arrays: this runs on every call. Keys other than the
  // four limits are validated the same way (and then ignored), in the order the caller gave them.
  const resolved: ExecutionLimits = { ...DEFAULT_LIMITS };
  const given = limits as Record<string, unknown> | null | undefined;
  const others: string[] = [];
  if (given !== undefined && given !== null) {
    for (const name of Object.keys(given)) {
      const value = given[name];
      if (value === undefined) continue;
      if (Object.hasOwn(DEFAULT_LIMITS, name)) (resolved as unknown as Record<string, unknown>)[name] = value;
      else others.push(name);
    }
  }
  for (const name of LIMIT_NAMES) checkLimit(name, resolved[name]);
  for (const name of others) checkLimit(name, given![name]);
  if (resolved.gas > MAX_GAS) throw new RangeError(`limit gas must be at most ${MAX_GAS}, got ${resolved.gas}`);
  return resolved;
}

const LIMIT_NAMES = Object.keys(DEFAULT_LIMITS) as (keyof ExecutionLimits)[];

function checkLimit(name: string, value: unknown): void {
  if (!Number.isSafeInteger(value) || (value as number) < 0) {
    throw new RangeError(`limit ${name} must be a non-negative integer, got ${String(value)}`);
  }
}

/** The gas schedule (documented in docs/runtime.md). */
export const GAS = Object.freeze({
  /** Every statement executed, and every loop test evaluated. */
  statement: 1,
  /** Every operator, literal, variable access, member access or call inside an expression. */
  node: 1,
  /** A call between functions of the collection (`this.f()`), on top of its nodes. */
  call: 20,
  /** Calls of a built-in: the catalogue's cost; this is the floor for one without an entry. */
  builtinFloor: 1,
  /** Strings: one unit per this many UTF-16 code units created (concatenation, built-ins). */
  charsPerGas: 16,
  /** Arrays: units per element created (literals, push, growth by index). */
  element: 1,
  /** Maps and objects: units per key added. */
  key: 4,
  /** Comparing or hashing strings: one unit per this many code units beyond the first 64. */
  compareCharsPerGas: 64,
});
