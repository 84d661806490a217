// Rules that mutation testing found undefended (issue 24): each test here fails when the
// rule is weakened the way the surviving mutant weakened it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkSchema, parse } from '../../src/lang/index.ts';
import { compileCollection, execute } from '../../src/runtime/index.ts';
import { GAS } from '../../src/runtime/limits.ts';
import { errors } from '../lang/check-helpers.ts';

describe('V3008: a return value must fit the declared return type, whatever the types', () => {
  const returning = (type: string, value: string) => `collection T { id: string; n: number; f(): ${type} { return ${value}; } }`;

  it.each([
    ['string', '1'],
    ['string', 'true'],
    ['number', "'1'"],
    ['number', 'false'],
    ['boolean', '0'],
    ['boolean', "'yes'"],
    ['string[]', 'this.n'],
    ['map<string, number>', "'x'"],
    ['bytes', "'x'"],
    ['PublicKey', "'0x00'"],
    ['u32', "'1'"],
  ])('%s returning %s is V3008', (type, value) => {
    expect(errors(returning(type, value)).map((e) => e.code)).toEqual(['V3008']);
  });

  it('a value that fits is no error', () => {
    expect(errors(returning('string', "'1'"))).toEqual([]);
    expect(errors(returning('number', 'this.n'))).toEqual([]);
    expect(errors(returning('u32', '7'))).toEqual([]);
  });
});

describe('string concatenation pays gas per character of the result (docs/runtime.md)', () => {
  const schema = `collection T {
  id: string;
  name: string;
  binary(a: string, b: string): string { return a + b; }
  assign(a: string, b: string): string { let s = a; s += b; return s; }
  field(a: string, b: string) { this.name = a; this.name += b; }
}`;
  const checked = checkSchema(schema);
  const collections = [true, false].map((fastPaths) => compileCollection(checked.program ? checked : parse(schema), 'T', { fastPaths }));

  it.each(['binary', 'assign', 'field'])('%s: the gas grows by one per 16 characters', (fn) => {
    for (const collection of collections) {
      const gasOf = (a: string, b: string) => {
        const result = execute(collection, fn, { id: 't', name: '' }, [a, b]);
        if (!result.ok) throw new Error(result.error.message);
        return result.transition.gasUsed;
      };
      const base = gasOf('', '');
      fc.assert(
        fc.property(fc.nat(5000), fc.nat(5000), (la, lb) => {
          const length = la + lb;
          const perCharacter = length >= GAS.charsPerGas ? Math.floor(length / GAS.charsPerGas) : 0;
          expect(gasOf('a'.repeat(la), 'b'.repeat(lb)) - base).toBe(perCharacter);
        }),
        { numRuns: 40, seed: 24 },
      );
    }
  });
});
