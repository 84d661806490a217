// Every built-in of the catalogue: implemented, equal to JavaScript's result, charged the catalogue's gas.
import { describe, expect, it } from 'vitest';
import { publicKeyOf } from '../../src/auth/index.ts';
import { builtins } from '../../src/lang/index.ts';
import { execute, unimplementedBuiltins } from '../../src/runtime/index.ts';
import { uncataloguedImplementations } from '../../src/runtime/builtins.ts';
import { body, evaluate, fails, ok } from './helpers.ts';

/** Expressions whose Vellum value must equal JavaScript's (computed here with `new Function`, tests only). */
const differential: Record<string, string[]> = {
  'string.length': [`'hello'.length`, `''.length`],
  'string.toUpperCase': [`'abc ß'.toUpperCase()`],
  'string.toLowerCase': [`'ABC'.toLowerCase()`],
  'string.trim': [`'  a b  '.trim()`],
  'string.trimStart': [`'  a '.trimStart()`],
  'string.trimEnd': [`'  a '.trimEnd()`],
  'string.startsWith': [`'hello'.startsWith('he')`, `'hello'.startsWith('l', 2)`, `'hello'.startsWith('x')`],
  'string.endsWith': [`'hello'.endsWith('lo')`, `'hello'.endsWith('l', 3)`],
  'string.includes': [`'hello'.includes('ell')`, `'hello'.includes('h', 1)`],
  'string.indexOf': [`'hello'.indexOf('l')`, `'hello'.indexOf('l', 3)`, `'hello'.indexOf('z')`],
  'string.lastIndexOf': [`'hello'.lastIndexOf('l')`, `'hello'.lastIndexOf('l', 2)`],
  'string.slice': [`'hello'.slice(1)`, `'hello'.slice(1, -1)`, `'hello'.slice(-2)`, `'hello'.slice()`],
  'string.substring': [`'hello'.substring(1, 3)`, `'hello'.substring(3, 1)`, `'hello'.substring(-2)`],
  'string.split': [`'a,b,,c'.split(',')`, `'abc'.split('')`, `'a,b,c'.split(',', 2)`],
  'string.replace': [`'a-b-c'.replace('-', '+')`, `'abc'.replace('x', 'y')`],
  'string.replaceAll': [`'a-b-c'.replaceAll('-', '+')`, `'abc'.replaceAll('', '.')`],
  'string.repeat': [`'ab'.repeat(3)`, `'ab'.repeat(0)`],
  'string.padStart': [`'5'.padStart(3, '0')`, `'5'.padStart(3)`, `'abc'.padStart(2)`],
  'string.padEnd': [`'5'.padEnd(3, 'xy')`],
  'string.charAt': [`'abc'.charAt(1)`, `'abc'.charAt(9)`],
  'string.charCodeAt': [`'abc'.charCodeAt(1)`],
  'string.concat': [`'a'.concat('b', 'c')`],
  'string.at': [`'abc'.at(-1)`, `'abc'.at(0)`],
  'number.toString': [`(255).toString()`, `(255).toString(16)`, `(0.5).toString(2)`],
  'number.toFixed': [`(1.005).toFixed(2)`, `(12).toFixed()`, `(1e21).toFixed(2)`],
  'array.length': [`[1, 2, 3].length`],
  'array.push': [`[1].push(2, 3)`],
  'array.pop': [`[1, 2].pop()`],
  'array.shift': [`[1, 2].shift()`],
  'array.unshift': [`[1, 2].unshift(0)`],
  'array.splice': [`[1, 2, 3, 4].splice(1, 2)`, `[1, 2, 3, 4].splice(1)`, `[1, 2, 3].splice(-1, 1, 9, 8)`, `[1, 2].splice(0, 0, 5)`],
  'array.slice': [`[1, 2, 3].slice(1)`, `[1, 2, 3].slice(-2, -1)`, `[1, 2, 3].slice()`],
  'array.indexOf': [`[1, 2, 1].indexOf(1)`, `[1, 2, 1].indexOf(1, 1)`, `['a'].indexOf('b')`],
  'array.lastIndexOf': [`[1, 2, 1].lastIndexOf(1)`, `[1, 2, 1].lastIndexOf(1, 1)`, `[1, 2, 1].lastIndexOf(2, -3)`],
  'array.includes': [`[1, 2].includes(2)`, `[0 / 0].includes(0 / 0)`, `[1, 2].includes(1, 1)`],
  'array.concat': [`[1].concat([2, 3], [4])`],
  'array.join': [`[1, 'a', true].join('-')`, `[1, 2].join()`, `[[1, 2], [3]].join(';')`],
  'array.reverse': [`[1, 2, 3].reverse()`],
  'array.at': [`[1, 2, 3].at(-1)`],
  'array.fill': [`[1, 2, 3].fill(0, 1)`, `[1, 2, 3].fill(9)`],
  'Math.abs': [`Math.abs(-2.5)`],
  'Math.ceil': [`Math.ceil(1.2)`],
  'Math.floor': [`Math.floor(-1.2)`],
  'Math.round': [`Math.round(2.5)`, `Math.round(-2.5)`],
  'Math.trunc': [`Math.trunc(-1.7)`],
  'Math.sign': [`Math.sign(-3)`],
  'Math.sqrt': [`Math.sqrt(2)`],
  'Math.cbrt': [`Math.cbrt(27)`],
  'Math.exp': [`Math.exp(1)`],
  'Math.log': [`Math.log(10)`],
  'Math.log2': [`Math.log2(8)`],
  'Math.log10': [`Math.log10(1000)`],
  'Math.sin': [`Math.sin(1)`],
  'Math.cos': [`Math.cos(1)`],
  'Math.tan': [`Math.tan(1)`],
  'Math.asin': [`Math.asin(0.5)`],
  'Math.acos': [`Math.acos(0.5)`],
  'Math.atan': [`Math.atan(1)`],
  'Math.atan2': [`Math.atan2(1, 2)`],
  'Math.pow': [`Math.pow(2, 10)`],
  'Math.min': [`Math.min(3, 1, 2)`, `Math.min()`],
  'Math.max': [`Math.max(3, 1, 2)`],
  'Math.hypot': [`Math.hypot(3, 4)`],
  'Math.PI': [`Math.PI`],
  'Math.E': [`Math.E`],
  'Math.LN2': [`Math.LN2`],
  'Math.LN10': [`Math.LN10`],
  'Math.LOG2E': [`Math.LOG2E`],
  'Math.LOG10E': [`Math.LOG10E`],
  'Math.SQRT2': [`Math.SQRT2`],
  'Math.SQRT1_2': [`Math.SQRT1_2`],
  'Object.keys': [`Object.keys({ b: 1, a: 2 })`],
  'Object.values': [`Object.values({ b: 1, a: 2 })`],
  'Number.isInteger': [`Number.isInteger(5)`, `Number.isInteger(5.5)`],
  'Number.MAX_SAFE_INTEGER': [`Number.MAX_SAFE_INTEGER`],
  'Number.MIN_SAFE_INTEGER': [`Number.MIN_SAFE_INTEGER`],
  'global.Number': [`Number('12.5')`, `Number('x')`, `Number(true)`, `Number('')`, `Number()`, `isNaN(Number(undefined))`],
  'global.String': [`String(12)`, `String(true)`, `String([1, [2, 3]])`, `String(null)`, `String()`, `String(undefined)`],
  'global.parseInt': [`parseInt('42px')`, `parseInt('ff', 16)`, `parseInt('x')`],
  'global.parseFloat': [`parseFloat('3.5e2x')`],
  'global.isNaN': [`isNaN(0 / 0)`, `isNaN(1)`],
  'global.isFinite': [`isFinite(1 / 0)`, `isFinite(1)`],
  'global.NaN': [`NaN`],
  'global.Infinity': [`Infinity`],
};

/** Built-ins whose behaviour is checked by hand below (effects, keys, or rules that differ from JS on purpose). */
const byHand = new Set([
  'publicKey.toHex',
  'ctx.publicKey',
  'global.error',
  'global.selfdestruct',
  'number.wrappingAdd',
  'global.uint32WrappingSub',
  'global.uint32WrappingMul',
  // Polylang after 0.6: tested in later-builtins.test.ts.
  'global.assert',
  'global.log',
  'global.hashSHA256',
  'global.hashBlake3',
]);

function javascript(expression: string): unknown {
  // Test-only: the same expression as plain JavaScript.
  return new Function(`return ${expression};`)();
}

function normalise(value: unknown): unknown {
  // Vellum's generic return conversion turns non-finite numbers into null, as JSON does.
  return JSON.parse(JSON.stringify(value) ?? 'null');
}

describe('the catalogue', () => {
  it('every entry has an implementation, and every implementation an entry', () => {
    expect(unimplementedBuiltins()).toEqual([]);
    expect(uncataloguedImplementations()).toEqual([]);
  });

  it('every entry is tested here', () => {
    const tested = new Set([...Object.keys(differential), ...byHand]);
    expect(builtins.map((b) => b.id).filter((id) => !tested.has(id))).toEqual([]);
  });
});

describe('built-ins give JavaScript results', () => {
  for (const [id, expressions] of Object.entries(differential)) {
    for (const expression of expressions) {
      it(`${id}: ${expression}`, () => {
        expect(evaluate(`return ${expression};`)).toEqual(normalise(javascript(expression)));
      });
    }
  }

  it('non-finite results compare exactly inside the function', () => {
    expect(evaluate(`return Math.min() == Infinity && isNaN(Number('x')) && 1 / 0 === Infinity;`)).toBe(true);
  });
});

describe('built-ins checked by hand', () => {
  const key = publicKeyOf(new Uint8Array(32).fill(7));

  it('the u32 wrapping operations wrap modulo 2^32 and refuse operands that are not u32', () => {
    const params = 'a: u32, b: u32';
    expect(evaluate('return a.wrappingAdd(b);', [4294967295, 1], { params })).toBe(0);
    expect(evaluate('return uint32WrappingSub(a, b);', [1, 2], { params })).toBe(4294967295);
    expect(evaluate('return uint32WrappingMul(a, b);', [4294967295, 2], { params })).toBe(4294967294);
    const collection = body('return uint32WrappingSub(a, b);', { params: 'a: number, b: number' });
    expect(fails(execute(collection, 'f', { id: 'r' }, [-1, 2]))).toMatchObject({
      reason: 'function/arithmetic-error',
      message: 'uint32WrappingSub: -1 is out of range for u32 (whole numbers from 0 to 4294967295)',
    });
  });

  it('ctx.publicKey and toHex()', () => {
    expect(evaluate(`return ctx.publicKey.toHex();`, [], { ctx: { publicKey: key } })).toBe(key.toHex());
    expect(evaluate(`return $auth.publicKey.toHex();`, [], { ctx: { publicKey: key.toJwk() } })).toMatch(/^0x[0-9a-f]{128}$/);
    expect(evaluate(`return ctx.publicKey == undefined;`)).toBe(true);
  });

  it('toHex() without a key is a clear runtime error', () => {
    const t = body(`return ctx.publicKey.toHex();`);
    expect(fails(execute(t, 'f', { id: 'r' }, []))).toMatchObject({
      reason: 'function/javascript-exception',
      message: "JavaScript exception error: Cannot read properties of undefined (reading 'toHex')",
    });
  });

  it('error() stops the function with a collection error', () => {
    const t = body(`error('bad ' + 'thing'); return 1;`);
    expect(fails(execute(t, 'f', { id: 'r' }, []))).toMatchObject({ reason: 'function/collection-error', message: 'collection function error: bad thing' });
  });

  it('selfdestruct() deletes the record when the function ends', () => {
    const t = body(`selfdestruct(); return 1;`);
    expect(ok(execute(t, 'f', { id: 'r' }, []))).toMatchObject({ record: null, deleted: true, returnValue: 1 });
  });

  it('replace and replaceAll take `$` in the replacement literally', () => {
    expect(evaluate(`return 'a-b'.replace('-', '$&$&');`)).toBe('a$&$&b');
    expect(evaluate(`return 'a-b-c'.replaceAll('-', '$1');`)).toBe('a$1b$1c');
  });

  it('includes and indexOf compare keys by value', () => {
    expect(evaluate(`let a = [ctx.publicKey]; return a.indexOf(k) + (a.includes(k) ? 10 : 0);`, [key.toHex()], { params: 'k: PublicKey', ctx: { publicKey: key } })).toBe(10);
  });

  it('argument faults are runtime errors, not crashes', () => {
    for (const text of [`return 'a'.repeat(-1);`, `return (1).toString(99);`, `return (1).toFixed(101);`, `return Object.keys(undefined);`, `return 'abc'.split({});`]) {
      expect(fails(execute(body(text), 'f', { id: 'r' }, [])).reason).toBe('function/javascript-exception');
    }
  });
});

describe('gas of built-ins follows the catalogue', () => {
  function gasOf(text: string): number {
    return ok(execute(body(text), 'f', { id: 'r' }, [])).gasUsed;
  }
  // The same statement shape with and without the call: the difference is the call node plus the catalogue's cost.
  const byId = new Map(builtins.map((b) => [b.id, b]));

  it('fixed costs', () => {
    const cost = byId.get('Math.floor')!.gas.base;
    // The call node, the `Math.floor` member and `Math` identifier nodes, and the catalogue's cost.
    expect(gasOf(`let s = 'abc'; return Math.floor(1);`) - gasOf(`let s = 'abc'; return (1);`)).toBe(cost + 3);
  });

  it('costs per receiver length', () => {
    const gas = byId.get('string.toUpperCase')!.gas;
    const short = gasOf(`let s = 'a'; return s.toUpperCase();`);
    const long = gasOf(`let s = 'aaaaaaaaaaa'; return s.toUpperCase();`);
    expect(long - short).toBe(10 * (gas.perUnit ?? 0));
  });

  it('costs per argument', () => {
    const gas = byId.get('array.push')!.gas;
    const one = gasOf(`let a = []; return a.push(1);`);
    const three = gasOf(`let a = []; return a.push(1, 1, 1);`);
    // Two more argument nodes, and the per-argument cost twice.
    expect(three - one).toBe(2 + 2 * (gas.perUnit ?? 0));
  });

  it('costs per result length', () => {
    const gas = byId.get('string.repeat')!.gas;
    const few = gasOf(`return 'ab'.repeat(1);`);
    const many = gasOf(`return 'ab'.repeat(11);`);
    expect(many - few).toBe(20 * (gas.perUnit ?? 0));
  });
});
