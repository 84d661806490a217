// The schema rules (V2xxx, src/lang/schema-rules.ts) at their edges: empty argument lists, repeated and
// combined decorators, the first of several offenders named in a message, where a collection name is a
// record and where a reference, and the checked program the rules build. schema-rules.test.ts has one
// test per rule; these pin down the conditions inside the rules.
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { describe, expect, it } from 'vitest';
import { checkSchema, typeToString } from '../../src/lang/index.ts';
import { located, reported } from './check-helpers.ts';

const checked = (schema: string) => {
  const result = checkSchema(schema, 'test.polylang');
  return result.checked!;
};

describe('collection decorators', () => {
  it('an empty argument list is no argument', () => {
    expect(located('@read()\ncollection T { id: string; }')).toEqual([]);
    expect(checked('@read() @call()\ncollection T { id: string; }').collections[0]!.permissions).toEqual({ public: false, read: true, call: true });
  });

  it('a key literal is an argument too', () => {
    const key = `eth#0x${Buffer.from(secp256k1.getPublicKey(new Uint8Array(32).fill(5), false)).toString('hex').slice(2)}`;
    expect(located(`@public(${key})\ncollection T { id: string; }`)).toMatchObject([expect.stringMatching(/^V2017 1:1 @public\(eth#/)]);
  });

  it('@delegate and @migrate on a collection grant nothing', () => {
    expect(checked('@delegate @migrate\ncollection T { id: string; }').collections[0]!.permissions).toEqual({ public: false, read: false, call: false });
    expect(located('@migrate(x)\ncollection T { id: string; }')).toEqual(['V2017 1:1 @migrate(x)', 'V2030 1:1 @migrate(x)']);
    expect(located('@delegate(x)\ncollection T { id: string; }')).toEqual(['V2018 1:1 @delegate(x)']);
  });

  it('@private names the first permission it contradicts, and is reported once, at the first @private', () => {
    expect(reported('@private @call @read\ncollection T { id: string; }').map((d) => `${d.code} ${d.at} ${d.message}`)).toEqual([
      'V2026 1:1 @private contradicts @read on the same collection: @private means no collection-wide read or call',
    ]);
    expect(located('@call @private @private\ncollection T { id: string; }')).toEqual(['V2026 1:7 @private']);
    expect(checked('@private @private\ncollection T { id: string; }').collections[0]!.permissions).toEqual({ public: false, read: false, call: false });
  });

  it('a contract is warned about only when it has no @public, @read, @call or @private', () => {
    const contract = (decorators: string) => located(`${decorators}\ncontract T { id: string; }`).map((d) => d.slice(0, 5));
    expect(contract('')).toEqual(['V2027']);
    expect(contract('@delegate')).toEqual(['V2018', 'V2027']);
    expect(contract('@call')).toEqual([]);
    expect(contract('@private')).toEqual([]);
  });
});

describe('field decorators', () => {
  const fields = (declarations: string) => checked(`collection T {\n  id: string;\n  ${declarations}\n}`).collections[0]!;

  it('an empty argument list on a field is no argument', () => {
    expect(located('collection T {\n  id: string;\n  @read() owner: PublicKey;\n}')).toEqual([]);
  });

  it('a decorator on a field that cannot hold a key grants nothing', () => {
    const t = fields('@read @call @delegate score: number;');
    expect(t.fieldsByName.get('score')).toMatchObject({ read: false, call: false, delegate: false });
  });

  it('@private, @migrate and @public on a field are reported and grant nothing', () => {
    expect(located('collection T {\n  id: string;\n  @private @migrate @public owner: PublicKey;\n}')).toEqual([
      'V2028 3:3 @private',
      'V2030 3:12 @migrate',
      'V2021 3:21 @public',
    ]);
    expect(fields('@private @migrate @public owner: PublicKey;').fieldsByName.get('owner')).toMatchObject({ read: false, call: false, delegate: false });
  });

  it('each decorator sets its own flag', () => {
    const t = fields('@read a: PublicKey;\n  @call b: PublicKey;\n  @delegate c: PublicKey;');
    expect(['a', 'b', 'c'].map((name) => t.fieldsByName.get(name)).map((f) => [f!.read, f!.call, f!.delegate])).toEqual([
      [true, false, false],
      [false, true, false],
      [false, false, true],
    ]);
  });
});

describe('function decorators', () => {
  const fn = (decorators: string) => `collection T {\n  id: string;\n  name: string;\n  owner: PublicKey;\n  ${decorators}\n  f () {}\n}`;
  const call = (decorators: string) => checked(fn(decorators)).collections[0]!.functionsByName.get('f')!.call;

  it('@call lists each field that may call once, in order, and only fields that hold keys', () => {
    expect(call('@call(owner, owner)')).toEqual({ decorated: true, fields: ['owner'] });
    expect(call('@call(name, nope, owner)')).toEqual({ decorated: true, fields: ['owner'] });
    expect(call('@call')).toEqual({ decorated: true, fields: [] });
    expect(call('@call()')).toEqual({ decorated: true, fields: [] });
    expect(call('')).toEqual({ decorated: false, fields: [] });
  });

  it('@private, @read and @delegate on a function do not make it callable', () => {
    expect(call('@private @read @delegate')).toEqual({ decorated: false, fields: [] });
    expect(located(fn('@private @read(owner) @delegate'))).toEqual([
      'V2028 5:3 @private',
      'V2021 5:12 @read(owner)',
      'V2021 5:25 @delegate',
    ]);
    expect(reported(fn('@delegate'))[0]!.message).toBe('@delegate on a function has no effect');
  });
});

describe('the id field', () => {
  it('an id both optional and not a string is two errors', () => {
    expect(located('collection T { id?: number; }')).toEqual(['V2005 1:16 id', 'V2004 1:21 number']);
  });

  it('an id inside an object type is no id', () => {
    expect(located('collection T { o: { id: string; }; }')).toEqual(['V2003 1:12 T']);
  });
});

describe('functions', () => {
  it('a function named like a field is still a function of the collection', () => {
    const t = checked('collection T {\n  id: string;\n  balance: number;\n  balance (): number { return 1; }\n}').collections[0]!;
    expect(t.functions.map((f) => f.name)).toEqual(['balance']);
    expect(t.functionsByName.get('balance')!.returnType).toEqual({ kind: 'number' });
  });

  it('only a migration is marked as one', () => {
    const t = checked(`collection T {
  id: string;
  name: string;
  constructor (id: string) { this.id = id; this.name = ''; }
  f () {}
  @migrate m (old: { title: string; }) { this.name = old.title; }
}`).collections[0]!;
    expect(t.functions.map((f) => [f.name, 'migration' in f])).toEqual([
      ['constructor', false],
      ['f', false],
      ['m', true],
    ]);
    expect(t.constructorFunction!.returnType).toBeNull();
  });

  it('the constructor cannot be a migration', () => {
    expect(reported('collection T {\n  id: string;\n  @migrate constructor (old: { id: string; }) { this.id = old.id; }\n}').map((d) => `${d.code} ${d.at} ${d.message}`)).toContain(
      'V2031 3:12 migration "constructor": the constructor cannot be a migration',
    );
  });

  it('a migration\'s parameter must be a required object type', () => {
    const migration = (parameters: string) =>
      located(`collection T {\n  id: string;\n  name: string;\n  @migrate m (${parameters}) {}\n}`).map((d) => d.slice(0, 10));
    expect(migration('old?: { name: string; }')).toEqual(['V2031 4:15']);
    expect(migration('old: { name: string; }')).toEqual([]);
    // The object type of a migration's parameter is allowed, not reported as V2012.
    expect(migration('old: { name: string; }, o: { a: string; }')).toEqual(['V2031 4:39']);
  });

  it('a migration loading a record: an optional reference field takes an optional parameter; a required one either', () => {
    const holder = (parameters: string) =>
      located(`collection Holder {\n  id: string;\n  @migrate m (${parameters}) {}\n}\ncollection Owner { id: string; }`);
    expect(holder('old: { owner: Owner; }, owner?: Owner')).toEqual([]);
    expect(holder('old: { owner: Owner; }, owner: Owner')).toEqual([]);
    expect(holder('old: { owner: Owner; }, owner: string')).toMatchObject([expect.stringMatching(/^V2031 3:39 owner: string/)]);
  });
});

describe('parameters', () => {
  it('V2010 names the first optional parameter, for each required one after it', () => {
    const schema = 'collection T {\n  id: string;\n  f (a?: string, b?: number, c: number, d: string) {}\n}';
    expect(reported(schema).map((d) => `${d.code} ${d.at} ${d.message}`)).toEqual([
      'V2010 3:30 required parameter "c" cannot follow optional parameter "a"',
      'V2010 3:41 required parameter "d" cannot follow optional parameter "a"',
    ]);
    expect(located('collection T {\n  id: string;\n  f (a: string, b?: number) {}\n}')).toEqual([]);
  });

  it('a parameter declared three times is reported twice; the parameters keep every declaration', () => {
    const schema = 'collection T {\n  id: string;\n  f (x: number, x: string, x: boolean) {}\n}';
    expect(located(schema)).toEqual(['V2009 3:17 x', 'V2009 3:28 x']);
  });

  it('a collection name is a whole record as a parameter, a reference inside one and as a return type', () => {
    const t = checked(`collection T {
  id: string;
  f (u: U, us: U[], m: map<string, U>, r: record, o?: U): U { return u; }
}
collection U { id: string; }`).collections[0]!;
    const f = t.functionsByName.get('f')!;
    expect(f.parameters.map((p) => [p.name, p.optional, typeToString(p.type), p.type.kind])).toEqual([
      ['u', false, 'U', 'record'],
      ['us', false, 'U[]', 'array'],
      ['m', false, 'map<string, U>', 'map'],
      ['r', false, 'T', 'record'],
      ['o', true, 'U', 'record'],
    ]);
    expect(f.parameters[1]!.type).toEqual({ kind: 'array', element: { kind: 'reference', collection: 'U' } });
    expect(f.returnType).toEqual({ kind: 'reference', collection: 'U' });
  });
});

describe('types', () => {
  const field = (type: string, extra = '') => checked(`collection T {\n  id: string;\n  x: ${type};\n}${extra}`).collections[0]!.fieldsByName.get('x')!.type;

  it('resolves each kind of type', () => {
    expect(field('string')).toEqual({ kind: 'string' });
    expect(field('bytes')).toEqual({ kind: 'bytes' });
    expect(field('boolean')).toEqual({ kind: 'boolean' });
    expect(field('PublicKey')).toEqual({ kind: 'publicKey' });
    expect(typeToString(field('u32'))).toBe('u32');
    expect(typeToString(field('map<number, string[]>'))).toBe('map<number, string[]>');
    expect(typeToString(field('{ a: string; b?: number[]; }'))).toBe('{ a: string; b?: number[]; }');
    expect(field('U', '\ncollection U { id: string; }')).toEqual({ kind: 'reference', collection: 'U' });
  });

  it('map keys: string and number, sized numbers too; anything else is V2013 wherever it is', () => {
    expect(located('collection T {\n  id: string;\n  m: map<u32, string>;\n}')).toEqual([]);
    expect(located('collection T {\n  id: string;\n  m: map<string, map<bytes, string>>;\n}')).toEqual(['V2013 3:22 bytes']);
    expect(located('collection T {\n  id: string;\n  f (m: map<string[], number>) {}\n}')).toEqual(['V2013 3:13 string[]']);
  });

  it('a duplicate field of an object type keeps the first', () => {
    expect(typeToString(field('{ a: string; a: number; b: boolean; }'))).toBe('{ a: string; b: boolean; }');
  });

  it('a misspelt built-in type is V2029 and types as anything; a name close to a declared collection is a reference', () => {
    expect(reported('collection T {\n  id: string;\n  x: strng;\n}').map((d) => `${d.code} ${d.severity} ${d.at} ${d.message}`)).toEqual([
      'V2029 error 3:6 unknown type "strng"; did you mean "string"?',
    ]);
    expect(field('strng')).toEqual({ kind: 'any' });
    // `Strings` is close to the collection `String` (declared) and to `string`: a reference, warned about.
    expect(reported('collection T {\n  id: string;\n  x: Strings;\n}\ncollection String { id: string; }').map((d) => `${d.code} ${d.message}`)).toEqual([
      'V2014 collection "Strings" is not declared in this schema; it must exist in the same namespace; did you mean "String"?',
    ]);
    // A declared collection named like a misspelt type is that collection.
    expect(located('collection T {\n  id: string;\n  x: strng;\n}\ncollection strng { id: string; }')).toEqual([]);
    expect(field('strng', '\ncollection strng { id: string; }')).toEqual({ kind: 'reference', collection: 'strng' });
  });

  it('an undeclared collection is warned about once in the whole schema', () => {
    const schema = 'collection A {\n  id: string;\n  u: User;\n}\ncollection B {\n  id: string;\n  u: User;\n  v: Other;\n}';
    expect(located(schema)).toEqual(['V2014 3:6 User', 'V2014 8:6 Other']);
  });

  it('record is the collection itself as a parameter, and V2011 elsewhere (a reference to the collection)', () => {
    expect(located('collection T {\n  id: string;\n  f (rs: record[]) {}\n}')).toEqual(['V2011 3:10 record']);
    const f = checked('collection T {\n  id: string;\n  f (r: record, rs: record[]) {}\n}').collections[0]!.functionsByName.get('f')!;
    expect(f.parameters.map((p) => p.type)).toEqual([
      { kind: 'record', collection: 'T' },
      { kind: 'array', element: { kind: 'reference', collection: 'T' } },
    ]);
  });
});

describe('indexes', () => {
  const schema = (index: string) => `collection T {
  id: string;
  name: string;
  tags: string[];
  nums: number[];
  blobs: bytes[];
  info: { name: string; more: { arr: string[]; }; };
  @index(${index});
}`;

  it('V2025 names the first array field for every later one; an array of what cannot be indexed is no array here', () => {
    expect(reported(schema('tags, nums, info.more.arr')).map((d) => `${d.code} ${d.at} ${d.message}`)).toEqual([
      'V2025 8:16 an index may hold at most one array field, but "tags" and "nums" are both arrays',
      'V2025 8:22 an index may hold at most one array field, but "tags" and "info.more.arr" are both arrays',
    ]);
    expect(located(schema('blobs, tags'))).toEqual(['V2016 8:10 blobs']);
    expect(located(schema('tags, blobs'))).toEqual(['V2016 8:16 blobs']);
  });

  it('paths go through object fields only, one segment at a time', () => {
    expect(located(schema('info.more.arr.x'))).toEqual(['V2015 8:10 info.more.arr.x']);
    expect(located(schema('info.more'))).toEqual(['V2016 8:10 info.more']);
    expect(located(schema('info.name, [info.more.arr, desc]'))).toEqual([]);
    expect(checked(`${schema('[info.name, desc], name')}`).collections[0]!.indexes[0]!.fields).toEqual([
      { path: ['info', 'name'], direction: 'desc' },
      { path: ['name'], direction: 'asc' },
    ]);
  });
});

describe('what each message names', () => {
  const messages = (schema: string) => reported(schema).map((d) => `${d.code} ${d.message}`);
  const notes = (schema: string) => {
    const result = checkSchema(schema, 'test.polylang');
    return result.diagnostics.map((d) => d.notes.map((n) => `${n.message} @${result.source.position(n.span!.start).line}:${result.source.position(n.span!.start).column}`));
  };

  it('a second declaration points back at the first', () => {
    const schema = `collection T {
  id: string;
  a: string;
  a: number;
  f () {}
  f () {}
  id () {}
}
collection T { id: string; }`;
    expect(messages(schema)).toEqual([
      'V2006 duplicate field "a" in collection "T"',
      'V2007 duplicate function "f" in collection "T"',
      'V2008 function "id" has the same name as a field of collection "T"',
      'V2001 duplicate collection "T"',
    ]);
    expect(notes(schema)).toEqual([
      ['"a" is first declared here @3:3'],
      ['"f" is first declared here @5:3'],
      ['the field "id" is declared here @2:3'],
      ['"T" is first declared here @1:12'],
    ]);
  });

  it('collections and decorators', () => {
    expect(messages('collection $T { id: string; }')).toEqual(["V2002 collection name cannot start with '$': $T"]);
    expect(messages('@migrate\ncollection T { id: string; }')).toEqual([
      'V2030 @migrate belongs on a function (the migration of the stored records); on a collection it means nothing',
    ]);
    expect(messages('contract Vault { id: string; }')[0]).toMatch(/^V2027 contract "Vault" has no permission decorator/);
    expect(messages('collection T {\n  id: string;\n  @private @migrate o: PublicKey;\n  @private f () {}\n}')).toEqual([
      'V2028 @private belongs on a collection or contract; on a field it would hide nothing (a field is read by whoever may read the record)',
      'V2030 @migrate belongs on a function (the migration of the stored records); on a field it means nothing',
      'V2028 @private belongs on a collection or contract; on a function it would hide nothing (a field is read by whoever may read the record)',
    ]);
    expect(messages('collection T {\n  id: string;\n  name: string;\n  @call(name) f () {}\n}')).toEqual([
      'V2019 @call needs a PublicKey or collection reference field (or an array of those), but "name" is string',
    ]);
  });

  it('parameters, types and @search', () => {
    expect(messages('collection T {\n  id: string;\n  f (x: number, x: string, o: { a: string; }) {}\n}')).toEqual([
      'V2009 duplicate parameter "x"',
      'V2012 object type not allowed for parameter "o"; use a map or a collection',
    ]);
    expect(messages('collection Note {\n  id: string;\n  r: record;\n}')).toEqual([
      'V2011 `record` is only allowed as a parameter type; use the collection name (Note) to store a reference',
    ]);
    expect(messages('collection T {\n  id: string;\n  a: string;\n  n: number;\n  @search(a, a, b, n);\n  @search(a);\n}')).toEqual([
      'V2035 field "a" is listed twice in @search',
      'V2033 search field "b" is not a field of collection "T"',
      'V2034 cannot search field "n" of type number; @search covers top-level string fields only',
      'V2036 collection "T" declares more than one @search; list every searched field in one @search(...)',
    ]);
  });
});

describe('migration headers, further', () => {
  const holder = (migration: string) => `collection Holder {\n  id: string;\n  name: string;\n  ${migration}\n}\ncollection Owner { id: string; name: string; }`;

  it('@migrate() has no arguments to complain about', () => {
    expect(located(holder('@migrate() m (old: { name: string; }) {}'))).toEqual([]);
  });

  it('a parameter after an `old` that is no object type names no field of `old`', () => {
    expect(reported(holder('@migrate m (old: string, owner: Owner) {}')).map((d) => `${d.code} ${d.at} ${d.text}`)).toEqual([
      'V2031 4:15 old: string',
      'V2031 4:28 owner: Owner',
    ]);
  });

  it('a reference field of `old` stays a reference: only its id can be read without loading the record', () => {
    expect(located(holder('@migrate m (old: { owner: Owner; }) { this.name = old.owner.id; }'))).toEqual([]);
    expect(reported(holder('@migrate m (old: { owner: Owner; }) { this.name = old.owner.name; }')).map((d) => d.code)).toEqual(['V3003']);
  });
});

describe('index paths, further', () => {
  it('a path under a field that does not exist names no field', () => {
    const schema = (index: string) => `collection T {\n  id: string;\n  info: { a: string; };\n  @index(${index});\n}`;
    expect(located(schema('nope.x'))).toEqual(['V2015 4:10 nope.x']);
    expect(located(schema('info.nope.x'))).toEqual(['V2015 4:10 info.nope.x']);
  });
});
