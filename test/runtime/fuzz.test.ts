// Robustness: random programs of every AST node kind (well-typed or not, from the parser's own
// arbitrary) compile, and every function runs on valid and invalid inputs to a result or a typed
// error within its gas. execute never throws.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileCollection, execute, type ExecuteResult } from '../../src/runtime/index.ts';
import { argumentsOf, recordOf } from '../../src/testing/index.ts';
import { programArb } from '../lang/ast-arbitrary.ts';

const REASONS = new Set([
  'function/not-found',
  'function/invalid-args',
  'function/collection-error',
  'function/javascript-exception',
  'function/out-of-gas',
  'function/limit-exceeded',
  'function/invalid-return',
  'constructor/no-id-assigned',
  'record/id-modified',
  'record/missing-field',
  'record/invalid-field',
  'record/not-found',
]);

function expectTyped(result: ExecuteResult, gas: number): void {
  if (result.ok) {
    expect(result.transition.gasUsed).toBeLessThanOrEqual(gas);
    expect(() => JSON.stringify(result.transition)).not.toThrow();
  } else {
    expect(REASONS).toContain(result.error.reason);
    expect(typeof result.error.message).toBe('string');
    expect(result.gasUsed).toBeLessThanOrEqual(gas);
  }
}

describe('random programs', () => {
  it('compile, and every function ends in a result or a typed error', () => {
    fc.assert(
      fc.property(programArb, fc.gen(), (program, g) => {
        for (const node of program.collections) {
          const collection = compileCollection(program, node.name.name, { collectionId: `ns/${node.name.name}` });
          for (const name of collection.functions.keys()) {
            const gas = 20_000;
            // Arguments of the right types and random JSON; a record of the right shape and a bare one.
            let typedArgs: unknown[] = [];
            let record: Record<string, unknown> = { id: 'r' };
            try {
              typedArgs = g(() => argumentsOf(collection, name, { maxLength: 3 }));
              record = g(() => recordOf(collection, { maxLength: 3 }));
            } catch {
              // A type the generators cannot build values for (a reference to an undeclared collection as a record): skip.
            }
            const randomArgs = g(() => fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 }));
            for (const args of [typedArgs, randomArgs]) {
              for (const snapshot of [record, { id: 'r' }, null]) {
                expectTyped(execute(collection, name, snapshot as never, args, {}, { gas }), gas);
              }
            }
          }
        }
      }),
      { numRuns: 150 },
    );
  });
});
