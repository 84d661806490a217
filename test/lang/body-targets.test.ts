// What an assignment, update or delete may write to (check-body.ts: `target`, `variableTarget`,
// `propertyTarget`, `checkWritableChain`), pinned where `npm run mutation` found the rules undefended:
// constants (but `delete` of one is a V3021), which targets may hold undefined, which may be deleted,
// the id outside a plain constructor assignment, and why a record of another collection, a stored
// reference, a public key or a namespace cannot be written through.
import { describe, expect, it } from 'vitest';
import { inFunction, reported } from './check-helpers.ts';

const parameters = 's: string, n: number, r: record, x: Other, k: PublicKey, o?: number, t?: string';
/** `code line:column text | message` of each diagnostic of a body placed in `f` (body line 1 is line 11). */
const diagnostics = (body: string) => reported(inFunction(body, parameters)).map((d) => `${d.code} ${d.at} ${d.text} | ${d.message}`);
const noUndefined = 'only optional fields, optional parameters and variables can hold null or undefined';

/** A body in a collection with stored references, a public key and a map of references. */
function withReferences(body: string): string[] {
  const schema = [
    'collection C {',
    '  id: string;',
    '  ref?: Other;',
    '  refs: Other[];',
    '  key?: PublicKey;',
    '  f (x: Other, n: number) {',
    body,
    '  }',
    '}',
    'collection Other { id: string; v: number; info: { a: string; }; mo: map<string, { a: number; }>; }',
    '',
  ].join('\n');
  return reported(schema).map((d) => `${d.code} ${d.at} ${d.text} | ${d.message}`);
}

/** A constructor body (body line 1 is line 5) of a collection whose only other field is `n`. */
function inConstructor(body: string): string[] {
  const schema = `collection C {\n  id: string;\n  n: number;\n  constructor (id: string, r: record) {\n${body}\n  }\n}\n`;
  return reported(schema).map((d) => `${d.code} ${d.at} ${d.text}`);
}

describe('variables and parameters', () => {
  it.each([
    // A constant cannot be assigned or updated; deleting it is refused for what it is, a variable.
    ['const c = 1;\nc = 2;', ['V3016 12:1 c | cannot assign to "c" because it is a constant']],
    ['const c = 1;\nc++;', ['V3016 12:1 c | cannot assign to "c" because it is a constant']],
    ['const c = 1;\ndelete c;', ['V3021 12:8 c | delete needs a map entry or an optional field, found variable "c" of type number']],
    ['let a = 1;\ndelete a;', ['V3021 12:8 a | delete needs a map entry or an optional field, found variable "a" of type number']],
    ['delete s;', ['V3021 11:8 s | delete needs a map entry or an optional field, found parameter "s" of type string']],
    // Variables and optional parameters may hold undefined; a required parameter may not.
    ['let a = 1;\na = undefined;\nlet b = "x";\nb = null;\no = undefined;\nt = null;', []],
    ['s = undefined;', [`V3011 11:5 undefined | cannot assign undefined to parameter "s" of type string: ${noUndefined}`]],
    ['n = null;', [`V3011 11:5 null | cannot assign null to parameter "n" of type number: ${noUndefined}`]],
    // Names that are not variables.
    ['zz = 1;', ['V3001 11:1 zz | cannot find name "zz"']],
    ['k2 = 1;\nlet k2 = 2;', ['V3029 11:1 k2 | "k2" is used before its declaration']],
    ['error = 1;', ['V3015 11:1 error | cannot assign to "error"']],
    ['undefined++;', ['V3015 11:1 undefined | cannot assign to "undefined"']],
  ])('%s', (body, expected) => {
    expect(diagnostics(body)).toEqual(expected);
  });
});

describe('fields and properties', () => {
  it.each([
    // A record of this collection is written like `this`; its functions are not fields.
    ['r.count = 1;\nr.name = "x";\ndelete r.owner;\nr.m.k = 1;\nr.info.a = "z";\nr.tags[0] = "t";', []],
    ['r.g = 1;', ['V3002 11:3 g | collection "T" has no field "g"; did you mean "m"?']],
    ['r.f = 1;', ['V3015 11:3 f | cannot assign to the function "f"']],
    ['delete r.f;', ['V3015 11:10 f | cannot assign to the function "f"']],
    // Optional fields and properties may hold undefined and be deleted; required ones neither.
    ['this.owner = undefined;\ndelete this.owner;\nthis.info.b = undefined;\ndelete this.info.b;', []],
    ['this.name = undefined;', [`V3011 11:13 undefined | cannot assign undefined to field "name" of type string: ${noUndefined}`]],
    ['delete this.name;', ['V3021 11:8 this.name | delete needs a map entry or an optional field, found field "name" of type string']],
    ['this.info.a = undefined;', [`V3011 11:15 undefined | cannot assign undefined to property "a" of type string: ${noUndefined}`]],
    ['delete this.info.a;', ['V3021 11:8 this.info.a | delete needs a map entry or an optional field, found property "a" of type string']],
    ['let v = { a: 1 };\nv.a = 2;\nv.b = 3;', ['V3003 13:3 b | { a: number; } has no property "b"; did you mean "a"?']],
    // Map entries (by `.key` or `[key]`) may be deleted but hold a value while they exist.
    ['this.m.k = 1;\ndelete this.m.k;\ndelete this.m[s];', []],
    ['this.m.k = undefined;', [`V3011 11:12 undefined | cannot assign undefined to an entry of map<string, number>: ${noUndefined}`]],
    ['this.tags[0] = undefined;', [`V3011 11:16 undefined | cannot assign undefined to an element of string[]: ${noUndefined}`]],
    ['delete this.tags[0];', ['V3021 11:8 this.tags[0] | delete needs a map entry or an optional field, found an element of string[]']],
    // Values of any type (elements of an empty array literal) may be written, set to undefined and deleted.
    ['let a = [];\na[0].x = o;\ndelete a[0].y;\na[0][1] = undefined;\ndelete a[0][1];\na[1] = undefined;', []],
    // So may the properties of `never` (code after error() does not run).
    ['error("x").a = undefined;\ndelete error("y").b;', []],
    // Values that have no properties to write.
    ['s.x = 1;', ['V3015 11:1 s.x | cannot assign to string.x']],
    ['k.x = 1;', ['V3015 11:1 k.x | cannot assign to PublicKey.x']],
    ['this.tags.length = 1;', ['V3015 11:1 this.tags.length | cannot assign to string[].length']],
    ['ctx.publicKey = k;', ['V3015 11:1 ctx.publicKey | cannot assign to ctx.publicKey']],
    ['s[0] = "x";', ['V3015 11:1 s[0] | cannot assign to a character of a string: strings cannot be changed']],
  ])('%s', (body, expected) => {
    expect(diagnostics(body)).toEqual(expected);
  });

  it('writes through a string key as through a name', () => {
    expect(withReferences('this["ref"] = x;')).toEqual([]);
    expect(withReferences('this["zz"] = 1;')).toEqual(['V3002 7:6 "zz" | collection "C" has no field "zz"']);
    expect(withReferences('this["f"] = 1;')).toEqual(['V3015 7:6 "f" | cannot assign to the function "f"']);
  });
});

describe('what cannot be written through', () => {
  it('a record of another collection, by name, key or element', () => {
    const readOnly = 'cannot modify a record of collection "Other": records of other collections are read-only';
    expect(diagnostics('x.id = "z";')).toEqual([`V3014 11:1 x.id | ${readOnly}`]);
    expect(diagnostics('x["balance"] = 1;')).toEqual([`V3014 11:1 x["balance"] | ${readOnly}`]);
    expect(diagnostics('x.tags[0] = "a";')).toEqual([`V3014 11:1 x.tags | ${readOnly}`]);
    expect(diagnostics('x.tags.push("a");')).toEqual([`V3014 11:1 x.tags | ${readOnly}`]);
    // Reported once, and nothing is checked against what cannot be written.
    expect(diagnostics('x.tags[0] = 1;')).toEqual([`V3014 11:1 x.tags | ${readOnly}`]);
    expect(withReferences('x.info.a = 1;')).toEqual([`V3014 7:1 x.info | ${readOnly}`]);
    // Found through indexes and members alike.
    expect(withReferences('x.mo["k"].a = 1;')).toEqual([`V3014 7:1 x.mo["k"] | ${readOnly}`]);
  });

  it('a stored reference, which holds only id and collectionId', () => {
    expect(withReferences('this.refs[0] = x;')).toEqual([]);
    expect(withReferences('this.ref.id = "x";')).toEqual(['V3015 7:1 this.ref.id | cannot assign to Other.id']);
    expect(withReferences('this.refs[0].v = 1;')).toEqual(['V3015 7:1 this.refs[0].v | cannot assign to Other.v']);
    expect(withReferences('this.ref[0] = 1;')).toEqual([
      'V3015 7:1 this.ref | cannot assign to a stored reference to Other',
      'V3027 7:10 0 | cannot index Other with number',
    ]);
  });

  it('a public key or a namespace', () => {
    expect(withReferences('this.key[0] = 1;')).toEqual([
      'V3015 7:1 this.key | cannot assign to PublicKey',
      'V3027 7:10 0 | cannot index PublicKey with number',
    ]);
    expect(withReferences('Math["PI"] = 1;')).toEqual([
      'V3026 7:1 Math | Math cannot be used as a value',
      'V3015 7:1 Math | cannot assign to typeof Math',
    ]);
  });
});

describe('the id', () => {
  it.each([
    ['this.id = id;\nthis.n = 1;', []],
    // Assigned by `=` only: a compound assignment is allowed once it is set, but does not set it.
    ['this.id = id;\nthis.n = 1;\nthis.id += "x";', []],
    ['this.n = 1;\nthis.id += id;', ['V2022 4:3 constructor']],
    ['this.n = 1;\nlet q = (this.id = id);', []],
    ['this.n = 1;\nthis["id"] = id;', []],
    // Never updated, deleted, or assigned on another record, even in the constructor.
    ['this.id = id;\nthis.n = 1;\nthis.id++;', ['V2023 7:1 this.id']],
    ['this.id = id;\nthis.n = 1;\ndelete this.id;', ['V2023 7:8 this.id']],
    ['this.id = id;\nthis.n = 1;\nr.id = id;', ['V2023 7:1 r.id']],
  ])('%s', (body, expected) => {
    expect(inConstructor(body)).toEqual(expected);
  });
});
