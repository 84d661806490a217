// A reviewer's probes of the fast structure parser (structure-fast.ts), beyond structure-fast.test.ts, which compares
// the two parsers on the same tokens: here whole parses (parse.ts's wiring: the nesting guard, the lexer's problems,
// doc comments, the bodies' diagnostics) with the fast parser against parses with it giving up always, on inputs at
// the nesting limit, with lexical problems, and on every sequence of up to three tokens in each place of the grammar.
import { describe, expect, it, vi } from 'vitest';
import { parse } from '../../src/lang/parse.ts';
import { MAX_NESTING_DEPTH } from '../../src/lang/nesting.ts';
import { tokenizeFast } from '../../src/lang/lexer-fast.ts';
import { createSchemaLexer } from '../../src/lang/lexer.ts';
import { SchemaParser } from '../../src/lang/grammar.ts';
import { parseStructureFast } from '../../src/lang/structure-fast.ts';
import type { BuildOptions } from '../../src/lang/build-ast.ts';

const lexer = createSchemaLexer();
const grammar = new SchemaParser();

/** No lexical problems: the texts below have none in their bodies. */
function options(text: string): BuildOptions {
  return {
    text,
    hasLexicalProblem() {
      return false;
    },
  };
}

/** parse.ts with the fast structure parser giving up on every input (chevrotain's grammar parses everything), and
 *  how often it was asked: a reference that never asked it would prove nothing. */
async function referenceParse(): Promise<{ reference: typeof parse; asked: () => number }> {
  const givingUp = vi.fn(() => undefined);
  vi.resetModules();
  vi.doMock('../../src/lang/structure-fast.ts', () => ({ parseStructureFast: givingUp }));
  const module = await import('../../src/lang/parse.ts');
  vi.doUnmock('../../src/lang/structure-fast.ts');
  return { reference: module.parse, asked: () => givingUp.mock.calls.length };
}

/** The program and diagnostics as JSON: the same nodes, spans and property order. */
function outcome(result: ReturnType<typeof parse>): string {
  return JSON.stringify({ program: result.program, diagnostics: result.diagnostics });
}

describe('the fast structure parser inside parse', () => {
  it('parses as chevrotain alone does at and past the nesting limit', async () => {
    const { reference, asked } = await referenceParse();
    const texts: string[] = [];
    for (const depth of [MAX_NESTING_DEPTH - 2, MAX_NESTING_DEPTH - 1, MAX_NESTING_DEPTH, MAX_NESTING_DEPTH + 1, 2 * MAX_NESTING_DEPTH]) {
      const maps = (inner: string) => `${'map<string, '.repeat(depth)}${inner}${'>'.repeat(depth)}`;
      texts.push(
        `collection A { m: ${maps('string')}; }`,
        `collection A { m: ${maps('{ a: string }')}; }`,
        `collection A { m: ${'map<string, '.repeat(depth)}string; }`,
        `collection A { o: ${'{ a: '.repeat(depth)}string${' }'.repeat(depth)}; }`,
        `collection A { f(a: ${maps('x')}): ${'{ a: '.repeat(depth)}string${' }'.repeat(depth)} { return 1; } }`,
        `@read(${'('.repeat(depth)}a${')'.repeat(depth)}) collection A {}`,
        `collection A { @index(${'['.repeat(depth)}a, asc${']'.repeat(depth)}); }`,
        `collection A { f() { ${'{'.repeat(depth)}${'}'.repeat(depth)} } }`,
      );
    }
    for (const text of texts) expect(outcome(parse(text)), text.slice(0, 60)).toBe(outcome(reference(text)));
    // Asked only where the nesting guard cut nothing (past the limit chevrotain parses what is left).
    expect(asked()).toBeGreaterThan(texts.length / 3);
    expect(asked()).toBeLessThan(texts.length);
  });

  it('parses as chevrotain alone does with lexical problems, comments and doc comments', async () => {
    const { reference, asked } = await referenceParse();
    const texts = [
      '',
      '// only a comment',
      '/// a doc comment and nothing else\n',
      '/** a block doc */ collection A { /// the id\n id: string; /* x */ }',
      'collection A { # a: string; }',
      'collection Ä { a: string; }',
      'collection A { a: string; } "x"',
      "collection A { f() { 'x } }",
      'collection A { f() { /* } }',
      'collection A { f() { return 1; }',
      'collection A { a: string; @index(a); } /*',
      '\uFEFFcollection A { a: string; }',
      'collection A { f() { x = new X(); } }',
      '@ public\n/// doc\ncollection A { @\nread a?: string; @read(eth#0x12, x#) b: number; }',
    ];
    for (const text of texts) expect(outcome(parse(text)), text).toBe(outcome(reference(text)));
    expect(asked()).toBe(texts.length);
  });

  it('answers as chevrotain does on every sequence of up to three tokens in each place of the grammar', () => {
    const pieces = ['x', 'map', 'contract', 'function', 'collection', '@read', '@index', '@search', 'eth#0x12', '{', '}', '(', ')', '[', ']', '<', '>', ',', ';', ':', '?', '.'];
    // Where the grammar reads items, a type, index entries, root items and parameters.
    const places: [string, string][] = [
      ['collection A { ', ' }'],
      ['collection A { a: ', '; }'],
      ['collection A { @index(', '); }'],
      ['', ''],
      ['collection A { f(', ') {} }'],
    ];
    let answered = 0;
    for (const [before, after] of places) {
      const walk = (sequence: string[]): void => {
        const text = `${before}${sequence.join(' ')}${after}`;
        const tokens = (tokenizeFast(text) ?? lexer.tokenize(text)).tokens;
        const fast = parseStructureFast(tokens, options(text));
        if (fast) {
          answered++;
          const slow = grammar.parseStructure(tokens, options(text));
          expect(slow.error, text).toBeUndefined();
          expect(JSON.stringify(fast.finish()), text).toBe(JSON.stringify(slow.finish()));
          expect(fast.context.diagnostics, text).toEqual(slow.context.diagnostics);
        }
        if (sequence.length < 3) for (const piece of pieces) walk([...sequence, piece]);
      };
      walk([]);
    }
    // Both parsers run: the fast one answers on 39 of the 55,775 texts (the others break the grammar), chevrotain on all.
    expect(answered).toBeGreaterThan(30);
  });
});
