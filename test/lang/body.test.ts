// Function bodies: every supported statement and expression becomes the right AST node, spans are in
// whole-file coordinates, and everything outside the subset is reported by name at its position.

import { describe, expect, it } from 'vitest';
import type { Expression, FunctionDeclaration, Statement } from '../../src/lang/ast.ts';
import { MAX_TREE_DEPTH } from '../../src/lang/body.ts';
import { parse } from '../../src/lang/parse.ts';
import { renderText } from '../../src/lang/render.ts';
import { stripSpans } from './strip-spans.ts';

const PREFIX = 'collection A { f() { ';

function bodyOf(body: string): Statement[] {
  const result = parse(`${PREFIX}${body} } }`);
  expect(result.diagnostics.map((d) => renderText(d, result.source))).toEqual([]);
  return (result.program!.collections[0]!.items[0] as FunctionDeclaration).body.body;
}

function statements(body: string): unknown[] {
  return stripSpans(bodyOf(body));
}

function expression(text: string): unknown {
  const [statement] = bodyOf(`${text};`);
  if (statement?.kind !== 'expressionStatement') throw new Error(`not an expression statement: ${text}`);
  return stripSpans(statement.expression);
}

const id = (name: string) => ({ kind: 'identifierExpression', name });
const num = (value: number) => ({ kind: 'number', value });
const name = (n: string) => ({ kind: 'identifier', name: n });

/** Diagnostics of a body as `code line:column message`. */
function problems(body: string): string[] {
  const result = parse(`${PREFIX}${body} } }`);
  return result.diagnostics.map((d) => {
    const { line, column } = result.source.position(d.span.start);
    return `${d.code} ${line}:${column} ${d.message}`;
  });
}

/** The unsupported construct named by the only diagnostic of a body. */
function unsupported(body: string): string {
  const result = parse(`${PREFIX}${body} } }`);
  expect(result.diagnostics).toHaveLength(1);
  expect(result.diagnostics[0]!.code).toBe('V1009');
  return result.diagnostics[0]!.message.replace('not supported in collection functions: ', '');
}

describe('statements', () => {
  it('converts let and const, splitting several declarators into several declarations', () => {
    expect(statements('let a = 1, b; const c = 2;')).toEqual([
      { kind: 'variable', declarationKind: 'let', name: name('a'), init: num(1) },
      { kind: 'variable', declarationKind: 'let', name: name('b'), init: null },
      { kind: 'variable', declarationKind: 'const', name: name('c'), init: num(2) },
    ]);
  });

  it('converts if, else if and else, with and without braces', () => {
    expect(statements('if (a) { b; } else if (c) d; else { }')).toEqual([
      {
        kind: 'if',
        test: id('a'),
        consequent: { kind: 'block', body: [{ kind: 'expressionStatement', expression: id('b') }] },
        alternate: {
          kind: 'if',
          test: id('c'),
          consequent: { kind: 'expressionStatement', expression: id('d') },
          alternate: { kind: 'block', body: [] },
        },
      },
    ]);
  });

  it('converts while, for with any part empty, and for…of with let or const', () => {
    expect(statements('while (x) y;')).toEqual([{ kind: 'while', test: id('x'), body: { kind: 'expressionStatement', expression: id('y') } }]);
    expect(statements('for (;;) {}')).toEqual([{ kind: 'for', init: null, test: null, update: null, body: { kind: 'block', body: [] } }]);
    expect(statements('for (let i = 0; i < n; i++) {}')).toEqual([
      {
        kind: 'for',
        init: { kind: 'variable', declarationKind: 'let', name: name('i'), init: num(0) },
        test: { kind: 'binary', operator: '<', left: id('i'), right: id('n') },
        update: { kind: 'update', operator: '++', prefix: false, argument: id('i') },
        body: { kind: 'block', body: [] },
      },
    ]);
    expect(statements('for (i = 0; ; ) {}')[0]).toMatchObject({ init: { kind: 'assignment' } });
    expect(statements('for (const v of xs) {}')).toEqual([
      { kind: 'forOf', declarationKind: 'const', name: name('v'), iterable: id('xs'), body: { kind: 'block', body: [] } },
    ]);
    expect(statements('for (let v of xs) {}')[0]).toMatchObject({ kind: 'forOf', declarationKind: 'let' });
  });

  it('converts break, continue, return, throw and blocks, and drops empty statements', () => {
    expect(statements('while (1) { break; continue; } return; return 1; throw error("x"); { ; } ;')).toEqual([
      { kind: 'while', test: num(1), body: { kind: 'block', body: [{ kind: 'break' }, { kind: 'continue' }] } },
      { kind: 'return', argument: null },
      { kind: 'return', argument: num(1) },
      { kind: 'throw', argument: { kind: 'call', callee: id('error'), arguments: [{ kind: 'string', value: 'x' }] } },
      { kind: 'block', body: [] },
    ]);
  });

  it('leaves redeclarations, break outside a loop and const without a value to the checker', () => {
    expect(statements('let a = 1; let a = 2; break; continue;')).toHaveLength(4);
    expect(statements('const c;')).toEqual([{ kind: 'variable', declarationKind: 'const', name: name('c'), init: null }]);
  });
});

describe('expressions', () => {
  it('converts literals with their cooked values', () => {
    expect(expression('1.5')).toEqual(num(1.5));
    expect(expression('0xff')).toEqual(num(255));
    expect(expression('1e3')).toEqual(num(1000));
    expect(expression(String.raw`'it\'s\n\u0041'`)).toEqual({ kind: 'string', value: "it's\nA" });
    expect(expression('"double"')).toEqual({ kind: 'string', value: 'double' });
    expect(expression('true')).toEqual({ kind: 'boolean', value: true });
    expect(expression('false')).toEqual({ kind: 'boolean', value: false });
    expect(expression('null')).toEqual({ kind: 'null' });
    expect(expression('undefined')).toEqual(id('undefined'));
    expect(expression('this')).toEqual({ kind: 'this' });
  });

  it('converts array and object literals, shorthand properties and trailing commas', () => {
    expect(expression('[1, a,]')).toEqual({ kind: 'arrayLiteral', elements: [num(1), id('a')] });
    expect(expression('x = { a: 1, b, }')).toEqual({
      kind: 'assignment',
      operator: '=',
      target: id('x'),
      value: {
        kind: 'objectLiteral',
        properties: [
          { kind: 'property', key: name('a'), value: num(1) },
          { kind: 'property', key: name('b'), value: id('b') },
        ],
      },
    });
    expect(expression('x = {}')).toMatchObject({ value: { kind: 'objectLiteral', properties: [] } });
  });

  it('converts members (keyword names too), indexes and calls', () => {
    expect(expression('this.items.map(f)[0]')).toEqual({
      kind: 'index',
      object: {
        kind: 'call',
        callee: { kind: 'member', object: { kind: 'member', object: { kind: 'this' }, property: name('items') }, property: name('map') },
        arguments: [id('f')],
      },
      index: num(0),
    });
    expect(expression('x.delete')).toEqual({ kind: 'member', object: id('x'), property: name('delete') });
  });

  it('converts unary, update, binary, logical and conditional operators', () => {
    for (const operator of ['!', '-', '+', '~']) {
      expect(expression(`${operator}a`)).toEqual({ kind: 'unary', operator, argument: id('a') });
    }
    expect(expression('delete m[k]')).toEqual({ kind: 'unary', operator: 'delete', argument: { kind: 'index', object: id('m'), index: id('k') } });
    expect(expression('--a')).toEqual({ kind: 'update', operator: '--', prefix: true, argument: id('a') });
    expect(expression('a.b++')).toEqual({ kind: 'update', operator: '++', prefix: false, argument: { kind: 'member', object: id('a'), property: name('b') } });
    for (const operator of ['+', '-', '*', '/', '%', '**', '==', '!=', '===', '!==', '<', '<=', '>', '>=', '&', '|', '^', '<<', '>>', '>>>']) {
      expect(expression(`a ${operator} b`)).toEqual({ kind: 'binary', operator, left: id('a'), right: id('b') });
    }
    for (const operator of ['&&', '||', '??']) {
      expect(expression(`a ${operator} b`)).toEqual({ kind: 'logical', operator, left: id('a'), right: id('b') });
    }
    expect(expression('a ? b : c')).toEqual({ kind: 'conditional', test: id('a'), consequent: id('b'), alternate: id('c') });
  });

  it('follows JavaScript precedence and drops parentheses', () => {
    expect(expression('2 ** 3 ** 2')).toEqual({ kind: 'binary', operator: '**', left: num(2), right: { kind: 'binary', operator: '**', left: num(3), right: num(2) } });
    expect(expression('(a + b) * c')).toEqual({ kind: 'binary', operator: '*', left: { kind: 'binary', operator: '+', left: id('a'), right: id('b') }, right: id('c') });
    expect(expression('a & b < c')).toEqual({ kind: 'binary', operator: '&', left: id('a'), right: { kind: 'binary', operator: '<', left: id('b'), right: id('c') } });
  });

  it('converts every assignment operator to identifiers, members and indexes', () => {
    for (const operator of ['=', '+=', '-=', '*=', '/=', '%=', '**=']) {
      expect(expression(`a ${operator} 1`)).toEqual({ kind: 'assignment', operator, target: id('a'), value: num(1) });
    }
    expect(expression('(this.id) = "x"')).toMatchObject({ target: { kind: 'member', property: name('id') } });
    expect(expression('m[k] = a = 1')).toMatchObject({ target: { kind: 'index' }, value: { kind: 'assignment' } });
  });
});

describe('spans', () => {
  it('are whole-file offsets', () => {
    const text = `${PREFIX}let total = a + b; } }`;
    const [declaration] = (parse(text).program!.collections[0]!.items[0] as FunctionDeclaration).body.body;
    if (declaration?.kind !== 'variable') throw new Error('expected a declaration');
    const init = declaration.init as Expression & { kind: 'binary' };
    expect(text.slice(declaration.span.start, declaration.span.end)).toBe('let total = a + b;');
    expect(text.slice(declaration.name.span.start, declaration.name.span.end)).toBe('total');
    expect(text.slice(init.span.start, init.span.end)).toBe('a + b');
    expect(text.slice(init.right.span.start, init.right.span.end)).toBe('b');
  });

  it('put a syntax error in the second function at its line and column in the file', () => {
    const text = 'collection A {\n  f() {\n    let x = 1;\n  }\n  g() {\n    let y = (1 +;\n  }\n}';
    const result = parse(text);
    expect(result.diagnostics).toHaveLength(1);
    expect(result.source.position(result.diagnostics[0]!.span.start)).toEqual({ line: 6, column: 17 });
    expect(renderText(result.diagnostics[0]!, result.source)).toBe(
      '<schema>:6:17: error V1008: unexpected `;`\n 6 |     let y = (1 +;\n   |                 ^',
    );
  });

  it('name the unexpected token, or the closing brace at the end of a body', () => {
    expect(problems('x = 1 y = 2;')).toEqual(['V1008 1:28 unexpected `y`']);
    expect(problems('x = 1 +')).toEqual(['V1008 1:30 unexpected `}`']);
    expect(problems('let 1a = 2;')).toEqual(['V1008 1:27 identifier directly after number']);
  });

  it('stay right across many bodies, with an error in one of them', () => {
    const functions = Array.from({ length: 60 }, (_, i) => {
      const lines = Array.from({ length: 40 }, (_, j) => `    this.total += ${i * 100 + j};`);
      if (i === 37) lines[5] = '    this.total += ;';
      return `  f${i}() {\n${lines.join('\n')}\n  }`;
    });
    const text = `collection A {\n${functions.join('\n')}\n}`;
    const result = parse(text);
    expect(result.diagnostics.map((d) => [d.code, result.source.position(d.span.start)])).toEqual([
      ['V1008', { line: 2 + 37 * 42 + 6, column: 19 }],
    ]);
    const items = result.program!.collections[0]!.items as FunctionDeclaration[];
    expect(items.map((f) => f.body.body.length)).toEqual(items.map((_, i) => (i === 37 ? 0 : 40)));
    const last = items[59]!.body.body[39]!;
    expect(text.slice(last.span.start, last.span.end)).toBe('this.total += 5939;');
  });

  it('give each function its own syntax error', () => {
    expect(parse('collection A { f() { let x = ; } g() { if ( } }').diagnostics.map((d) => d.code)).toEqual(['V1008', 'V1008']);
  });
});

describe('unsupported constructs', () => {
  const cases: [string, string][] = [
    ['let f = (x) => x;', 'arrow functions'],
    ['let f = function () {};', 'function expressions'],
    ['let s = `a`;', 'template literals'],
    ['let r = /a+/;', 'regular expressions'],
    ['let d = new Date();', '`new`'],
    ['let t = typeof x;', '`typeof`'],
    ['let v = void 0;', '`void`'],
    ['var x = 1;', '`var` (use let or const)'],
    ['try { } catch (e) { }', '`try`/`catch`'],
    ['switch (x) { }', '`switch`'],
    ['f(...xs);', 'spread'],
    ['let a = [...xs];', 'spread'],
    ['let o = { ...p };', 'spread'],
    ['function g() {}', 'nested function declarations'],
    ['class C {}', 'classes'],
    ['for (k in o) {}', '`for…in` without `let` or `const`'],
    ['let b = 10n;', 'BigInt literals'],
    ['outer: while (x) { }', 'labels'],
    ['with (o) { }', '`with`'],
    ['let i = "a" in o;', '`in`/`instanceof`'],
    ['let i = o instanceof C;', '`in`/`instanceof`'],
    ['x = (a, b);', 'sequence (comma) expressions'],
    ['let { a } = o;', 'destructuring'],
    ['[a, b] = xs;', 'destructuring'],
    ['let o = { [k]: 1 };', 'computed or string keys in object literals'],
    ["let o = { 'a': 1 };", 'computed or string keys in object literals'],
    ['let o = { get a() { return 1; } };', 'getters/setters'],
    ['let o = { a() {} };', 'methods in object literals'],
    ['let v = a?.b;', 'optional chaining'],
    ['let v = f?.();', 'optional chaining'],
    ['do { } while (x);', '`do…while` (use while)'],
    ['await x;', '`async`/`await`/`yield`'],
    ['let y = yield x;', '`async`/`await`/`yield`'],
    ['let f = async () => 1;', 'arrow functions'],
    ['for (let i = 0, j = 0; ; ) {}', 'several declarations in a `for` initializer'],
    ['for (x of xs) {}', '`for…of` without `let` or `const`'],
    ['a <<= 1;', 'the `<<=` operator'],
    ['a ||= 1;', 'the `||=` operator'],
    ['debugger;', '`debugger`'],
    ['let h = [1, , 2];', 'holes in array literals'],
  ];
  it.each(cases)('%s → %s', (body, construct) => {
    expect(unsupported(body)).toBe(construct);
  });

  it('reports every unsupported construct of a body, each at its own span', () => {
    expect(problems('let a = new X();\n let b = typeof a;')).toEqual([
      'V1009 1:30 not supported in collection functions: `new`',
      'V1009 2:10 not supported in collection functions: `typeof`',
    ]);
  });

  it('reports invalid assignment targets', () => {
    const message = 'invalid assignment target: only variables, fields and elements can be assigned';
    expect(problems('f() = 1;')).toEqual([`V1010 1:22 ${message}`]);
    expect(problems('x; (a + b) += 1;')).toEqual([`V1010 1:26 ${message}`]);
    expect(problems('f()++;')).toEqual([`V1010 1:22 ${message}`]);
    expect(problems('a + 1;')).toEqual([]);
  });

  it('rejects non-ASCII names, which JavaScript would accept', () => {
    expect(problems('let é = 1; x.ą;')).toEqual(['V1001 1:26 invalid character `é` (U+00E9)', 'V1001 1:35 invalid character `ą` (U+0105)']);
  });

  it('produces no statements for a body with errors, but keeps the function', () => {
    const result = parse(`${PREFIX}let d = new Date(); } }`);
    const fn = result.program!.collections[0]!.items[0] as FunctionDeclaration;
    expect(fn.body.body).toEqual([]);
  });
});

describe('depth limits', () => {
  it(`rejects expressions nested deeper than ${MAX_TREE_DEPTH} levels without brackets`, () => {
    const result = parse(`${PREFIX}let x = ${'!'.repeat(MAX_TREE_DEPTH + 10)}a; } }`);
    expect(result.diagnostics.map((d) => d.code)).toEqual(['V1011']);
  });

  it('turns a stack overflow inside acorn into a diagnostic', () => {
    const result = parse(`${PREFIX}let x = ${'a+'.repeat(200_000)}a; } }`);
    expect(result.diagnostics.map((d) => d.code)).toEqual(['V1011']);
  });

  it('accepts long chains below the limit', () => {
    expect(bodyOf(`let x = ${'a+'.repeat(MAX_TREE_DEPTH - 10)}a;`)).toHaveLength(1);
  });
});
