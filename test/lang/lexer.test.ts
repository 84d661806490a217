// The schema lexer: which tokens a text becomes. A function body is one token up to its matching
// brace, so strings, comments, template literals and regular expressions inside it must not count.

import { describe, expect, it } from 'vitest';
import { scanBody } from '../../src/lang/body-scanner.ts';
import { INVALID_GROUP, createSchemaLexer, schemaLexer } from '../../src/lang/lexer.ts';

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

  it('skips comments', () => {
    expect(lex('a // b }\n/* c } */ d')).toEqual(['Identifier:a', 'Identifier:d']);
  });
});

describe('function bodies', () => {
  function body(text: string): string {
    const tokens = lex(`f() ${text} x`);
    expect(tokens[3]).toMatch(/^FunctionBody:/);
    expect(tokens[4]).toBe('Identifier:x');
    return tokens[3]!.slice('FunctionBody:'.length);
  }

  it('makes one token of a body, up to its matching brace', () => {
    expect(body('{ if (a) { b(); } }')).toBe('{ if (a) { b(); } }');
    expect(lex('f(): map<string, number> { } g(): User[] { } h(): { a: string } { }').filter((t) => t.startsWith('FunctionBody'))).toHaveLength(3);
  });

  it('does not take a collection or an object type for a body', () => {
    expect(lex('collection A { o: { a: string; }; m: map<string, { b: number }>; }').filter((t) => t.startsWith('FunctionBody'))).toEqual([]);
  });

  it('skips braces inside strings, templates, comments and regular expressions', () => {
    const text = "{ '}' \"{\" `${ '}' }` // }\n /* } */ x = /}/g; y = a / b / c; return /[}]/; }";
    expect(body(text)).toBe(text);
  });

  it('treats `/` after a value as division', () => {
    for (const text of [
      "{ x = (a) / 2 / 3; y = a / b; z = '/'; }",
      "{ x = a++ / 2; y = '/'; }",
      '{ x = a-- / 2; if (b) { c = 1 / 2; } }',
      "{ x = a.new / 2; y = '/'; }",
      "{ x = 5. / 2; y = '/'; }",
      "{ x = a[0] / 2; y = '/'; }",
      "{ x = /[/; y = '}'; }", // no regular expression closes on the line: the `/`s divide
    ]) {
      expect(body(text)).toBe(text);
    }
  });

  it('runs an unclosed body to the end of the text', () => {
    const result = schemaLexer.tokenize('f() { if (x) {');
    const last = result.tokens[result.tokens.length - 1]!;
    expect(last.image).toBe('{ if (x) {');
    expect(last.payload).toMatchObject({ closed: false });
  });
});

describe('scanBody', () => {
  it('reports unterminated strings and comments and too deep nesting, and goes on', () => {
    expect(scanBody("{ 'abc\n }", 0, 10)).toEqual({ end: 9, closed: true, problems: [{ kind: 'unterminatedString', offset: 2 }] });
    expect(scanBody('{ /* }', 0, 10)).toEqual({ end: 6, closed: false, problems: [{ kind: 'unterminatedComment', offset: 2 }] });
    expect(scanBody('{ `abc }', 0, 10).problems).toEqual([{ kind: 'unterminatedString', offset: 2 }]);
    expect(scanBody('{ ((((x)))) }', 0, 3)).toEqual({ end: 13, closed: true, problems: [{ kind: 'nestingTooDeep', offset: 4 }] });
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

describe('token definitions', () => {
  it("pass chevrotain's validations, which the lexer made for use skips", () => {
    expect(createSchemaLexer(true).lexerDefinitionErrors).toEqual([]);
  });
});
