// Polylang after 0.6 adds words and syntax to the language without changing what any 0.6 schema means:
// random 0.6 programs (ast-arbitrary.ts), with the later words (`contract`, `in`, `of`, `eth`, `private`, `migrate`,
// `u32`, `f64`) as field, function and collection names, parse to the same tree as the same programs with
// ordinary names, and no tree of a 0.6 program holds anything the extensions add.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Program } from '../../src/lang/index.ts';
import { parse } from '../../src/lang/parse.ts';
import { print } from '../../src/lang/printer.ts';
import { programArb } from './ast-arbitrary.ts';
import { stripSpans } from './strip-spans.ts';

const LATER_WORDS = ['contract', 'in', 'of', 'eth', 'private', 'u32', 'f64', 'migrate'];
/** What the extensions add to a tree; a 0.6 program has none of it. */
const EXTENSION_MARKS = ['contractKeyword', 'typeAnnotation', 'forIn', 'keys', 'sizedNumberType'];

/** The program with the names of some fields, functions and collections replaced (`pick` chooses which). */
function rename(program: Program, pick: (i: number) => string | undefined): Program {
  let i = 0;
  const next = (name: string) => pick(i++) ?? name;
  const copy = structuredClone(program);
  const used = new Set<string>();
  for (const collection of copy.collections) {
    const name = next(collection.name.name);
    if (!used.has(name)) {
      used.add(name);
      collection.name.name = name;
    }
    const names = new Set<string>();
    for (const item of collection.items) {
      if (item.kind === 'index' || item.kind === 'search' || item.name.name === 'constructor') continue;
      const renamed = next(item.name.name);
      if (!names.has(renamed)) item.name.name = renamed;
      names.add(item.name.name);
    }
  }
  return copy;
}

function parsed(text: string): Program {
  const { program, diagnostics } = parse(text, 'later.polylang');
  const errors = diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0 || !program) throw new Error(`does not parse: ${JSON.stringify(errors)}\n${text}`);
  return program;
}

describe('0.6 programs mean what they meant', () => {
  it('with the later words as names they parse to the tree they are, and hold no extension', () => {
    fc.assert(
      fc.property(programArb, fc.array(fc.option(fc.constantFrom(...LATER_WORDS), { nil: undefined }), { maxLength: 40 }), (ast, picks) => {
        const withWords = rename(ast, (i) => picks[i]);
        const tree = parsed(print(withWords));
        expect(stripSpans(tree)).toEqual(stripSpans(withWords));
        const json = JSON.stringify(tree);
        for (const mark of EXTENSION_MARKS) expect(json).not.toContain(`"${mark}"`);
      }),
      { numRuns: 500, seed: 24 },
    );
  });
});
