// The fused closures the compiler builds for common shapes (counted loops, loop bodies run without a
// sequence closure, `x += v`, `x -= v`, `list.push(x)`, `list.splice(a, b)`, `text.slice(a, b)`, comparisons in `if`) against the general path
// (`fastPaths: false`): every call must give the same result, the same error and the same gas,
// including when the gas runs out at any point of the call.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse } from '../../src/lang/index.ts';
import { compileCollection, execute, type ExecutionLimits } from '../../src/runtime/index.ts';

const schema = `
collection T {
  id: string;
  items: number[];
  text: string;

  loopSum (n: number): number {
    let t = 0;
    for (let i = 0; i < n; i++) {
      if (i === 3) { continue; }
      if (i > 50) { break; }
      t += i;
      t -= 1;
    }
    return t;
  }

  loopReturn (n: number): number {
    for (let i = 0; i <= n; i++) {
      if (i >= 7) { return i; }
    }
    return -1;
  }

  loopEmpty (n: number): number {
    let i = 0;
    for (; i < n; i++) {}
    for (let j = n; j < 3; j++) {}
    return i;
  }

  loopDown (n: number): number {
    let c = 0;
    for (let i = n; i <= 10; i--) { c += 1; if (c > 12) { break; } }
    return c;
  }

  whileTwo (n: number): number {
    let i = 0;
    let t = 100;
    while (i < n) { i += 2; t -= 1; if (t < 90) { break; } }
    return t;
  }

  whileSkip (n: number): number {
    let i = 0;
    let t = 0;
    while (i < n) {
      if (i === 2) { i += 3; continue; }
      if (i > 30) { break; }
      i += 1;
      t += i;
    }
    return t;
  }

  strings (n: number, s: string): string {
    let x = s;
    for (let i = 0; i < n; i++) {
      x += 'ab';
      x += s;
      if (x.length > 40) { x = x.slice(10); }
    }
    this.text = x;
    return x;
  }

  mixedAdd (n: number, s: string): string {
    let x;
    x += n;
    let y = s;
    y += n;
    y -= 1;
    let z = 'q';
    z += [n, 1];
    return y;
  }

  addToArray (n: number): number {
    let z = n;
    z += [n];
    return 0;
  }

  constantAdd (n: number): number {
    const c = 1;
    c += n;
    return c;
  }

  arrays (n: number): number {
    let a = [];
    for (let i = 0; i < n; i++) {
      a.push(i);
      a.push(i * 2);
      if (a.length > 5) { a.splice(0, 2); }
    }
    a.splice(1, 1, 7, 8);
    a.splice(2);
    this.items = a;
    return a.push(n) + a.length;
  }

  maps (n: number): number {
    let m = {};
    let list = [5, 6];
    let counts = 0;
    for (let i = 0; i < n; i++) {
      let k = 'k' + (i % 3);
      if (m[k]) { m[k] = m[k] + 1; } else { m[k] = 1; }
      let j = i % 4;
      list[j] = i;
      counts += list[j];
      let other = k;
      m[other] = (other = 'x' + i);
      counts += m[other] === undefined ? 1 : 0;
    }
    let key = 'long'.repeat(20);
    m[key] = 1;
    counts += m[key];
    let none;
    return counts + (list[none] === undefined ? 1000 : 0);
  }

  lengths (n: number, s: string): number {
    let c = 0;
    let m = { length: n };
    let none;
    let xs = [1, 2, 3];
    if (xs.length < n) { c += 1; }
    if (s.length <= n) { c += 2; }
    if (m.length > 2) { c += 4; }
    if (xs.length >= 3) { c += 8; } else { c += 16; }
    let t = s.slice(1) + xs.splice(0, 1).length + s.padStart(6, '-');
    c += t.length * 100;
    if (n > 4) { c += none.slice(1); }
    if (none.length > 1) { c += 32; }
    return c;
  }

  nested (n: number, s: string): string {
    let t = 0;
    let u = s;
    let m = { length: n };
    let xs = [1, 2];
    for (let i = 0; i < n; i++) {
      t = (t + i * 3 - (i % 7)) % 1000003;
      t = t * (i + 1) / (i - 0.5) + (i / 4) * 2;
      t = (i - 2) % 5 - t + (n * 2 - i) * (t % 3);
      t += 7 - (i + 1) + xs.length * (i % 2) + (i / 2) % m.length;
    }
    u = u + (n - 1) + (n * 2) + s;
    let k = 'k' + (n % 3);
    u = (s + 1) + u + (u + 2) + (k + 1);
    return u + ':' + t;
  }

  nestedFaults (n: number, s: string): number {
    let o = { a: 1 };
    let none;
    let t = s * 2 - (s % 3);
    if (n === 1) { t = 1 + none * 2; }
    if (n === 2) { t = (o % 2) + 1; }
    if (n === 3) { t = o.a + (o - 1); }
    return t;
  }

  loopCopies (n: number, s: string): string {
    let xs = [];
    let t = 0;
    let u = '';
    for (let i = 0; i < n; i++) { xs.push(i); }
    for (let i = 0; i < n; i++) { xs.push(i * 2); if (xs.length > 5) { xs.splice(0, 2); } }
    for (let i = 0; i < n; i++) { t += i; }
    for (let i = 0; i < n; i++) { t -= 1; if (t > 40) { break; } }
    for (let i = 0; i < n; i++) { u = u + s; }
    for (let i = 0; i < n; i++) { t = t * 2 - i; if (t > 1000) { return u + t; } }
    for (let i = 0; i < s; i++) { u += 'a'; }
    return u + xs.join(',') + t;
  }

  guards (n: number, s: string): number {
    let c = 0;
    let m = { length: n };
    let xs = [1, 2, 3];
    if (xs.length < 3) { c += 1; }
    if (s.length <= 2) { c += 2; }
    if (xs.length > 2) { c += 4; }
    if (s.length >= 3) { c += 8; }
    if (m.length < 2) { c += 16; }
    if (m.length <= 2) { c += 32; }
    if (m.length >= 2) { c += 64; }
    if (m.length > 2) { return c; }
    let none;
    if (none.length < 1) { c += 128; }
    return c;
  }

  mapArrayKey (n: number): number {
    let m = {};
    let list = [n];
    return m[list];
  }

  mapsOnText (s: string): string {
    let k = 0;
    let t = s[k];
    if (s.length > 2) { s[k] = 'z'; }
    return t + s;
  }

  splices (n: number, s: string): number {
    let a = [1, 2, 3, 4, 5, 6, 7, 8];
    let removed = a.splice(1, 2);
    a.splice(n, 1);
    a.splice(-2, n);
    a.splice(s, n - 1);
    let k = 1;
    a.splice(k, a.push(n));
    let t = a.splice(0, 1).length + removed.length;
    this.items.splice(0, n);
    let b = a;
    b.splice(0, 0);
    a.splice(n - 20, 'x');
    return t + a.length * 10 + this.items.length * 100;
  }

  spliceNotArray (n: number, s: string): number {
    let m = { splice: 1 };
    let none;
    if (n === 0) { s.splice(0, 1); }
    if (n === 1) { m.splice(0, 1); }
    if (n === 2) { none.splice(0, 1); }
    if (n === 3) { n.splice(0, 1); }
    if (n === 4) { let x = s.splice(n, 1); }
    if (n === 5) { let x = none.splice(n, none.length); }
    return n;
  }

  spliceBeforeInit (n: number): number {
    later.splice(0, 1);
    let later = [n];
    return 0;
  }

  slices (n: number, s: string): string {
    let t = s;
    let u = t.slice(1) + '|' + t.slice(-2) + '|' + t.slice(n, n + 3) + '|' + t.slice(s, -1) + '|' + t.slice(2, 1);
    for (let i = 0; i < n; i++) { t += 'abcdefghijklmnopqrstuvwxyz'; if (t.length > 40) { t = t.slice(7); } }
    let k = n - 2;
    u += t.slice(k) + t.slice(k, k * 2) + t.slice(t.length - n) + t.slice('1', '4');
    let xs = [1, 2, 3, 4];
    u += xs.slice(1).length + xs.slice(n, 3).length;
    this.text = u;
    return u;
  }

  sliceFaults (n: number, s: string): string {
    let none;
    let m = { slice: 1 };
    let x = 7;
    if (n === 0) { none.slice(1); }
    if (n === 1) { m.slice(1); }
    if (n === 2) { x.slice(0, 1); }
    if (n === 3) { s.slice({}); }
    if (n === 4) { s.slice(1, [2]); }
    if (n === 5) { s.slice(none.length); }
    if (n === 6) { s.slice(s = 'changed'); }
    if (n === 7) { s.slice(1, 2, 3); }
    return s;
  }

  sliceBeforeInit (n: number): string {
    let t = later.slice(n);
    let later = 'abc';
    return t;
  }

  pushFieldArray (n: number): number {
    let count = this.items.push(n);
    this.items.push(n + 1);
    return count;
  }

  pushVariable (n: number): number {
    let xs = [];
    let x = n;
    for (let i = 0; i < n; i++) { xs.push(i); }
    xs.push(x);
    let ys = n;
    ys.push(x);
    return xs.length;
  }

  pushString (s: string): number {
    let a = s;
    a.push(1);
    return 0;
  }

  pushUndefined (n: number): number {
    let a;
    a.push(n);
    return 0;
  }

  pushMap (n: number): number {
    let a = {};
    a.push(n);
    return 0;
  }
}
`;

const parsed = parse(schema, 'fast-paths.polylang');
const fast = compileCollection(parsed, 'T', { collectionId: 'ns/T' });
const general = compileCollection(parsed, 'T', { collectionId: 'ns/T', fastPaths: false });
const record = { id: 'r', items: [1, 2, 3], text: '' };

interface Call {
  fn: string;
  args: unknown[];
  limits?: Partial<ExecutionLimits>;
}

function both(call: Call) {
  const a = execute(fast, call.fn, record, call.args, {}, call.limits);
  const b = execute(general, call.fn, record, call.args, {}, call.limits);
  return { a, b };
}

/** The same result at the call's own gas, and with every smaller limit (out of gas at each point). */
function expectSameAtEveryGasLimit(call: Call): void {
  const { a, b } = both(call);
  expect(a).toEqual(b);
  const used = a.ok ? a.transition.gasUsed : a.gasUsed;
  const step = Math.max(1, Math.floor(used / 150));
  for (let gas = 0; gas <= used; gas += step) {
    const limited = both({ ...call, limits: { ...call.limits, gas } });
    expect(limited.a).toEqual(limited.b);
  }
}

const calls: Call[] = [
  ...[0, 1, 3, 4, 20, 60].map((n) => ({ fn: 'loopSum', args: [n] })),
  ...[0, 5, 20].map((n) => ({ fn: 'loopReturn', args: [n] })),
  ...[0, 2, 5].map((n) => ({ fn: 'loopEmpty', args: [n] })),
  ...[0, 9, 11].map((n) => ({ fn: 'loopDown', args: [n] })),
  ...[0, 3, 40].map((n) => ({ fn: 'whileTwo', args: [n] })),
  ...[0, 2, 10, 50].map((n) => ({ fn: 'whileSkip', args: [n] })),
  ...[0, 1, 12].map((n) => ({ fn: 'strings', args: [n, 'xyz'] })),
  { fn: 'strings', args: [30, 'a longer piece of text'] },
  { fn: 'strings', args: [10, 'abc'], limits: { maxStringLength: 20 } },
  { fn: 'mixedAdd', args: [2, 'p'] },
  { fn: 'addToArray', args: [2] },
  { fn: 'constantAdd', args: [2] },
  ...[0, 1, 2, 7, 30].map((n) => ({ fn: 'arrays', args: [n] })),
  { fn: 'arrays', args: [10], limits: { maxArrayLength: 6 } },
  { fn: 'arrays', args: [10], limits: { maxArrayLength: 7 } },
  ...[0, 1, 5, 12].map((n) => ({ fn: 'maps', args: [n] })),
  { fn: 'mapsOnText', args: ['abc'] },
  { fn: 'mapsOnText', args: [''] },
  { fn: 'mapArrayKey', args: [1] },
  ...[0, 2, 5].map((n) => ({ fn: 'lengths', args: [n, 'abc'] })),
  ...[0, 2, 5].map((n) => ({ fn: 'guards', args: [n, 'abc'] })),
  ...[0, 1, 4, 12].map((n) => ({ fn: 'loopCopies', args: [n, 'x'] })),
  { fn: 'loopCopies', args: [3, '2'] },
  { fn: 'loopCopies', args: [3, 'x'], limits: { maxArrayLength: 4 } },
  ...[0, 1, 3, 9].map((n) => ({ fn: 'nested', args: [n, 'q'] })),
  ...[0, 1, 2, 3].map((n) => ({ fn: 'nestedFaults', args: [n, '12'] })),
  { fn: 'guards', args: [1, 'ab'] },
  ...[0, 1, 3, 9].map((n) => ({ fn: 'splices', args: [n, '1'] })),
  { fn: 'splices', args: [2, 'x'] },
  ...[0, 1, 2, 3, 4, 5].map((n) => ({ fn: 'spliceNotArray', args: [n, 'abc'] })),
  { fn: 'spliceBeforeInit', args: [1] },
  ...[0, 1, 2, 5, 9].map((n) => ({ fn: 'slices', args: [n, 'hello world'] })),
  { fn: 'slices', args: [3, ''] },
  { fn: 'slices', args: [6, 'xy'], limits: { maxStringLength: 60 } },
  ...[0, 1, 2, 3, 4, 5, 6, 7].map((n) => ({ fn: 'sliceFaults', args: [n, 'abcdef'] })),
  { fn: 'sliceBeforeInit', args: [1] },
  { fn: 'pushFieldArray', args: [4] },
  { fn: 'pushFieldArray', args: [4], limits: { maxArrayLength: 4 } },
  ...[0, 1, 3].map((n) => ({ fn: 'pushVariable', args: [n] })),
  { fn: 'pushVariable', args: [3], limits: { maxArrayLength: 2 } },
  { fn: 'pushVariable', args: [3], limits: { maxArrayLength: 3 } },
  { fn: 'pushString', args: ['s'] },
  { fn: 'pushUndefined', args: [1] },
  { fn: 'pushMap', args: [1] },
];

describe('fast paths against the general path', () => {
  it.each(calls.map((call) => [`${call.fn}(${call.args.join(', ')})${call.limits ? ` ${JSON.stringify(call.limits)}` : ''}`, call] as const))(
    '%s: same result and gas at every gas limit',
    (_name, call) => {
      expectSameAtEveryGasLimit(call);
    },
  );

  it('the fast and the general path really are different compilations', () => {
    expect(fast).not.toBe(general);
    expect(fast.functions.get('arrays')!.body).not.toBe(general.functions.get('arrays')!.body);
  });

  it('a successful call uses the documented gas either way', () => {
    const { a, b } = both({ fn: 'loopEmpty', args: [2] });
    expect(a.ok && b.ok).toBe(true);
    if (a.ok && b.ok) expect(a.transition.gasUsed).toBe(b.transition.gasUsed);
  });

  it('random inputs and gas limits give the same results', () => {
    const functions = ['loopSum', 'loopReturn', 'loopEmpty', 'loopDown', 'whileTwo', 'whileSkip', 'strings', 'arrays', 'maps', 'mixedAdd', 'pushFieldArray', 'nested', 'splices', 'slices'];
    fc.assert(
      fc.property(
        fc.constantFrom(...functions),
        fc.integer({ min: -5, max: 80 }),
        fc.string({ maxLength: 8 }),
        fc.integer({ min: 0, max: 5000 }),
        fc.integer({ min: 0, max: 60 }),
        (fn, n, s, gas, maxArrayLength) => {
          const args = fn === 'strings' || fn === 'mixedAdd' || fn === 'nested' || fn === 'splices' || fn === 'slices' ? [n, s] : [n];
          const limits = { gas, maxArrayLength, maxStringLength: 64 };
          const { a, b } = both({ fn, args, limits });
          expect(a).toEqual(b);
        },
      ),
      { numRuns: 400 },
    );
  });
});
