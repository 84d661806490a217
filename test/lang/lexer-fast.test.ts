// The fast lexer (lexer-fast.ts) against chevrotain's lexer made from lexer.ts: whenever the fast one answers, it
// gives exactly chevrotain's tokens (type, image, offset, a body's payload) and chevrotain reports nothing. Where it
// gives up, chevrotain reads the text, so diagnostics never depend on which lexer ran.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Lexer, type IToken } from 'chevrotain';
import { loadFixtures } from './corpus.ts';
import { tokenizeFast } from '../../src/lang/lexer-fast.ts';
import { allTokens, createSchemaLexer, FunctionBody, schemaLexer, type FunctionBodyPayload } from '../../src/lang/lexer.ts';

const reference = createSchemaLexer();

function shown(tokens: IToken[]): unknown[] {
  return tokens.map((token) => ({ type: token.tokenType.name, image: token.image, offset: token.startOffset, idx: token.tokenTypeIdx, payload: token.payload }));
}

/** Both lexers on `text`; whether the fast one answered. */
function agree(text: string): boolean {
  const fast = tokenizeFast(text);
  if (fast === undefined) return false;
  const slow = reference.tokenize(text);
  expect(slow.errors).toEqual([]);
  expect(Object.values(slow.groups).flat()).toEqual([]);
  expect(shown(fast.tokens)).toEqual(shown(slow.tokens));
  return true;
}

const fixtures = (['schemas', 'extensions', 'rejected', 'divergent'] as const).flatMap((set) => loadFixtures(set)).map((fixture) => fixture.text);

/** A schema with every token kind the fast lexer reads (checked below), and a body of each kind. */
const EVERY_KIND = `// every token kind the fast lexer reads
/* a block
   comment */
@public
collection Account {
  id: string;
  owner?: PublicKey;
  balances: map<string, number[]>;
  info: { name: string; };
  @index(owner, [id, desc]);
  @search(id);
  @read(eth#0x12ab);
  @ call(owner.id)
  function transfer(to: Account, amount: number): map<string, number> { if (this.id) { this.x = to.id; } }
  function odd() { x = \`}\`; /* } */ return 'a}'; }
}
contract Registry {
  map: Account;
  function get(): Account[] { return []; }
}
`;

/** Every token type of lexer.ts: a text in which chevrotain's lexer reads one, and whether the fast lexer reads that
 *  text too (else it gives up and chevrotain's lexer reads it). A token type added to lexer.ts must be added here. */
const TOKEN_KINDS: Record<string, { sample: string; fast: 'reads' | 'gives up' }> = {
  WhiteSpace: { sample: 'a \t\r\n\v\fb', fast: 'reads' },
  LineComment: { sample: 'a // c\nb', fast: 'reads' },
  BlockComment: { sample: 'a /* c\n */ b', fast: 'reads' },
  UnterminatedComment: { sample: 'a /* c', fast: 'gives up' },
  StringLiteral: { sample: "a 's'", fast: 'gives up' },
  UnterminatedString: { sample: 'a "s', fast: 'gives up' },
  TemplateLiteral: { sample: 'a `t`', fast: 'gives up' },
  UnterminatedTemplate: { sample: 'a `t', fast: 'gives up' },
  NumberLiteral: { sample: 'a .5', fast: 'gives up' },
  KeyLiteral: { sample: '@read(eth#0x12ab)', fast: 'reads' },
  CollectionKeyword: { sample: 'collection A', fast: 'reads' },
  ContractKeyword: { sample: 'contract A', fast: 'reads' },
  FunctionKeyword: { sample: 'function f', fast: 'reads' },
  MapKeyword: { sample: 'x: map', fast: 'reads' },
  Identifier: { sample: 'collections $a_1', fast: 'reads' },
  AtIndex: { sample: '@index', fast: 'reads' },
  AtSearch: { sample: '@search', fast: 'reads' },
  Decorator: { sample: '@indexed @ read', fast: 'reads' },
  FunctionBody: { sample: 'f() { return 1; }', fast: 'reads' },
  LCurly: { sample: 'collection A {', fast: 'reads' },
  RCurly: { sample: '}', fast: 'reads' },
  LParen: { sample: '(', fast: 'reads' },
  RParen: { sample: ')', fast: 'reads' },
  LSquare: { sample: '[', fast: 'reads' },
  RSquare: { sample: ']', fast: 'reads' },
  Less: { sample: '<', fast: 'reads' },
  Greater: { sample: '>', fast: 'reads' },
  Comma: { sample: ',', fast: 'reads' },
  Semicolon: { sample: ';', fast: 'reads' },
  Colon: { sample: ':', fast: 'reads' },
  Question: { sample: '?', fast: 'reads' },
  Dot: { sample: 'a.b', fast: 'reads' },
  Operator: { sample: 'a = b', fast: 'gives up' },
};

describe('the fast lexer', () => {
  it('knows every token type of lexer.ts', () => {
    expect(allTokens.map((type) => type.name).sort()).toEqual(Object.keys(TOKEN_KINDS).sort());
    for (const type of allTokens) {
      const { sample, fast } = TOKEN_KINDS[type.name]!;
      const slow = reference.tokenize(sample);
      const read = [...slow.tokens, ...(Object.values(slow.groups).flat() as IToken[])].map((token) => token.tokenType);
      if (type.GROUP !== Lexer.SKIPPED) expect(read, type.name).toContain(type);
      expect(agree(sample), type.name).toBe(fast === 'reads');
    }
  });

  it('agrees with chevrotain on every fixture it takes, and takes most of them', () => {
    let taken = 0;
    for (const text of fixtures) if (agree(text)) taken++;
    expect(taken).toBeGreaterThan(fixtures.length * 0.8);
  });

  it('agrees with chevrotain on every cut of a schema with every token kind (any token may end the text)', () => {
    expect(agree(EVERY_KIND)).toBe(true);
    const kinds = new Set(reference.tokenize(EVERY_KIND).tokens.map((token) => token.tokenType.name));
    for (const [name, { fast }] of Object.entries(TOKEN_KINDS)) {
      if (fast === 'reads' && allTokens.find((type) => type.name === name)!.GROUP !== Lexer.SKIPPED) expect(kinds, name).toContain(name);
    }
    let taken = 0;
    for (let end = 0; end <= EVERY_KIND.length; end++) if (agree(EVERY_KIND.slice(0, end))) taken++;
    expect(taken).toBeGreaterThan(EVERY_KIND.length / 2);
  });

  it('agrees with chevrotain on fixtures changed at random, character by character', () => {
    const character = fc.oneof(
      fc.constantFrom(...'{}()[]<>,;:?.@#/*\'"`=+-!0123456789 \n\t\r_$azAZ'),
      fc.constantFrom('\u00a0', '\u2028', 'é', '\u0001', '\ud83d'),
    );
    const edit = fc.record({ at: fc.nat(), kind: fc.constantFrom('insert', 'delete', 'replace'), character });
    let taken = 0;
    fc.assert(
      fc.property(fc.nat(fixtures.length - 1), fc.array(edit, { minLength: 1, maxLength: 4 }), (which, edits) => {
        let text = fixtures[which]!;
        for (const { at, kind, character } of edits) {
          const i = at % (text.length + 1);
          text = text.slice(0, i) + (kind === 'delete' ? '' : character) + text.slice(kind === 'insert' ? i : i + 1);
        }
        if (agree(text)) taken++;
      }),
      { numRuns: 1500 },
    );
    // Both paths are exercised: many edits leave a text the fast lexer reads (in white space, a comment, a body), about
    // 900 of 1500 in three runs.
    expect(taken).toBeGreaterThan(500);
    expect(taken).toBeLessThan(1400);
  });

  it('agrees with chevrotain on generated structures', () => {
    const piece = fc.constantFrom(
      'collection', 'contract', 'function', 'map', 'collections', 'mapping', 'contract2', 'x', '$a_1', 'eth#0x12', 'eth#', 'map#0x_Z',
      '@public', '@index', '@indexed', '@search', '@searchable', '@ read', '@\n\tcall', '@', '@@x', '@(', '#',
      '{', '}', '(', ')', '[', ']', '<', '>', ',', ';', ':', '?', '.', '.5', '1', "'s'", '"t', '`t`', '+', '/', '=>',
      ' ', '\n', '\r\n', '\t', '\v', '\f', '\u00a0', '\u2028', '// c', '// c\n', '/* c */', '/* c', '/**/', '\u0001', 'é',
      '{ let a = 1; }', '{ return x; }', '{ if (a) { b(); } }', "{ 'unterminated }", '{ /* }', '{ x = `}` }',
    );
    let taken = 0;
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 24 }), fc.array(fc.constantFrom('', ' ', '\n'), { maxLength: 24 }), (pieces, gaps) => {
        if (agree(pieces.map((p, i) => p + (gaps[i] ?? '')).join(''))) taken++;
      }),
      { numRuns: 3000 },
    );
    // Both paths are exercised: the fast lexer answers for a good part of the texts.
    expect(taken).toBeGreaterThan(300);
  });

  it('hands the bodies it read before giving up to chevrotain, which then lexes exactly as on its own', () => {
    const bodies = '  function f(a: number) { let b = a; if (b > 1) { b = 2; } }\n  function g() { this.x = `t`; }\n';
    // The structure is fine up to the last collection, whose `= 1` makes the fast lexer give up.
    const text = `collection A {\n${bodies}}\ncollection B {\n${bodies}}\ncollection Z { x: number = 1; }\n`;
    const read = new Map<number, FunctionBodyPayload>();
    expect(tokenizeFast(text, read)).toBeUndefined();
    expect(read.size).toBe(4);
    const reused = schemaLexer.tokenize(text, read);
    const alone = reference.tokenize(text);
    expect(shown(reused.tokens)).toEqual(shown(alone.tokens));
    expect(reused.errors).toEqual(alone.errors);
    const reusedBodies = reused.tokens.filter((token) => token.tokenType === FunctionBody);
    expect(reusedBodies).toHaveLength(4);
    for (const token of reusedBodies) expect(token.payload).toBe(read.get(token.startOffset));
    // The bodies are for that parse only: the next text is read from scratch.
    expect(shown(schemaLexer.tokenize(text).tokens)).toEqual(shown(alone.tokens));
  });
});
