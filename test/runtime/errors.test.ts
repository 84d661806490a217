// Every error path of the runtime, and bad input of every kind: each ends in a typed error, never a
// crash, a hang, a stack overflow or exhausted memory.
import { describe, expect, it } from 'vitest';
import { execute } from '../../src/runtime/index.ts';
import { body, call, evaluate, fails, load } from './helpers.ts';

function error(text: string, options: { params?: string; args?: unknown[]; gas?: number } = {}) {
  return fails(execute(body(text, { params: options.params }), 'f', { id: 'r' }, options.args ?? [], {}, options.gas ? { gas: options.gas } : undefined));
}

describe('errors raised by the program', () => {
  it('error() is a collection error', () => {
    expect(error(`error('no');`)).toMatchObject({ reason: 'function/collection-error', message: 'collection function error: no' });
    expect(error(`throw error('no');`)).toMatchObject({ reason: 'function/collection-error' });
  });

  it('a thrown value is a JavaScript exception', () => {
    expect(error(`throw 'boom';`)).toMatchObject({ reason: 'function/javascript-exception', message: 'JavaScript exception error: boom' });
    expect(error(`throw { code: 1 };`).message).toBe('JavaScript exception error: {"code":1}');
  });

  it('errors carry the position of the failing statement', () => {
    const t = load(`collection T {\n  id: string;\n  f () {\n    let a = 1;\n    error('x');\n  }\n}`, 'T', { check: false });
    expect(fails(call(t, 'f', { id: 'r' }))).toMatchObject({ line: 5, column: 5 });
  });

  it('the position is the statement that last recorded one: a statement pays its gas before it records its own', () => {
    // Pinned because a change to how statements record positions (or merges their gas) must keep these.
    const t = load(
      'collection T {\n  id: string;\n  f (): number {\n    let a = 1;\n    let b = 2;\n    return a;\n  }\n' +
        '  g (): number {\n    while (true) {\n      let z = 1;\n      break;\n    }\n    return 0;\n  }\n' +
        '  h (): number {\n    let q = {};\n    for (let i = 0; i < 3; i = i + q.x.y) {\n      let z = 1;\n    }\n    return 0;\n  }\n}',
      'T',
      { check: false },
    );
    /** The lines out-of-gas errors report as the limit grows, each once, in order (null: no position). */
    const linesOutOfGas = (fn: string): (number | null)[] => {
      const seen: (number | null)[] = [];
      for (let gas = 0; ; gas++) {
        const result = call(t, fn, { id: 'r' }, [], {}, { gas });
        if (result.ok) return seen;
        expect(result.error.reason).toBe('function/out-of-gas');
        const line = result.error.line ?? null;
        if (seen.at(-1) !== line) seen.push(line);
      }
    };
    // `let b` and `return` failing on entry report the statement before each.
    expect(linesOutOfGas('f')).toEqual([null, 4, 5]);
    // `let z` failing on entry reports the loop; `break` (which records no position) and the `return` after the
    // loop report `let z`, the last statement that recorded one.
    expect(linesOutOfGas('g')).toEqual([null, 9, 10]);
    // A fault in a loop's update, after its body ran, reports the body's last statement.
    expect(fails(call(t, 'h', { id: 'r' }))).toMatchObject({ reason: 'function/javascript-exception', line: 18, column: 7 });
  });
});

describe('faults', () => {
  it.each([
    [`let o = {}; return o.a.b;`, "Cannot read properties of undefined (reading 'b')"],
    [`let o = null; return o[1];`, "Cannot read properties of null (reading '1')"],
    [`let u; u.x = 1;`, 'Cannot set properties of undefined (setting "x")'],
    [`let s = 'abc'; s.x = 1;`, 'Cannot create property "x" on string "abc"'],
    [`return missing;`, 'missing is not defined'],
    [`return x; let x = 1;`, "Cannot access 'x' before initialization"],
    [`const c = 1; c = 2;`, "Assignment to constant variable 'c'"],
    [`let n = 1; return n();`, 'n is not a function'],
    [`return this.nothing();`, 'this.nothing is not a function'],
    [`return [1].map(1);`, '[1].map is not a function (it is called on array)'],
    [`return Math.random();`, 'Math.random is not a function'],
    [`return nope();`, 'nope is not defined'],
    [`let f = error; return 1;`, 'error is a function and cannot be used as a value; call it'],
    [`return [1] + 'a';`, 'cannot add array and string'],
    [`return {} < 1;`, 'cannot compare object with number (operator <)'],
    [`for (const x of 5) {}`, '5 is not iterable'],
    [`let a = []; a['x'] = 1;`, 'invalid array index "x"'],
    [`ctx.publicKey = 1;`, 'Cannot assign to ctx.publicKey'],
    [`let u; if (u.length > 1) {}`, "Cannot read properties of undefined (reading 'length')"],
  ])('%s', (text, message) => {
    expect(error(text)).toMatchObject({ reason: 'function/javascript-exception', message: `JavaScript exception error: ${message}` });
  });

  it('a public key cannot be changed', () => {
    const t = body(`ctx.publicKey.x = 1;`);
    expect(fails(execute(t, 'f', { id: 'r' }, [], { publicKey: '0x' + '79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798' + '483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8' })).message).toContain('Cannot change a PublicKey');
  });
});

describe('limits', () => {
  it('an endless loop runs out of gas, using exactly its limit', () => {
    const result = execute(body(`while (true) {}`), 'f', { id: 'r' }, [], {}, { gas: 10_000 });
    expect(result).toMatchObject({ ok: false, gasUsed: 10_000, error: { reason: 'function/out-of-gas' } });
  });

  it('doubling a string ends at the string length cap', () => {
    const e = error(`let s = 'x'; while (true) { s = s + s; }`);
    expect(e).toMatchObject({ reason: 'function/limit-exceeded', message: 'string too long: 2097152 characters (the limit is 1048576)' });
  });

  it('doubling with repeat or padStart is caught before allocating', () => {
    expect(error(`return 'ab'.repeat(1e9);`).reason).toBe('function/limit-exceeded');
    expect(error(`return 'a'.padStart(1e12);`).reason).toBe('function/limit-exceeded');
    expect(error(`let a = [1]; a[1e9] = 1;`).reason).toBe('function/limit-exceeded');
    expect(error(`let a = [1]; a.length = 4e9;`).reason).toBe('function/limit-exceeded');
  });

  it('growing an array without end runs out of gas or hits the array cap', () => {
    expect(error(`let a = []; while (true) { a.push(1, 2, 3, 4, 5, 6, 7, 8); }`, { gas: 1_000_000 }).reason).toBe('function/out-of-gas');
    expect(error(`let a = [0]; while (true) { a = a.concat(a); }`).reason).toMatch(/^function\/(limit-exceeded|out-of-gas)$/);
  });

  it('a map growing without end runs out of gas', () => {
    expect(error(`let m = {}; let i = 0; while (true) { m['k' + i] = i; i++; }`, { gas: 200_000 }).reason).toBe('function/out-of-gas');
  });

  it('unbounded recursion stops at the call depth limit', () => {
    const t = load(`collection T { id: string; f (n: number): number { return this.f(n + 1); } }`, 'T', { check: false });
    expect(fails(call(t, 'f', { id: 'r' }, [0]))).toMatchObject({
      reason: 'function/limit-exceeded',
      message: 'call depth limit exceeded: more than 100 nested calls of collection functions',
    });
    expect(fails(call(t, 'f', { id: 'r' }, [0], {}, { maxCallDepth: 5 })).message).toContain('more than 5 nested');
  });

  it('deeply nested expressions at the deepest call depth do not overflow the stack', () => {
    const nested = `${'(1 + '.repeat(150)}n${')'.repeat(150)}`;
    const t = load(`collection T { id: string; f (n: number): number { if (n >= 99) { return ${nested}; } return this.f(n + 1); } }`, 'T', { check: false });
    const result = call(t, 'f', { id: 'r' }, [0]);
    expect(result.ok ? result.transition.returnValue : result.error.reason).toBe(249);
  });
});

describe('bad input', () => {
  const t = load(`@public collection T { id: string; n?: number; f (a: number, b: string[]) { this.n = a + b.length; } }`, 'T');

  it('wrong argument types, with the path inside the argument', () => {
    expect(fails(call(t, 'f', { id: 'r' }, ['1', []])).message).toBe('invalid argument type for parameter "a": expected type: number, got value: "1"');
    expect(fails(call(t, 'f', { id: 'r' }, [1, ['a', 2]])).message).toBe('invalid argument type for parameter "b": expected type: string, got value: 2 (at "b[1]")');
    expect(fails(call(t, 'f', { id: 'r' }, [1, 'x'])).reason).toBe('function/invalid-args');
  });

  it('arguments that are not an array, or too many', () => {
    expect(fails(execute(t, 'f', { id: 'r' }, 'x' as never)).reason).toBe('function/invalid-args');
    expect(fails(call(t, 'f', { id: 'r' }, new Array(5000).fill(1))).message).toBe('method f args invalid, expected 2 got 5000');
  });

  it('huge strings and arrays as arguments are accepted and bounded by gas', () => {
    const huge = 'x'.repeat(5_000_000);
    const big = load(`@public collection T { id: string; f (s: string, a: number[]): number { return s.toUpperCase().length + a.indexOf(-1); } }`, 'T');
    expect(fails(call(big, 'f', { id: 'r' }, [huge, []])).reason).toMatch(/^function\/(out-of-gas|limit-exceeded)$/);
    expect(fails(call(big, 'f', { id: 'r' }, ['a', new Array(2_000_000).fill(1)], {}, { gas: 1_000_000 })).reason).toBe('function/out-of-gas');
  });

  it('a snapshot that is not a record', () => {
    expect(fails(execute(t, 'f', [] as never, [1, []])).reason).toBe('record/invalid-field');
    expect(fails(execute(t, 'f', { id: 5 } as never, [1, []])).reason).toBe('record/invalid-field');
  });

  it('an invalid ctx key', () => {
    expect(fails(execute(t, 'f', { id: 'r' }, [1, []], { publicKey: 'nope' })).reason).toBe('function/invalid-args');
  });

  it('map keys that name prototype members are ordinary keys', () => {
    expect(evaluate(`let m = {}; m['__proto__'] = 1; m['constructor'] = 2; return m['__proto__'] + m['constructor'] + (m['toString'] == undefined ? 10 : 0);`)).toBe(13);
  });
});

describe('cyclic values', () => {
  it('join and String() skip a cycle as JavaScript does', () => {
    const text = `let a = []; a.push(a); a.push(1);`;
    expect(evaluate(`${text} return String(a);`)).toBe(',1');
    expect(evaluate(`${text} return [a, 2].join('-');`)).toBe(',1-2');
  });

  it('returning a cyclic map is an invalid return value', () => {
    expect(error(`let m = {}; m['self'] = m; return m;`)).toMatchObject({
      reason: 'function/invalid-return',
      message: 'the return value cannot be returned: the value contains itself (a cycle) and has no JSON form',
    });
    // The same map twice (not a cycle) is fine.
    expect(evaluate(`let m = {}; return [m, m];`)).toEqual([{}, {}]);
  });

  it('very deeply nested arrays cannot be turned into text', () => {
    expect(error(`let a = [1]; for (let i = 0; i < 500; i++) { a = [a]; } return String(a);`).reason).toBe('function/limit-exceeded');
  });
});

describe('deeply nested input', () => {
  it('a record of an unknown collection nested without end is an invalid argument', () => {
    const t = load(`@public collection T { id: string; f (o: Other): number { return 1; } }`, 'T', { check: false });
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(fails(call(t, 'f', { id: 'r' }, [{ collectionId: 'ns/Other', id: 'o', data: { id: 'o', deep } }]))).toMatchObject({
      reason: 'function/invalid-args',
      message: 'invalid argument type for parameter "o": the record nests more than 256 levels deep',
    });
  });
});

describe('comparisons in if statements', () => {
  it('follow JavaScript for numbers, lengths, undefined and mixed operands', () => {
    expect(
      evaluate(
        `let x; let n = 0; let r = 0; let t = 'abc'; let z = '10';
         if (x === 0) { r += 1; } if (x !== n) { r += 10; } if (t.length >= 3) { r += 100; } if (n <= 0) { r += 1000; }
         if (z > n) { r += 10000; } if (x < n) { r += 100000; }
         return r;`,
      ),
    ).toBe(11110);
  });
});
