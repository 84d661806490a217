// The gas schedule of docs/runtime.md, row by row, at the edges of each rule (16 and 64 characters,
// one element or key more). Each test runs the same body on inputs of two sizes: the nodes and
// statements are the same, so the difference is exactly what the rule charges. Written for the
// survivors of `npm run mutation` (mutation/README.md): a changed bound or formula fails here.
import { describe, expect, it } from 'vitest';
import { parse } from '../../src/lang/index.ts';
import { compileCollection, execute } from '../../src/runtime/index.ts';
import { GAS } from '../../src/runtime/limits.ts';

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
