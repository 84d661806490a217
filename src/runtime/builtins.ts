// Implementations of the built-ins catalogue (src/lang/builtins.ts), keyed by its stable ids. Each
// call first pays the catalogue's gas (`base + perUnit × size`); built-ins whose size is the length of
// their result work that length out and pay for it BEFORE building the result, so no call allocates
// more than its gas and the length caps allow.

import { builtins as catalogue, type Builtin, type GasCost } from '../lang/index.ts';
import { collectionError, describeValue, jsFault, limitFault } from './errors.ts';
import { toNumeric } from './operations.ts';
import { wrapping } from './sized-arithmetic.ts';
import { blake3, sha256 } from './noble.ts';
import { allocateString, charge, type ExecState } from './state.ts';
import { PublicKey, isRuntimeObject, kindOf, sameValue, type RuntimeObject } from './values.ts';

type Impl = (st: ExecState, receiver: unknown, args: unknown[], gas: GasCost) => unknown;

export type BuiltinCall = (st: ExecState, receiver: unknown, args: unknown[]) => unknown;

export interface RuntimeBuiltin {
  entry: Builtin;
  call: BuiltinCall;
}

// ---------------------------------------------------------------------------------------------
// Argument helpers: JavaScript's conversions for primitives; objects are faults (see operations.ts).

function str(value: unknown, what = 'argument'): string {
  if (typeof value === 'string') return value;
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return String(value);
  if (value instanceof PublicKey) return value.toHex();
  throw jsFault(`expected a string ${what}, got ${kindOf(value)} ${describeValue(value, 40)}`);
}

function num(value: unknown): number {
  return toNumeric(value, 'argument');
}

function optNum(value: unknown): number | undefined {
  return value === undefined ? undefined : num(value);
}

function checkStringLength(st: ExecState, length: number): void {
  if (length > st.limits.maxStringLength) {
    throw limitFault(`string too long: ${length} characters (the limit is ${st.limits.maxStringLength})`);
  }
}

function checkArrayLength(st: ExecState, length: number): void {
  if (length > st.limits.maxArrayLength) {
    throw limitFault(`array too long: ${length} elements (the limit is ${st.limits.maxArrayLength})`);
  }
}

/** Pays `perUnit × units` for a result of `units` elements or characters. */
function payResult(st: ExecState, gas: GasCost, units: number): void {
  if (gas.perUnit) charge(st, gas.perUnit * units);
}

function asArray(receiver: unknown): unknown[] {
  return receiver as unknown[];
}

/** Relative index as `slice`/`splice` take it: negative counts from the end, clamped to [0, length]. */
function relativeIndex(value: unknown, length: number, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Math.trunc(num(value)) || 0;
  if (n < 0) return Math.max(length + n, 0);
  return Math.min(n, length);
}

/**
 * A value as text, as `String(value)` and `join` give it, paying for the characters produced and
 * stopping at the string length cap (an array of arrays could otherwise expand without bound).
 */
export function toText(st: ExecState, value: unknown, perChar = 1, joining: Set<unknown> = new Set()): string {
  if (typeof value === 'string') return value;
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return String(value);
  if (value instanceof PublicKey) return value.toHex();
  if (Array.isArray(value) || value instanceof Uint8Array) {
    return joinElements(st, value as ArrayLike<unknown>, ',', perChar, joining);
  }
  return '[object Object]';
}

/**
 * `join`: as in JavaScript, an array that is already being joined (a cycle) gives "", and nesting is
 * bounded (each level pays gas, and arrays nest no deeper than they were built).
 */
function joinElements(st: ExecState, source: ArrayLike<unknown>, separator: string, perChar: number, joining: Set<unknown> = new Set()): string {
  if (joining.has(source)) return '';
  if (joining.size >= MAX_JOIN_DEPTH) throw limitFault(`arrays nested more than ${MAX_JOIN_DEPTH} deep cannot be turned into text`);
  joining.add(source);
  const elements = Array.from(source);
  const parts: string[] = [];
  let length = 0;
  for (let i = 0; i < elements.length; i++) {
    const element = elements[i];
    const part = element === undefined || element === null ? '' : toText(st, element, perChar, joining);
    length += part.length + (i > 0 ? separator.length : 0);
    checkStringLength(st, length);
    charge(st, perChar * (part.length + separator.length) + 1);
    parts.push(part);
  }
  joining.delete(source);
  return parts.join(separator);
}

const MAX_JOIN_DEPTH = 100;

/**
 * `array.splice(start, deleteCount)` (two arguments, nothing inserted) after its gas: the built-in and the
 * compiler's fused call of it (expressions.ts) both run this.
 */
export function spliceRange(st: ExecState, array: unknown[], start: unknown, deleteCount: unknown): unknown[] {
  const from = relativeIndex(start, array.length, 0);
  const count = spliceCount(array, from, deleteCount);
  checkArrayLength(st, array.length - count);
  return array.splice(from, count);
}

/** How many elements a `splice` from `from` with a given delete count removes: the count, truncated, within 0 and what follows `from`. */
function spliceCount(array: readonly unknown[], from: number, deleteCount: unknown): number {
  return Math.min(Math.max(Math.trunc(num(deleteCount)) || 0, 0), array.length - from);
}

/**
 * `text.slice(start, end)` after its base gas, paying `perChar` for each character of the result: the built-in
 * and the compiler's fused call of it (fused-shapes.ts) both run this.
 */
export function sliceString(st: ExecState, text: string, start: unknown, end: unknown, perChar: number): string {
  const result = text.slice(optNum(start), optNum(end));
  if (perChar) charge(st, perChar * result.length);
  return result;
}

function indexOfElement(array: readonly unknown[], search: unknown, from: number): number {
  for (let i = from; i < array.length; i++) if (sameValue(array[i], search)) return i;
  return -1;
}

function startIndex(value: unknown, length: number): number {
  if (value === undefined) return 0;
  const n = Math.trunc(num(value)) || 0;
  return n < 0 ? Math.max(length + n, 0) : n;
}

// ---------------------------------------------------------------------------------------------
// The implementations

const s = (receiver: unknown) => receiver as string;

const implementations: Record<string, Impl> = {
  // string
  'string.length': (_st, r) => s(r).length,
  'string.toUpperCase': (st, r) => {
    const result = s(r).toUpperCase();
    checkStringLength(st, result.length);
    return result;
  },
  'string.toLowerCase': (_st, r) => s(r).toLowerCase(),
  'string.trim': (_st, r) => s(r).trim(),
  'string.trimStart': (_st, r) => s(r).trimStart(),
  'string.trimEnd': (_st, r) => s(r).trimEnd(),
  'string.startsWith': (_st, r, [search, position]) => s(r).startsWith(str(search), optNum(position)),
  'string.endsWith': (_st, r, [search, end]) => s(r).endsWith(str(search), optNum(end)),
  'string.includes': (_st, r, [search, position]) => s(r).includes(str(search), optNum(position)),
  'string.indexOf': (_st, r, [search, position]) => s(r).indexOf(str(search), optNum(position)),
  'string.lastIndexOf': (_st, r, [search, position]) => s(r).lastIndexOf(str(search), optNum(position)),
  'string.slice': (st, r, [start, end], gas) => sliceString(st, s(r), start, end, gas.perUnit ?? 0),
  'string.substring': (st, r, [start, end], gas) => {
    const result = s(r).substring(num(start), optNum(end));
    payResult(st, gas, result.length);
    return result;
  },
  'string.split': (st, r, [separator, limit]) => {
    const text = s(r);
    const sep = str(separator, 'separator');
    const max = limit === undefined ? undefined : num(limit);
    const pieces = text.split(sep, max);
    checkArrayLength(st, pieces.length);
    return pieces;
  },
  'string.replace': (st, r, [pattern, replacement]) => {
    const text = s(r);
    const from = str(pattern, 'pattern');
    const to = str(replacement, 'replacement');
    if (!text.includes(from)) return text;
    allocateString(st, text.length - from.length + to.length);
    return text.replace(from, () => to);
  },
  'string.replaceAll': (st, r, [pattern, replacement]) => {
    const text = s(r);
    const from = str(pattern, 'pattern');
    const to = str(replacement, 'replacement');
    const occurrences = from === '' ? text.length + 1 : text.split(from).length - 1;
    const length = text.length + occurrences * (to.length - from.length);
    allocateString(st, length);
    return text.replaceAll(from, () => to);
  },
  'string.repeat': (st, r, [count], gas) => {
    const text = s(r);
    const n = num(count);
    if (n < 0 || n === Infinity) throw jsFault(`Invalid count value: ${n}`);
    const length = text.length * Math.trunc(n || 0);
    checkStringLength(st, length);
    payResult(st, gas, length);
    return text.repeat(n);
  },
  'string.padStart': (st, r, [target, pad], gas) => pad_(st, s(r), target, pad, gas, 'start'),
  'string.padEnd': (st, r, [target, pad], gas) => pad_(st, s(r), target, pad, gas, 'end'),
  'string.charAt': (_st, r, [index]) => s(r).charAt(index === undefined ? 0 : num(index)),
  'string.charCodeAt': (_st, r, [index]) => s(r).charCodeAt(index === undefined ? 0 : num(index)),
  'string.concat': (st, r, args, gas) => {
    const parts = args.map((a) => str(a));
    const length = parts.reduce((sum, p) => sum + p.length, s(r).length);
    checkStringLength(st, length);
    payResult(st, gas, length);
    return s(r).concat(...parts);
  },
  'string.at': (_st, r, [index]) => s(r).at(index === undefined ? 0 : num(index)),

  // number
  'number.toString': (_st, r, [radix]) => {
    const base = radix === undefined ? 10 : num(radix);
    if (!(base >= 2 && base <= 36)) throw jsFault('toString() radix must be between 2 and 36');
    return (r as number).toString(base);
  },
  'number.toFixed': (_st, r, [digits]) => {
    const d = digits === undefined ? 0 : num(digits);
    if (!(d >= 0 && d <= 100)) throw jsFault('toFixed() digits argument must be between 0 and 100');
    return (r as number).toFixed(d);
  },

  // array
  'array.length': (_st, r) => asArray(r).length,
  'array.push': (st, r, items) => {
    const array = asArray(r);
    if (array.length + items.length > st.limits.maxArrayLength) checkArrayLength(st, array.length + items.length);
    if (items.length === 1) return array.push(items[0]);
    for (let i = 0; i < items.length; i++) array.push(items[i]);
    return array.length;
  },
  'array.pop': (_st, r) => asArray(r).pop(),
  'array.shift': (_st, r) => asArray(r).shift(),
  'array.unshift': (st, r, items) => {
    const array = asArray(r);
    checkArrayLength(st, array.length + items.length);
    charge(st, items.length);
    return array.unshift(...items);
  },
  'array.splice': (st, r, args) => {
    const array = asArray(r);
    if (args.length === 2) return spliceRange(st, array, args[0], args[1]);
    const start = relativeIndex(args[0], array.length, 0);
    const deleteCount =
      args.length === 0 ? 0 : args.length === 1 ? array.length - start : spliceCount(array, start, args[1]);
    if (args.length < 2) {
      // Nothing inserted: the same checks, without copying and spreading the arguments.
      checkArrayLength(st, array.length - deleteCount);
      return array.splice(start, deleteCount);
    }
    const items = args.slice(2);
    checkArrayLength(st, array.length - deleteCount + items.length);
    charge(st, items.length);
    return array.splice(start, deleteCount, ...items);
  },
  'array.slice': (st, r, [start, end], gas) => {
    const array = asArray(r);
    const from = relativeIndex(start, array.length, 0);
    const to = relativeIndex(end, array.length, array.length);
    payResult(st, gas, Math.max(to - from, 0));
    return array.slice(from, to);
  },
  'array.indexOf': (_st, r, [search, from]) => {
    const array = asArray(r);
    return indexOfElement(array, search, startIndex(from, array.length));
  },
  'array.lastIndexOf': (_st, r, [search, from]) => {
    const array = asArray(r);
    let i = from === undefined ? array.length - 1 : Math.trunc(num(from)) || 0;
    if (i < 0) i = array.length + i;
    for (i = Math.min(i, array.length - 1); i >= 0; i--) if (sameValue(array[i], search)) return i;
    return -1;
  },
  'array.includes': (_st, r, [search, from]) => {
    const array = asArray(r);
    const start = startIndex(from, array.length);
    if (typeof search === 'number' && Number.isNaN(search)) {
      for (let i = start; i < array.length; i++) if (Number.isNaN(array[i])) return true;
      return false;
    }
    return indexOfElement(array, search, start) >= 0;
  },
  'array.concat': (st, r, args, gas) => {
    const array = asArray(r);
    let length = array.length;
    for (const arg of args) length += Array.isArray(arg) ? arg.length : 1;
    checkArrayLength(st, length);
    payResult(st, gas, length);
    return array.concat(...args.map((arg) => (Array.isArray(arg) ? arg : [arg])));
  },
  'array.join': (st, r, [separator], gas) => {
    const sep = separator === undefined ? ',' : str(separator, 'separator');
    return joinElements(st, asArray(r), sep, gas.perUnit ?? 0);
  },
  'array.reverse': (_st, r) => asArray(r).reverse(),
  'array.at': (_st, r, [index]) => asArray(r).at(index === undefined ? 0 : num(index)),
  'array.fill': (_st, r, [value, start, end]) => {
    const array = asArray(r);
    return array.fill(value, relativeIndex(start, array.length, 0), relativeIndex(end, array.length, array.length));
  },

  // PublicKey
  'publicKey.toHex': (_st, r) => (r as PublicKey).toHex(),

  // Math
  ...mathFunctions(),
  'Math.atan2': (_st, _r, [y, x]) => Math.atan2(num(y), num(x)),
  'Math.pow': (_st, _r, [base, exponent]) => num(base) ** num(exponent),
  'Math.min': (_st, _r, args) => Math.min(...args.map(num)),
  'Math.max': (_st, _r, args) => Math.max(...args.map(num)),
  'Math.hypot': (_st, _r, args) => Math.hypot(...args.map(num)),
  'Math.PI': () => Math.PI,
  'Math.E': () => Math.E,
  'Math.LN2': () => Math.LN2,
  'Math.LN10': () => Math.LN10,
  'Math.LOG2E': () => Math.LOG2E,
  'Math.LOG10E': () => Math.LOG10E,
  'Math.SQRT2': () => Math.SQRT2,
  'Math.SQRT1_2': () => Math.SQRT1_2,

  // Object
  'Object.keys': (st, _r, [map], gas) => {
    const keys = Object.keys(mapArgument(map));
    payResult(st, gas, keys.length);
    return keys;
  },
  'Object.values': (st, _r, [map], gas) => {
    const target = mapArgument(map);
    const keys = Object.keys(target);
    payResult(st, gas, keys.length);
    return keys.map((k) => (target as RuntimeObject)[k]);
  },

  // Number
  'Number.isInteger': (_st, _r, [x]) => Number.isInteger(x),
  'Number.MAX_SAFE_INTEGER': () => Number.MAX_SAFE_INTEGER,
  'Number.MIN_SAFE_INTEGER': () => Number.MIN_SAFE_INTEGER,

  // ctx
  'ctx.publicKey': (st) => st.ctx.publicKey,

  // globals
  'global.error': (_st, _r, [message]) => {
    throw collectionError(message === undefined ? '' : describeMessage(message));
  },
  'global.assert': (_st, _r, [condition, message]) => {
    if (!condition) throw collectionError(message === undefined ? 'assertion failed' : describeMessage(message));
    return undefined;
  },
  'global.log': (st, _r, values) => {
    const line = values.map((value) => (typeof value === 'string' ? value : describeValue(value, 1000))).join(' ');
    st.log(line);
    return undefined;
  },
  'global.hashSHA256': (st, _r, [data]) => digest(st, sha256, data, 'hashSHA256'),
  'global.hashBlake3': (st, _r, [data]) => digest(st, blake3, data, 'hashBlake3'),
  'global.selfdestruct': (st) => {
    st.selfdestructed = true;
    return undefined;
  },
  'global.Number': (st, _r, args) => {
    if (args.length === 0) return 0;
    const value = args[0];
    if (value instanceof PublicKey || isRuntimeObject(value)) return NaN;
    return Array.isArray(value) || value instanceof Uint8Array ? Number(toText(st, value)) : Number(value);
  },
  'global.String': (st, _r, args, gas) => {
    if (args.length === 0) return '';
    const value = args[0];
    const text = toText(st, value, gas.perUnit ?? 0);
    if (typeof value !== 'object' || value === null) payResult(st, gas, text.length);
    return text;
  },
  'global.parseInt': (_st, _r, [text, radix]) => parseInt(str(text), radix === undefined ? undefined : num(radix)),
  'global.parseFloat': (_st, _r, [text]) => parseFloat(str(text)),
  'global.isNaN': (_st, _r, [x]) => Number.isNaN(num(x)),
  'global.isFinite': (_st, _r, [x]) => Number.isFinite(num(x)),
  'number.wrappingAdd': (_st, r, [other]) => wrapping('u32', '+', r, other, 'wrappingAdd'),
  'global.uint32WrappingSub': (_st, _r, [a, b]) => wrapping('u32', '-', a, b, 'uint32WrappingSub'),
  'global.uint32WrappingMul': (_st, _r, [a, b]) => wrapping('u32', '*', a, b, 'uint32WrappingMul'),
  'global.NaN': () => NaN,
  'global.Infinity': () => Infinity,
};

function mathFunctions(): Record<string, Impl> {
  const unary = ['abs', 'ceil', 'floor', 'round', 'trunc', 'sign', 'sqrt', 'cbrt', 'exp', 'log', 'log2', 'log10', 'sin', 'cos', 'tan', 'asin', 'acos', 'atan'] as const;
  const result: Record<string, Impl> = {};
  for (const name of unary) {
    const fn = Math[name];
    result[`Math.${name}`] = (_st, _r, [x]) => fn(num(x));
  }
  return result;
}

function pad_(st: ExecState, text: string, target: unknown, pad: unknown, gas: GasCost, side: 'start' | 'end'): string {
  const length = Math.trunc(num(target)) || 0;
  const filler = pad === undefined ? ' ' : str(pad);
  if (length <= text.length || filler === '') return text;
  checkStringLength(st, length);
  payResult(st, gas, length);
  return side === 'start' ? text.padStart(length, filler) : text.padEnd(length, filler);
}

function mapArgument(value: unknown): object {
  if (isRuntimeObject(value) || Array.isArray(value)) return value;
  if (value === undefined || value === null) throw jsFault(`Cannot convert undefined or null to object`);
  throw jsFault(`expected a map, got ${kindOf(value)}`);
}

/** A hash of bytes, or of a string's UTF-8 bytes (the encoding is paid for per 16 characters). */
function digest(st: ExecState, hash: (data: Uint8Array) => Uint8Array, data: unknown, name: string): Uint8Array {
  if (data instanceof Uint8Array) return hash(data);
  if (typeof data === 'string') {
    allocateString(st, data.length);
    return hash(new TextEncoder().encode(data));
  }
  throw jsFault(`${name} takes bytes or a string, got ${kindOf(data)} ${describeValue(data, 40)}`);
}

function describeMessage(message: unknown): string {
  if (typeof message === 'string') return message;
  return describeValue(message, 1000).replace(/^"|"$/g, '');
}

// ---------------------------------------------------------------------------------------------
// The table the compiler uses

function lengthOf(value: unknown): number {
  if (typeof value === 'string' || Array.isArray(value) || value instanceof Uint8Array) return value.length;
  if (isRuntimeObject(value)) return Object.keys(value).length;
  return 0;
}

function withGas(entry: Builtin, impl: Impl): BuiltinCall {
  const gas = entry.gas;
  const perUnit = gas.perUnit ?? 0;
  const base = gas.base;
  switch (perUnit === 0 ? undefined : gas.unit) {
    case 'receiver length':
      return (st, receiver, args) => {
        charge(st, base + perUnit * lengthOf(receiver));
        return impl(st, receiver, args, gas);
      };
    case 'argument count':
      return (st, receiver, args) => {
        charge(st, base + perUnit * args.length);
        return impl(st, receiver, args, gas);
      };
    case 'argument length':
      return (st, receiver, args) => {
        charge(st, base + perUnit * lengthOf(args[0]));
        return impl(st, receiver, args, gas);
      };
    default:
      // A fixed cost, or 'result length': the implementation pays for its result.
      return (st, receiver, args) => {
        charge(st, base);
        return impl(st, receiver, args, gas);
      };
  }
}

export const runtimeBuiltins: ReadonlyMap<string, RuntimeBuiltin> = new Map(
  catalogue.flatMap((entry) => {
    const impl = implementations[entry.id];
    return impl ? [[entry.id, { entry, call: withGas(entry, impl) }] as const] : [];
  }),
);

/** Catalogue entries without an implementation (a test keeps this empty). */
export function unimplementedBuiltins(): string[] {
  return catalogue.filter((entry) => !implementations[entry.id]).map((entry) => entry.id);
}

/** Implementations for ids the catalogue does not list (a test keeps this empty too). */
export function uncataloguedImplementations(): string[] {
  const ids = new Set(catalogue.map((entry) => entry.id));
  return Object.keys(implementations).filter((id) => !ids.has(id));
}
