// Arithmetic on sized numbers at run time: every result is a value of the type, or the call fails with
// function/arithmetic-error naming the operation and its values. Checked against BigInt arithmetic.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SIZED_NUMBER_RANGES, type SizedNumberName } from '../../src/lang/index.ts';
import { execute } from '../../src/runtime/index.ts';
import { sizedNumberArbitrary } from '../../src/testing/index.ts';
import { fails, load, ok } from './helpers.ts';

const INTEGER_TYPES = ['u32', 'i32', 'u64', 'i64'] as const;
const FLOAT_TYPES = ['f32', 'f64'] as const;
const OPERATORS = ['+', '-', '*', '/', '%'] as const;

/** A collection whose `f(a, b)` returns `a op b` for every operator, with the operands in `size`. */
function calculator(size: SizedNumberName) {
  const functions = OPERATORS.map((op, i) => `  op${i}(a: ${size}, b: ${size}): ${size} { return a ${op} b; }`).join('\n');
  return load(`collection C {\n  id: string;\n  n: ${size};\n${functions}\n  neg(a: ${size}): ${size} { return -a; }\n  inc(a: ${size}): ${size} { let x = a; x++; return x; }\n  dec(a: ${size}): ${size} { this.n = a; this.n -= 1; return this.n; }\n}`, 'C');
}

function run(collection: ReturnType<typeof calculator>, fn: string, args: number[], snapshot = { id: 'c', n: 0 }) {
  return execute(collection, fn, snapshot, args);
}

/** What the operation must give, worked out exactly: the value, or undefined when it must fail. */
function expectedInteger(size: SizedNumberName, op: (typeof OPERATORS)[number], a: number, b: number): number | undefined {
  const x = BigInt(a);
  const y = BigInt(b);
  let r: bigint;
  switch (op) {
    case '+': r = x + y; break;
    case '-': r = x - y; break;
    case '*': r = x * y; break;
    case '/': if (y === 0n) return undefined; r = x / y; break; // BigInt division truncates towards zero
    case '%': if (y === 0n) return undefined; r = x % y; break; // and keeps the dividend's sign
  }
  const { min, max } = SIZED_NUMBER_RANGES[size];
  return r >= BigInt(min) && r <= BigInt(max) ? Number(r) : undefined;
}

describe('integer types against a BigInt reference', () => {
  for (const size of INTEGER_TYPES) {
    it(`${size}: + - * / % give the exact result or fail`, () => {
      const collection = calculator(size);
      const operand = sizedNumberArbitrary(size);
      fc.assert(
        fc.property(fc.nat(OPERATORS.length - 1), operand, operand, (i, a, b) => {
          const op = OPERATORS[i]!;
          const expected = expectedInteger(size, op, a, b);
          const result = run(collection, `op${i}`, [a, b]);
          if (expected === undefined) {
            expect(result.ok, `${a} ${op} ${b} must fail`).toBe(false);
            if (!result.ok) {
              expect(result.error.reason).toBe('function/arithmetic-error');
              expect(result.error.message).toContain(`${a} ${op} ${b}`);
              expect(result.error.message).toContain(size);
            }
          } else {
            expect(ok(result).returnValue).toBe(expected);
          }
        }),
        { numRuns: 400, seed: 24 },
      );
    });

    it(`${size}: unary minus, ++ and -= stay in the range or fail`, () => {
      const collection = calculator(size);
      const { min, max } = SIZED_NUMBER_RANGES[size];
      fc.assert(
        fc.property(sizedNumberArbitrary(size), (a) => {
          const cases: [string, bigint][] = [
            ['neg', -BigInt(a)],
            ['inc', BigInt(a) + 1n],
            ['dec', BigInt(a) - 1n],
          ];
          for (const [fn, exact] of cases) {
            const result = run(collection, fn, [a]);
            if (exact >= BigInt(min) && exact <= BigInt(max)) expect(ok(result).returnValue).toBe(Number(exact));
            else expect(fails(result).reason).toBe('function/arithmetic-error');
          }
        }),
        { numRuns: 200, seed: 24 },
      );
    });
  }
});

describe('float types', () => {
  for (const size of FLOAT_TYPES) {
    it(`${size}: a result is the double result when finite and in range, else the call fails`, () => {
      const collection = calculator(size);
      const operand = sizedNumberArbitrary(size);
      const { min, max } = SIZED_NUMBER_RANGES[size];
      fc.assert(
        fc.property(fc.nat(OPERATORS.length - 1), operand, operand, (i, a, b) => {
          const op = OPERATORS[i]!;
          const exact = op === '+' ? a + b : op === '-' ? a - b : op === '*' ? a * b : op === '/' ? a / b : a % b;
          const result = run(collection, `op${i}`, [a, b]);
          if ((b !== 0 || op === '+' || op === '-' || op === '*') && Number.isFinite(exact) && exact >= min && exact <= max) expect(ok(result).returnValue).toBe(exact === 0 ? 0 : exact);
          else expect(fails(result).reason).toBe('function/arithmetic-error');
        }),
        { numRuns: 300, seed: 24 },
      );
    });
  }
});

describe('messages and rules', () => {
  const counter = load(
    `collection Counter {
  id: string;
  count: u32;
  balance: i64;
  byDay: map<string, u32>;
  constructor (id: string) { this.id = id; this.count = 0; this.balance = 0; this.byDay = {}; }
  add(n: u32) { this.count = this.count + n; }
  take(n: u32) { this.count -= n; }
  half(): u32 { return this.count / 2; }
  day(key: string, n: u32) { this.byDay[key] = n; this.byDay[key] += 4294967295; }
  label(): string { return 'count ' + this.count; }
  loop(n: u32): u32 { let total = 0; for (let i = 0; i < n; i++) { total += i; } return total; }
  wrap(a: u32, b: u32): u32 { return a.wrappingAdd(b); }
  wrapSub(a: u32, b: u32): u32 { return uint32WrappingSub(a, b); }
  wrapMul(a: u32, b: u32): u32 { return uint32WrappingMul(a, b); }
  plain(n: number): number { return n - 5000000000; }
}`,
    'Counter',
  );
  const record = ok(execute(counter, 'constructor', null, ['c'])).record!;

  it('overflow names the type, the operation and its values; nothing changes', () => {
    const full = { ...record, count: 4294967295 };
    expect(fails(execute(counter, 'add', full, [1]))).toEqual(
      expect.objectContaining({
        reason: 'function/arithmetic-error',
        message: 'u32 overflow: 4294967295 + 1 = 4294967296 is out of range for u32 (whole numbers from 0 to 4294967295)',
      }),
    );
    expect(fails(execute(counter, 'take', record, [1])).message).toBe(
      'u32 overflow: 0 - 1 = -1 is out of range for u32 (whole numbers from 0 to 4294967295)',
    );
  });

  it('integer division truncates; a map entry of a sized type is checked too', () => {
    expect(ok(execute(counter, 'half', { ...record, count: 7 }, [])).returnValue).toBe(3);
    expect(fails(execute(counter, 'day', record, ['mon', 1])).message).toMatch(/^u32 overflow: 1 \+ 4294967295 = 4294967296/);
  });

  it('a string concatenated with a sized number is still text; a plain number is unchecked', () => {
    expect(ok(execute(counter, 'label', { ...record, count: 5 }, [])).returnValue).toBe('count 5');
    expect(ok(execute(counter, 'plain', record, [1])).returnValue).toBe(1 - 5000000000);
  });

  it('a loop counter taking its type from a literal is a plain number', () => {
    expect(ok(execute(counter, 'loop', record, [5])).returnValue).toBe(10);
  });

  it('wrappingAdd, uint32WrappingSub and uint32WrappingMul wrap modulo 2^32', () => {
    expect(ok(execute(counter, 'wrap', record, [4294967295, 2])).returnValue).toBe(1);
    expect(ok(execute(counter, 'wrapSub', record, [0, 1])).returnValue).toBe(4294967295);
    expect(ok(execute(counter, 'wrapMul', record, [65536, 65537])).returnValue).toBe(65536);
    fc.assert(
      fc.property(sizedNumberArbitrary('u32'), sizedNumberArbitrary('u32'), (a, b) => {
        const m = 2n ** 32n;
        const mod = (x: bigint) => Number(((x % m) + m) % m);
        expect(ok(execute(counter, 'wrap', record, [a, b])).returnValue).toBe(mod(BigInt(a) + BigInt(b)));
        expect(ok(execute(counter, 'wrapSub', record, [a, b])).returnValue).toBe(mod(BigInt(a) - BigInt(b)));
        expect(ok(execute(counter, 'wrapMul', record, [a, b])).returnValue).toBe(mod(BigInt(a) * BigInt(b)));
      }),
      { numRuns: 200, seed: 24 },
    );
  });

  it('the checker allows wrappingAdd on a u32 only', async () => {
    const { errors } = await import('../lang/check-helpers.ts');
    expect(errors('collection T { id: string; f(a: i32, b: i32) { let c = a.wrappingAdd(b); } }')[0]).toMatchObject({ code: 'V3004', message: 'i32 has no function "wrappingAdd"' });
  });
});
