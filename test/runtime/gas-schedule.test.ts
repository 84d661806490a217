// The gas schedule of docs/runtime.md, row by row, at the edges of each rule (16 and 64 characters,
// one element or key more). Each test runs the same body on inputs of two sizes: the nodes and
// statements are the same, so the difference is exactly what the rule charges. Written for the
// survivors of `npm run mutation` (mutation/README.md): a changed bound or formula fails here.
import { describe, expect, it } from 'vitest';
import { parse } from '../../src/lang/index.ts';
import { compileCollection, execute } from '../../src/runtime/index.ts';
import { runtimeBuiltins } from '../../src/runtime/builtins.ts';
import { GAS } from '../../src/runtime/limits.ts';
import { pushGas } from '../../src/runtime/gas-costs.ts';

/** A collection compiled with the fast paths and without (the general path). */
function compileSchema(source: string, name: string) {
  return [true, false].map((fastPaths) => compileCollection(parse(source), name, { fastPaths }));
}

const schema = `
collection T {
  id: string;
  m: map<string, number>;
  equal(a: string, b: string): boolean { return a == b; }
  unequal(a: string, b: string): boolean { return a != b; }
  less(a: string, b: string): boolean { return a < b; }
  lessInIf(a: string, b: string): number { if (a < b) { return 1; } return 0; }
  greaterOrEqual(a: string, b: string): boolean { return a >= b; }
  concat(a: string, b: string): string { return a + b; }
  read(k: string): number { return this.m[k]; }
  write(k: string) { this.m[k] = 1; }
  grow(items: number[], i: number): number { items[i] = 7; return items.length; }
  setLength(items: number[], n: number): number { items.length = n; return items.length; }
  logs(s: string) { log(s); }
}`;

const collections = [true, false].map((fastPaths) => ({
  fastPaths,
  collection: compileCollection(parse(schema), 'T', { fastPaths }),
}));

type Record = { id: string; m: { [key: string]: number } };
const record = (overrides: Partial<Record> = {}): Record => ({ id: 't', m: {}, ...overrides });

/** Gas of `fn(args)` on `snapshot`, under both the fast paths and the general path (which must agree). */
function gasOf(fn: string, args: unknown[], snapshot: Record = record()): number {
  const used = collections.map(({ collection }) => {
    const result = execute(collection, fn, snapshot, args);
    if (!result.ok) throw new Error(`${fn}: ${result.error.message}`);
    return result.transition.gasUsed;
  });
  expect(used[0], `${fn}: the fast and general paths use the same gas`).toBe(used[1]);
  return used[0];
}

const text = (length: number) => 'x'.repeat(length);
/** The compare rule: 1 per 64 characters for a string longer than 64. */
const compareGas = (length: number) => (length > 64 ? Math.floor(length / GAS.compareCharsPerGas) : 0);
/** The string rule: 1 per 16 characters of a string created. */
const stringGas = (length: number) => Math.floor(length / GAS.charsPerGas);
const edges = [0, 1, 15, 16, 17, 31, 32, 63, 64, 65, 127, 128, 129, 200, 1000];

describe('comparing strings pays 1 per 64 characters beyond 64 characters', () => {
  it.each(['equal', 'unequal'])('%s: by the length of the left side', (fn) => {
    const base = gasOf(fn, ['', '']);
    for (const length of edges) {
      // Equal strings and strings of a different length cost the same: the charge does not depend on the answer.
      expect(gasOf(fn, [text(length), text(length)]) - base, `length ${length}`).toBe(compareGas(length));
      expect(gasOf(fn, [text(length), 'y']) - base, `length ${length}`).toBe(compareGas(length));
    }
  });

  it.each(['less', 'lessInIf', 'greaterOrEqual'])('%s: by the length of the shorter side', (fn) => {
    const base = gasOf(fn, ['', '']);
    for (const length of edges) {
      expect(gasOf(fn, [text(length), text(length)]) - base, `both ${length}`).toBe(compareGas(length));
      expect(gasOf(fn, [text(length), text(length + 300)]) - base, `left ${length}`).toBe(compareGas(length));
      expect(gasOf(fn, [text(length + 300), text(length)]) - base, `right ${length}`).toBe(compareGas(length));
    }
  });
});

describe('a string created by + pays 1 per 16 characters of the result', () => {
  it('at and around each multiple of 16', () => {
    const base = gasOf('concat', ['', '']);
    for (const length of edges) {
      expect(gasOf('concat', [text(length), '']) - base, `length ${length}`).toBe(stringGas(length));
      expect(gasOf('concat', ['', text(length)]) - base, `length ${length}`).toBe(stringGas(length));
    }
  });

  it('a result longer than maxStringLength is limit-exceeded, one at the limit is not', () => {
    const [{ collection }] = collections;
    const limits = { maxStringLength: 40 };
    expect(execute(collection, 'concat', record(), [text(20), text(20)], {}, limits).ok).toBe(true);
    const over = execute(collection, 'concat', record(), [text(20), text(21)], {}, limits);
    expect(over.ok ? undefined : over.error).toMatchObject({ reason: 'function/limit-exceeded', message: expect.stringContaining('string too long: 41 characters') });
  });
});

describe('maps: reading pays the compare rule on the key; adding a key pays 4 and its characters', () => {
  it('reading a key', () => {
    const base = gasOf('read', [''], record({ m: { '': 1 } }));
    for (const length of edges) {
      const key = text(length);
      expect(gasOf('read', [key], record({ m: { [key]: 1 } })) - base, `length ${length}`).toBe(compareGas(length));
    }
  });

  it('adding a key, and writing to a key that is there', () => {
    const existing = gasOf('write', [''], record({ m: { '': 1 } }));
    const added = gasOf('write', [''], record());
    expect(added - existing).toBe(GAS.key);
    for (const length of edges) {
      const key = text(length);
      expect(gasOf('write', [key], record()) - existing, `new, length ${length}`).toBe(GAS.key + stringGas(length));
      expect(gasOf('write', [key], record({ m: { [key]: 1 } })) - existing, `there, length ${length}`).toBe(compareGas(length));
    }
  });
});

describe('arrays: growing by index or by length pays 1 per element added', () => {
  it('by index', () => {
    const base = gasOf('grow', [[1], 0]);
    for (const [before, index] of [[0, 0], [0, 5], [3, 3], [3, 4], [3, 40], [5, 2]]) {
      const added = Math.max(0, index + 1 - before);
      const items = Array.from({ length: before }, (_, i) => i);
      expect(gasOf('grow', [items, index]) - base, `${before} items, index ${index}`).toBe(added * GAS.element);
    }
  });

  it('by length, and shrinking is free', () => {
    const base = gasOf('setLength', [[], 0]);
    for (const [before, length] of [[0, 1], [0, 10], [4, 4], [4, 5], [4, 1], [4, 0]]) {
      const items = Array.from({ length: before }, (_, i) => i);
      expect(gasOf('setLength', [items, length]) - base, `${before} → ${length}`).toBe(Math.max(0, length - before));
    }
  });

  it('growth past maxArrayLength is limit-exceeded, growth to it is not', () => {
    const [{ collection }] = collections;
    const limits = { maxArrayLength: 10 };
    expect(execute(collection, 'grow', record(), [[], 9], {}, limits).ok).toBe(true);
    expect(execute(collection, 'setLength', record(), [[], 10], {}, limits).ok).toBe(true);
    for (const [fn, value] of [['grow', 10], ['setLength', 11]] as const) {
      const over = execute(collection, fn, record(), [[], value], {}, limits);
      expect(over.ok ? undefined : over.error).toMatchObject({ reason: 'function/limit-exceeded', message: expect.stringContaining('array too long: 11 elements') });
    }
  });
});

describe('log pays 1 per 16 characters of the line', () => {
  it('at and around each multiple of 16', () => {
    const base = gasOf('logs', ['']);
    for (const length of edges) expect(gasOf('logs', [text(length)]) - base, `length ${length}`).toBe(stringGas(length));
  });

  it('a call may log maxStringLength characters, not one more', () => {
    const [{ collection }] = collections;
    const limits = { maxStringLength: 40 };
    expect(execute(collection, 'logs', record(), [text(40)], {}, limits).ok).toBe(true);
    const over = execute(collection, 'logs', record(), [text(41)], {}, limits);
    expect(over.ok ? undefined : over.error).toMatchObject({ reason: 'function/limit-exceeded', message: expect.stringContaining('log too long: 41 characters') });
  });
});

describe('running out of gas', () => {
  it('a call fails at exactly the gas it needs minus one, succeeds with exactly what it needs, and reports its use', () => {
    const [{ collection }] = collections;
    const needed = gasOf('concat', [text(100), text(100)]);
    const enough = execute(collection, 'concat', record(), [text(100), text(100)], {}, { gas: needed });
    expect(enough.ok && enough.transition.gasUsed).toBe(needed);
    const short = execute(collection, 'concat', record(), [text(100), text(100)], {}, { gas: needed - 1 });
    expect(short.ok ? undefined : [short.error.reason, short.gasUsed]).toEqual(['function/out-of-gas', needed - 1]);
    expect(short.ok ? undefined : short.error.message).toBe(`out of gas: the call needs more than its limit of ${needed - 1} gas`);
  });
});

// The rows of the schedule that the compiler charges before a statement runs: 1 per statement, 1 per
// expression node in it, the extra per element and property of literals, 20 per call, and what loops pay
// per iteration. Each function is measured against `nothing()`, so what is left is the body's gas alone.
// The collection is compiled inside each test (not when the file loads), so that mutation testing counts
// the compile-time gas (gas-costs.ts) as covered by these tests.
describe('statements and expression nodes', () => {
  const source = `
collection G {
  id: string;
  m: map<string, number>;
  tags: string[];
  nothing() {}
  literal(): number { return 1; }
  sum(a: number, b: number): number { return a + b; }
  negate(a: number): number { return -a; }
  choose(b: boolean): number { return b ? 1 : 2; }
  both(a: boolean, b: boolean): boolean { return a && b; }
  member(): string { return this.id; }
  index(k: string): number { return this.m[k]; }
  array(): number[] { return [1, 2, 3]; }
  object() { let o = { a: 1, b: 2 }; }
  nested(): number[][] { return [[1], []]; }
  declare(a: number) { let x = a; }
  declareEmpty() { let x: number; }
  assign(a: number) { let x = 0; x = a; }
  addTo(a: number) { let x = 0; x += a; }
  increment() { let i = 0; i++; }
  expression(a: number) { a + 1; }
  push(s: string) { this.tags.push(s); }
  helper(): number { return 1; }
  callHelper(): number { return this.helper(); }
  ifThen(b: boolean) { if (b) { } }
  whileLoop(n: number) { let i = 0; while (i < n) { i += 1; } }
  forLoop(n: number) { for (let i = 0; i < n; i++) { } }
  forSlow(n: number) { for (let i = 0; i < n + 0; i = i + 1) { } }
  forOfArray(xs: number[]) { for (let x of xs) { } }
  forOfString(s: string) { for (let c of s) { } }
  forOfMap() { for (let v of this.m) { } }
  forInArray(xs: number[]) { for (let i in xs) { } }
  forInMap() { for (let k in this.m) { } }
  breakLoop() { while (true) { break; } }
  continueLoop(n: number) { for (let i = 0; i < n; i++) { continue; } }
  fail() { throw error('no'); }
  callNothing() { this.nothing(); }
  subtractFrom(a: number) { let x = 0; x -= a; }
  appendText(s: string): string { let x = ''; x += s; return x; }
  appendNumber(s: string, n: number): string { let x = s; x += n; return x; }
  ifLess(a: number, b: number) { if (a < b) { } }
  lengthLess(s: string) { if (s.length < 3) { } }
  lengthAtMost(s: string) { if (s.length <= 3) { } }
  lengthMore(s: string) { if (s.length > 3) { } }
  lengthAtLeast(s: string) { if (s.length >= 3) { } }
  forFixed() { for (let i = 0; i < 3; i++) { } }
  forInclusive(n: number) { for (let i = 0; i <= n; i++) { } }
  forTwo(n: number) { for (let i = 0; i < n; i++) { let a = 1; let b = 2; } }
  pushTo(xs: string[], s: string) { xs.push(s); }
  prependTo(n: number, s: string) { let x = n; x += s; }
}`;
  const snapshot = { id: 'g', m: { a: 1, b: 2, c: 3 }, tags: [] };

  /**
   * Gas of `fn(args)` beyond an empty call, under both builds (which must agree; a failing call's gasUsed).
   * The call also runs with exactly the gas it uses (not out of gas) and with one less (out of gas).
   */
  function bodyGas(fn: string, args: unknown[] = []): number {
    const statements = compileSchema(source, 'G');
    const used = statements.map((collection) => {
      const result = execute(collection, fn, snapshot, args);
      return result.ok ? result.transition.gasUsed : result.gasUsed;
    });
    expect(used[0], `${fn}: the fast and general paths use the same gas`).toBe(used[1]);
    for (const collection of statements) {
      const exact = execute(collection, fn, snapshot, args, {}, { gas: used[0]! });
      expect(exact.ok ? 'ok' : exact.error.reason, `${fn} with exactly its gas`).not.toBe('function/out-of-gas');
      const short = execute(collection, fn, snapshot, args, {}, { gas: used[0]! - 1 });
      expect(short.ok ? 'ok' : [short.error.reason, short.gasUsed], `${fn} with one gas less`).toEqual(['function/out-of-gas', used[0]! - 1]);
    }
    const empty = execute(statements[0]!, 'nothing', snapshot, []);
    return used[0]! - (empty.ok ? empty.transition.gasUsed : NaN);
  }

  const { statement: S, node: N, element: E, key: K, call: C } = GAS;

  it.each([
    ['literal', [], S + N],
    ['sum', [1, 2], S + 3 * N],
    ['negate', [1], S + 2 * N],
    ['choose', [true], S + 4 * N],
    ['both', [true, false], S + 3 * N],
    ['member', [], S + 2 * N],
    ['index', ['a'], S + 4 * N],
    ['array', [], S + 4 * N + 3 * E],
    ['object', [], S + 3 * N + 2 * K],
    ['nested', [], S + 4 * N + 3 * E],
    ['declare', [1], S + N],
    ['declareEmpty', [], S],
    ['assign', [1], S + N + S + 3 * N],
    ['addTo', [1], S + N + S + 3 * N],
    ['increment', [], S + N + S + 2 * N],
    ['subtractFrom', [1], S + N + S + 3 * N],
    ['ifLess', [1, 2], S + 3 * N],
    ['ifLess', [2, 1], S + 3 * N],
    ['lengthLess', ['ab'], S + 4 * N],
    ['lengthAtMost', ['ab'], S + 4 * N],
    ['lengthMore', ['ab'], S + 4 * N],
    ['lengthAtLeast', ['abcd'], S + 4 * N],
    ['forFixed', [], S + N + 4 * (S + 5 * N)],
    ['expression', [1], S + 3 * N],
  ])('%s %j pays its statements and nodes', (fn, args, gas) => {
    expect(bodyGas(fn, args)).toBe(gas);
  });

  it('throw pays its statement and nodes, and error() its catalogue cost, in the gas of the failed call', () => {
    const { base, perUnit } = runtimeBuiltins.get('global.error')!.entry.gas;
    expect(bodyGas('fail')).toBe(S + 3 * N + base + (perUnit ?? 0) * 'no'.length);
  });

  it('push pays its statement, its nodes and its catalogue cost', () => {
    expect(bodyGas('push', ['x'])).toBe(S + 5 * N + pushGas());
    expect(bodyGas('pushTo', [['a'], 'x'])).toBe(S + 4 * N + pushGas());
  });

  it('a call of a collection function pays 20 and the statements of the function called', () => {
    expect(bodyGas('callHelper')).toBe(S + 3 * N + C + (S + N));
    expect(bodyGas('callNothing')).toBe(S + 3 * N + C);
  });

  it('+= on a string pays 1 per 16 characters of the result, whatever the right side', () => {
    for (const length of edges) {
      expect(bodyGas('appendText', [text(length)]), `length ${length}`).toBe(S + N + S + 3 * N + S + N + stringGas(length));
      // 'x…x' += 12345: the result has five characters more.
      expect(bodyGas('appendNumber', [text(length), 12345]), `length ${length} + 5`).toBe(S + N + S + 3 * N + S + N + stringGas(length + 5));
      // 12345 += 'x…x' (unchecked: the checker refuses it; the runtime concatenates as JavaScript does).
      expect(bodyGas('prependTo', [12345, text(length)]), `5 + length ${length}`).toBe(S + N + S + 3 * N + stringGas(length + 5));
    }
  });

  it('an if pays its test; a loop pays its test (and update) each time round, and once more to stop', () => {
    expect(bodyGas('ifThen', [true])).toBe(S + N);
    expect(bodyGas('ifThen', [false])).toBe(S + N);
    for (const n of [0, 1, 5]) {
      // let i = 0 (S + N); the test i < n (S + 3N) n + 1 times; i += 1 (S + 3N) n times.
      expect(bodyGas('whileLoop', [n]), `while, ${n} times`).toBe(S + N + (n + 1) * (S + 3 * N) + n * (S + 3 * N));
      // let i = 0; the test and update (S + 3N + 2N) n + 1 times.
      expect(bodyGas('forLoop', [n]), `for, ${n} times`).toBe(S + N + (n + 1) * (S + 5 * N));
      expect(bodyGas('forSlow', [n]), `for, general, ${n} times`).toBe(S + N + (n + 1) * (S + 5 * N + 5 * N));
      expect(bodyGas('continueLoop', [n]), `continue, ${n} times`).toBe(S + N + (n + 1) * (S + 5 * N) + n * S);
      expect(bodyGas('forInclusive', [n]), `for, up to ${n}`).toBe(S + N + (n + 2) * (S + 5 * N));
      expect(bodyGas('forTwo', [n]), `for with two statements, ${n} times`).toBe(S + N + (n + 1) * (S + 5 * N) + n * 2 * (S + N));
    }
    expect(bodyGas('breakLoop')).toBe(S + N + S);
  });

  it('for…of pays its iterable, then 1 per item; over a string 1 per 16 characters, over a map 1 per key', () => {
    for (const n of [0, 1, 5]) {
      expect(bodyGas('forOfArray', [Array.from({ length: n }, (_, i) => i)]), `${n} items`).toBe(S + N + n * S);
    }
    for (const length of [0, 15, 16, 33]) {
      expect(bodyGas('forOfString', [text(length)]), `${length} characters`).toBe(S + N + stringGas(length) + length * S);
    }
    expect(bodyGas('forOfMap')).toBe(S + 2 * N + 3 + 3 * S);
  });

  it('for…in pays its iterable, then 1 per index or key taken, and 1 per item', () => {
    for (const n of [0, 1, 5]) {
      expect(bodyGas('forInArray', [Array.from({ length: n }, (_, i) => i)]), `${n} items`).toBe(S + N + n + n * S);
    }
    expect(bodyGas('forInMap')).toBe(S + 2 * N + 3 + 3 * S);
  });

  it('running out of gas inside a loop stops at the statement that has no gas left', () => {
    const statements = compileSchema(source, 'G');
    const needed = bodyGas('forLoop', [3]) + (execute(statements[0]!, 'nothing', snapshot, []) as { transition: { gasUsed: number } }).transition.gasUsed;
    for (const build of statements) {
      expect(execute(build, 'forLoop', snapshot, [3], {}, { gas: needed }).ok).toBe(true);
      const short = execute(build, 'forLoop', snapshot, [3], {}, { gas: needed - 1 });
      expect(short.ok ? undefined : [short.error.reason, short.gasUsed]).toEqual(['function/out-of-gas', needed - 1]);
    }
  });
});
