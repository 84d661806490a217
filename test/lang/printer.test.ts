import * as acorn from 'acorn';
import { describe, expect, it } from 'vitest';
import type { Expression, Statement } from '../../src/lang/ast.ts';
import { parse } from '../../src/lang/parse.ts';
import { print, printExpression, printNumber, printStatement, printString, printType, typeText } from '../../src/lang/printer.ts';

const span = { start: 0, end: 0 };
const id = (name: string): Expression => ({ kind: 'identifierExpression', name, span });
const num = (value: number): Expression => ({ kind: 'number', value, span });
const bin = (operator: Extract<Expression, { kind: 'binary' }>['operator'], left: Expression, right: Expression): Expression => ({
  kind: 'binary',
  operator,
  left,
  right,
  span,
});
const logical = (operator: '&&' | '||' | '??', left: Expression, right: Expression): Expression => ({
  kind: 'logical',
  operator,
  left,
  right,
  span,
});
const unary = (operator: '!' | '-' | '+' | '~' | 'delete', argument: Expression): Expression => ({ kind: 'unary', operator, argument, span });
const member = (object: Expression, property: string): Expression => ({
  kind: 'member',
  object,
  property: { kind: 'identifier', name: property, span },
  span,
});
const object = (...keys: string[]): Expression => ({
  kind: 'objectLiteral',
  properties: keys.map((key) => ({ kind: 'property', key: { kind: 'identifier', name: key, span }, value: num(1), span })),
  span,
});
const statement = (expression: Expression): Statement => ({ kind: 'expressionStatement', expression, span });

describe('printExpression: minimum parentheses under JavaScript precedence', () => {
  it('leaves out parentheses that precedence makes unnecessary', () => {
    expect(printExpression(bin('+', id('a'), bin('*', id('b'), id('c'))))).toBe('a + b * c');
    expect(printExpression(bin('*', bin('+', id('a'), id('b')), id('c')))).toBe('(a + b) * c');
  });

  it('respects left associativity', () => {
    expect(printExpression(bin('-', bin('-', id('a'), id('b')), id('c')))).toBe('a - b - c');
    expect(printExpression(bin('-', id('a'), bin('-', id('b'), id('c'))))).toBe('a - (b - c)');
  });

  it('treats ** as right-associative', () => {
    expect(printExpression(bin('**', id('a'), bin('**', id('b'), id('c'))))).toBe('a ** b ** c');
    expect(printExpression(bin('**', bin('**', id('a'), id('b')), id('c')))).toBe('(a ** b) ** c');
  });

  it('parenthesises a unary left operand of **, but not a unary right operand', () => {
    expect(printExpression(bin('**', unary('-', id('a')), id('b')))).toBe('(-a) ** b');
    expect(printExpression(bin('**', id('a'), unary('-', id('b'))))).toBe('a ** -b');
    expect(printExpression(unary('-', bin('**', id('a'), id('b'))))).toBe('-(a ** b)');
  });

  it('never prints -(-x) as --x or +(+x) as ++x', () => {
    expect(printExpression(unary('-', unary('-', id('x'))))).toBe('-(-x)');
    expect(printExpression(unary('+', unary('+', id('x'))))).toBe('+(+x)');
    expect(printExpression(unary('-', unary('+', id('x'))))).toBe('-+x');
    expect(printExpression(unary('-', { kind: 'update', operator: '--', prefix: true, argument: { kind: 'identifierExpression', name: 'x', span }, span }))).toBe('-(--x)');
    expect(printExpression(unary('!', unary('!', id('x'))))).toBe('!!x');
  });

  it('parenthesises ?? mixed with && or ||, which JavaScript forbids bare', () => {
    expect(printExpression(logical('||', logical('??', id('a'), id('b')), id('c')))).toBe('(a ?? b) || c');
    expect(printExpression(logical('??', logical('||', id('a'), id('b')), id('c')))).toBe('(a || b) ?? c');
    expect(printExpression(logical('??', id('a'), logical('&&', id('b'), id('c'))))).toBe('a ?? (b && c)');
    expect(printExpression(logical('??', logical('??', id('a'), id('b')), id('c')))).toBe('a ?? b ?? c');
    expect(printExpression(logical('??', logical('||', logical('??', id('a'), id('b')), id('c')), id('d')))).toBe(
      '((a ?? b) || c) ?? d',
    );
  });

  it('prints conditionals and assignments at the loosest levels', () => {
    const conditional = (test: Expression, a: Expression, b: Expression): Expression => ({ kind: 'conditional', test, consequent: a, alternate: b, span });
    const assign = (value: Expression): Expression => ({ kind: 'assignment', operator: '=', target: { kind: 'identifierExpression', name: 'x', span }, value, span });
    expect(printExpression(conditional(conditional(id('a'), id('b'), id('c')), id('d'), id('e')))).toBe('(a ? b : c) ? d : e');
    expect(printExpression(conditional(id('a'), conditional(id('b'), id('c'), id('d')), assign(id('e'))))).toBe('a ? b ? c : d : x = e');
    expect(printExpression(assign(assign(id('y'))))).toBe('x = x = y');
    expect(printExpression(bin('+', assign(id('y')), id('z')))).toBe('(x = y) + z');
  });

  it('parenthesises the object of a member access when needed', () => {
    expect(printExpression(member(bin('+', id('a'), id('b')), 'c'))).toBe('(a + b).c');
    expect(printExpression(member(num(1), 'x'))).toBe('(1).x');
    expect(printExpression(member(num(1.5), 'x'))).toBe('1.5.x');
    expect(printExpression(member(unary('-', id('a')), 'x'))).toBe('(-a).x');
    expect(printExpression(unary('delete', member(id('a'), 'b')))).toBe('delete a.b');
  });

  it('wraps an object literal that starts an expression statement', () => {
    expect(printStatement(statement(member(object('a'), 'a')))).toEqual(['({ a: 1 }.a);']);
    expect(printStatement(statement(object()))).toEqual(['({});']);
    expect(printStatement(statement(member(id('a'), 'b')))).toEqual(['a.b;']);
  });
});

describe('printStatement: bodies without braces', () => {
  const ifStatement = (test: string, consequent: Statement, alternate: Statement | null = null): Statement => ({
    kind: 'if',
    test: id(test),
    consequent,
    alternate,
    span,
  });
  const x = statement(id('x'));
  const y = statement(id('y'));

  it('prints a single-statement body on the same line, and else on the next', () => {
    expect(printStatement(ifStatement('a', x, y))).toEqual(['if (a) x;', 'else y;']);
    expect(printStatement(ifStatement('a', x, ifStatement('b', y)))).toEqual(['if (a) x;', 'else if (b) y;']);
  });

  it('puts a nested if on its own indented lines', () => {
    expect(printStatement(ifStatement('a', ifStatement('b', x, y)))).toEqual(['if (a)', '  if (b) x;', '  else y;']);
  });

  it('adds braces where an else would attach to an inner if', () => {
    const whileOpenIf: Statement = { kind: 'while', test: id('c'), body: ifStatement('b', x), span };
    expect(printStatement(ifStatement('a', ifStatement('b', x), y))).toEqual(['if (a) {', '  if (b) x;', '} else y;']);
    expect(printStatement(ifStatement('a', whileOpenIf, y))).toEqual(['if (a) {', '  while (c) if (b) x;', '} else y;']);
  });

  it('adds braces around a declaration used as a body', () => {
    const declaration: Statement = { kind: 'variable', declarationKind: 'let', name: { kind: 'identifier', name: 'v', span }, init: null, span };
    expect(printStatement({ kind: 'while', test: id('a'), body: declaration, span })).toEqual(['while (a) {', '  let v;', '}']);
  });
});

describe('literals', () => {
  it('prints numbers in their shortest round-trip form', () => {
    expect(printNumber(1e21)).toBe('1e+21');
    expect(printNumber(5e-7)).toBe('5e-7');
    expect(printNumber(0.1)).toBe('0.1');
    expect(Number(printNumber(Number.MAX_VALUE))).toBe(Number.MAX_VALUE);
    expect(() => printNumber(-1)).toThrow(RangeError);
    expect(() => printNumber(Infinity)).toThrow(RangeError);
  });

  it('prints strings single-quoted, escaping what would not read back', () => {
    expect(printString('plain')).toBe("'plain'");
    expect(printString("it's")).toBe('"it\'s"');
    expect(printString(`it's "x"`)).toBe(`'it\\'s "x"'`);
    expect(printString(`'a' "b" 'c'`)).toBe(`"'a' \\"b\\" 'c'"`);
    expect(printString('a\\b')).toBe("'a\\\\b'");
    expect(printString('a\nb\tc')).toBe("'a\\nb\\tc'");
    expect(printString('\u0000\u001f\u007f')).toBe("'\\u0000\\u001f\\u007f'");
    expect(printString('\ud800x')).toBe("'\\ud800x'");
    expect(printString('x\udc00')).toBe("'x\\udc00'");
    expect(printString('😀 é "')).toBe("'😀 é \"'");
    expect(printString('\u2028')).toBe("'\\u2028'");
  });

  it('prints strings that JavaScript reads back to the same value', () => {
    for (const value of ["it's", `'"'`, `"'"`, 'a\\b\n', '\0' + '1', '\ud83d', '\ude00\ud83d', '😀', '\r\n\v\f\b']) {
      // The printed literal is valid JavaScript whose value is the original string.
      expect(readJsString(printString(value))).toBe(value);
    }
  });
});

/** The value of a JavaScript string literal, read by acorn. */
function readJsString(literal: string): unknown {
  const node = acorn.parseExpressionAt(literal, 0, { ecmaVersion: 'latest' });
  expect(node.end).toBe(literal.length);
  return (node as acorn.Literal).value;
}

describe('typeText: a type on one line, as messages show it', () => {
  it('prints nested types on one line where printType lays object types out', () => {
    const field = parse('collection A { f: map<string, { a: string; b?: number[]; c: {}; }>; }').program!.collections[0]!.items[0]!;
    if (field.kind !== 'field') throw new Error('expected a field');
    expect(typeText(field.type)).toBe('map<string, { a: string; b?: number[]; c: {}; }>');
    expect(printType(field.type)).toContain('\n');
  });
});

describe('print: canonical layout', () => {
  const canonical = (text: string): string => {
    const { program, diagnostics } = parse(text);
    expect(diagnostics).toEqual([]);
    return print(program!);
  };

  it('lays out collections, decorators, fields, indexes and functions', () => {
    const text = `@public collection   City{ id :string; @read
      owner:PublicKey;info?:{a:string;@read b?:number;};m:map<string,number[]>;
      @index(id,[info.a,desc],[m, asc]);
      constructor(id:string,owner?:PublicKey):number{this.id=id;return 1;}
      @call(owner) @read function  rename ( ) { }
      tags: string[];
    }
    collection Empty {}`;
    expect(canonical(text)).toBe(
      [
        '@public',
        'collection City {',
        '  id: string;',
        '  @read owner: PublicKey;',
        '  info?: {',
        '    a: string;',
        '    @read b?: number;',
        '  };',
        '  m: map<string, number[]>;',
        '  @index(id, [info.a, desc], [m, asc]);',
        '',
        '  constructor (id: string, owner?: PublicKey): number {',
        '    this.id = id;',
        '    return 1;',
        '  }',
        '',
        '  @call(owner)',
        '  @read',
        '  function rename () {}',
        '',
        '  tags: string[];',
        '}',
        '',
        'collection Empty {}',
        '',
      ].join('\n'),
    );
  });

  it('prints statements one per line with else-if chains and braces as written', () => {
    const text = `collection A { f() {
      let x = 1; const y = {a: 1};
      if (x) { x = 2; } else if (y) x = 3; else { x = 4; }
      while (x < 10) x++;
      for (let i = 0; i < 3; i += 1) { if (i == 1) continue; }
      for (;;) break;
      for (const v of this.items) { throw error('no'); }
      return;
    } }`;
    expect(canonical(text)).toBe(
      [
        'collection A {',
        '  f () {',
        '    let x = 1;',
        '    const y = { a: 1 };',
        '    if (x) {',
        '      x = 2;',
        '    } else if (y) x = 3;',
        '    else {',
        '      x = 4;',
        '    }',
        '    while (x < 10) x++;',
        '    for (let i = 0; i < 3; i += 1) {',
        '      if (i == 1) continue;',
        '    }',
        '    for (;;) break;',
        '    for (const v of this.items) {',
        "      throw error('no');",
        '    }',
        '    return;',
        '  }',
        '}',
        '',
      ].join('\n'),
    );
  });

  it('prints types: nested objects, maps of objects, references and arrays', () => {
    const text = `collection T { m: map<string, {a: string; b?: map<number, User[]>;}>; e: {}; @read @call() k: PublicKey[];
      f(r: record, u?: User): {x: bytes;} { return {x: 'AA=='}; } }`;
    expect(canonical(text)).toBe(
      [
        'collection T {',
        '  m: map<string, {',
        '    a: string;',
        '    b?: map<number, User[]>;',
        '  }>;',
        '  e: {};',
        '  @read @call() k: PublicKey[];',
        '',
        '  f (r: record, u?: User): {',
        '    x: bytes;',
        '  } {',
        "    return { x: 'AA==' };",
        '  }',
        '}',
        '',
      ].join('\n'),
    );
  });

  it('prints the empty program as empty text', () => {
    expect(canonical('  // nothing\n')).toBe('');
  });
});
