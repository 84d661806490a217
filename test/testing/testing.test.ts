// The property-testing helpers: arbitraries derived from types are accepted by execute, and
// propertyTest reports failing properties with a counterexample.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { execute } from '../../src/runtime/index.ts';
import { argumentsOf, compileSchema, propertyTest, recordOf, testKeys } from '../../src/testing/index.ts';

const schema = `
@public
collection Everything {
  id: string;
  s: string; n: number; b: boolean; data: bytes; key: PublicKey;
  list: string[]; keys: PublicKey[]; counts: map<string, number>; byNumber: map<number, string>;
  nested: map<string, map<string, number>>;
  info: { name: string; age?: number; };
  owner?: User;
  users: User[];

  constructor (id: string) { this.id = id; }

  update (s: string, n: number, b: boolean, data: bytes, key: PublicKey, list: string[], counts: map<string, number>, other: record, user: User, note?: string) {
    this.s = s; this.n = n; this.b = b; this.data = data; this.key = key; this.list = list; this.counts = counts;
    this.owner = user;
    if (note) { this.s = note; }
    other.n = 1;
  }
}

@public
collection User { id: string; name: string; }
`;

describe('arbitraries derived from types', () => {
  const collection = compileSchema(schema, 'Everything');

  it('generate records and arguments that execute accepts', () => {
    fc.assert(
      fc.property(recordOf(collection), argumentsOf(collection, 'update'), (record, args) => {
        const result = execute(collection, 'update', record, args);
        if (!result.ok) throw new Error(`${result.error.reason}: ${result.error.message}`);
      }),
      { numRuns: 100 },
    );
  });

  it('leave trailing optional arguments out sometimes', () => {
    const lengths = new Set(fc.sample(argumentsOf(collection, 'update'), 200).map((args) => args.length));
    expect(lengths).toEqual(new Set([9, 10]));
  });

  it('draw keys from a small fixed pool', () => {
    expect(testKeys(3).map((k) => k.toHex())).toEqual(testKeys(3).map((k) => k.toHex()));
    expect(new Set(testKeys(3).map((k) => k.toHex())).size).toBe(3);
  });
});

describe('propertyTest', () => {
  it('passes a property that holds', () => {
    let runs = 0;
    propertyTest(schema, 'Everything.constructor', ({ record, result }) => {
      runs++;
      expect(record).toBeNull();
      return !result.ok || result.transition.record === null || typeof result.transition.record.id === 'string';
    }, { numRuns: 20 });
    expect(runs).toBe(20);
  });

  it('reports a property that fails, with the counterexample', () => {
    expect(() => propertyTest(schema, 'Everything.update', ({ args }) => (args[1] as number) < 100, { numRuns: 200, seed: 1 })).toThrow(/Counterexample/);
  });

  it('refuses a schema with errors', () => {
    expect(() => propertyTest('collection T { id: string; f () { this.x = 1; } }', 'T.f', () => true)).toThrow(/the schema has errors/);
  });
});
