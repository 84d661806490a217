// The checker on arbitrary input: it never throws, reports only catalogued codes, is deterministic,
// and its diagnostics point inside the text.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { catalogue, check, checkSchema } from '../../src/lang/index.ts';
import { programArb } from './ast-arbitrary.ts';
import { loadFixtures } from './corpus.ts';

const knownCodes = new Set<string>(Object.values(catalogue).map((t) => t.code));
const corpus = [...loadFixtures('schemas'), ...loadFixtures('extensions'), ...loadFixtures('rejected')].map((f) => f.text);

/** A fixture with a few random edits: deleted, duplicated or replaced slices, or inserted tokens. */
const editedSchema = fc
  .record({
    text: fc.constantFrom(...corpus),
    edits: fc.array(
      fc.record({
        at: fc.nat(),
        length: fc.nat({ max: 12 }),
        insert: fc.constantFrom('', 'this.', '.x', '1', "'s'", 'null', '[', ']', '(', ')', '{', '}', ';', '=', '+', '==', 'x', 'return ', 'let y = ', '@index(x);', 'ctx', '!'),
      }),
      { minLength: 1, maxLength: 3 },
    ),
  })
  .map(({ text, edits }) => {
    let result = text;
    for (const edit of edits) {
      const at = edit.at % (result.length + 1);
      result = result.slice(0, at) + edit.insert + result.slice(at + edit.length);
    }
    return result;
  });

describe('the checker on arbitrary input', () => {
  it('checks any tree the parser can produce without throwing, with catalogued codes only', () => {
    fc.assert(
      fc.property(programArb, (program) => {
        const first = check(program);
        const second = check(program);
        for (const d of first.diagnostics) expect(knownCodes.has(d.code), d.code).toBe(true);
        expect(second.diagnostics).toEqual(first.diagnostics);
        expect(first.checked.collections.length).toBeLessThanOrEqual(program.collections.length);
      }),
      { numRuns: 300 },
    );
  });

  it('checks edited fixtures without throwing, each diagnostic once and inside the text', () => {
    fc.assert(
      fc.property(editedSchema, (text) => {
        const result = checkSchema(text, 'edited.polylang');
        const keys = result.diagnostics.map((d) => `${d.code}@${d.span.start}-${d.span.end}`);
        expect(new Set(keys).size, `a diagnostic reported twice: ${keys.join(' ')}`).toBe(keys.length);
        for (const d of result.diagnostics) {
          expect(knownCodes.has(d.code), d.code).toBe(true);
          expect(d.span.start).toBeGreaterThanOrEqual(0);
          expect(d.span.end).toBeGreaterThanOrEqual(d.span.start);
          expect(d.span.end).toBeLessThanOrEqual(text.length);
          expect(d.message).not.toMatch(/\{\d\}/);
        }
      }),
      { numRuns: Number(process.env.CHECKER_RUNS ?? 400) },
    );
  });
});
