// Names and types in function bodies (V3xxx): one test per diagnostic with its line:column and the
// text it points at; programs Polybase runs correctly (reference section 9) check clean; the side
// tables the runtime reads.
import { describe, expect, it } from 'vitest';
import {
  type CallExpression,
  type Expression,
  type MemberExpression,
  check,
  checkSchema,
  parse,
  typeToString,
} from '../../src/lang/index.ts';
import { errors, inFunction, located, reported } from './check-helpers.ts';

/** Diagnostics of a body placed in `f` of the `inFunction` program (body line 1 is line 11). */
const bodyDiagnostics = (body: string, parameters?: string) => located(inFunction(body, parameters));
const message = (body: string, parameters?: string) => reported(inFunction(body, parameters))[0]?.message;

describe('names', () => {
  it('V3001: an unknown name, with a suggestion when one is close', () => {
    expect(bodyDiagnostics('let total = 1;\nthis.count = totl;')).toEqual(['V3001 12:14 totl']);
    expect(message('let total = 1;\nthis.count = totl;')).toBe('cannot find name "totl"; did you mean "total"?');
    expect(bodyDiagnostics('this.count = Date.now();')).toEqual(['V3001 11:14 Date']);
    expect(bodyDiagnostics('this.count = random();')).toEqual(['V3001 11:14 random']);
    expect(message('this.count = Date.now();')).toBe(
      'cannot find name "Date"; collection functions have no clock, so that every run gives the same result: pass the time as an argument',
    );
    expect(message('this.count = Math.random();')).toBe(
      'Math has no function "random"; collection functions have no randomness, so that every run gives the same result',
    );
  });

  it('resolves parameters, block-scoped variables, globals, namespaces and undefined', () => {
    const body = [
      'let a = n;',
      'if (a > 0) { let b = a; a = b; }',
      'for (let i = 0; i < 3; i += 1) { a = a + i; }',
      'this.count = a + Math.PI + NaN + Infinity;',
      'this.owner = ctx.publicKey;',
      'this.owner = $auth.publicKey;',
      'this.owner = undefined;',
    ].join('\n');
    expect(bodyDiagnostics(body)).toEqual([]);
    expect(bodyDiagnostics('if (n > 0) { let b = 1; }\nthis.count = b;')).toEqual(['V3001 12:14 b']);
  });

  it('V3017: a variable declared twice in one scope (parameters share the body scope)', () => {
    expect(bodyDiagnostics('let a = 1;\nlet a = 2;')).toEqual(['V3017 12:5 a']);
    expect(bodyDiagnostics('let s = 1;')).toEqual(['V3017 11:5 s']);
    expect(bodyDiagnostics('let a = 1;\nif (true) { let a = 2; }')).toEqual([]);
  });

  it('V3029: a variable used before its declaration in the same block, even when an outer one exists', () => {
    expect(bodyDiagnostics('this.count = k;\nlet k = 1;')).toEqual(['V3029 11:14 k']);
    expect(message('this.count = k;\nlet k = 1;')).toBe('"k" is used before its declaration');
    expect(bodyDiagnostics('let k = 1;\nif (k > 0) { k = k + 1; let k = 2; }')).toEqual(['V3029 12:14 k', 'V3029 12:18 k']);
    expect(bodyDiagnostics('let k = 1;\nif (k > 0) { let k = k + 1; }')).toEqual(['V3029 12:22 k']);
    expect(bodyDiagnostics('let k = 1;\nif (k > 0) { let j = k + 1; }')).toEqual([]);
  });

  it('V3016: a constant assigned', () => {
    expect(bodyDiagnostics('const k = 1;\nk = 2;')).toEqual(['V3016 12:1 k']);
    expect(bodyDiagnostics('for (const t of this.tags) { t += "x"; }')).toEqual(['V3016 11:30 t']);
  });

  it('V3018: a const without initialiser (in a hand-built tree; the parser rejects it)', () => {
    const { program } = parse('collection T { id: string; f () { let k; } }');
    const declaration = program!.collections[0]!.items[1]!;
    if (declaration.kind !== 'function' || declaration.body.body[0]!.kind !== 'variable') throw new Error('unexpected tree');
    declaration.body.body[0]!.declarationKind = 'const';
    const { diagnostics } = check(program!);
    expect(diagnostics.map((d) => d.code)).toEqual(['V3018']);
    expect(diagnostics[0]!.span).toEqual(declaration.body.body[0]!.name.span);
  });
});

describe('fields and members', () => {
  it('V3002: reading or writing a field the collection does not declare', () => {
    expect(bodyDiagnostics('this.name = this.nmae;')).toEqual(['V3002 11:18 nmae']);
    expect(message('this.name = this.nmae;')).toBe('collection "T" has no field "nmae"; did you mean "name"?');
    expect(bodyDiagnostics('this.balance = 0;')).toEqual(['V3002 11:6 balance']);
    expect(bodyDiagnostics('this.count = o.balanse;', 'o: Other')).toEqual(['V3002 11:16 balanse']);
  });

  it('V3003: a property a value does not have', () => {
    expect(bodyDiagnostics('this.name = ctx.publicKey.x;')).toEqual(['V3003 11:27 x']);
    expect(message('this.name = ctx.publicKey.x;')).toBe('PublicKey has no property "x"');
    expect(bodyDiagnostics('this.name = this.info.c;')).toEqual(['V3003 11:23 c']);
    expect(bodyDiagnostics('this.count = s.lenght;')).toEqual(['V3003 11:16 lenght']);
    expect(message('this.count = s.lenght;')).toBe('string has no property "lenght"; did you mean "length"?');
  });

  it('reads a stored reference as { id, collectionId } and a record parameter by its fields', () => {
    const schema = `collection Account {
  id: string;
  owner: User;
  note: string;
  f (u: User) {
    this.note = this.owner.id + u.name + this.owner.collectionId;
    this.owner = u;
    this.note = this.owner.name;
  }
}
collection User { id: string; name: string; }`;
    expect(located(schema)).toEqual(['V3003 8:28 name']);
    expect(reported(schema)[0]!.message).toBe(
      'a reference to User has no property "name"; a stored reference holds only id and collectionId (pass the record as a parameter to read its fields)',
    );
  });

  it('treats records of collections declared elsewhere as unknown (no false errors)', () => {
    const schema = 'collection T {\n  id: string;\n  n: number;\n  f (x: Elsewhere) { this.n = x.anything + 1; }\n}';
    expect(errors(schema)).toEqual([]);
  });
});

describe('calls', () => {
  it('V3004: an unknown method or collection function', () => {
    expect(bodyDiagnostics('this.name = s.toUpperCasee();')).toEqual(['V3004 11:15 toUpperCasee']);
    expect(message('this.name = s.toUpperCasee();')).toBe('string has no function "toUpperCasee"; did you mean "toUpperCase"?');
    expect(bodyDiagnostics('this.increment(1);')).toEqual(['V3004 11:6 increment']);
    expect(message('this.increment(1);')).toBe('collection "T" has no function "increment"');
    expect(bodyDiagnostics('this.constructor("x");')).toEqual(['V3004 11:6 constructor']);
    expect(bodyDiagnostics('let has = this.m.hasOwnProperty(s);')).toEqual(['V3004 11:18 hasOwnProperty']);
    expect(message('let has = this.m.hasOwnProperty(s);')).toBe(
      'map<string, number> has no function "hasOwnProperty"; maps have no methods: read entries as m[key], remove them with delete m[key], list them with Object.keys(m) or Object.values(m)',
    );
  });

  it('V3005: array methods that need a callback', () => {
    expect(bodyDiagnostics('this.tags = this.tags.map(s);')).toEqual(['V3005 11:23 map']);
    expect(bodyDiagnostics('this.tags.sort();')).toEqual(['V3005 11:11 sort']);
  });

  it('V3007: an argument of the wrong type, to a built-in or a collection function', () => {
    expect(bodyDiagnostics('this.tags.push(n);')).toEqual(['V3007 11:16 n']);
    expect(message('this.tags.push(n);')).toBe('argument 1 of string[].push must be string, found number');
    expect(bodyDiagnostics('this.f(n, n);')).toEqual(['V3007 11:8 n']);
    expect(message('this.f(n, n);')).toBe('argument 1 of this.f must be string, found number');
    expect(bodyDiagnostics('this.count = Math.max(1, s);')).toEqual(['V3007 11:26 s']);
    expect(bodyDiagnostics('error(n);')).toEqual(['V3007 11:7 n']);
  });

  it('V3010: the wrong number of arguments', () => {
    expect(bodyDiagnostics('this.count = Math.pow(n);')).toEqual(['V3010 11:14 Math.pow(n)']);
    expect(message('this.count = Math.pow(n);')).toBe('Math.pow expects 2 arguments, found 1');
    expect(bodyDiagnostics('this.name = s.trim(1, 2);')).toEqual(['V3010 11:20 1, 2']);
    expect(bodyDiagnostics('this.f(s);')).toEqual(['V3010 11:1 this.f(s)']);
    expect(message('this.f(s);')).toBe('this.f expects 2 arguments, found 1');
    expect(bodyDiagnostics('this.tags.splice();')).toEqual(['V3010 11:1 this.tags.splice()']);
    expect(message('this.tags.splice();')).toBe('string[].splice expects at least 1 argument, found 0');
  });

  it('accepts optional parameters left out or passed null', () => {
    expect(bodyDiagnostics('this.f(s, n);\nthis.f(s, n, null);\nthis.f(s, n, undefined);', 's: string, n: number, o?: string')).toEqual([]);
  });

  it('V3025: calling something that is not a function', () => {
    expect(bodyDiagnostics('s();')).toEqual(['V3025 11:1 s']);
    expect(bodyDiagnostics('this.name();')).toEqual(['V3025 11:1 this.name']);
    expect(bodyDiagnostics('Math.PI();')).toEqual(['V3025 11:1 Math.PI']);
  });

  it('V3026: a namespace or function used as a value', () => {
    expect(bodyDiagnostics('let x = Math;')).toEqual(['V3026 11:9 Math']);
    expect(bodyDiagnostics('let e = error;')).toEqual(['V3026 11:9 error']);
    expect(bodyDiagnostics('let u = s.toUpperCase;')).toEqual(['V3026 11:11 toUpperCase']);
  });

  it('V3028: functions are called on this only', () => {
    expect(bodyDiagnostics('o.g();', 'o: Other')).toEqual(['V3028 11:3 g']);
    expect(bodyDiagnostics('r.f("a", 1);', 'r: record')).toEqual(['V3028 11:3 f']);
  });

  it('types calls to built-ins generically over the receiver', () => {
    const body = [
      'let last = this.tags.pop();',
      'this.name = last;',
      'let removed = this.tags.splice(0, 1, "a", "b");',
      'this.tags = removed.concat(this.tags, ["c"]);',
      'this.count = this.tags.push("d") + this.tags.indexOf("a");',
      'let keys = Object.keys(this.m);',
      'let values = Object.values(this.m);',
      'this.tags = keys;',
      'this.count = values[0] + Number(s) + parseInt(s, 10) + parseFloat(s);',
      'this.name = String(n) + n.toFixed(2) + s.padStart(4, "0").slice(1).split(",").join("-");',
      'if (Number.isInteger(n) && !isNaN(n) && isFinite(n)) { this.count = Math.floor(n); }',
      'this.name = this.owner.toHex();',
    ].join('\n');
    expect(bodyDiagnostics(body)).toEqual([]);
    expect(bodyDiagnostics('let v = Object.values(this.m);\nthis.tags = v;')).toEqual(['V3006 12:13 v']);
    expect(message('let v = Object.values(this.m);\nthis.tags = v;')).toBe(
      'cannot assign number[] to field "tags" of type string[]',
    );
  });
});

describe('assignments', () => {
  it('V3006: a value of the wrong type for its target', () => {
    expect(bodyDiagnostics('this.name = 1;')).toEqual(['V3006 11:13 1']);
    expect(message('this.name = 1;')).toBe('cannot assign number to field "name" of type string');
    expect(bodyDiagnostics('this.owner = s;')).toEqual(['V3006 11:14 s']);
    expect(bodyDiagnostics('let a = 1;\na = s;')).toEqual(['V3006 12:5 s']);
    expect(message('let a = 1;\na = s;')).toBe('cannot assign string to variable "a" of type number');
    expect(bodyDiagnostics('this.tags = [1];')).toEqual(['V3006 11:14 1']);
    expect(message('this.tags = [1];')).toBe('cannot assign number to an element of string[]');
    expect(bodyDiagnostics('this.m[s] = s;')).toEqual(['V3006 11:13 s']);
    expect(bodyDiagnostics('this.info = { a: n };')).toEqual(['V3006 11:18 n']);
    expect(bodyDiagnostics('this.m = m2;', 'm2: map<string, string>')).toEqual(['V3006 11:10 m2']);
  });

  it('a map is not an object, even with only optional fields', () => {
    const schema = 'collection T {\n  id: string;\n  info: { name?: string; };\n  f (m: map<string, string>) { this.info = m; }\n}';
    expect(located(schema)).toEqual(['V3006 4:44 m']);
  });

  it('V3011: null and undefined only where a value may be absent', () => {
    expect(bodyDiagnostics('this.name = undefined;')).toEqual(['V3011 11:13 undefined']);
    expect(message('this.name = null;')).toBe(
      'cannot assign null to field "name" of type string: only optional fields, optional parameters and variables can hold null or undefined',
    );
    expect(bodyDiagnostics('this.owner = null;\nthis.info.b = undefined;\nlet x = 1;\nx = null;\no = null;', 's: string, o?: string')).toEqual([]);
    expect(bodyDiagnostics('s = null;')).toEqual(['V3011 11:5 null']);
  });

  it('V3011: an optional parameter stored where a value is required, unless a test proves it present', () => {
    const p = 's: string, n: number, o?: string';
    expect(bodyDiagnostics('this.name = o;', p)).toEqual(['V3011 11:13 o']);
    expect(message('this.name = o;', p)).toBe(
      'cannot assign the optional parameter "o", which may be undefined, to field "name" of type string: only optional fields, optional parameters and variables can hold null or undefined',
    );
    expect(bodyDiagnostics('this.tags.push(o);', p)).toEqual(['V3011 11:16 o']);
    expect(bodyDiagnostics('this.info = { a: o };', p)).toEqual(['V3011 11:18 o']);
    expect(bodyDiagnostics('if (n > 0 || o) { this.name = o; }', p)).toEqual(['V3011 11:31 o']);
    expect(bodyDiagnostics('if (o) {} else { this.name = o; }', p)).toEqual(['V3011 11:30 o']);
    const guarded = [
      'if (o) { this.name = o; }',
      'if (o != undefined) { this.name = o; }',
      'if (o !== null && n > 0) { this.name = o; }',
      'if (!o) { error("o is required"); }',
      'this.name = o;',
    ].join('\n');
    expect(bodyDiagnostics(guarded, p)).toEqual([]);
    expect(bodyDiagnostics('if (o == null) { return; }\nthis.name = o;', p)).toEqual([]);
    expect(bodyDiagnostics('if (!o) { o = "anonymous"; }\nthis.name = o;', p)).toEqual([]);
    expect(bodyDiagnostics('this.name = o || "anonymous";\nthis.name = o ?? "x";\nthis.name = o ? o : "x";\nthis.owner = undefined;', p)).toEqual([]);
    expect(bodyDiagnostics('this.f(s, n, o);\nthis.info.b = n;\nthis.name = n > 0 && o ? o : s;', p)).toEqual([]);
    expect(bodyDiagnostics('o = s;\nthis.name = o;\no = undefined;\nthis.name = o;', p)).toEqual(['V3011 14:13 o']);
  });

  it('V3012 and V3011: computing with or storing a field that may be missing, unless a test proves it present', () => {
    const schema = `collection T {
  id: string;
  age?: number;
  likes?: number;
  tags?: string[];
  nextAge: number;
  constructor (id: string) {
    this.id = id;
    this.likes = 0;
    this.nextAge = this.nextAge + 1;
  }
  a () { this.nextAge = this.age + 1; }
  b () { this.likes += 1; this.nextAge = this.likes * 2; }
  c () { if (this.age) { this.nextAge = this.age + 1; } }
  d () { if (this.age == undefined) { this.age = 0; } this.age += 1; }
  e () { this.age = 5; this.nextAge = this.age - 1; }
  f () { this.nextAge = this.age; }
  g () { this.age++; }
  h () { if (!this.tags) { this.tags = []; } this.tags.push('x'); this.nextAge = this.tags.length; }
  i () { this.e(); this.nextAge = this.age + 1; }
  j (): string { return 'age ' + this.age; }
}`;
    expect(located(schema)).toEqual(['V3012 10:20 this.nextAge', 'V3012 12:25 this.age', 'V3011 17:25 this.age', 'V3012 18:10 this.age']);
    expect(reported(schema).map((d) => d.message)).toEqual([
      'operator + cannot be applied to this.nextAge, which is not assigned yet',
      'operator + cannot be applied to this.age, an optional field the constructor never sets, which may be undefined',
      'cannot assign this.age, an optional field the constructor never sets, which may be undefined, to field "nextAge" of type number: only optional fields, optional parameters and variables can hold null or undefined',
      'operator ++ cannot be applied to this.age, an optional field the constructor never sets, which may be undefined',
    ]);
  });

  it('V3014: records of other collections are read-only', () => {
    expect(bodyDiagnostics('o.balance = 0;', 'o: Other')).toEqual(['V3014 11:1 o.balance']);
    expect(message('o.balance = 0;', 'o: Other')).toBe(
      'cannot modify a record of collection "Other": records of other collections are read-only',
    );
    expect(bodyDiagnostics('o.tags.push("x");', 'o: Other')).toEqual(['V3014 11:1 o.tags']);
    expect(bodyDiagnostics('let r = o;\nr.tags[0] = "x";', 'o: Other')).toEqual(['V3014 12:1 r.tags']);
    // A record of the same collection may be changed: the transfer pattern.
    expect(bodyDiagnostics('r.count -= 1;\nthis.count += 1;\nr.tags.push("x");', 'r: record')).toEqual([]);
  });

  it('V3015: assigning to what cannot be assigned', () => {
    expect(bodyDiagnostics('Math.PI = 3;')).toEqual(['V3015 11:1 Math.PI']);
    expect(bodyDiagnostics('ctx.publicKey = this.owner;')).toEqual(['V3015 11:1 ctx.publicKey']);
    expect(bodyDiagnostics('undefined = 1;')).toEqual(['V3015 11:1 undefined']);
    expect(bodyDiagnostics('this.f = 1;')).toEqual(['V3015 11:6 f']);
    expect(bodyDiagnostics('s[0] = "x";')).toEqual(['V3015 11:1 s[0]']);
    expect(bodyDiagnostics('this.tags.length = 0;')).toEqual(['V3015 11:1 this.tags.length']);
  });

  it('compound assignments follow the operators', () => {
    expect(bodyDiagnostics('this.name += n;\nthis.count += n;\nthis.count *= 2;\nthis.m[s] -= 1;')).toEqual([]);
    expect(bodyDiagnostics('this.count += s;')).toEqual(['V3012 11:1 this.count += s']);
    expect(message('this.count += s;')).toBe('operator += cannot be applied to number and string');
    expect(bodyDiagnostics('this.name -= 1;')).toEqual(['V3012 11:1 this.name -= 1']);
  });
});

describe('object and array literals', () => {
  it('V3023: a required property missing from an object literal', () => {
    expect(bodyDiagnostics('this.info = { b: 1 };')).toEqual(['V3023 11:13 { b: 1 }']);
    expect(message('this.info = { b: 1 };')).toBe('missing required property "a" of { a: string; b?: number; }');
  });

  it('V3024: a property the object type does not have', () => {
    expect(bodyDiagnostics('this.info = { a: s, c: 1 };')).toEqual(['V3024 11:21 c']);
  });

  it('V3022: array elements of different types', () => {
    expect(bodyDiagnostics('let a = [1, s];')).toEqual(['V3022 11:13 s']);
    expect(message('let a = [1, s];')).toBe('array elements must have one type: found number and string');
  });

  it('types an empty array or map literal by its target', () => {
    expect(bodyDiagnostics('this.tags = [];\nthis.m = {};\nthis.m = { a: 1, b: n };\nlet xs = [];\nxs.push(1);')).toEqual([]);
  });
});

describe('operators', () => {
  it('V3012: operands of the wrong type', () => {
    expect(bodyDiagnostics('this.count = true * 2;')).toEqual(['V3012 11:14 true * 2']);
    expect(message('this.count = true * 2;')).toBe('operator * cannot be applied to boolean and number');
    expect(bodyDiagnostics('this.name = s + this.owner;')).toEqual(['V3012 11:13 s + this.owner']);
    expect(bodyDiagnostics('let b = s < n;')).toEqual(['V3012 11:9 s < n']);
    expect(bodyDiagnostics('let b = -s;')).toEqual(['V3012 11:9 -s']);
    expect(bodyDiagnostics('this.name++;')).toEqual(['V3012 11:1 this.name++']);
  });

  it('follows JavaScript where it is not a bug', () => {
    const body = [
      'this.name = s + n + true;',
      'this.name = "n=" + n;',
      'this.count = n ** 2 % 3 - (n & 1) + (n << 2) + ~n + -n + +s;',
      'let ok = !s && n > 0 || this.name >= "a";',
      'this.name = this.name || "default";',
      'this.count = this.m[s] ?? 0;',
      'this.count = n > 0 ? n : 0;',
      'this.count++;',
      '--this.count;',
      'if (this.m[s]) { this.m[s] += 1; } else { this.m[s] = 1; }',
      'if (!ctx.publicKey) { error("sign the request"); }',
      'while (this.tags.length) { this.tags.pop(); }',
    ].join('\n');
    expect(bodyDiagnostics(body)).toEqual([]);
  });

  it('checks both sides of ?:, || and ?? against where the value is stored', () => {
    expect(bodyDiagnostics('this.name = n > 0 ? s : n;')).toEqual(['V3006 11:13 n > 0 ? s : n']);
    expect(message('this.name = n > 0 ? s : n;')).toBe('cannot assign number to field "name" of type string');
    expect(bodyDiagnostics('this.count = s || n;')).toEqual(['V3006 11:14 s || n']);
    expect(bodyDiagnostics('this.tags.push(n > 0 ? s : n);')).toEqual(['V3007 11:16 n > 0 ? s : n']);
    expect(bodyDiagnostics('this.name = n > 0 ? s : "none";\nthis.count = this.m[s] ?? 0;\nthis.name = s || null;')).toEqual([]);
  });

  it('V3013: comparing values of different types', () => {
    expect(bodyDiagnostics('if (ctx.publicKey != s) {}')).toEqual(['V3013 11:5 ctx.publicKey != s']);
    expect(message('if (ctx.publicKey != s) {}')).toBe(
      'cannot compare PublicKey with string: values of different types are never equal',
    );
    expect(bodyDiagnostics('let b = n === s;')).toEqual(['V3013 11:9 n === s']);
    const comparisons = [
      'let a = this.owner == ctx.publicKey;',
      'let b = this.owner != undefined;',
      'let c = this.owner == null;',
      'let d = n !== 1;',
      'let e = s == this.name;',
    ].join('\n');
    expect(bodyDiagnostics(comparisons)).toEqual([]);
  });

  it('V3021: delete removes map entries and optional fields only', () => {
    expect(bodyDiagnostics('delete this.m[s];\ndelete this.owner;\ndelete this.info.b;')).toEqual([]);
    expect(bodyDiagnostics('delete this.name;')).toEqual(['V3021 11:8 this.name']);
    expect(message('delete this.name;')).toBe('delete needs a map entry or an optional field, found field "name" of type string');
    expect(bodyDiagnostics('delete this.tags[0];')).toEqual(['V3021 11:8 this.tags[0]']);
  });

  it('V3027: indexing with the wrong key type', () => {
    expect(bodyDiagnostics('this.name = this.tags[s];')).toEqual(['V3027 11:23 s']);
    expect(message('this.name = this.tags[s];')).toBe('cannot index string[] with string');
    expect(bodyDiagnostics('let x = n[0];')).toEqual(['V3027 11:11 0']);
    expect(bodyDiagnostics('this.count = this.m[this.owner];')).toEqual(['V3027 11:21 this.owner']);
  });
});

describe('statements', () => {
  it('V3019: break and continue outside loops', () => {
    expect(bodyDiagnostics('if (n > 1) { break; }\ncontinue;')).toEqual(['V3019 11:14 break;', 'V3019 12:1 continue;']);
    expect(message('break;')).toBe('"break" can only be used inside a loop');
    expect(bodyDiagnostics('while (n > 1) { if (n > 2) { break; } continue; }\nfor (let t of this.tags) { break; }')).toEqual([]);
  });

  it('V3020: for…of over arrays and maps only', () => {
    expect(bodyDiagnostics('for (const c of s) {}')).toEqual(['V3020 11:17 s']);
    expect(bodyDiagnostics('for (const t of this.tags) { this.name = t; }\nfor (let v of this.m) { this.count = v; }')).toEqual([]);
  });

  it('V3008 and V3009: return values match the declared return type', () => {
    const schema = `collection T {
  id: string;
  name: string;
  label (): number {
    return this.name;
  }
  nothing (): string {
    return;
  }
  anything (n: number) {
    if (n > 1) { return n; }
    return;
  }
  fail (): string {
    return error('no');
  }
}`;
    expect(located(schema)).toEqual(['V3008 5:12 this.name', 'V3009 8:5 return;']);
    expect(reported(schema)[0]!.message).toBe('cannot return string from "label", whose return type is number');
    expect(reported(schema)[1]!.message).toBe('"nothing" must return a value of type string');
  });

  it('V3030: a function with a return type returns a value on every path', () => {
    const schema = `collection T {
  id: string;
  n: number;
  sign (): number {
    if (this.n > 0) { return 1; }
  }
  always (): number {
    if (this.n > 0) { return 1; } else if (this.n < 0) { return -1; } else { error('zero'); }
  }
  loop (): number {
    while (true) { if (this.n > 0) { return this.n; } this.n += 1; }
  }
  leaves (): number {
    while (true) { if (this.n > 0) { break; } }
  }
  thrown (): string {
    throw error('never');
  }
}`;
    expect(located(schema)).toEqual(['V3030 4:3 sign', 'V3030 13:3 leaves']);
    expect(reported(schema)[0]!.message).toBe('"sign" can end without returning a value, but its return type is number');
  });

  it('types the result of a collection function call by its return type', () => {
    const schema = `collection T {
  id: string;
  name: string;
  n (): number { return 1; }
  any () { return 1; }
  f () {
    this.name = this.n();
    this.name = this.any();
  }
}`;
    expect(located(schema)).toEqual(['V3006 7:17 this.n()']);
  });
});

describe('programs Polybase runs correctly (reference section 9) check clean', () => {
  const programs: Record<string, string> = {
    'basic CRUD (1)': `@public
collection Person {
  id: string;
  name?: string;
  age?: number;
  @index(name);
  @index(age);
  constructor (id: string, name: string, age: number) { this.id = id; this.name = name; this.age = age; }
  setAge (age: number) { this.age = age; }
  remove () { selfdestruct(); }
}`,
    'ownership by code (16)': `@public
collection People {
  id: string;
  name?: string;
  publicKey?: PublicKey;
  constructor (id: string, name: string) {
    this.id = id;
    this.name = name;
    if (ctx.publicKey) this.publicKey = ctx.publicKey;
  }
  update (name: string) {
    if (this.publicKey != ctx.publicKey) { error('invalid owner'); }
    this.name = name;
  }
}`,
    'key array (18)': `collection Account {
  id: string;
  @read owners: PublicKey[];
  constructor (id: string) { this.id = id; this.owners = []; this.owners.push(ctx.publicKey); }
}`,
    'delegation (20, 24)': `collection Account {
  id: string;
  balance: number;
  @read owner: User;
  @read reader: User;
  constructor (id: string, owner: User, reader: User) { this.id = id; this.balance = 10; this.owner = owner; this.reader = reader; }
  @call(owner)
  reset () { this.balance = 0; }
}
@read
collection User {
  id: string;
  name: string;
  @delegate pk: PublicKey;
  constructor (name: string) { this.id = ctx.publicKey.toHex(); this.name = name; this.pk = ctx.publicKey; }
}`,
    'transfer between records of one collection (25)': `@public
collection Account {
  id: string;
  balance: number;
  constructor (id: string, balance: number) { this.id = id; this.balance = balance; }
  function transfer (b: record, amount: number) { this.balance -= amount; b.balance += amount; }
}`,
    'maps (29)': `@public
collection Token {
  id: string;
  accountToBalance: map<string, number>;
  balanceCounts: map<number, number>;
  assetBalances: map<string, map<string, number>>;
  constructor (id: string) { this.id = id; this.accountToBalance = {}; this.balanceCounts = {}; this.assetBalances = {}; }
  move (from: string, to: string, amount: number) {
    this.balanceCounts[this.accountToBalance[from]] -= 1;
    this.accountToBalance[from] = this.accountToBalance[from] - amount;
    this.accountToBalance[to] = this.accountToBalance[to] + amount;
    let k = this.accountToBalance[to];
    if (this.balanceCounts[k]) { this.balanceCounts[k] += 1; } else { this.balanceCounts[k] = 1; }
    if (!this.assetBalances[to]) { this.assetBalances[to] = {}; }
    this.assetBalances[to]['gold'] = amount;
  }
}`,
    'nested object and index (30)': `@public
collection People {
  id: string;
  info: { name: string; };
  @index(info.name);
  constructor (id: string, name: string) { this.id = id; this.info = { name: name }; }
}`,
    'token-gated chat (38)': `collection User {
  id: string;
  @delegate @read publicKey: PublicKey;
  constructor () {
    if (!ctx.publicKey) { error('You must sign the txn'); }
    this.id = ctx.publicKey.toHex();
    this.publicKey = ctx.publicKey;
  }
}
collection NFT {
  id: string;
  @delegate owner: User;
  constructor (id: string, owner: User) { this.id = id; this.owner = owner; }
}
collection Chat {
  id: string;
  @delegate @read members: NFT[];
  constructor (id: string) { this.id = id; this.members = []; }
  @call(members)
  addMember (nft: NFT) {
    if (this.members.length > 5) { error('Too many people in the room'); }
    this.members.push(nft);
  }
}
collection Message {
  id: string;
  @read chat: Chat;
  message: string;
  constructor (id: string, chat: Chat, message: string) { this.id = id; this.chat = chat; this.message = message; }
}`,
  };

  it.each(Object.entries(programs))('%s', (_name, schema) => {
    expect(reported(schema)).toEqual([]);
  });
});

describe('side tables', () => {
  const schema = `collection T {
  id: string;
  tags: string[];
  n: number;
  constructor (id: string) {
    this.id = id;
    this.tags = [];
    let total = this.tags.length;
    this.n = Math.max(total, 1);
    this.bump(total);
  }
  bump (by: number) { this.n += by; }
}`;

  it('records the type of every expression, the meaning of identifiers and the targets of calls', () => {
    const result = checkSchema(schema);
    expect(result.diagnostics).toEqual([]);
    const { types, bindings, calls, properties } = result.checked!;
    const typeOfText = new Map<string, string>();
    for (const [expression, type] of types) {
      typeOfText.set(schema.slice(expression.span.start, expression.span.end), typeToString(type));
    }
    expect(typeOfText.get('this.tags.length')).toBe('number');
    expect(typeOfText.get('this.tags')).toBe('string[]');
    expect(typeOfText.get('[]')).toBe('string[]');
    expect(typeOfText.get('Math.max(total, 1)')).toBe('number');
    expect(typeOfText.get('this')).toBe('T');

    const bound = [...bindings].map(([identifier, binding]) => `${identifier.name}:${binding.kind}`);
    expect(bound).toEqual(expect.arrayContaining(['id:parameter', 'total:variable', 'Math:namespace', 'by:parameter']));

    const callTargets = [...calls].map(([call, target]) =>
      `${schema.slice(call.span.start, call.span.end)} -> ${target.kind === 'builtin' ? target.builtin.id : `${target.collection}.${target.function.name}`}`,
    );
    expect(callTargets).toEqual(['Math.max(total, 1) -> Math.max', 'this.bump(total) -> T.bump']);
    const propertyIds = [...properties].map(([member, builtin]) => `${schema.slice(member.span.start, member.span.end)} -> ${builtin.id}`);
    expect(propertyIds).toEqual(['this.tags.length -> array.length']);
  });

  it('covers every expression of a body', () => {
    const result = checkSchema(schema);
    const fn = result.program!.collections[0]!.items.find((i) => i.kind === 'function')!;
    const missing: string[] = [];
    const visit = (node: unknown, isCallee: boolean): void => {
      if (!node || typeof node !== 'object') return;
      if (Array.isArray(node)) return node.forEach((n) => visit(n, false));
      const record = node as { kind?: string };
      const expressionKinds = ['number', 'string', 'boolean', 'null', 'identifierExpression', 'this', 'arrayLiteral', 'objectLiteral', 'member', 'index', 'call', 'unary', 'update', 'binary', 'logical', 'conditional', 'assignment'];
      if (record.kind && expressionKinds.includes(record.kind) && !isCallee && !result.checked!.types.has(record as Expression)) {
        missing.push(record.kind);
      }
      for (const [key, value] of Object.entries(record)) {
        if (key === 'span') continue;
        visit(value, record.kind === 'call' && key === 'callee');
      }
    };
    visit(fn, false);
    expect(missing).toEqual([]);
    // Callees are not values; their objects are typed.
    const call = [...result.checked!.calls.keys()][0] as CallExpression;
    expect(result.checked!.types.has((call.callee as MemberExpression).object)).toBe(true);
  });
});
