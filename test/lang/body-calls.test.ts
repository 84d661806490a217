// Names, logical operators, literals, members, indexes and calls in function bodies (check-body.ts, lines
// 601-1083), pinned where `npm run mutation` found the rules undefended: the names an unknown name is
// compared with, what the left side of && and || proves on the right, the element type of an array literal
// and the checks of object and map literals, what members and string keys read, what a call of something
// that is not a function reports, and the argument rules of built-ins and collection functions (counts with
// their messages, optional parameters, the hashes), migrations and the call table the runtime reads.
import { describe, expect, it } from 'vitest';
import { checkSchema } from '../../src/lang/index.ts';
import { inFunction, reported } from './check-helpers.ts';

const parameters = 's: string, n: number, r: record, x: Other, k: PublicKey, o?: number, t?: string';
/** `code line:column text | message` of each diagnostic of a body placed in `f` (body line 1 is line 11). */
const diagnostics = (body: string) => reported(inFunction(body, parameters)).map((d) => `${d.code} ${d.at} ${d.text} | ${d.message}`);
const noUndefined = 'only optional fields, optional parameters and variables can hold null or undefined';

describe('names', () => {
  it.each([
    // An unknown name is compared with the names in scope, the global names and the built-in functions.
    ['let total = 1;\nlet q = totl;', ['V3001 12:9 totl | cannot find name "totl"; did you mean "total"?']],
    ['let q = Mth.PI;', ['V3001 11:9 Mth | cannot find name "Mth"; did you mean "Math"?']],
    ['let q = ctz.publicKey;', ['V3001 11:9 ctz | cannot find name "ctz"; did you mean "ctx"?']],
    ['let q = undefind;', ['V3001 11:9 undefind | cannot find name "undefind"; did you mean "undefined"?']],
    ['erorr("x");', ['V3001 11:1 erorr | cannot find name "erorr"; did you mean "error"?']],
    ['let q = zzz;', ['V3001 11:9 zzz | cannot find name "zzz"']],
    // Only the built-in *functions* are global names: a method's name is not suggested.
    ['let q = lenth;', ['V3001 11:9 lenth | cannot find name "lenth"']],
    ['g();\nlet g = 1;', ['V3029 11:1 g | "g" is used before its declaration']],
    // What a name reads: `undefined` is a value of its own, a built-in constant has its type.
    ['let e = error;', ['V3026 11:9 error | the function "error" cannot be used as a value; call it as error(...)']],
    ['let q: string = undefined;', ['V3011 11:17 undefined | cannot assign undefined to "q" (string): ' + noUndefined]],
  ])('%s', (body, expected) => {
    expect(diagnostics(body)).toEqual(expected);
  });
});

describe('the right side of && || ?? and the branches of ?:', () => {
  it.each([
    // Checked like any other value, under what the left side or the test proves.
    ['let q = n > 0 && zz;', ['V3001 11:18 zz | cannot find name "zz"']],
    ['let q = n > 0 ? zz : 1;', ['V3001 11:17 zz | cannot find name "zz"']],
    ['let q = o && n + o;\nlet p = !o || n + o;\nlet r2 = o ? n + o : 1;', []],
    ['let q = o || n + o;', ['V3012 11:18 o | operator + cannot be applied to the optional parameter "o", which may be undefined']],
    // `??` runs its right side when the left is nullish, which a boolean never is: nothing is proved.
    ['let q = !o ?? n + o;', ['V3012 11:19 o | operator + cannot be applied to the optional parameter "o", which may be undefined']],
  ])('%s', (body, expected) => {
    expect(diagnostics(body)).toEqual(expected);
  });
});

describe('array and object literals', () => {
  it.each([
    // Without a target, an array literal has the type its elements share.
    ['let a = [n, 1];\nlet b: string[] = a;', ['V3006 12:19 a | cannot assign number[] to "b" (string[])']],
    ['let a = [s, "x"];\nlet b: string[] = a;', []],
    ['let a = [null, 1];', ['V3022 11:16 1 | array elements must have one type: found null and number']],
    ['let a = [1, null];', ['V3022 11:13 null | array elements must have one type: found number and null']],
    // The wider type is kept, whichever comes first; `never` (error()) gives way to the next element.
    ['let a: u32 = 1;\nlet b = [n, a];\nlet c: string[] = b;', ['V3006 13:19 b | cannot assign number[] to "c" (string[])']],
    ['let v = [error("x"), n];\nlet w: string[] = v;', ['V3006 12:19 v | cannot assign number[] to "w" (string[])']],
    ['let e = [];\nlet v = [e[0], n];\nlet w: string[] = v;', ['V3006 13:19 v | cannot assign number[] to "w" (string[])']],
    // Only null elements: an array of anything.
    ['let a = [null, null];\nlet b: string[] = a;', []],
    // Against a target, each element is checked, and may not be missing.
    ['this.tags = [s, null];', [`V3011 11:17 null | cannot assign null to an element of string[]: ${noUndefined}`]],
    ['this.tags = [s, t];', [`V3011 11:17 t | cannot assign the optional parameter "t", which may be undefined, to an element of string[]: ${noUndefined}`]],
    // An object literal against an object type: each property's value is checked (unknown ones too).
    ['this.info = { a: s, b: o };', []],
    ['this.info = { a: t };', [`V3011 11:18 t | cannot assign the optional parameter "t", which may be undefined, to property "a" of type string: ${noUndefined}`]],
    ['this.info = { a: s, c: zz };', [
      'V3024 11:21 c | unknown property "c": { a: string; b?: number; } has no such field',
      'V3001 11:24 zz | cannot find name "zz"',
    ]],
    ['this.info = { a: s, b: s };', ['V3006 11:24 s | cannot assign string to property "b" of type number']],
    ['this.info = {};', ['V3023 11:13 {} | missing required property "a" of { a: string; b?: number; }']],
    // Against a map type: each entry's value.
    ['this.m = { a: n, b: 2 };', []],
    ['this.m = { a: s };', ['V3006 11:15 s | cannot assign string to an entry of map<string, number>']],
    ['this.m = { a: null };', [`V3011 11:15 null | cannot assign null to an entry of map<string, number>: ${noUndefined}`]],
    ['this.m = { a: o };', [`V3011 11:15 o | cannot assign the optional parameter "o", which may be undefined, to an entry of map<string, number>: ${noUndefined}`]],
    // Without a target, an object literal has its own shape.
    ['let v = { a: 1 };\nv.a = "x";', ['V3006 12:7 "x" | cannot assign string to property "a" of type number']],
    // An empty one is anything; a property that is null may hold anything.
    ['let v = {};\nv.a = 1;', []],
    ['let v = { a: null };\nv.a = 1;\nv.a = "x";', []],
  ])('%s', (body, expected) => {
    expect(diagnostics(body)).toEqual(expected);
  });
});

describe('members and indexes', () => {
  it.each([
    ['let q = this.f;', ['V3026 11:14 f | the function "f" cannot be used as a value; call it as this.f(...)']],
    ['let u = s.toUpperCase;', ['V3026 11:11 toUpperCase | the function "toUpperCase" cannot be used as a value; call it as toUpperCase(...)']],
    ['let q: string = this.info.a;', []],
    ['let q = s.lenth;', ['V3003 11:11 lenth | string has no property "lenth"; did you mean "length"?']],
    ['let q = Math.P;', ['V3003 11:14 P | Math has no property "P"; did you mean "PI"?']],
    ['let q: string = this.m.k;', ['V3006 11:17 this.m.k | cannot assign number to "q" (string)']],
    ['let q: string = s.length;', ['V3006 11:17 s.length | cannot assign number to "q" (string)']],
    ['let q: number = s[0];', ['V3006 11:17 s[0] | cannot assign string to "q" (number)']],
    ['let q: string = this.tags[n];', []],
    ['let q: number = this.tags[n];', ['V3006 11:17 this.tags[n] | cannot assign string to "q" (number)']],
    // A string key reads the named field or property; any other string, anything.
    ['let q: number = this.info["a"];', ['V3006 11:17 this.info["a"] | cannot assign string to "q" (number)']],
    ['let q: number = r["name"];', ['V3006 11:17 r["name"] | cannot assign string to "q" (number)']],
    ['let q = this.info["c"];', ['V3003 11:19 "c" | { a: string; b?: number; } has no property "c"']],
    ['let q = r["nme"];', ['V3002 11:11 "nme" | collection "T" has no field "nme"']],
    ['let q = this.info[s];\nlet p = r[s];', []],
    // Indexing a value of any type, or with one, gives anything.
    ['let a = [];\nlet q = a[0][s];\nlet p = this.info[a[0]];', []],
    ['let q = this.info[n];', ['V3027 11:19 n | cannot index { a: string; b?: number; } with number']],
    ['let q = r[n];', ['V3027 11:11 n | cannot index T with number']],
  ])('%s', (body, expected) => {
    expect(diagnostics(body)).toEqual(expected);
  });
});

describe('calls', () => {
  it.each([
    // What is not a function; its arguments are still checked.
    ['this.tags[0]();', ['V3025 11:1 this.tags[0] | string is not a function']],
    ['let a = [];\na[0]();', []],
    ['s(zz);', ['V3025 11:1 s | "s" is not a function', 'V3001 11:3 zz | cannot find name "zz"']],
    ['this.g();', ['V3004 11:6 g | collection "T" has no function "g"; did you mean "f"?']],
    ['let v = { a: null };\nv.a();', []],
    ['this.name();', ['V3025 11:1 this.name | string value "name" is not a function']],
    // The constructor is never suggested, and says why it cannot be called.
    ['this.constructr();', ['V3004 11:6 constructr | collection "T" has no function "constructr"']],
    ['this.constructor("x");', ['V3004 11:6 constructor | collection "T" has no function "constructor"; the constructor runs only when a record is created']],
    ['x.g();', ['V3028 11:3 g | cannot call function "g" on a record of Other: collection functions are called as this.g(...)']],
    // A method that needs a callback, on arrays only; the hints for missing global names, on namespaces only.
    ['this.tags.map(s);', ['V3005 11:11 map | array method "map" needs a callback, and collection functions have no function values; use a for…of loop']],
    ['s.map();', ['V3004 11:3 map | string has no function "map"']],
    ['Math.random();', ['V3004 11:6 random | Math has no function "random"; collection functions have no randomness, so that every run gives the same result']],
    ['s.random();', ['V3004 11:3 random | string has no function "random"']],
    // Arguments: null is no string; a value that may be missing goes only where anything may.
    ['this.tags.push(null);', ['V3007 11:16 null | argument 1 of string[].push must be string, found null']],
    ['this.tags.push(t);', [`V3011 11:16 t | cannot assign the optional parameter "t", which may be undefined, to argument 1 of string[].push (string): ${noUndefined}`]],
    ['log(o);', []],
    ['this.f(t, n, r, x, k);', [`V3011 11:8 t | cannot assign the optional parameter "t", which may be undefined, to argument 1 of this.f (string): ${noUndefined}`]],
    ['this.f(s, n, r, x, k, o, t);', []],
    // The hashes take bytes or strings.
    ['let h = hashSHA256(s);', []],
    ['hashSHA256(n);', ['V3007 11:12 n | argument 1 of hashSHA256 must be bytes or string, found number']],
    // The argument count, with the expected count said as the function's arity is.
    ['this.count = Math.pow(n);', ['V3010 11:14 Math.pow(n) | Math.pow expects 2 arguments, found 1']],
    ['this.name = s.trim(1, 2);', ['V3010 11:20 1, 2 | string.trim expects 0 arguments, found 2']],
    ['this.name = s.substring();', ['V3010 11:13 s.substring() | string.substring expects 1 to 2 arguments, found 0']],
    ['this.name = s.substring(1, 2, 3, 4);', ['V3010 11:31 3, 4 | string.substring expects 1 to 2 arguments, found 4']],
    ['this.f(s);', ['V3010 11:1 this.f(s) | this.f expects 5 to 7 arguments, found 1']],
    // Arguments past the last parameter are counted, not checked against it.
    ['this.name = s.substring(1, 2, s);', ['V3010 11:31 s | string.substring expects 1 to 2 arguments, found 3']],
    ['this.f(s, n, r, x, k, o, t, 1);', ['V3010 11:29 1 | this.f expects 5 to 7 arguments, found 8']],
  ])('%s', (body, expected) => {
    expect(diagnostics(body)).toEqual(expected);
  });
});

describe('calls the runtime reads', () => {
  it('a migration cannot be called', () => {
    const schema = [
      'collection T {',
      '  id: string;',
      '  name: string;',
      '  @migrate m (old: { name: string; }) { this.name = old.name; }',
      '  f () { this.m({ name: "x" }); }',
      '}',
      '',
    ].join('\n');
    expect(reported(schema).map((d) => `${d.code} ${d.at} ${d.text} | ${d.message}`)).toEqual([
      'V3032 5:15 m | "m" is a migration: it runs over the stored records when its schema is installed, and cannot be called',
    ]);
  });

  it('a call of a built-in function by name is recorded for the runtime', () => {
    const schema = 'collection T {\n  id: string;\n  f () { error("no"); }\n}\n';
    const result = checkSchema(schema);
    expect(result.diagnostics).toEqual([]);
    const calls = [...result.checked!.calls].map(([call, target]) =>
      `${schema.slice(call.span.start, call.span.end)} -> ${target.kind === 'builtin' ? target.builtin.id : target.kind}`,
    );
    expect(calls).toEqual(['error("no") -> global.error']);
  });
});
