// Printing is the inverse of parsing: for every tree the parser can produce, parsing the printed
// text gives that tree back (positions aside), and printing is idempotent on real schemas.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse } from '../../src/lang/parse.ts';
import { print } from '../../src/lang/printer.ts';
import { programArb } from './ast-arbitrary.ts';
import { stripSpans } from './strip-spans.ts';

function parseClean(text: string) {
  const { program, diagnostics } = parse(text, 'printed.polylang');
  const errors = diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0 || !program) {
    throw new Error(`printed text does not parse: ${JSON.stringify(errors)}\n--- text ---\n${text}`);
  }
  return program;
}

describe('parse(print(ast)) gives back ast', () => {
  it('holds for generated programs', () => {
    fc.assert(
      fc.property(programArb, (ast) => {
        const text = print(ast);
        expect(stripSpans(parseClean(text))).toEqual(stripSpans(ast));
      }),
      { numRuns: 1000 },
    );
  });
});

describe('printed bodies where `/` follows a postfix update or a keyword-named member', () => {
  // The printer writes `a++ / 2` and `a.new / 2`; the lexer must read that `/` as a division, not
  // as the start of a regular expression that swallows the rest of the line.
  it.each([
    "collection A { f () { x = a++ / 2; y = '/'; } }",
    'collection A { f () { x = a-- / 2; if (b) { c = 1 / 2; } } }',
    "collection A { f () { x = a.new / 2; y = '/'; } }",
    "collection A { f () { x = a.return / b.delete / 2; y = '/'; } }",
  ])('%s', (text) => {
    const program = parseClean(text);
    expect(stripSpans(parseClean(print(program)))).toEqual(stripSpans(program));
  });
});

function polylangFiles(directory: string): string[] {
  const entries = readdirSync(directory, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.polylang'))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

const fixtureRoot = new URL('../../fixtures/', import.meta.url).pathname;
const fixtures = polylangFiles(fixtureRoot).filter((file) => {
  const { program, diagnostics } = parse(readFileSync(file, 'utf8'), file);
  // Fixtures of syntax errors have nothing to print; the rest (checker errors included) do.
  return program !== undefined && !diagnostics.some((d) => d.severity === 'error');
});

describe('printing the fixture schemas', () => {
  it('finds fixtures to print', () => {
    expect(fixtures.length).toBeGreaterThan(0);
  });

  it.each(fixtures.map((file) => [file.slice(fixtureRoot.length), file]))('is idempotent and faithful: %s', (_name, file) => {
    const original = parse(readFileSync(file, 'utf8'), file).program!;
    const printed = print(original);
    const reparsed = parseClean(printed);
    // print() alone writes no comments, so doc comments are gone (the formatter keeps them: format.test.ts).
    const withoutDocs = (tree: unknown) => JSON.stringify(tree, (key, value: unknown) => (key === 'doc' ? undefined : value));
    expect(withoutDocs(stripSpans(reparsed))).toBe(withoutDocs(stripSpans(original)));
    expect(print(reparsed)).toBe(printed);
  });
});
