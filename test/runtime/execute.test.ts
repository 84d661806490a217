// Polybase DB's example schemas (numbered as in its catalogue; fixtures/schemas names their sources) run end to end, and the rules of
// execute: constructors, identity, output conversion, record arguments, return values.
import { describe, expect, it } from 'vitest';
import { publicKeyOf } from '../../src/auth/index.ts';
import { parse } from '../../src/lang/index.ts';
import { compileCollection, execute, recordArguments } from '../../src/runtime/index.ts';
import { call, fails, load, ok } from './helpers.ts';

const alice = publicKeyOf(new Uint8Array(32).fill(1));
const bob = publicKeyOf(new Uint8Array(32).fill(2));

describe('example 1: basic CRUD', () => {
  const person = load(
    `@public collection Person {
      id: string; name?: string; age?: number;
      @index(name); @index(age);
      constructor (id: string, name: string, age: number) { this.id = id; this.name = name; this.age = age; }
      setAge (age: number) { this.age = age; }
      remove () { selfdestruct(); }
    }`,
    'Person',
  );

  it('creates, updates and deletes', () => {
    const created = ok(call(person, 'constructor', null, ['0', 'John', 30]));
    expect(created.record).toEqual({ id: '0', name: 'John', age: 30 });
    expect(created.deleted).toBe(false);
    const updated = ok(call(person, 'setAge', created.record, [31]));
    expect(updated.record).toEqual({ id: '0', name: 'John', age: 31 });
    const removed = ok(call(person, 'remove', updated.record));
    expect(removed).toMatchObject({ record: null, deleted: true, changed: [] });
  });

  it('never modifies the snapshot or the arguments', () => {
    const snapshot = Object.freeze({ id: '0', name: 'John', age: 30 });
    const updated = ok(call(person, 'setAge', snapshot, [40]));
    expect(snapshot.age).toBe(30);
    expect(updated.record!.age).toBe(40);
  });

  it('ids may contain slashes', () => {
    expect(ok(call(person, 'constructor', null, ['3/last', 'Ann', 3])).record!.id).toBe('3/last');
  });
});

describe('examples 9-13: function and identity errors', () => {
  it('9: a missing function', () => {
    const t = load('@public collection test { id: string; }', 'test');
    expect(fails(call(t, 'test', { id: 'x' }))).toEqual({ reason: 'function/not-found', message: 'method "test" not found in collection "ns/test"' });
  });

  it('10: a constructor that does not assign id', () => {
    const t = load('collection T { id: string; constructor (id: string) {} }', 'T', { check: false });
    expect(fails(call(t, 'constructor', null, ['a']))).toMatchObject({ reason: 'constructor/no-id-assigned', message: 'constructor must assign id' });
  });

  it('11: a required field left unset', () => {
    const t = load('collection T { id: string; arr: array[]; constructor (id: string) { this.id = id; } }', 'T', { check: false });
    expect(fails(call(t, 'constructor', null, ['a']))).toEqual({ reason: 'record/missing-field', message: 'record is missing field "arr"' });
  });

  it('13: changing the id', () => {
    const t = load(`collection T { id: string; constructor (id: string) { this.id = id; } update () { this.id = 'id2'; } }`, 'T', { check: false });
    expect(fails(call(t, 'update', { id: 'id1' }))).toEqual({ reason: 'record/id-modified', message: 'record ID was modified' });
  });

  it('an id that is not a string', () => {
    const t = load('collection T { id: string; constructor (id: number) { this.id = id; } }', 'T', { check: false });
    expect(fails(call(t, 'constructor', null, [5]))).toMatchObject({
      reason: 'record/invalid-field',
      message: 'value at field "id" does not match the schema type, expected type: string, got value: 5',
    });
  });

  it('a function called without a record', () => {
    const t = load(`collection T { id: string; f () {} }`, 'T');
    expect(fails(call(t, 'f', null)).reason).toBe('record/not-found');
  });
});

describe('example 14: invalid values', () => {
  const schema = `@public collection Test {
    id: string; name: string; extra: { surname: string; testRecord?: Test; }; arr: string[];
    constructor (id: string) { this.id = id; this.name = 'n'; this.extra = { surname: 's' }; this.arr = []; }
    unsetName () { this.name = undefined; }
    unsetSurname () { this.extra.surname = undefined; }
    setNumber () { this.name = 1; }
    setRecord (test: Test) { this.extra.testRecord = test; }
    setNaN () { this.arr = ['a', 0 / 0]; }
  }`;
  const t = load(schema, 'Test', { check: false });
  const record = { id: 'a', name: 'n', extra: { surname: 's' }, arr: [] };

  it('required fields set to undefined are missing, with the dotted path', () => {
    expect(fails(call(t, 'unsetName', record))).toEqual({ reason: 'record/missing-field', message: 'record is missing field "name"' });
    expect(fails(call(t, 'unsetSurname', record))).toEqual({ reason: 'record/missing-field', message: 'record is missing field "extra.surname"' });
  });

  it('a value of the wrong type is an invalid field (no coercion)', () => {
    expect(fails(call(t, 'setNumber', record))).toEqual({
      reason: 'record/invalid-field',
      message: 'value at field "name" does not match the schema type, expected type: string, got value: 1',
    });
    expect(fails(call(t, 'setNaN', record))).toMatchObject({ reason: 'record/invalid-field', message: expect.stringContaining('"arr[1]"') });
  });

  it('a reference argument with a non-string id', () => {
    expect(fails(call(t, 'setRecord', record, [{ collectionId: 'ns/Test', id: 123 }]))).toEqual({
      reason: 'function/invalid-args',
      message: 'invalid argument type for parameter "test": record reference has invalid field type',
    });
  });

  it('storing a record argument stores a reference to it', () => {
    const other = { id: 'b', name: 'o', extra: { surname: 'x' }, arr: [] };
    const result = ok(call(t, 'setRecord', record, [{ collectionId: 'ns/Test', id: 'b', data: other }]));
    expect(result.record!.extra).toEqual({ surname: 's', testRecord: { collectionId: 'ns/Test', id: 'b' } });
  });
});

describe('example 16: ownership by code', () => {
  const people = load(
    `@public collection People {
      id: string; name?: string; publicKey?: PublicKey;
      constructor (id: string, name: string) { this.id = id; this.name = name; if (ctx.publicKey) this.publicKey = ctx.publicKey; }
      update (name: string) { if (this.publicKey != ctx.publicKey) { error('invalid owner'); } this.name = name; }
    }`,
    'People',
  );

  it('the creator may update, another key may not', () => {
    const created = ok(call(people, 'constructor', null, ['1', 'A'], { publicKey: alice }));
    expect(created.record!.publicKey).toEqual(alice.toJwk());
    expect(ok(call(people, 'update', created.record, ['B'], { publicKey: alice.toJwk() })).record!.name).toBe('B');
    expect(fails(call(people, 'update', created.record, ['B'], { publicKey: bob }))).toMatchObject({
      reason: 'function/collection-error',
      message: 'collection function error: invalid owner',
    });
    expect(fails(call(people, 'update', created.record, ['B'])).message).toBe('collection function error: invalid owner');
  });

  it('an unsigned constructor leaves the key out', () => {
    expect(ok(call(people, 'constructor', null, ['1', 'A'])).record).toEqual({ id: '1', name: 'A' });
  });

  it('the key may be given as 0x hex', () => {
    const created = ok(call(people, 'constructor', null, ['1', 'A'], { publicKey: alice.toHex() }));
    expect(created.record!.publicKey).toEqual(alice.toJwk());
  });
});

describe('examples 25-26: changing records passed as arguments', () => {
  const account = load(
    `@public collection Account {
      id: string; balance: number;
      constructor (id: string, balance: number) { this.id = id; this.balance = balance; }
      transfer (b: record, amount: number) { this.balance -= amount; b.balance += amount; }
      emptyOther (o: OtherAccountCol) { this.balance = this.balance + o.balance; o.balance = 0; }
      readOther (o: OtherAccountCol): number { return o.balance; }
    }
    @public collection OtherAccountCol { id: string; balance: number; }`,
    'Account',
    { check: false },
  );
  const a = { id: '0', balance: 10 };
  const b = { id: '1', balance: 100 };

  it('25: a same-collection record changes with the call', () => {
    const result = ok(call(account, 'transfer', a, [{ collectionId: 'ns/Account', id: '1', data: b }, 5]));
    expect(result.record).toEqual({ id: '0', balance: 5 });
    expect(result.changed).toEqual([{ collectionId: 'ns/Account', id: '1', record: { id: '1', balance: 105 } }]);
    expect(b.balance).toBe(100);
  });

  it('25: the record itself passed as the argument is the same record', () => {
    const result = ok(call(account, 'transfer', a, [{ collectionId: 'ns/Account', id: '0', data: a }, 5]));
    expect(result.record).toEqual({ id: '0', balance: 10 });
    expect(result.changed).toEqual([]);
  });

  it('an unchanged record argument is not reported as changed', () => {
    const result = ok(call(account, 'transfer', a, [{ collectionId: 'ns/Account', id: '1', data: b }, 0]));
    expect(result.changed).toEqual([]);
  });

  it('26: a record of another collection is read-only and never committed', () => {
    const other = { id: 'x', balance: 7 };
    expect(ok(call(account, 'readOther', a, [{ collectionId: 'ns/OtherAccountCol', id: 'x', data: other }])).returnValue).toBe(7);
    const error = fails(call(account, 'emptyOther', a, [{ collectionId: 'ns/OtherAccountCol', id: 'x', data: other }]));
    expect(error.reason).toBe('function/javascript-exception');
    expect(error.message).toContain('read-only');
  });

  it('26: a reference to the wrong collection', () => {
    expect(fails(call(account, 'emptyOther', a, [{ collectionId: 'ns/Account', id: '1', data: b }]))).toEqual({
      reason: 'function/invalid-args',
      message: 'invalid argument type for parameter "o": foreign record reference has incorrect collection id, expected: "OtherAccountCol", got: "Account"',
    });
  });

  it('a record argument that was not loaded', () => {
    expect(fails(call(account, 'transfer', a, [{ collectionId: 'ns/Account', id: '1' }, 5])).message).toContain('was not loaded');
  });
});

describe('example 27: optional parameters and arity', () => {
  const t = load(`@public collection T { id: string; name?: string; constructor (id: string, name?: string) { this.id = id; if (name) { this.name = name; } } }`, 'T');

  it('optional parameters may be absent or null', () => {
    expect(ok(call(t, 'constructor', null, ['0'])).record).toEqual({ id: '0' });
    expect(ok(call(t, 'constructor', null, ['0', null])).record).toEqual({ id: '0' });
    expect(ok(call(t, 'constructor', null, ['1', 'Alice'])).record).toEqual({ id: '1', name: 'Alice' });
  });

  it('too few and too many arguments', () => {
    expect(fails(call(t, 'constructor', null, []))).toEqual({ reason: 'function/invalid-args', message: 'method constructor args invalid, expected 1 got 0' });
    expect(fails(call(t, 'constructor', null, ['a', 'b', 'c']))).toEqual({ reason: 'function/invalid-args', message: 'method constructor args invalid, expected 2 got 3' });
  });

  it('a required parameter given null', () => {
    expect(fails(call(t, 'constructor', null, [null])).message).toBe('invalid argument type for parameter "id": expected type: string, got value: null');
  });
});

describe('example 28: a loop that never ends runs out of gas', () => {
  it('stops with function/out-of-gas', () => {
    const t = load(`collection T { id: string; constructor (id: string) { this.id = id; while (true) {} } }`, 'T', { check: false });
    const result = call(t, 'constructor', null, ['a'], {}, { gas: 100_000 });
    expect(fails(result).reason).toBe('function/out-of-gas');
    expect(result.ok ? 0 : result.gasUsed).toBe(100_000);
  });
});

describe('example 29: maps', () => {
  const t = load(
    `@public collection Balances {
      id: string;
      accountToBalance: map<string, number>;
      balanceCounts: map<number, number>;
      assetBalances: map<string, map<string, number>>;
      constructor (id: string) { this.id = id; this.accountToBalance = {}; this.balanceCounts = {}; this.assetBalances = {}; }
      set (account: string, balance: number) {
        if (this.accountToBalance[account]) { this.balanceCounts[this.accountToBalance[account]] -= 1; }
        this.accountToBalance[account] = balance;
        if (this.balanceCounts[balance]) { this.balanceCounts[balance] += 1; } else { this.balanceCounts[balance] = 1; }
      }
      setAsset (account: string, asset: string, amount: number) {
        if (!this.assetBalances[account]) { this.assetBalances[account] = {}; }
        this.assetBalances[account][asset] = amount;
      }
    }`,
    'Balances',
    { check: false },
  );

  it('updates nested maps; number keys are stored as strings', () => {
    let record = ok(call(t, 'constructor', null, ['m'])).record!;
    record = ok(call(t, 'set', record, ['alice', 100])).record!;
    record = ok(call(t, 'set', record, ['bob', 100])).record!;
    record = ok(call(t, 'set', record, ['alice', 50])).record!;
    record = ok(call(t, 'setAsset', record, ['alice', 'gold', 3])).record!;
    expect(record).toEqual({
      id: 'm',
      accountToBalance: { alice: 50, bob: 100 },
      balanceCounts: { '100': 1, '50': 1 },
      assetBalances: { alice: { gold: 3 } },
    });
  });

  it('a map<number, V> key that is not a number is rejected on output', () => {
    const snapshot = { id: 'm', accountToBalance: {}, balanceCounts: { x: 1 }, assetBalances: {} };
    expect(fails(call(t, 'set', snapshot, ['a', 1])).reason).toBe('record/invalid-field');
  });
});

describe('examples 30-32: nested objects and references', () => {
  const t = load(
    `@public collection Account {
      id: string; info: { name?: string; }; owner?: User; managers: User[];
      constructor (id: string, name: string) { this.id = id; this.info = { name: name }; this.managers = []; }
      setInfo (m: map<string, string>) { this.info = m; }
      addManager (m: User) { this.managers.push(m); }
      setOwner (u: User) { this.owner = u; }
    }
    @public collection User { id: string; }`,
    'Account',
    { check: false },
  );
  const record = { id: 'a', info: { name: 'John' }, managers: [] };

  it('30: builds a nested object', () => {
    expect(ok(call(t, 'constructor', null, ['a', 'John'])).record).toEqual(record);
  });

  it('31: undeclared nested keys are dropped', () => {
    expect(ok(call(t, 'setInfo', record, [{ surname: 'x', age: '3' }])).record!.info).toEqual({});
  });

  it('32: records stored in fields become references', () => {
    const user = { collectionId: 'ns/User', id: 'u1', data: { id: 'u1' } };
    const added = ok(call(t, 'addManager', record, [user])).record!;
    expect(added.managers).toEqual([{ collectionId: 'ns/User', id: 'u1' }]);
    expect(ok(call(t, 'setOwner', added, [user])).record!.owner).toEqual({ collectionId: 'ns/User', id: 'u1' });
  });
});

describe('examples 36-37: bytes and public key arrays', () => {
  const t = load(
    `@public collection T {
      id: string; data?: bytes; keys: PublicKey[];
      constructor (id: string) { this.id = id; this.keys = []; }
      setData (data: bytes) { this.data = data; }
      addKey (k: PublicKey) { this.keys.push(k); }
      hasKey (k: PublicKey): boolean { return this.keys.includes(k); }
    }`,
    'T',
  );
  const record = { id: 'a', keys: [] };

  it('36: bytes travel as base64', () => {
    expect(ok(call(t, 'setData', record, ['aGVsbG8='])).record!.data).toBe('aGVsbG8=');
    expect(fails(call(t, 'setData', record, ['hello']))).toEqual({
      reason: 'function/invalid-args',
      message: 'invalid argument type for parameter "data": base64 decode error: expected standard padded base64',
    });
  });

  it('37: keys from JWK or hex arguments are stored as JWK, and compare by value', () => {
    const one = ok(call(t, 'addKey', record, [alice.toJwk()])).record!;
    const two = ok(call(t, 'addKey', one, [bob.toHex()])).record!;
    expect(two.keys).toEqual([alice.toJwk(), bob.toJwk()]);
    expect(ok(call(t, 'hasKey', two, [bob.toJwk()])).returnValue).toBe(true);
    expect(ok(call(t, 'hasKey', one, [bob.toJwk()])).returnValue).toBe(false);
  });

  it('an invalid key argument', () => {
    expect(fails(call(t, 'addKey', record, ['0x1234'])).message).toMatch(/^invalid argument type for parameter "k": invalid public key/);
  });
});

describe('return values', () => {
  const t = load(
    `@public collection T {
      id: string; owner?: PublicKey;
      f (): number { return 1 / 0; }
      g (): map<string, number> { return { a: 1 }; }
      h () { return [ctx.publicKey, 'x']; }
    }`,
    'T',
    { check: false },
  );

  it('are converted by the declared type', () => {
    expect(ok(call(t, 'g', { id: 'a' })).returnValue).toEqual({ a: 1 });
    expect(fails(call(t, 'f', { id: 'a' })).reason).toBe('function/invalid-return');
  });

  it('without a declared type, as JSON with keys as JWK', () => {
    expect(ok(call(t, 'h', { id: 'a' }, [], { publicKey: alice })).returnValue).toEqual([alice.toJwk(), 'x']);
  });
});

describe('stored records', () => {
  const t = load(`@public collection T { id: string; n: number; tags: string[]; f (): number { return this.n; } }`, 'T');

  it('a required field missing from a stored record reads as its type default', () => {
    expect(ok(call(t, 'f', { id: 'a' })).record).toEqual({ id: 'a', n: 0, tags: [] });
  });

  it('a stored value of the wrong type is an invalid field', () => {
    expect(fails(call(t, 'f', { id: 'a', n: 'x', tags: [] })).reason).toBe('record/invalid-field');
  });

  it('undeclared stored fields are dropped', () => {
    expect(ok(call(t, 'f', { id: 'a', n: 1, tags: [], old: true })).record).toEqual({ id: 'a', n: 1, tags: [] });
  });
});

describe('gas', () => {
  const t = load(`@public collection T { id: string; f (n: number): number { let s = 0; for (let i = 0; i < n; i++) { s += i; } return s; } }`, 'T');

  it('is reported and grows with the work done', () => {
    const small = ok(call(t, 'f', { id: 'a' }, [10])).gasUsed;
    const large = ok(call(t, 'f', { id: 'a' }, [1000])).gasUsed;
    expect(small).toBeGreaterThan(0);
    expect(large).toBeGreaterThan(small * 50);
  });

  it('a caller-set limit applies; a bad limit is an invalid-args error', () => {
    expect(fails(call(t, 'f', { id: 'a' }, [1000], {}, { gas: 500 })).reason).toBe('function/out-of-gas');
    expect(fails(execute(t, 'f', { id: 'a' }, [1], {}, { gas: -1 })).reason).toBe('function/invalid-args');
  });
});

describe('recordArguments: which records a call needs loaded', () => {
  const account = load(
    `@public collection Account {
      id: string; balance: number;
      transfer (to: record, amount: number) { this.balance -= amount; to.balance += amount; }
      link (user: User, others: User[]) {}
    }
    @public collection User { id: string; }`,
    'Account',
  );

  it('lists record and collection-typed parameters with full collection ids', () => {
    expect(recordArguments(account, 'transfer', [{ id: 'b' }, 5])).toEqual({
      ok: true,
      records: [{ index: 0, parameter: 'to', collectionId: 'ns/Account', id: 'b', sameCollection: true }],
    });
    // Arrays of references are values, not loaded records.
    expect(recordArguments(account, 'link', [{ collectionId: 'ns/User', id: 'u' }, [{ collectionId: 'ns/User', id: 'v' }]])).toEqual({
      ok: true,
      records: [{ index: 0, parameter: 'user', collectionId: 'ns/User', id: 'u', sameCollection: false }],
    });
  });

  it('reports malformed references with Polybase messages', () => {
    expect(recordArguments(account, 'link', [{ collectionId: 'ns/Account', id: 'u' }, []])).toMatchObject({
      ok: false,
      error: { reason: 'function/invalid-args', message: 'invalid argument type for parameter "user": foreign record reference has incorrect collection id, expected: "User", got: "Account"' },
    });
    expect(recordArguments(account, 'transfer', [{ id: 5 }, 1])).toMatchObject({ ok: false, error: { message: 'invalid argument type for parameter "to": record reference has invalid field type' } });
    expect(recordArguments(account, 'nope', [])).toMatchObject({ ok: false, error: { reason: 'function/not-found' } });
  });
});

describe('compilation', () => {
  it('is cached per program and collection id', () => {
    const parsed = parse('@public collection A { id: string; }');
    expect(compileCollection(parsed, 'A')).toBe(compileCollection(parsed, 'A'));
    expect(compileCollection(parsed, 'A', { collectionId: 'x/A' })).not.toBe(compileCollection(parsed, 'A'));
    expect(() => compileCollection(parsed, 'B')).toThrow('collection "B" is not declared in the schema');
  });
});

describe('records of other collections are read-only everywhere inside them', () => {
  const t = load(
    `@public collection A {
      id: string;
      push (o: B) { o.list.push(1); }
      splice (o: B) { o.list.splice(0, 1); }
      index (o: B) { o.list[0] = 5; }
      nested (o: B) { o.info.name = 'x'; }
      addKey (o: B) { o.counts['new'] = 1; }
      remove (o: B) { delete o.counts['a']; }
      ok (o: B): number { let copy = o.list.slice(); copy.push(9); return copy.length; }
    }
    @public collection B { id: string; list: number[]; info: { name: string; }; counts: map<string, number>; }`,
    'A',
    { check: false },
  );
  const other = { collectionId: 'ns/B', id: 'b', data: { id: 'b', list: [1, 2], info: { name: 'n' }, counts: { a: 1 } } };

  it.each(['push', 'splice', 'index', 'nested', 'addKey', 'remove'])('%s is refused', (fn) => {
    expect(fails(call(t, fn, { id: 'a' }, [other]))).toMatchObject({
      reason: 'function/javascript-exception',
      message: 'JavaScript exception error: Cannot change a read-only value (a record of another collection)',
    });
  });

  it('copies of their values are ordinary values', () => {
    expect(ok(call(t, 'ok', { id: 'a' }, [other])).returnValue).toBe(3);
  });
});

describe('limits', () => {
  const t = load(`@public collection T { id: string; f (): number { return 1; } }`, 'T');

  it('undefined limits take their defaults; bad ones are invalid arguments', () => {
    expect(ok(call(t, 'f', { id: 'a' }, [], {}, { gas: undefined, maxCallDepth: undefined })).returnValue).toBe(1);
    expect(fails(call(t, 'f', { id: 'a' }, [], {}, { gas: 1.5 }))).toMatchObject({ reason: 'function/invalid-args', message: 'limit gas must be a non-negative integer, got 1.5' });
    expect(fails(call(t, 'f', { id: 'a' }, [], {}, { gas: 2e9 })).message).toBe('limit gas must be at most 1000000000, got 2000000000');
  });
});
