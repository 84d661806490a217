// The schema lexer: which tokens a text becomes, including inside function bodies, where the only job
// is to keep strings, comments, template literals and regular expressions whole so that braces match.

import { describe, expect, it } from 'vitest';
import { INVALID_GROUP, schemaLexer } from '../../src/lang/lexer.ts';

function lex(text: string): string[] {
  const result = schemaLexer.tokenize(text);
  expect(result.errors).toEqual([]);
  expect(result.groups[INVALID_GROUP] ?? []).toEqual([]);
  return result.tokens.map((token) => `${token.tokenType.name}:${token.image}`);
}

describe('identifiers and keywords', () => {
  it('reads whole identifiers, including those that start with a keyword (no Polylang prefix bug)', () => {
    expect(lex('string2 record_id bytes32 true1 $auth _x A$b in of asc desc')).toEqual([
      'Identifier:string2',
      'Identifier:record_id',
      'Identifier:bytes32',
      'Identifier:true1',
      'Identifier:$auth',
      'Identifier:_x',
      'Identifier:A$b',
      'Identifier:in',
      'Identifier:of',
      'Identifier:asc',
      'Identifier:desc',
    ]);
  });

  it('recognises collection, function and map only as whole words', () => {
    expect(lex('collection collections function functions map mapping')).toEqual([
      'CollectionKeyword:collection',
      'Identifier:collections',
      'FunctionKeyword:function',
      'Identifier:functions',
      'MapKeyword:map',
      'Identifier:mapping',
    ]);
  });

  it('reads decorators, @index and white space after @', () => {
    expect(lex('@public @index @indexed @ read')).toEqual([
      'Decorator:@public',
      'AtIndex:@index',
      'Decorator:@indexed',
      'Decorator:@ read',
    ]);
  });
});

describe('punctuation', () => {
  it('gives the structure single-character tokens, so `>>` closes two map types', () => {
    expect(lex('map<string, map<string, number>>;')).toEqual([
      'MapKeyword:map',
      'Less:<',
      'Identifier:string',
      'Comma:,',
      'MapKeyword:map',
      'Less:<',
      'Identifier:string',
      'Comma:,',
      'Identifier:number',
      'Greater:>',
      'Greater:>',
      'Semicolon:;',
    ]);
  });

  it('reads runs of operator characters as one token', () => {
    expect(lex('a === b += -c')).toEqual([
      'Identifier:a',
      'Operator:===',
      'Identifier:b',
      'Operator:+=',
      'Operator:-',
      'Identifier:c',
    ]);
  });
});

describe('literals and comments', () => {
  it('reads strings with escapes in both quote styles', () => {
    expect(lex(String.raw`'it\'s' "say \"hi\"" '\\' "a'b"`)).toEqual([
      String.raw`StringLiteral:'it\'s'`,
      String.raw`StringLiteral:"say \"hi\""`,
      String.raw`StringLiteral:'\\'`,
      `StringLiteral:"a'b"`,
    ]);
  });

  it('reads numbers: decimal, fraction, exponent, hex', () => {
    expect(lex('1 2.5 5. .5 1e3 2E-7 0xff 1_000')).toEqual([
      'NumberLiteral:1',
      'NumberLiteral:2.5',
      'NumberLiteral:5.',
      'NumberLiteral:.5',
      'NumberLiteral:1e3',
      'NumberLiteral:2E-7',
      'NumberLiteral:0xff',
      'NumberLiteral:1_000',
    ]);
  });

  it('skips comments and keeps braces inside strings, templates, comments and regular expressions', () => {
    const tokens = lex("{ '}' \"{\" `${ '}' }` // }\n /* } */ x = /}/g; }");
    expect(tokens.filter((t) => t.startsWith('LCurly') || t.startsWith('RCurly'))).toEqual(['LCurly:{', 'RCurly:}']);
    expect(tokens).toContain('RegexLiteral:/}/g');
    expect(tokens).toContain("TemplateLiteral:`${ '}' }`");
  });

  it('treats `/` after a value as division, not as the start of a regular expression', () => {
    expect(lex('a / b / c')).toEqual(['Identifier:a', 'Operator:/', 'Identifier:b', 'Operator:/', 'Identifier:c']);
    expect(lex('(a) / 2 / 3')).toContain('Operator:/');
    expect(lex('return /x/')).toEqual(['Identifier:return', 'RegexLiteral:/x/']);
  });
});

describe('lexical errors', () => {
  it('reports characters outside the language', () => {
    const result = schemaLexer.tokenize('a ą b');
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]!.offset).toBe(2);
    expect(result.tokens.map((t) => t.image)).toEqual(['a', 'b']);
  });

  it('puts unterminated strings, templates and comments in the invalid group', () => {
    for (const text of ["'abc", '"abc\nx', '`abc', '/* abc']) {
      const result = schemaLexer.tokenize(text);
      expect(result.groups[INVALID_GROUP], text).toHaveLength(1);
    }
  });
});
