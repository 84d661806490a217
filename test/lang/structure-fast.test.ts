// The fast structure parser (structure-fast.ts) against chevrotain's grammar (grammar.ts) on the same tokens: whenever
// the fast one answers, chevrotain's parses without error and builds the same program (every node, span and field, in
// the same property order, function bodies included) and reports the same diagnostics in the same order. Where it
// gives up, chevrotain parses, so a program and its diagnostics never depend on which parser ran.
import { secp256k1 } from '@noble/curves/secp256k1.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { IToken } from 'chevrotain';
import { loadFixtures } from './corpus.ts';
import { programArb } from './ast-arbitrary.ts';
import { tokenizeFast } from '../../src/lang/lexer-fast.ts';
import { createSchemaLexer, FunctionBody, type FunctionBodyPayload } from '../../src/lang/lexer.ts';
import { SchemaParser } from '../../src/lang/grammar.ts';
import { parseStructureFast } from '../../src/lang/structure-fast.ts';
import type { BuildOptions } from '../../src/lang/build-ast.ts';
import { parse } from '../../src/lang/parse.ts';
import { MAX_NESTING_DEPTH } from '../../src/lang/nesting.ts';
import { diagnostic } from '../../src/lang/diagnostics.ts';
import { print } from '../../src/lang/printer.ts';

const lexer = createSchemaLexer();
const reference = new SchemaParser();

function tokensOf(text: string): IToken[] {
  return (tokenizeFast(text) ?? lexer.tokenize(text)).tokens;
}

/** What parse.ts gives the builders: the offsets of the lexer's problems inside bodies (such a body is not parsed). */
function optionsFor(text: string, tokens: IToken[]): BuildOptions {
  const problems: number[] = [];
  for (const token of tokens) {
    if (token.tokenType !== FunctionBody) continue;
    const payload = token.payload as FunctionBodyPayload;
    for (const problem of payload.problems) problems.push(problem.offset);
    if (!payload.closed) problems.push(token.startOffset);
  }
  return {
    text,
    hasLexicalProblem(start, end) {
      return problems.some((offset) => offset >= start && offset < end);
    },
  };
}

/** Both parsers on the tokens of `text`; whether the fast one answered. */
function agree(text: string): boolean {
  const tokens = tokensOf(text);
  const fast = parseStructureFast(tokens, optionsFor(text, tokens));
  const slow = reference.parseStructure(tokens, optionsFor(text, tokens));
  if (fast === undefined) return false;
  expect(slow.error).toBeUndefined();
  const fastProgram = fast.finish();
  const slowProgram = slow.finish();
  // The same property order too (JSON keeps it), as stable-ast and snapshots see it.
  expect(JSON.stringify(fastProgram)).toBe(JSON.stringify(slowProgram));
  expect(fastProgram).toEqual(slowProgram);
  expect(fast.context.diagnostics).toEqual(slow.context.diagnostics);
  return true;
}

const sets = ['schemas', 'extensions', 'rejected', 'divergent'] as const;
const fixtures = sets.flatMap((set) => loadFixtures(set));

const key = Buffer.from(secp256k1.getPublicKey(new Uint8Array(32).fill(5), true)).toString('hex');

/** A schema with every construct the fast parser reads, and the builders' own diagnostics. */
const EVERY_CONSTRUCT = `/// An account.
@public
@read
collection Account {
  id: string;
  owner?: PublicKey;
  balances: map<string, number[]>;
  nested: map<string, map<string, { a: number; b?: string }>>;
  info: { @read name: string; city?: string; };
  empty: {};
  bad: number[][];
  worse: { a: string }[];
  ref: Account;
  list: Account[];
  rec: record;
  big: u32;
  map: string;
  contract: string;
  @index(owner, [id, desc], info.name);
  @index([id, sideways],);
  @index();
  @search(id, info,);
  @search();
  @read(eth#0x12ab, owner id,) @read(eth#0x12) @call(eth#0x${key} owner) info2: string;
  @unknown owner2: string;
  @ call(owner)
  function transfer(to: Account, amount?: number,): map<string, number> { if (this.id) { this.x = to.id; } }
  constructor(id: string) { this.id = id; }
  map(a: map<string, string>): { x: number } { return { x: 1 }; }
  contract() { let s = \`t\`; }
  odd() { x = \`}\`; /* } */ return 'a}'; }
}
contract Registry {
  function get(): Account[] { return []; }
}
@private @delegate collection Empty {}
`;

describe('the fast structure parser', () => {
  it('agrees with chevrotain on every fixture it takes', () => {
    let taken = 0;
    for (const fixture of fixtures) if (agree(fixture.text)) taken++;
    // Rejected fixtures with a syntax error are left to chevrotain; the others (also those the checker rejects) not: 192 of 204.
    expect(taken).toBeGreaterThan(fixtures.length * 0.85);
  });

  it('answers on every schema of the corpus (fixtures/schemas)', () => {
    for (const fixture of loadFixtures('schemas')) expect(agree(fixture.text), fixture.name).toBe(true);
  });

  it('answers on a schema with every construct, and agrees on every cut of it at a token boundary', () => {
    expect(agree(EVERY_CONSTRUCT)).toBe(true);
    const tokens = tokensOf(EVERY_CONSTRUCT);
    let taken = 0;
    for (const token of tokens) {
      for (const end of [token.startOffset, token.startOffset + token.image.length]) if (agree(EVERY_CONSTRUCT.slice(0, end))) taken++;
    }
    expect(taken).toBeGreaterThan(0);
  });

  it('answers on types nested as deep as the nesting guard lets through', () => {
    // The collection's `{` is one level: the deepest type the guard lets through has MAX_NESTING_DEPTH - 1 more.
    const depth = MAX_NESTING_DEPTH - 1;
    const text = `collection A { x: ${'map<string, '.repeat(depth)}number${'>'.repeat(depth)}; y: ${'{ a: '.repeat(depth)}number${' }'.repeat(depth)}[]; }`;
    expect(agree(text)).toBe(true);
  });

  it('agrees on every cut at a token boundary of some fixtures, and on every token left out', () => {
    for (const fixture of fixtures.filter((_, i) => i % 12 === 0)) {
      const tokens = tokensOf(fixture.text);
      for (const token of tokens) {
        const end = token.startOffset + token.image.length;
        agree(fixture.text.slice(0, token.startOffset));
        agree(fixture.text.slice(0, end));
        agree(fixture.text.slice(0, token.startOffset) + fixture.text.slice(end));
      }
    }
  });

  it('agrees with chevrotain on fixtures changed at random, token by token', () => {
    const piece = fc.constantFrom(
      'collection', 'contract', 'function', 'map', 'x', 'asc', 'desc', 'eth#0x12', '@public', '@index', '@search', '@read', '@ call',
      '{', '}', '(', ')', '[', ']', '<', '>', ',', ';', ':', '?', '.', ' ', '{ return 1; }', 'string', 'number', 'record',
    );
    const edit = fc.record({ at: fc.nat(), kind: fc.constantFrom('insert', 'delete', 'replace'), piece });
    let taken = 0;
    fc.assert(
      fc.property(fc.nat(fixtures.length - 1), fc.array(edit, { minLength: 1, maxLength: 3 }), (which, edits) => {
        let text = fixtures[which]!.text;
        for (const { at, kind, piece } of edits) {
          const tokens = tokensOf(text);
          if (tokens.length === 0) break;
          const token = tokens[at % tokens.length]!;
          const end = token.startOffset + token.image.length;
          const replacement = kind === 'delete' ? '' : kind === 'insert' ? `${piece} ${token.image}` : piece;
          text = `${text.slice(0, token.startOffset)} ${replacement} ${text.slice(end)}`;
        }
        if (agree(text)) taken++;
      }),
      { numRuns: 1500 },
    );
    // Both paths are exercised (most edits break the structure: about 50 of 1500 answered in a run).
    expect(taken).toBeGreaterThan(15);
    expect(taken).toBeLessThan(1450);
  });

  it('agrees with chevrotain on generated token sequences', () => {
    const piece = fc.constantFrom(
      'collection', 'contract', 'function', 'map', 'x', 'y', 'desc', 'eth#0x12', '@public', '@index', '@search', '@read', '@unknown',
      '{', '}', '(', ')', '[', ']', '<', '>', ',', ';', ':', '?', '.', '{ return 1; }', 'string', 'number',
    );
    let taken = 0;
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), (pieces) => {
        if (agree(pieces.join(' '))) taken++;
      }),
      { numRuns: 5000 },
    );
    // About 490 of 5000 in a run.
    expect(taken).toBeGreaterThan(250);
  });

  it('agrees with chevrotain on generated programs, printed', () => {
    let taken = 0;
    fc.assert(
      fc.property(programArb, (ast) => {
        if (agree(print(ast))) taken++;
      }),
      { numRuns: 500 },
    );
    // All 500 in a run: the printer writes only what the grammar reads.
    expect(taken).toBeGreaterThan(450);
  });

  it('is what parse uses: a parse gives the same result with either', () => {
    // parse.ts falls back to chevrotain; a fixture where the fast parser gives up still parses as before.
    const rootFunction = 'function f() { return 1; }\ncollection A { id: string; }';
    expect(agree(rootFunction)).toBe(false);
    expect(parse(rootFunction).diagnostics).toEqual([diagnostic('rootFunction', { start: 9, end: 10 }, ['`f`'])]);
    expect(agree('collection A { m: map; }')).toBe(false);
    expect(parse('collection A { m: map; }').program?.collections[0]?.items[0]).toMatchObject({ type: { kind: 'referenceType' } });
  });
});
