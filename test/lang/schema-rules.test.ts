// Schema rules (V2xxx): one test per rule, each asserting the code, the line:column and the text
// the diagnostic points at; plus the CheckedProgram the rules build.
import { describe, expect, it } from 'vitest';
import { checkSchema, typeToString } from '../../src/lang/index.ts';
import { errors, located, reported } from './check-helpers.ts';

describe('collections', () => {
  it('V2001: a collection declared twice', () => {
    expect(located('collection A { id: string; }\ncollection A { id: string; }')).toEqual(['V2001 2:12 A']);
    expect(reported('collection A { id: string; }\ncollection A { id: string; }')[0]!.message).toBe('duplicate collection "A"');
  });

  it("V2002: a collection name starting with '$'", () => {
    expect(located('collection $internal { id: string; }')).toEqual(['V2002 1:12 $internal']);
  });

  it('V2017: collection decorators take no arguments', () => {
    expect(located('@read(owner)\ncollection T { id: string; owner: PublicKey; }')).toEqual(['V2017 1:1 @read(owner)']);
    expect(located('@call(owner)\ncollection T { id: string; owner: PublicKey; }')).toEqual(['V2017 1:1 @call(owner)']);
    expect(reported('@read(owner)\ncollection T { id: string; owner: PublicKey; }')[0]!.message).toBe(
      'collection directive "read" cannot have arguments',
    );
    expect(located('@public @read @call\ncollection T { id: string; }')).toEqual([]);
  });

  it('V2018: @delegate is not a collection decorator', () => {
    expect(located('@delegate\ncollection T { id: string; }')).toEqual(['V2018 1:1 @delegate']);
  });
});

describe('the id field', () => {
  it('V2003: a collection without id', () => {
    expect(located('collection T { name: string; }')).toEqual(['V2003 1:12 T']);
    expect(reported('collection T { name: string; }')[0]!.message).toBe(`collection "T" must have an 'id' field of type string`);
    // The constructor is not also blamed for not assigning an id the collection lacks.
    expect(located('collection T {\n  name: string;\n  constructor (n: string) { this.name = n; }\n}')).toEqual(['V2003 1:12 T']);
  });

  it('V2004: an id that is not a string', () => {
    expect(located('collection T { id: number; }')).toEqual(['V2004 1:20 number']);
    expect(reported('collection T { id: number; }')[0]!.message).toBe("collection 'id' field must be a string, found number");
  });

  it('V2005: an optional id', () => {
    expect(located('collection T { id?: string; }')).toEqual(['V2005 1:16 id']);
  });

  it('V2022: a constructor that never assigns this.id', () => {
    const schema = 'collection T {\n  id: string;\n  name: string;\n  constructor (name: string) {\n    this.name = name;\n  }\n}';
    expect(located(schema)).toEqual(['V2022 4:3 constructor']);
  });

  it('V2024: a constructor that can finish without assigning this.id is a warning, at the place', () => {
    const schema = `collection T {
  id: string;
  constructor (id: string, named: boolean) {
    if (named) {
      this.id = id;
    }
  }
}`;
    expect(reported(schema).map((d) => `${d.code} ${d.severity} ${d.at} ${d.text}`)).toEqual(['V2024 warning 7:3 }']);
    expect(reported(schema)[0]!.message).toBe(
      'the constructor of "T" can finish here without assigning this.id; creating a record this way fails',
    );
    const early = `collection T {
  id: string;
  constructor (id: string) {
    if (id == '') { return; }
    this.id = id;
  }
}`;
    expect(located(early)).toEqual(['V2024 4:21 return;']);
  });

  it('accepts a constructor that assigns this.id on every path it can finish by', () => {
    const schema = `collection T {
  id: string;
  constructor (id?: string) {
    if (id) { this.id = id; } else if (ctx.publicKey) { this.id = ctx.publicKey.toHex(); } else { error('no id'); }
  }
  f () {}
}
collection U {
  id: string;
  constructor (id: string) {
    if (id == '') { throw error('empty'); }
    while (true) { this.id = id; break; }
    this.id = id;
    return;
  }
}`;
    expect(located(schema)).toEqual([]);
  });

  it('accepts a constructor that assigns this.id anywhere in its body', () => {
    const schema = `collection T {
  id: string;
  constructor (id?: string) {
    if (id) { this.id = id; } else { this.id = ctx.publicKey.toHex(); }
  }
}`;
    expect(located(schema)).toEqual([]);
  });

  it('V2023: this.id changed outside the constructor, or on another record', () => {
    const schema = `collection T {
  id: string;
  constructor (id: string, other: record) {
    this.id = id;
    other.id = id;
  }
  rename (id: string) {
    this.id = id;
    this.id += 'x';
  }
}`;
    expect(located(schema)).toEqual(['V2023 5:5 other.id', 'V2023 8:5 this.id', 'V2023 9:5 this.id']);
  });
});

describe('fields and types', () => {
  it('V2006: a field declared twice, at the top level or in an object type', () => {
    const schema = 'collection T {\n  id: string;\n  name: string;\n  name: number;\n  o: { a: string; a: number; };\n}';
    expect(located(schema)).toEqual(['V2006 4:3 name', 'V2006 5:19 a']);
    expect(reported(schema).map((d) => d.message)).toEqual([
      'duplicate field "name" in collection "T"',
      'duplicate field "a" in object type',
    ]);
  });

  it('V2011: record is only a parameter type', () => {
    expect(located('collection T {\n  id: string;\n  r: record;\n}')).toEqual(['V2011 3:6 record']);
    expect(located('collection T {\n  id: string;\n  f (rs: map<string, record>) {}\n}')).toEqual(['V2011 3:22 record']);
    expect(located('collection T {\n  id: string;\n  f (r: record): record { return r; }\n}')).toEqual(['V2011 3:18 record']);
  });

  it('V2013: map keys are string or number', () => {
    const schema = 'collection T {\n  id: string;\n  a: map<boolean, string>;\n  b: map<PublicKey, string>;\n  c: map<number, map<string, number>>;\n}';
    expect(located(schema)).toEqual(['V2013 3:10 boolean', 'V2013 4:10 PublicKey']);
    expect(reported(schema)[0]!.message).toBe('map keys must be string or number, found boolean');
  });

  it('V2014: a reference to a collection not in the schema is a warning, once per name', () => {
    const schema = 'collection T {\n  id: string;\n  owner: User;\n  users: User[];\n  f (u: User) {}\n}';
    expect(reported(schema)).toEqual([
      {
        code: 'V2014',
        severity: 'warning',
        at: '3:10',
        text: 'User',
        message: 'collection "User" is not declared in this schema; it must exist in the same namespace',
      },
    ]);
  });

  it('V2014 suggests the built-in type or declared collection a misspelt type name was likely meant to be', () => {
    const schema = 'collection T {\n  id: string;\n  name: strin;\n  key: Publickey;\n  owner: Usr;\n}\ncollection User { id: string; }';
    expect(reported(schema).map((d) => `${d.at} ${d.message.slice(d.message.indexOf(';', d.message.indexOf('namespace')))}`)).toEqual([
      '3:9 ; did you mean "string"?',
      '4:8 ; did you mean "PublicKey"?',
      '5:10 ; did you mean "User"?',
    ]);
  });
});

describe('decorators on fields and functions', () => {
  it('V2019: @read/@delegate/@call on a field that cannot hold a key', () => {
    const schema = 'collection T {\n  id: string;\n  @delegate score: number;\n  @read @delegate owner: PublicKey;\n  @call managers: User[];\n}\ncollection User { id: string; }';
    expect(located(schema)).toEqual(['V2019 3:3 @delegate']);
    expect(reported(schema)[0]!.message).toBe(
      '@delegate needs a PublicKey or collection reference field (or an array of those), but "score" is number',
    );
  });

  it('V2019 and V2020: @call arguments name fields that hold keys', () => {
    const schema = `collection T {
  id: string;
  ownerName: string;
  owner: PublicKey;
  @call(ownerName)
  a () {}
  @call(onwer)
  b () {}
  @call(owner)
  c () {}
}`;
    expect(located(schema)).toEqual(['V2019 5:9 ownerName', 'V2020 7:9 onwer']);
    expect(reported(schema)[1]!.message).toBe('@call argument "onwer" is not a field of collection "T"');
  });

  it('V2021: decorators that do nothing are warnings', () => {
    const schema = 'collection T {\n  id: string;\n  @public name: string;\n  @read(x) owner: PublicKey;\n  @read\n  f () {}\n}';
    expect(reported(schema).map((d) => `${d.code} ${d.severity} ${d.at} ${d.message}`)).toEqual([
      'V2021 warning 3:3 @public on a field has no effect',
      'V2021 warning 4:3 the argument list of @read on a field has no effect',
      'V2021 warning 5:3 @read on a function has no effect',
    ]);
  });
});

describe('functions and parameters', () => {
  it('V2007: a function declared twice', () => {
    expect(located('collection T {\n  id: string;\n  f () {}\n  f () {}\n}')).toEqual(['V2007 4:3 f']);
  });

  it('V2008: a function named like a field', () => {
    const schema = 'collection T {\n  id: string;\n  balance: number;\n  balance (): number { return this.balance; }\n}';
    expect(located(schema)).toEqual(['V2008 4:3 balance']);
  });

  it('V2009: a parameter declared twice', () => {
    expect(located('collection T {\n  id: string;\n  f (x: number, x: string) {}\n}')).toEqual(['V2009 3:17 x']);
  });

  it('V2010: optional parameters come last', () => {
    expect(located('collection T {\n  id: string;\n  f (a?: string, b: number) {}\n}')).toEqual(['V2010 3:18 b']);
    expect(reported('collection T {\n  id: string;\n  f (a?: string, b: number) {}\n}')[0]!.message).toBe(
      'required parameter "b" cannot follow optional parameter "a"',
    );
  });

  it('V2012: inline object types are not parameter types', () => {
    expect(located('collection T {\n  id: string;\n  f (o: { a: string; }) {}\n}')).toEqual(['V2012 3:9 { a: string; }']);
  });
});

describe('indexes', () => {
  const schema = (index: string) => `collection T {
  id: string;
  name: string;
  tags: string[];
  m: map<string, string>;
  data: bytes; blobs: bytes[];
  info: { name: string; more: { arr: string[]; }; };
  owner: PublicKey;
  user: User;
  active: boolean;
  @index(${index});
}
collection User { id: string; }`;

  it('accepts indexable fields and paths', () => {
    expect(located(schema('name, [info.name, desc], owner, user, active, id'))).toEqual([]);
    // An array of indexable values has one index entry per element.
    expect(located(schema('tags, name'))).toEqual([]);
    expect(located(schema('[info.more.arr, desc]'))).toEqual([]);
  });

  it('V2025: two array fields in one index', () => {
    expect(located(schema('tags, name, info.more.arr'))).toEqual(['V2025 11:22 info.more.arr']);
    expect(reported(schema('tags, info.more.arr'))[0]!.message).toBe('an index may hold at most one array field, but "tags" and "info.more.arr" are both arrays');
  });

  it('V2015: an index path that names no field', () => {
    expect(located(schema('id1'))).toEqual(['V2015 11:10 id1']);
    expect(located(schema('info.surname'))).toEqual(['V2015 11:10 info.surname']);
    expect(located(schema('name.length'))).toEqual(['V2015 11:10 name.length']);
    expect(reported(schema('id1'))[0]!.message).toBe('index field "id1" not found in schema');
  });

  it('V2016: an index on a field of a type that cannot be indexed', () => {
    expect(located(schema('blobs'))).toEqual(['V2016 11:10 blobs']);
    expect(located(schema('m'))).toEqual(['V2016 11:10 m']);
    expect(located(schema('data'))).toEqual(['V2016 11:10 data']);
    expect(located(schema('info'))).toEqual(['V2016 11:10 info']);
    expect(reported(schema('blobs'))[0]!.message).toBe(
      'cannot index field "blobs" of type bytes[]; only string, number, boolean, PublicKey and collection reference fields, and arrays of them, can be indexed',
    );
  });
});

describe('the checked program', () => {
  const schema = `@read
collection Account {
  id: string;
  balance: number;
  @read owner: PublicKey;
  @delegate manager?: User;
  @call admins: PublicKey[];
  info: { label: string; note?: string; };
  @index(balance, [info.label, desc]);

  constructor (id: string) { this.id = id; this.balance = 0; this.owner = ctx.publicKey; this.admins = []; this.info = { label: '' }; }
  @call(owner) @call(manager owner)
  transfer (to: record, user: User, amount?: number): number { return 1; }
}
@public
collection User { id: string; }`;

  it('resolves fields, permissions, functions and indexes', () => {
    const result = checkSchema(schema);
    expect(result.diagnostics).toEqual([]);
    const account = result.checked!.collectionsByName.get('Account')!;
    expect(account.permissions).toEqual({ public: false, read: true, call: false });
    expect(result.checked!.collectionsByName.get('User')!.permissions).toEqual({ public: true, read: false, call: false });
    expect(account.fields.map((f) => `${f.name}${f.optional ? '?' : ''}: ${typeToString(f.type)}`)).toEqual([
      'id: string',
      'balance: number',
      'owner: PublicKey',
      'manager?: User',
      'admins: PublicKey[]',
      'info: { label: string; note?: string; }',
    ]);
    expect(account.fieldsByName.get('manager')!.type).toEqual({ kind: 'reference', collection: 'User' });
    expect(account.fieldsByName.get('owner')).toMatchObject({ read: true, delegate: false, call: false });
    expect(account.fieldsByName.get('manager')).toMatchObject({ read: false, delegate: true, call: false });
    expect(account.fieldsByName.get('admins')).toMatchObject({ read: false, delegate: false, call: true });

    const transfer = account.functionsByName.get('transfer')!;
    expect(transfer.call).toEqual({ decorated: true, fields: ['owner', 'manager'] });
    expect(transfer.parameters.map((p) => [p.name, p.optional, p.type])).toEqual([
      ['to', false, { kind: 'record', collection: 'Account' }],
      ['user', false, { kind: 'record', collection: 'User' }],
      ['amount', true, { kind: 'number' }],
    ]);
    expect(transfer.returnType).toEqual({ kind: 'number' });
    expect(account.constructorFunction?.name).toBe('constructor');
    expect(account.functionsByName.get('constructor')!.call).toEqual({ decorated: false, fields: [] });
    expect(account.indexes.map((i) => i.fields)).toEqual([
      [
        { path: ['balance'], direction: 'asc' },
        { path: ['info', 'label'], direction: 'desc' },
      ],
    ]);
  });

  it('does not check a program with syntax errors', () => {
    const result = checkSchema('collection T { id: string; f () { let = ; } }');
    expect(result.checked).toBeUndefined();
    expect(result.diagnostics.every((d) => d.code.startsWith('V1'))).toBe(true);
    expect(result.diagnostics.length).toBeGreaterThan(0);
  });

  it('keeps the first of two duplicate declarations', () => {
    const result = checkSchema('collection T {\n  id: string;\n  a: string;\n  a: number;\n  f () {}\n  f (x: number) {}\n}');
    const t = result.checked!.collectionsByName.get('T')!;
    expect(t.fields.map((f) => typeToString(f.type))).toEqual(['string', 'string']);
    expect(t.functions).toHaveLength(1);
    expect(t.functions[0]!.parameters).toEqual([]);
    expect(errors('collection T {\n  id: string;\n  a: string;\n  a: number;\n  f () {}\n  f (x: number) {}\n}')).toHaveLength(2);
  });
});
