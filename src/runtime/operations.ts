// The operators and property accesses of function bodies, with JavaScript's results for the values a
// well-typed body computes with. Where JavaScript would silently convert an object (an array added to
// a string, a map compared with a number) the runtime raises a fault instead: the checker rejects
// such programs, and this keeps every operation's cost bounded by its gas.

import { describeValue, jsFault } from './errors.ts';
import { GAS } from './limits.ts';
import { allocateElements, allocateString, charge, type ExecState } from './state.ts';
import { PublicKey, isRuntimeObject, kindOf, type RuntimeObject } from './values.ts';

// ---------------------------------------------------------------------------------------------
// Conversions

function isPrimitive(value: unknown): boolean {
  return value === null || (typeof value !== 'object' && typeof value !== 'function');
}

/** ToNumber for primitives; public keys, arrays, maps and bytes are not numbers. */
export function toNumeric(value: unknown, operator: string): number {
  if (typeof value === 'number') return value;
  if (isPrimitive(value)) return Number(value);
  throw jsFault(`cannot use ${kindOf(value)} ${describeValue(value, 40)} as a number (operator ${operator})`);
}

/** A property key from a primitive or a public key (its hex form, as its `toString` gives). */
export function toPropertyKey(key: unknown): string {
  if (typeof key === 'string') return key;
  if (isPrimitive(key)) return String(key);
  if (key instanceof PublicKey) return key.toHex();
  throw jsFault(`cannot use ${kindOf(key)} ${describeValue(key, 40)} as a key`);
}

function chargeCompare(st: ExecState, length: number): void {
  if (length > 64) charge(st, Math.floor(length / GAS.compareCharsPerGas));
}

// ---------------------------------------------------------------------------------------------
// Arithmetic

export function concat(st: ExecState, a: string, b: string): string {
  const length = a.length + b.length;
  if (length >= GAS.charsPerGas) allocateString(st, length);
  return a + b;
}

export function add(st: ExecState, a: unknown, b: unknown): unknown {
  if (typeof a === 'number' && typeof b === 'number') return a + b;
  if (typeof a === 'string') {
    if (typeof b === 'string') return concat(st, a, b);
    if (typeof b === 'number') return concat(st, a, String(b));
  }
  return addSlow(st, a, b);
}

function addSlow(st: ExecState, a: unknown, b: unknown): unknown {
  const left = a instanceof PublicKey ? a.toHex() : a;
  const right = b instanceof PublicKey ? b.toHex() : b;
  if (!isPrimitive(left) || !isPrimitive(right)) {
    throw jsFault(`cannot add ${kindOf(a)} and ${kindOf(b)}`);
  }
  if (typeof left === 'string' || typeof right === 'string') return concat(st, String(left), String(right));
  return (left as number) + (right as number);
}

export type NumericOperator = '-' | '*' | '/' | '%' | '**' | '&' | '|' | '^' | '<<' | '>>' | '>>>';

export function numeric(operator: NumericOperator, a: unknown, b: unknown): number {
  const x = toNumeric(a, operator);
  const y = toNumeric(b, operator);
  switch (operator) {
    case '-': return x - y;
    case '*': return x * y;
    case '/': return x / y;
    case '%': return x % y;
    case '**': return x ** y;
    case '&': return x & y;
    case '|': return x | y;
    case '^': return x ^ y;
    case '<<': return x << y;
    case '>>': return x >> y;
    case '>>>': return x >>> y;
  }
}

// ---------------------------------------------------------------------------------------------
// Comparison

export function strictEquals(st: ExecState, a: unknown, b: unknown): boolean {
  if (typeof a === 'string' && typeof b === 'string') {
    chargeCompare(st, a.length);
    return a === b;
  }
  if (a === b) return true;
  return a instanceof PublicKey && b instanceof PublicKey && a.equals(b);
}

export function looseEquals(st: ExecState, a: unknown, b: unknown): boolean {
  if (typeof a === 'string' && typeof b === 'string') {
    chargeCompare(st, a.length);
    return a === b;
  }
  if (a === b) return true;
  if (a instanceof PublicKey || b instanceof PublicKey) {
    // A key equals only the same key (Polybase interned keys, so `==` compared them by identity).
    return a instanceof PublicKey && b instanceof PublicKey && a.equals(b);
  }
  if (isPrimitive(a) && isPrimitive(b)) return a == b;
  // Two objects are equal only when they are the same one (above); an object and a primitive never
  // are here (JavaScript would convert the object to text first).
  return false;
}

export type RelationalOperator = '<' | '<=' | '>' | '>=';

export function compare(st: ExecState, operator: RelationalOperator, a: unknown, b: unknown): boolean {
  if (typeof a === 'string' && typeof b === 'string') chargeCompare(st, Math.min(a.length, b.length));
  else if (!isPrimitive(a) || !isPrimitive(b)) {
    throw jsFault(`cannot compare ${kindOf(a)} with ${kindOf(b)} (operator ${operator})`);
  }
  const x = a as number;
  const y = b as number;
  switch (operator) {
    case '<': return x < y;
    case '<=': return x <= y;
    case '>': return x > y;
    case '>=': return x >= y;
  }
}

// ---------------------------------------------------------------------------------------------
// Property access

function readFault(target: unknown, key: unknown): never {
  // V8's wording, which Polybase's messages had: the key in single quotes, a number's too.
  const plain = typeof key === 'string' || typeof key === 'number';
  const name = plain ? String(key) : describeValue(key, 40);
  throw jsFault(`Cannot read properties of ${String(target)} (reading '${name.length > 40 ? `${name.slice(0, 39)}…` : name}')`);
}

/** `target.name` for a name written in the program. */
export function getMember(target: unknown, name: string): unknown {
  if (typeof target === 'object' && target !== null) {
    if (Array.isArray(target) || target instanceof Uint8Array) return name === 'length' ? target.length : undefined;
    if (target instanceof PublicKey) return undefined;
    return (target as RuntimeObject)[name];
  }
  if (typeof target === 'string') return name === 'length' ? target.length : undefined;
  if (target === undefined || target === null) readFault(target, name);
  return undefined;
}

/** The array index a key denotes (a canonical non-negative integer), or -1. */
function arrayIndex(key: unknown): number {
  if (typeof key === 'number') return Number.isInteger(key) && key >= 0 && key < 4294967295 ? key : -1;
  if (typeof key === 'string' && key.length > 0 && key.length <= 10) {
    const n = Number(key);
    if (Number.isInteger(n) && n >= 0 && n < 4294967295 && String(n) === key) return n;
  }
  return -1;
}

/** `target[key]`. */
export function getIndex(st: ExecState, target: unknown, key: unknown): unknown {
  if (typeof target === 'object' && target !== null) {
    if (Array.isArray(target) || target instanceof Uint8Array) {
      const i = arrayIndex(key);
      if (i >= 0) return target[i];
      return key === 'length' ? target.length : undefined;
    }
    if (target instanceof PublicKey) return undefined;
    const k = toPropertyKey(key);
    chargeCompare(st, k.length);
    return (target as RuntimeObject)[k];
  }
  if (typeof target === 'string') {
    const i = arrayIndex(key);
    if (i >= 0) return target[i];
    return key === 'length' ? target.length : undefined;
  }
  if (target === undefined || target === null) readFault(target, key);
  return undefined;
}

function writeFault(target: unknown, key: unknown): never {
  if (target === undefined || target === null) {
    throw jsFault(`Cannot set properties of ${String(target)} (setting ${describeValue(key, 40)})`);
  }
  if (target instanceof PublicKey) throw jsFault(`Cannot change a PublicKey (setting ${describeValue(key, 40)})`);
  throw jsFault(`Cannot create property ${describeValue(key, 40)} on ${kindOf(target)} ${describeValue(target, 40)}`);
}

/** `target[key] = value` (also `target.name = value`). */
export function setIndex(st: ExecState, target: unknown, key: unknown, value: unknown): void {
  if (Array.isArray(target)) {
    const i = arrayIndex(key);
    if (i >= 0) {
      if (i >= target.length) allocateElements(st, i + 1, i + 1 - target.length);
      target[i] = value;
      return;
    }
    if (key === 'length') return setLength(st, target, value);
    throw jsFault(`invalid array index ${describeValue(key, 40)}`);
  }
  if (isRuntimeObject(target)) {
    const k = toPropertyKey(key);
    if (!(k in target)) {
      allocateString(st, k.length);
      charge(st, GAS.key);
    } else {
      chargeCompare(st, k.length);
    }
    target[k] = value;
    return;
  }
  if (target instanceof Uint8Array) {
    const i = arrayIndex(key);
    if (i >= 0 && i < target.length) target[i] = toNumeric(value, '=');
    return;
  }
  writeFault(target, key);
}

function setLength(st: ExecState, target: unknown[], value: unknown): void {
  const length = toNumeric(value, '=');
  if (!Number.isInteger(length) || length < 0 || length > 4294967295) throw jsFault('Invalid array length');
  if (length > target.length) allocateElements(st, length, length - target.length);
  target.length = length;
}

/** `delete target[key]`: removes a key of a map or object; leaves a hole in an array. */
export function deleteIndex(target: unknown, key: unknown): boolean {
  if (Array.isArray(target) || isRuntimeObject(target)) {
    if (Array.isArray(target)) {
      const i = arrayIndex(key);
      if (i >= 0) delete target[i];
      return true;
    }
    delete target[toPropertyKey(key)];
    return true;
  }
  if (target === undefined || target === null) {
    throw jsFault(`Cannot convert undefined or null to object (deleting ${describeValue(key, 40)})`);
  }
  return true;
}
