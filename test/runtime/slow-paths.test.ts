// The operators and index accesses behind the compiler's fast paths (src/runtime/operations.ts): what an
// untyped body gets when the operands are not two numbers or a map and a short key. Each result is
// JavaScript's, except where JavaScript would convert an object silently: there the call fails with a
// fault naming the operation. Typed bodies rarely reach these paths; unchecked ones (and the property
// tests) do.
import { describe, expect, it } from 'vitest';
import { publicKeyOf } from '../../src/auth/index.ts';
import { execute, type ExecutionContext } from '../../src/runtime/index.ts';
import { body, fails, ok } from './helpers.ts';

const alice = publicKeyOf(new Uint8Array(32).fill(1));
const bob = publicKeyOf(new Uint8Array(32).fill(2));

interface Run {
  params?: string;
  args?: unknown[];
  ctx?: ExecutionContext;
  gas?: number;
}

/** Runs `f` of an unchecked body and returns the call's result. */
function run(text: string, options: Run = {}) {
  const collection = body(text, { params: options.params });
  return execute(collection, 'f', { id: 'r' }, options.args ?? [], options.ctx ?? {}, options.gas ? { gas: options.gas } : undefined);
}

function value(text: string, options: Run = {}): unknown {
  return ok(run(text, options)).returnValue;
}

function fault(text: string, options: Run = {}): string {
  const error = fails(run(text, options));
  expect(error.reason).toBe('function/javascript-exception');
  return error.message.replace(/^JavaScript exception error: /, '');
}

function gas(text: string, options: Run = {}): number {
  return ok(run(text, options)).gasUsed;
}

/** `k` is alice's key given as an argument (a value equal to, but not the same object as, `ctx.publicKey`). */
const keyArgument = (ctxKey = alice): Run => ({ params: 'k: PublicKey', args: [alice.toHex()], ctx: { publicKey: ctxKey } });

describe('+ beyond two numbers or a string and a number', () => {
  it.each([
    [`let a = 'ab'; let b = 5; return a + b;`, 'ab5'],
    [`let a = 'ab'; let b = 'cd'; return a + b;`, 'abcd'],
    [`let a = 2; let b = 'x'; return a + b;`, '2x'],
    [`let a = 'x'; let b = true; return a + b;`, 'xtrue'],
    [`let a = true; let b = 'x'; return a + b;`, 'truex'],
    [`let a = 'x'; let b = null; return a + b;`, 'xnull'],
    [`let a; let b = 'x'; return a + b;`, 'undefinedx'],
    [`let a = 1; let b = true; return a + b;`, 2],
    [`let a = true; let b = true; return a + b;`, 2],
    [`let a = null; let b = 3; return a + b;`, 3],
    [`let a = 2; let b = false; return a - b + (a + b);`, 4],
  ])('%s', (text, expected) => {
    expect(value(text)).toBe(expected);
  });

  it('a public key adds as its hex form, on either side', () => {
    expect(value(`return ctx.publicKey + '!';`, { ctx: { publicKey: alice } })).toBe(`${alice.toHex()}!`);
    expect(value(`return '<' + ctx.publicKey;`, { ctx: { publicKey: alice } })).toBe(`<${alice.toHex()}`);
    expect(value(`return ctx.publicKey + 1;`, { ctx: { publicKey: alice } })).toBe(`${alice.toHex()}1`);
  });

  it.each([
    [`let a = [1]; let b = 1; return a + b;`, 'cannot add array and number'],
    [`let a = 1; let b = [1]; return a + b;`, 'cannot add number and array'],
    [`let a = 'x'; let b = {}; return a + b;`, 'cannot add string and object'],
    [`let a = {}; let b = 'x'; return a + b;`, 'cannot add object and string'],
    [`let a = {}; let b = {}; return a + b;`, 'cannot add object and object'],
  ])('%s is a fault', (text, message) => {
    expect(fault(text)).toBe(message);
  });

  it('a concatenation through the slow path pays for its characters', () => {
    const short = gas(`let a = true; let b = 'x'; return a + b;`);
    expect(gas(`let a = true; let b = '${'x'.repeat(60)}'; return a + b;`)).toBe(short + 4);
    expect(gas(`let a = '${'x'.repeat(60)}'; let b = true; return a + b;`)).toBe(short + 4);
    expect(gas(`let a = 2; let b = '${'x'.repeat(60)}'; return a + b;`)).toBe(short + 3);
    expect(gas(`let a = 'x'; let b = 7; return a + b;`)).toBe(gas(`let a = '${'x'.repeat(31)}'; let b = 7; return a + b;`) - 2);
  });
});

describe('arithmetic on values that are not numbers', () => {
  it.each([
    [`let a = '7'; return a - 2;`, 5],
    [`let a = '7'; let b = true; return a - b;`, 6],
    [`let a = '3'; return a * '4';`, 12],
    [`let a = '9'; return a / 2;`, 4.5],
    [`let a = '9'; return a % '4';`, 1],
    [`let a = '2'; return a ** 3;`, 8],
    [`let a = '6'; return a & 3;`, 2],
    [`let a = '6'; return a | 3;`, 7],
    [`let a = '6'; return a ^ 3;`, 5],
    [`let a = '1'; return a << 3;`, 8],
    [`let a = '-16'; return a >> 2;`, -4],
    [`let a = '-16'; return a >>> 28;`, 15],
    [`let a = null; return a - 1;`, -1],
    [`let a = true; return -a;`, -1],
  ])('%s', (text, expected) => {
    expect(value(text)).toBe(expected);
  });

  it('an operand that is not a primitive is a fault naming the operator', () => {
    expect(fault(`let a = [1, 2]; return a - 1;`)).toBe('cannot use array [1,2] as a number (operator -)');
    expect(fault(`let a = 2; let b = {}; return a * b;`)).toBe('cannot use object {} as a number (operator *)');
    expect(fault(`return ctx.publicKey % 2;`, { ctx: { publicKey: alice } })).toMatch(/^cannot use PublicKey .* as a number \(operator %\)$/);
  });
});

describe('=== and !== beyond numbers', () => {
  it.each([
    [`let a = 'ab'; let b = 'ab'; return a === b;`, true],
    [`let a = 'ab'; let b = 'ac'; return a === b;`, false],
    [`let a = 'ab'; let b = 'ac'; return a !== b;`, true],
    [`let a = true; let b = true; return a === b;`, true],
    [`let a = true; let b = 1; return a === b;`, false],
    [`let a = null; let b; return a === b;`, false],
    [`let a = '1'; return a === 1;`, false],
    [`let a = [1]; let b = [1]; return a === b;`, false],
    [`let a = [1]; let b = a; return a === b;`, true],
  ])('%s', (text, expected) => {
    expect(value(text)).toBe(expected);
  });

  it('two public keys are equal when they are the same key', () => {
    expect(value(`return k === ctx.publicKey;`, keyArgument())).toBe(true);
    expect(value(`return k !== ctx.publicKey;`, keyArgument())).toBe(false);
    expect(value(`return k === ctx.publicKey;`, keyArgument(bob))).toBe(false);
    expect(value(`return k !== ctx.publicKey;`, keyArgument(bob))).toBe(true);
    expect(value(`return k === k.toHex();`, keyArgument())).toBe(false);
    expect(value(`let s = k.toHex(); return s === k;`, keyArgument())).toBe(false);
  });

  it('a long string compared with what is not a string pays nothing for its characters', () => {
    for (const operator of ['===', '==']) {
      expect(gas(`let a = '${'x'.repeat(200)}'; let b = 1; return a ${operator} b;`)).toBe(gas(`let a = 'x'; let b = 1; return a ${operator} b;`));
      expect(gas(`let a = 1; let b = '${'x'.repeat(200)}'; return a ${operator} b;`)).toBe(gas(`let a = 1; let b = 'x'; return a ${operator} b;`));
    }
  });

  it('an array compared with a string pays nothing for its length', () => {
    const hundred = `[${Array.from({ length: 100 }, () => 0).join(', ')}]`;
    expect(gas(`let a = ${hundred}; let b = 'x'; return a === b;`)).toBe(gas(`let a = ${hundred}; let b = 1; return a === b;`));
  });

  it('comparing long strings pays one gas per 64 characters of the left one', () => {
    const compare = (a: number, b: number, operator = '===') =>
      gas(`let a = '${'x'.repeat(a)}'; let b = '${'x'.repeat(b)}'; return a ${operator} b;`);
    expect(compare(64, 64)).toBe(compare(1, 1));
    expect(compare(65, 1)).toBe(compare(1, 1) + 1);
    expect(compare(200, 1)).toBe(compare(1, 1) + 3);
    expect(compare(200, 1, '==')).toBe(compare(1, 1, '==') + 3);
    expect(compare(65, 1, '==')).toBe(compare(1, 1, '==') + 1);
  });
});

describe('== and != beyond numbers', () => {
  it.each([
    [`let a = 'ab'; let b = 'ab'; return a == b;`, true],
    [`let a = 'ab'; let b = 'ac'; return a == b;`, false],
    [`let a = 'ab'; let b = 'ac'; return a != b;`, true],
    [`let a = '1'; return a == 1;`, true],
    [`let a = 1; return a == '1';`, true],
    [`let a = '2'; return a == 1;`, false],
    [`let a = 0; return a == false;`, true],
    [`let a = null; let b; return a == b;`, true],
    [`let a = null; return a == 0;`, false],
    [`let a = 1; return a != '1';`, false],
    [`let a = [1]; let b = a; return a == b;`, true],
    [`let a = [1]; let b = [1]; return a == b;`, false],
    [`let a = [1]; return a == '1';`, false],
    [`let a = []; return a == '';`, false],
    [`let a = {}; return 0 == a;`, false],
    [`let a = [1]; return a != '1';`, true],
  ])('%s', (text, expected) => {
    expect(value(text)).toBe(expected);
  });

  it('a public key equals only the same key, never its text', () => {
    expect(value(`return k == ctx.publicKey;`, keyArgument())).toBe(true);
    expect(value(`return ctx.publicKey == k;`, keyArgument())).toBe(true);
    expect(value(`return k != ctx.publicKey;`, keyArgument())).toBe(false);
    expect(value(`return k == ctx.publicKey;`, keyArgument(bob))).toBe(false);
    expect(value(`return k != ctx.publicKey;`, keyArgument(bob))).toBe(true);
    expect(value(`return k == k.toHex();`, keyArgument())).toBe(false);
    expect(value(`let s = k.toHex(); return s == k;`, keyArgument())).toBe(false);
    expect(value(`return k != k.toHex();`, keyArgument())).toBe(true);
    expect(value(`let u; return k == u;`, keyArgument())).toBe(false);
  });
});

describe('< <= > >= beyond two numbers', () => {
  it.each([
    [`let a = 'a'; let b = 'b';`, [true, true, false, false]],
    [`let a = 'b'; let b = 'b';`, [false, true, false, true]],
    [`let a = 'c'; let b = 'b';`, [false, false, true, true]],
    [`let a = '10'; let b = '9';`, [true, true, false, false]],
    [`let a = '10'; let b = 9;`, [false, false, true, true]],
    [`let a = true; let b = 1;`, [false, true, false, true]],
    [`let a = null; let b = 0;`, [false, true, false, true]],
    [`let a; let b = 0;`, [false, false, false, false]],
  ])('%s', (declarations, expected) => {
    expect(value(`${declarations} return [a < b, a <= b, a > b, a >= b];`)).toEqual(expected);
  });

  it('an object on either side is a fault naming the operator', () => {
    expect(fault(`let a = [1]; let b = 2; return a <= b;`)).toBe('cannot compare array with number (operator <=)');
    expect(fault(`let a = 2; let b = [1]; return a > b;`)).toBe('cannot compare number with array (operator >)');
    expect(fault(`let a = 'x'; let b = {}; return a >= b;`)).toBe('cannot compare string with object (operator >=)');
    expect(fault(`let a = [1]; let b = 'x'; return a < b;`)).toBe('cannot compare array with string (operator <)');
  });

  it('comparing long strings pays one gas per 64 characters of the shorter one', () => {
    const compare = (a: number, b: number) => gas(`let a = '${'x'.repeat(a)}'; let b = '${'x'.repeat(b)}'; return a < b;`);
    expect(compare(200, 1)).toBe(compare(1, 1));
    expect(compare(200, 130)).toBe(compare(1, 1) + 2);
    expect(compare(130, 200)).toBe(compare(1, 1) + 2);
  });
});

describe('members', () => {
  it.each([
    [`let a = [1, 2, 3]; return a.length;`, 3],
    [`let a = [1, 2, 3]; return a.size;`, undefined],
    [`let s = 'abcd'; return s.length;`, 4],
    [`let s = 'abcd'; return s.size;`, undefined],
    [`let n = 5; return n.size;`, undefined],
    [`let b = true; return b.length;`, undefined],
    [`let o = { length: 7, size: 8 }; return o.size;`, 8],
    [`let o = { length: 7 }; return o.length;`, 7],
  ])('%s', (text, expected) => {
    expect(value(text)).toBe(expected);
  });

  it('the members JavaScript would find on the prototypes are not there', () => {
    const absent = (names: string[], options: Run = {}) =>
      value(`let a = [1]; let s = 'ab'; return [${names.map((n) => `${n} === undefined`).join(', ')}];`, options);
    const members = ['a.constructor', 'a.push', 's.constructor', 's.slice', "a['constructor']", "a['push']", "s['constructor']", "s['slice']"];
    expect(absent(members)).toEqual(members.map(() => true));
    const bytes = ['b.constructor', "b['constructor']", "b['subarray']"];
    expect(absent(bytes, { params: 'b: bytes', args: ['AQID'] })).toEqual(bytes.map(() => true));
    const key = ['k.constructor', "k['constructor']", "k['toHex']", "k['equals']"];
    expect(absent(key, keyArgument())).toEqual(key.map(() => true));
  });

  it('bytes have a length and no other member; a key has no members', () => {
    expect(value(`return b.length;`, { params: 'b: bytes', args: ['AQID'] })).toBe(3);
    expect(value(`return b.size;`, { params: 'b: bytes', args: ['AQID'] })).toBeUndefined();
    expect(value(`return k.length;`, keyArgument())).toBeUndefined();
    expect(value(`return k.x;`, keyArgument())).toBeUndefined();
  });

  it('a member of undefined or null is a fault naming the member', () => {
    expect(fault(`let u; return u.size;`)).toBe("Cannot read properties of undefined (reading 'size')");
    expect(fault(`let u = null; return u.size;`)).toBe("Cannot read properties of null (reading 'size')");
    expect(fault(`let u = null; return u.length;`)).toBe("Cannot read properties of null (reading 'length')");
  });
});

describe('index access beyond arrays by number and maps by short keys', () => {
  it.each([
    // Arrays by text: only the canonical form of an index names an element.
    [`let a = [10, 20, 30]; return a['1'];`, 20],
    [`let a = [10, 20, 30]; return a['0'];`, 10],
    [`let a = [10, 20, 30]; return a['01'];`, undefined],
    [`let a = [10, 20, 30]; return a['1.0'];`, undefined],
    [`let a = [10, 20, 30]; return a['-1'];`, undefined],
    [`let a = [10, 20, 30]; return a[''];`, undefined],
    [`let a = [10, 20, 30]; return a[' 1'];`, undefined],
    [`let a = [10, 20, 30]; return a['length'];`, 3],
    [`let a = [10, 20, 30]; return a['size'];`, undefined],
    [`let a = [10, 20, 30]; return a[true];`, undefined],
    [`let a = [10, 20, 30]; return a[null];`, undefined],
    [`let s = 'abc'; return s[null];`, undefined],
    // Strings: a character by index (number or text), the length by 'length'.
    [`let s = 'abc'; return s[1];`, 'b'],
    [`let s = 'abc'; return s[0];`, 'a'],
    [`let s = 'abc'; return s['2'];`, 'c'],
    [`let s = 'abc'; return s[3];`, undefined],
    [`let s = 'abc'; return s[-1];`, undefined],
    [`let s = 'abc'; return s[1.5];`, undefined],
    [`let s = 'abc'; return s['length'];`, 3],
    [`let s = 'abc'; return s['x'];`, undefined],
    // Other primitives have no indexes.
    [`let n = 5; return n[0];`, undefined],
    [`let b = false; return b['length'];`, undefined],
  ])('%s', (text, expected) => {
    expect(value(text)).toBe(expected);
  });

  it('a string index reaches the largest array index and no further', () => {
    const big = (key: string) => value(`let s = 'abc'; let m = {}; m['${key}'] = 1; return [s['${key}'], m['${key}']];`);
    expect(big('4294967294')).toEqual([null, 1]);
    expect(value(`let a = []; a[4] = 'e'; return a['4'];`)).toBe('e');
    expect(fault(`let a = []; a['4294967295'] = 1;`)).toBe('invalid array index "4294967295"');
    expect(fault(`let a = []; a['00000000001'] = 1;`)).toBe('invalid array index "00000000001"');
    expect(fault(`let a = []; a['01'] = 1;`)).toBe('invalid array index "01"');
    // Ten digits are an index (of an array longer than the runtime allows), eleven never are.
    expect(fails(run(`let a = []; a['1234567890'] = 1;`))).toMatchObject({ reason: 'function/limit-exceeded' });
    expect(fails(run(`let a = []; a[4294967294] = 1;`))).toMatchObject({ reason: 'function/limit-exceeded' });
    expect(fault(`let a = []; a[''] = 1;`)).toBe('invalid array index ""');
    expect(fault(`let a = []; a['1.5'] = 1;`)).toBe('invalid array index "1.5"');
  });

  it('a number index that is no array index is refused when written', () => {
    expect(fault(`let a = []; a[-1] = 1;`)).toBe('invalid array index -1');
    expect(fault(`let a = []; a[1.5] = 1;`)).toBe('invalid array index 1.5');
    expect(fault(`let a = []; a[4294967295] = 1;`)).toBe('invalid array index 4294967295');
    expect(fault(`let a = []; a[true] = 1;`)).toBe('invalid array index true');
  });

  it('bytes are read by index and written as numbers within their length', () => {
    const bytes = (text: string) => value(text, { params: 'b: bytes', args: ['AQID'] });
    expect(bytes(`return [b[0], b[2], b['1'], b[3], b[-1], b['length'], b['x']];`)).toEqual([1, 3, 2, null, null, 3, null]);
    expect(bytes(`b[0] = 300; b[1] = '7'; b[3] = 9; b[-1] = 9; b['x'] = 9; return [b[0], b[1], b[2], b.length];`)).toEqual([44, 7, 3, 3]);
    expect(bytes(`b[2] = 0; return b[2];`)).toBe(0);
    // A write outside the bytes does not even look at the value.
    expect(bytes(`b[3] = [1]; b[-1] = [1]; b['x'] = [1]; return b.length;`)).toBe(3);
    expect(fault(`b[0] = [1];`, { params: 'b: bytes', args: ['AQID'] })).toBe('cannot use array [1] as a number (operator =)');
  });

  it('a public key has no indexes and cannot be written', () => {
    expect(value(`return k[0];`, keyArgument())).toBeUndefined();
    expect(value(`return k['x'];`, keyArgument())).toBeUndefined();
    expect(fault(`k[0] = 1;`, keyArgument())).toBe('Cannot change a PublicKey (setting 0)');
  });

  it('a map is keyed by the text of a key, a public key by its hex form', () => {
    expect(value(`let m = {}; m[1] = 'one'; return m['1'];`)).toBe('one');
    expect(value(`let m = {}; m[true] = 'yes'; return m['true'];`)).toBe('yes');
    expect(value(`let m = {}; m['true'] = 'yes'; return m[true];`)).toBe('yes');
    expect(value(`let m = {}; m[k] = 1; return m[k.toHex()];`, keyArgument())).toBe(1);
    expect(value(`let m = {}; m[k.toHex()] = 2; return m[ctx.publicKey];`, keyArgument())).toBe(2);
    expect(fault(`let m = {}; m[[1]] = 1;`)).toBe('cannot use array [1] as a key');
    expect(fault(`let m = {}; let key = {}; return m[key];`)).toBe('cannot use object {} as a key');
  });

  it('reading a map by a key longer than 64 characters pays one gas per 64 of them', () => {
    const read = (length: number) => gas(`let m = {}; let k = '${'k'.repeat(length)}'; return m[k];`);
    expect(read(64)).toBe(read(1));
    expect(read(65)).toBe(read(1) + 1);
    expect(read(200)).toBe(read(1) + 3);
  });

  it('writing a new key pays for the key; writing an existing long one pays for comparing it', () => {
    const write = (length: number, again: boolean) =>
      gas(`let m = {}; let k = '${'k'.repeat(length)}'; ${again ? 'm[k] = 0;' : 'm.z = 0;'} m[k] = 1; return 0;`);
    // A new key: 4, and one per 16 characters of it.
    expect(write(65, false)).toBe(write(1, false) + 4);
    expect(write(200, false)).toBe(write(1, false) + 12);
    // An existing key longer than 64 characters: one per 64 characters to find it.
    expect(write(65, true)).toBe(write(1, true) + 4 + 1);
    expect(write(200, true)).toBe(write(1, true) + 12 + 3);
  });

  it('an index of undefined or null is a fault naming the key', () => {
    expect(fault(`let u; return u[0];`)).toBe("Cannot read properties of undefined (reading '0')");
    expect(fault(`let u = null; return u['name'];`)).toBe("Cannot read properties of null (reading 'name')");
    expect(fault(`let u = null; let k = '${'k'.repeat(50)}'; return u[k];`)).toBe(`Cannot read properties of null (reading '${'k'.repeat(39)}…')`);
    expect(fault(`let u = null; let k = '${'k'.repeat(40)}'; return u[k];`)).toBe(`Cannot read properties of null (reading '${'k'.repeat(40)}')`);
    expect(fault(`let u = null; return u[true];`)).toBe("Cannot read properties of null (reading 'true')");
    expect(fault(`let u = null; return u[[1, 2]];`)).toBe("Cannot read properties of null (reading '[1,2]')");
    expect(fault(`let u; u[0] = 1;`)).toBe('Cannot set properties of undefined (setting 0)');
    expect(fault(`let u = null; u.x = 1;`)).toBe('Cannot set properties of null (setting "x")');
    expect(fault(`let n = 5; n[0] = 1;`)).toBe('Cannot create property 0 on number 5');
  });
});

describe('array length', () => {
  it('a longer length adds holes and pays for them; a shorter one drops elements', () => {
    expect(value(`let a = [1, 2, 3]; a.length = 1; return a;`)).toEqual([1]);
    expect(value(`let a = [1, 2, 3]; a['length'] = 0; return a.length;`)).toBe(0);
    expect(value(`let a = [1]; a.length = 3; return a.length;`)).toBe(3);
    expect(value(`let a = [1]; a.length = '2'; return a.length;`)).toBe(2);
    expect(gas(`let a = [1]; a.length = 41; return 0;`) - gas(`let a = [1]; a.length = 1; return 0;`)).toBe(40);
    expect(gas(`let a = [1, 2, 3]; a.length = 2; return 0;`)).toBe(gas(`let a = [1, 2, 3]; a.length = 3; return 0;`));
  });

  it('growing an array by index pays for every new element', () => {
    expect(gas(`let a = [1]; a[10] = 1; return 0;`) - gas(`let a = [1]; a[0] = 1; return 0;`)).toBe(10);
    expect(gas(`let a = [1, 2]; a[1] = 1; return 0;`)).toBe(gas(`let a = [1, 2]; a[0] = 1; return 0;`));
    expect(gas(`let a = [1, 2]; a[2] = 1; return 0;`)).toBe(gas(`let a = [1, 2]; a[0] = 1; return 0;`) + 1);
  });

  it('a length that is not an array length is a fault', () => {
    for (const length of ['-1', '1.5', '4294967296', "'x'"]) {
      expect(fault(`let a = [1]; a.length = ${length};`)).toBe('Invalid array length');
    }
    // The largest array length is one; the runtime's array cap then refuses it.
    expect(fails(run(`let a = []; a.length = 4294967295;`))).toMatchObject({
      reason: 'function/limit-exceeded',
      message: expect.stringContaining('array too long: 4294967295 elements'),
    });
  });
});

describe('delete', () => {
  it('leaves a hole in an array and removes a key of a map', () => {
    expect(value(`let a = [1, 2, 3]; delete a[1]; return [a.length, a[1], a[2]];`)).toEqual([3, null, 3]);
    expect(value(`let a = [1, 2, 3]; delete a['0']; return a[0];`)).toBeUndefined();
    expect(value(`let a = [1, 2, 3]; delete a['x']; delete a[-1]; delete a['length']; return a;`)).toEqual([1, 2, 3]);
    expect(value(`let m = { a: 1, b: 2 }; delete m['a']; return m;`)).toEqual({ b: 2 });
    expect(value(`let m = {}; m['1'] = 1; m.b = 2; delete m[1]; return m;`)).toEqual({ b: 2 });
    expect(value(`let m = {}; m[k] = 1; delete m[ctx.publicKey]; return m;`, keyArgument())).toEqual({});
  });

  it('is true, as in JavaScript', () => {
    expect(value(`let a = [1]; let m = {}; m.a = 1; let s = 'x'; return [delete a[0], delete a['x'], delete m['a'], delete s[0]];`)).toEqual([true, true, true, true]);
  });

  it('of a primitive changes nothing; of undefined or null is a fault', () => {
    expect(value(`let s = 'abc'; delete s[0]; return s;`)).toBe('abc');
    expect(fault(`let u; delete u['x'];`)).toBe('Cannot convert undefined or null to object (deleting "x")');
    expect(fault(`let u = null; delete u[1];`)).toBe('Cannot convert undefined or null to object (deleting 1)');
  });
});

describe('for…in beyond arrays and maps', () => {
  it('over bytes takes the indexes; over a number, a string, null, undefined or a public key is a fault', () => {
    expect(value(`let n = 0; for (let i in b) { n = n + i; } return n;`, { params: 'b: bytes', args: [new Uint8Array([7, 8, 9])] })).toBe(3);
    for (const [init, shown] of [['5', 'x'], [`'ab'`, 'x'], ['null', 'x'], ['undefined', 'x']] as const) {
      expect(fault(`let x = ${init}; for (let k in x) { } return 1;`)).toBe(`${shown} is not an array or a map (for…in)`);
    }
    expect(fault(`let x = ctx.publicKey; for (let k in x) { } return 1;`, { ctx: { publicKey: alice } })).toBe('x is not an array or a map (for…in)');
  });
});
