// The sized numeric types of Polylang after 0.6 (`u32 u64 i32 i64 f32 f64`): never a reference to a
// collection; numbers whose range (and integer-ness) the checker and the edges of a call check.
import { describe, expect, it } from 'vitest';
import { parse, toStableAst, SIZED_NUMBER_NAMES, sizedNumberProblem } from '../../src/lang/index.ts';
import fc from 'fast-check';
import { sizedNumberArbitrary } from '../../src/testing/index.ts';
import { call, fails, load, ok } from '../runtime/helpers.ts';
import { errors, located, reported } from './check-helpers.ts';

const counter = `
collection Counter {
  id: string;
  count: u32;
  delta?: i32;
  total: i64;
  ratio: f32;
  counts: u32[];
  byDay: map<u32, u64>;
  constructor (id: string, count: u32) { this.id = id; this.count = count; this.total = 0; this.ratio = 0; this.counts = []; this.byDay = {}; }
  set(count: u32) { this.count = count; }
  setTotal(total: number) { this.total = total; }
}`;

describe('sized numeric types are never collection references', () => {
  it.each(SIZED_NUMBER_NAMES)('%s parses as a sized number type', (name) => {
    const { program, diagnostics } = parse(`collection T { id: string; x: ${name}; xs: ${name}[]; }`);
    expect(diagnostics).toEqual([]);
    const fields = program!.collections[0]!.items;
    expect(fields[1]).toMatchObject({ type: { kind: 'sizedNumberType', name } });
    expect(fields[2]).toMatchObject({ type: { kind: 'arrayType', element: { kind: 'sizedNumberType', name } } });
  });

  it('a field typed u32 that no function touches gets no warning about a collection "u32"', () => {
    expect(reported('collection T { id: string; salary: u32; }')).toEqual([]);
  });

  it('a misspelt sized type is suggested as the type it resembles', () => {
    expect(reported('collection T { id: string; salary: u23; }')[0]!.message).toMatch(/did you mean "u32"/);
  });

  it('the stable AST writes a sized type as a primitive of that name, never a foreign record', () => {
    const parsed = parse('collection T { id: string; salary: u64; }');
    const [collection] = toStableAst(parsed.program!, parsed.source, 'ns');
    expect(collection!.attributes[1]).toMatchObject({ kind: 'property', type: { kind: 'primitive', value: 'u64' } });
  });
});

describe('the checker knows the ranges', () => {
  const inBody = (statements: string, fields = 'count: u32; big: i64; ratio: f32;') =>
    `collection T { id: string; ${fields} f() {\n${statements}\n} }`;

  it('accepts literals within the range, refuses those outside or not whole', () => {
    expect(errors(inBody('this.count = 0; this.count = 4294967295; this.big = -9007199254740991; this.ratio = 0.5;'))).toEqual([]);
    expect(located(inBody('this.count = 1.5;\nthis.count = -1;\nthis.count = 4294967296;\nthis.big = 9007199254740992;'))).toEqual([
      'V3031 2:14 1.5',
      'V3031 3:14 -1',
      'V3031 4:14 4294967296',
      'V3031 5:12 9007199254740992',
    ]);
    expect(reported(inBody('this.big = 9007199254740992;'))[0]!.message).toBe(
      '9007199254740992 is out of range for i64 (whole numbers from -9007199254740991 to 9007199254740991) (Vellum limits 64-bit integers to ±(2^53−1))',
    );
  });

  it('checks literal arguments, return values and literal operands of sized arithmetic', () => {
    const schema = `collection T { id: string; count: u32;
  g(n: u32): u32 { return -1; }
  f() { this.g(0.5); this.count = this.count + 0.5; this.count -= -2; }
}`;
    expect(located(schema)).toEqual(['V3031 2:27 -1', 'V3031 3:16 0.5', 'V3031 3:48 0.5', 'V3031 3:67 -2']);
  });

  it('two different sized types do not mix; a sized type and a plain number give the sized type', () => {
    expect(located(inBody('let x = this.count + this.big;'))).toEqual(['V3012 2:9 this.count + this.big']);
    expect(errors(inBody('let n = 2; this.count = this.count * n; let m = this.count / 2;'))).toEqual([]);
  });

  it('a sized type fits a wider one, not a narrower one', () => {
    const schema = (from: string, to: string) => `collection T { id: string; a: ${from}; b: ${to}; f() { this.b = this.a; } }`;
    expect(errors(schema('u32', 'i64'))).toEqual([]);
    expect(errors(schema('i32', 'f64'))).toEqual([]);
    expect(errors(schema('u32', 'number'))).toEqual([]);
    expect(errors(schema('number', 'u32'))).toEqual([]); // checked when the record leaves the call
    expect(located(schema('i64', 'u32'))).toEqual(['V3006 1:59 this.a']);
    expect(located(schema('f32', 'i64'))).toEqual(['V3006 1:59 this.a']);
  });
});

describe('values are checked at the edges of a call', () => {
  const collection = load(counter, 'Counter');

  it('arguments outside the range are invalid arguments naming the range', () => {
    const error = fails(call(collection, 'constructor', null, ['a', -1]));
    expect(error.reason).toBe('function/invalid-args');
    expect(error.message).toBe('invalid argument type for parameter "count": -1 is out of range for u32 (whole numbers from 0 to 4294967295)');
    expect(fails(call(collection, 'constructor', null, ['a', 1.5])).message).toMatch(/1\.5 is not a u32: not a whole number/);
    expect(ok(call(collection, 'constructor', null, ['a', 4294967295])).record).toMatchObject({ count: 4294967295 });
  });

  it('a record leaving the call with a value outside its field type fails with record/invalid-field', () => {
    const record = ok(call(collection, 'constructor', null, ['a', 1])).record!;
    const error = fails(call(collection, 'setTotal', record, [2 ** 53]));
    expect(error).toMatchObject({ reason: 'record/invalid-field' });
    expect(error.message).toMatch(/9007199254740992 is out of range for i64/);
    expect(ok(call(collection, 'setTotal', record, [-(2 ** 53 - 1)])).record).toMatchObject({ total: -(2 ** 53 - 1) });
  });

  it('map keys of a sized type are checked', () => {
    const record = ok(call(collection, 'constructor', null, ['a', 1])).record!;
    const error = fails(call(collection, 'set', { ...record, byDay: { '-1': 3 } }, [2]));
    expect(error.message).toMatch(/map key "-1" at field "byDay" is not a u32/);
  });

  it('the range table is what the reference says', () => {
    expect(sizedNumberProblem('u32', 2 ** 32 - 1)).toBeUndefined();
    expect(sizedNumberProblem('u32', 2 ** 32)).toBeDefined();
    expect(sizedNumberProblem('i32', -(2 ** 31))).toBeUndefined();
    expect(sizedNumberProblem('i32', -(2 ** 31) - 1)).toBeDefined();
    expect(sizedNumberProblem('u64', Number.MAX_SAFE_INTEGER)).toBeUndefined();
    expect(sizedNumberProblem('u64', -1)).toBeDefined();
    expect(sizedNumberProblem('f32', 3.4028234663852886e38)).toBeUndefined();
    expect(sizedNumberProblem('f32', 3.5e38)).toBeDefined();
    expect(sizedNumberProblem('f64', 0.1)).toBeUndefined();
    expect(sizedNumberProblem('f64', Infinity)).toBeDefined();
  });
});

describe('property-test arbitraries', () => {
  it.each(SIZED_NUMBER_NAMES)('%s: every generated value is a value of the type, ends included', (name) => {
    const seen = new Set<number>();
    fc.assert(
      fc.property(sizedNumberArbitrary(name), (value) => {
        seen.add(value);
        expect(sizedNumberProblem(name, value)).toBeUndefined();
      }),
      { numRuns: 300, seed: 24 },
    );
    expect(seen.size).toBeGreaterThan(50);
  });
});
