// The schema structure: collections, decorators, fields, every type, indexes, function headers, the
// Polylang extensions, spans in whole-file coordinates, and every syntax diagnostic with its position.

import { describe, expect, it } from 'vitest';
import type { Collection, FieldDeclaration, FunctionDeclaration, IndexDeclaration, Program, TypeNode } from '../../src/lang/ast.ts';
import { SchemaParser } from '../../src/lang/grammar.ts';
import { MAX_NESTING_DEPTH } from '../../src/lang/nesting.ts';
import { parse } from '../../src/lang/parse.ts';
import { renderText } from '../../src/lang/render.ts';
import { stripSpans } from './strip-spans.ts';

function parseOk(text: string): Program {
  const result = parse(text);
  expect(result.diagnostics.map((d) => renderText(d, result.source))).toEqual([]);
  expect(result.program).toBeDefined();
  return result.program!;
}

function onlyCollection(text: string): Collection {
  const program = parseOk(text);
  expect(program.collections).toHaveLength(1);
  return program.collections[0]!;
}

function fieldType(typeText: string): TypeNode {
  const field = onlyCollection(`collection A { f: ${typeText}; }`).items[0] as FieldDeclaration;
  return stripSpans(field.type);
}

/** The diagnostics as `code line:column message`, the way a person reads them. */
function problems(text: string): string[] {
  const result = parse(text);
  return result.diagnostics.map((d) => {
    const { line, column } = result.source.position(d.span.start);
    return `${d.code} ${line}:${column} ${d.message}`;
  });
}

describe('program structure', () => {
  it('accepts an empty text and one with only comments', () => {
    expect(parseOk('').collections).toEqual([]);
    expect(parseOk('// nothing\n/* here */').collections).toEqual([]);
  });

  it('parses several collections with decorators', () => {
    const program = parseOk('@public collection A { id: string; }\n@read @call(owner) collection B { id: string; }');
    expect(program.collections.map((c) => c.name.name)).toEqual(['A', 'B']);
    expect(stripSpans(program.collections[1]!.decorators)).toEqual([
      { kind: 'decorator', name: 'read', arguments: null },
      { kind: 'decorator', name: 'call', arguments: [{ kind: 'identifier', name: 'owner' }] },
    ]);
    expect(program.span).toEqual({ start: 0, end: 84 });
  });

  it('keeps items in source order, whatever their kind', () => {
    const collection = onlyCollection(`collection A {
      f() {}
      id: string;
      @index(id);
      function g() {}
      name?: string;
    }`);
    expect(collection.items.map((item) => item.kind)).toEqual(['function', 'field', 'index', 'function', 'field']);
  });

  it('gives collection, field and function spans from the first decorator to the last token', () => {
    const text = '@public collection A {\n  @read owner: PublicKey;\n  @call(owner) set(x: number) { }\n}';
    const collection = onlyCollection(text);
    const [field, fn] = collection.items as [FieldDeclaration, FunctionDeclaration];
    expect(text.slice(collection.span.start, collection.span.end)).toBe(text);
    expect(text.slice(field.span.start, field.span.end)).toBe('@read owner: PublicKey;');
    expect(text.slice(fn.span.start, fn.span.end)).toBe('@call(owner) set(x: number) { }');
    expect(text.slice(fn.name.span.start, fn.name.span.end)).toBe('set');
  });
});

describe('decorators', () => {
  it('accepts every decorator name, with and without arguments', () => {
    const collection = onlyCollection('collection A { @public @read @call @delegate @read() @call(a b) x: PublicKey; }');
    const field = collection.items[0] as FieldDeclaration;
    expect(field.decorators.map((d) => [d.name, d.arguments?.map((a) => a.name) ?? null])).toEqual([
      ['public', null],
      ['read', null],
      ['call', null],
      ['delegate', null],
      ['read', []],
      ['call', ['a', 'b']],
    ]);
  });

  it('accepts commas between decorator arguments (extension)', () => {
    const fn = onlyCollection('collection A { @call(owner, admin,) f() {} }').items[0] as FunctionDeclaration;
    expect(fn.decorators[0]!.arguments!.map((a) => a.name)).toEqual(['owner', 'admin']);
  });

  it('reports an unknown decorator at its name and drops it', () => {
    const result = parse('collection A {\n  @secret @read x: PublicKey;\n}');
    expect(problems('collection A {\n  @secret @read x: PublicKey;\n}')).toEqual([
      'V1006 2:4 unknown decorator @secret; expected one of @public, @read, @call, @delegate, @private',
    ]);
    const field = result.program!.collections[0]!.items[0] as FieldDeclaration;
    expect(field.decorators.map((d) => d.name)).toEqual(['read']);
  });
});

describe('fields and types', () => {
  it('parses required and optional fields', () => {
    const [a, b] = onlyCollection('collection A { a: string; b?: number; }').items as FieldDeclaration[];
    expect([a!.name.name, a!.optional, b!.name.name, b!.optional]).toEqual(['a', false, 'b', true]);
  });

  it('parses the primitive types, PublicKey and record', () => {
    expect(fieldType('string')).toEqual({ kind: 'primitiveType', name: 'string' });
    expect(fieldType('number')).toEqual({ kind: 'primitiveType', name: 'number' });
    expect(fieldType('boolean')).toEqual({ kind: 'primitiveType', name: 'boolean' });
    expect(fieldType('bytes')).toEqual({ kind: 'primitiveType', name: 'bytes' });
    expect(fieldType('PublicKey')).toEqual({ kind: 'publicKeyType' });
    expect(fieldType('record')).toEqual({ kind: 'recordType' });
  });

  it('reads any other name as a reference to a collection', () => {
    expect(fieldType('User')).toEqual({ kind: 'referenceType', collection: { kind: 'identifier', name: 'User' } });
    expect(fieldType('array[]')).toEqual({
      kind: 'arrayType',
      element: { kind: 'referenceType', collection: { kind: 'identifier', name: 'array' } },
    });
  });

  it('parses arrays of basic types and collections', () => {
    expect(fieldType('PublicKey[]')).toEqual({ kind: 'arrayType', element: { kind: 'publicKeyType' } });
    expect(fieldType('number []')).toEqual({ kind: 'arrayType', element: { kind: 'primitiveType', name: 'number' } });
  });

  it('parses nested maps', () => {
    expect(fieldType('map<string, map<number, User[]>>')).toEqual({
      kind: 'mapType',
      key: { kind: 'primitiveType', name: 'string' },
      value: {
        kind: 'mapType',
        key: { kind: 'primitiveType', name: 'number' },
        value: { kind: 'arrayType', element: { kind: 'referenceType', collection: { kind: 'identifier', name: 'User' } } },
      },
    });
  });

  it('parses inline object types, with or without the last `;` (extension), and empty ones', () => {
    const expected = {
      kind: 'objectType',
      fields: [
        { kind: 'field', name: { kind: 'identifier', name: 'a' }, optional: false, type: { kind: 'primitiveType', name: 'string' }, decorators: [] },
        { kind: 'field', name: { kind: 'identifier', name: 'b' }, optional: true, type: { kind: 'primitiveType', name: 'number' }, decorators: [] },
      ],
    };
    expect(fieldType('{ a: string; b?: number; }')).toEqual(expected);
    expect(fieldType('{ a: string; b?: number }')).toEqual(expected);
    expect(fieldType('{}')).toEqual({ kind: 'objectType', fields: [] });
  });

  it('gives inner object fields spans that include their `;`', () => {
    const text = 'collection A { o: { a: string; b: number }; }';
    const type = (onlyCollection(text).items[0] as FieldDeclaration).type;
    if (type.kind !== 'objectType') throw new Error('expected an object type');
    expect(type.fields.map((f) => text.slice(f.span.start, f.span.end))).toEqual(['a: string;', 'b: number']);
    expect(text.slice(type.span.start, type.span.end)).toBe('{ a: string; b: number }');
  });

  it('accepts names that Polylang split at a keyword prefix, and type names as field names', () => {
    const collection = onlyCollection('collection A { string2: string; record_id: string; bytes32: bytes; in: number; of: number; string: string; map: number; asc: boolean; }');
    expect(collection.items.map((f) => (f as FieldDeclaration).name.name)).toEqual([
      'string2', 'record_id', 'bytes32', 'in', 'of', 'string', 'map', 'asc',
    ]);
  });

  it('reports arrays of arrays, maps and objects at the extra `[`', () => {
    expect(problems('collection A {\n  grid: number[][];\n}')).toEqual(['V1004 2:17 unexpected `[`, expected `;`']);
    expect(parse('collection A { m: map<string, string>[]; }').diagnostics[0]!.notes[0]!.message).toBe(
      'arrays of maps are not supported; use a map or a separate collection',
    );
    expect(problems('collection A {\n  o: { x: number; }[];\n}')).toEqual(['V1004 2:20 unexpected `[`, expected `;`']);
  });

  it('requires the `;` after a field with an object type, reported where it is missing', () => {
    expect(problems('collection A {\n  o: { a: string; }\n  b: number;\n}')).toEqual(['V1013 2:20 `;` expected']);
  });
});

describe('indexes', () => {
  function index(text: string): IndexDeclaration {
    return stripSpans(onlyCollection(`collection A { ${text} }`).items[0] as IndexDeclaration);
  }

  it('parses paths, dotted paths and bracketed directions', () => {
    expect(index('@index(name, [age, desc], info.place, [id, asc]);').fields).toEqual([
      { kind: 'indexField', path: [{ kind: 'identifier', name: 'name' }], direction: 'asc', bracketed: false },
      { kind: 'indexField', path: [{ kind: 'identifier', name: 'age' }], direction: 'desc', bracketed: true },
      { kind: 'indexField', path: [{ kind: 'identifier', name: 'info' }, { kind: 'identifier', name: 'place' }], direction: 'asc', bracketed: false },
      { kind: 'indexField', path: [{ kind: 'identifier', name: 'id' }], direction: 'asc', bracketed: true },
    ]);
  });

  it('accepts an empty index and a trailing comma (extension)', () => {
    expect(index('@index();').fields).toEqual([]);
    expect(index('@index(a, b,);').fields).toHaveLength(2);
  });

  it('reports a bad direction at the direction', () => {
    expect(problems('collection A {\n  @index([name, up]);\n}')).toEqual(['V1004 2:17 unexpected `up`, expected `asc` or `desc`']);
  });

  it('rejects decorators before @index and a missing `;`', () => {
    expect(problems('collection A {\n  @read\n  @index(name);\n}')).toEqual(['V1004 3:3 unexpected `@index`, expected identifier or `function`']);
    expect(problems('collection A { @index(name) }')).toEqual(['V1004 1:29 unexpected `}`, expected `;`']);
  });
});

describe('functions', () => {
  function fn(text: string): FunctionDeclaration {
    return onlyCollection(`collection A { ${text} }`).items[0] as FunctionDeclaration;
  }

  it('parses the optional function keyword, parameters and the return type', () => {
    const withKeyword = fn('function constructor(id: string, n?: number, r: record, u: User[]): map<string, number> { }');
    expect(withKeyword.functionKeyword).toBe(true);
    expect(withKeyword.name.name).toBe('constructor');
    expect(stripSpans(withKeyword.parameters).map((p) => [p.name.name, p.optional, p.type.kind])).toEqual([
      ['id', false, 'primitiveType'],
      ['n', true, 'primitiveType'],
      ['r', false, 'recordType'],
      ['u', false, 'arrayType'],
    ]);
    expect(withKeyword.returnType?.kind).toBe('mapType');
    const without = fn('f() {}');
    expect([without.functionKeyword, without.parameters, without.returnType]).toEqual([false, [], null]);
  });

  it('accepts a trailing comma in the parameter list (extension)', () => {
    expect(fn('f(a: string, b: number,) {}').parameters).toHaveLength(2);
  });

  it('records the body text span between the braces', () => {
    const text = 'collection A { f() {\n  this.x = 1;\n} }';
    const f = onlyCollection(text).items[0] as FunctionDeclaration;
    expect(text.slice(f.bodyTextSpan.start, f.bodyTextSpan.end)).toBe('\n  this.x = 1;\n');
    expect(text.slice(f.body.span.start, f.body.span.end)).toBe('{\n  this.x = 1;\n}');
    expect(f.body.body).toHaveLength(1);
  });

  it('rejects a `;` after a function body', () => {
    expect(problems('collection A {\n  f() {};\n}')).toEqual(['V1004 2:9 unexpected `;`, expected `}`']);
  });

  it('reports a root-level function at its name and still returns the collections', () => {
    const result = parse('function helper() {}\ncollection A { id: string; }');
    expect(problems('function helper() {}\ncollection A { id: string; }')).toEqual([
      'V1007 1:10 functions are not supported at the root level; declare `helper` inside a collection',
    ]);
    expect(result.program!.collections.map((c) => c.name.name)).toEqual(['A']);
  });
});

describe('syntax diagnostics', () => {
  it('names the offending token and what was expected', () => {
    expect(problems('collection test-cities { }')).toEqual(['V1004 1:16 unexpected `-`, expected `{`']);
    expect(problems('collection A {\n  name string;\n}')).toEqual(['V1004 2:8 unexpected `string`, expected `?`, `:` or `(`']);
    expect(problems('collection A {\n  id: string\n}')).toEqual(['V1013 2:13 `;` expected']);
    expect(problems('collection A { collection: string; }')).toEqual(['V1004 1:16 unexpected `collection`, expected `}`']);
    expect(problems('}')).toEqual(['V1004 1:1 unexpected `}`, expected `collection`']);
    expect(problems('collection A { x: map<string>; }')).toEqual(['V1004 1:29 unexpected `>`, expected `,`']);
    expect(problems("collection A { id: 'string'; }")).toEqual(["V1004 1:20 unexpected `'string'`, expected `{` or identifier"]);
    expect(problems('collection A { f(): string; }')).toEqual(['V1004 1:27 unexpected `;`, expected `{`']);
    expect(problems('collection A { @call(a.b) f() {} }')).toEqual(['V1004 1:23 unexpected `.`, expected `)`']);
  });

  it('reports the end of the file where something was still expected', () => {
    const text = 'collection A {\n  id: string;\n';
    expect(problems(text)).toEqual(['V1013 3:1 `}` expected']);
    expect(parse(text).diagnostics[0]!.span).toEqual({ start: text.length, end: text.length });
    expect(problems('collection A { f() { if (x) {')).toEqual(['V1013 1:30 `}` expected']);
    expect(problems('collection A {\n  id: string {\n}')).toEqual(['V1004 2:14 unexpected `{`, expected `;`']);
    expect(problems('collection A {\n  o {a: string};\n}')).toEqual(['V1004 2:5 unexpected `{`, expected `?`, `:` or `(`']);
    expect(problems('@public\n')).toEqual(['V1005 2:1 unexpected end of file, expected `collection`']);
  });

  it('reports invalid characters, unterminated strings and comments', () => {
    expect(problems('collection Zażółć { }')).toEqual(['V1001 1:14 invalid character `ż` (U+017C)']);
    expect(problems('collection A { id: string; }\u0007')).toEqual(['V1001 1:29 invalid character U+0007']);
    expect(problems("collection A {\n  f() { let s = 'abc; }\n}")[0]).toBe('V1002 2:17 unterminated string literal');
    expect(problems('collection A { id: string; }\n/* never closed')).toEqual(['V1003 2:1 unterminated block comment']);
  });

  it('leaves no program when the structure does not parse', () => {
    expect(parse('collection { }').program).toBeUndefined();
  });
});

describe('Polylang extensions and compatibility', () => {
  it('accepts what Polylang 0.6 accepted', () => {
    parseOk(`
      @public
      collection Account {
        id: string;
        @read @delegate owner: PublicKey;
        @read(x) other: PublicKey;
        m: map<PublicKey, string>;
        o: {};
        $A: string;
        _x: number;
        A1: boolean;
        @index();
        @index(id);
        @delegate
        function constructor (id: string) {
          this.id = id;
          continue;
          throw 'x';
          (this.id) = 'x';
          let y = Math.floor(2.5);
          let k = $auth.publicKey;
        }
      }`);
  });

  it('accepts the Vellum extensions', () => {
    parseOk(`
      collection Ledger {
        id: string;
        record_id: string;
        string2: string;
        @call(owner, admin) transfer(a: number, b: number,) {
          const label = 'it\\'s';
          let x = -1;
          if (a === b) { x++; } else if (a !== b) { x *= 2; x /= 3; }
          for (const v of this.items) { x += v; }
          let list = [1, 2, 3,];
          let obj = { a: 1, b: 2, };
          @index(a, b,);
        }
      }`.replace('@index(a, b,);', ''));
  });
});

describe('nesting limits', () => {
  it(`accepts ${MAX_NESTING_DEPTH} nested map types and rejects one more`, () => {
    const nested = (n: number) => `collection A { m: ${'map<string, '.repeat(n)}number${'>'.repeat(n)}; }`;
    parseOk(nested(MAX_NESTING_DEPTH - 1));
    const result = parse(nested(MAX_NESTING_DEPTH + 1));
    expect(result.program).toBeUndefined();
    expect(result.diagnostics.map((d) => d.code)).toEqual(['V1011']);
    expect(result.diagnostics[0]!.message).toBe(`nesting too deep: at most ${MAX_NESTING_DEPTH} levels of brackets`);
  });

  it('reports deeply nested brackets in a body and still parses the other functions', () => {
    const deep = `${'['.repeat(MAX_NESTING_DEPTH + 5)}${']'.repeat(MAX_NESTING_DEPTH + 5)}`;
    const result = parse(`collection A {\n  f() { let x = ${deep}; }\n  g() { let y = ; }\n}`);
    expect(result.program?.collections[0]!.items).toHaveLength(2);
    const codes = result.diagnostics.map((d) => `${d.code} ${result.source.position(d.span.start).line}`);
    expect(codes).toEqual(['V1011 2', 'V1008 3']);
  });
});

describe('grammar', () => {
  it("passes chevrotain's validations (ambiguities, left recursion), which the parser made for use skips", () => {
    // performSelfAnalysis throws "Parser Definition Errors detected" when a validation fails.
    expect(() => new SchemaParser(true)).not.toThrow();
  });
});
