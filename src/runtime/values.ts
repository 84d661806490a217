// Runtime values. A collection function computes with JavaScript values, so that its semantics are
// JavaScript's (Polybase ran bodies in V8):
//   string, number, boolean, null, undefined   as themselves
//   bytes                                     Uint8Array
//   PublicKey                                 PublicKey (src/auth): `toHex()`, structural equality
//   T[]                                       Array
//   map<K, V>, inline objects, records,       objects WITHOUT a prototype (`Object.create(null)`), so
//   references {collectionId, id}, ctx        no key (`__proto__`, `constructor`) reaches a prototype
// Whole records (`this`, record arguments) carry their collection id under a symbol, so that storing
// one in a reference field stores a reference to it.

import { PublicKey } from '../auth/index.ts';

export { PublicKey };

export type RuntimeObject = Record<string, unknown>;

/** The collection id of a whole record (`this` or a record argument). */
export const RECORD_COLLECTION: unique symbol = Symbol('vellum.recordCollection');

export function newObject(): RuntimeObject {
  return Object.create(null) as RuntimeObject;
}

export function isRuntimeObject(value: unknown): value is RuntimeObject {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === null;
}

export function recordCollectionOf(value: RuntimeObject): string | undefined {
  return (value as { [RECORD_COLLECTION]?: string })[RECORD_COLLECTION];
}

export function tagRecord(value: RuntimeObject, collectionId: string): RuntimeObject {
  // A plain store (defineProperty costs more than the rest of a small call's setup): a symbol key is
  // invisible to Object.keys, JSON and iteration anyway, and no body can name it to write it.
  (value as { [RECORD_COLLECTION]?: string })[RECORD_COLLECTION] = collectionId;
  return value;
}

export type ValueKind = 'undefined' | 'null' | 'boolean' | 'number' | 'string' | 'bytes' | 'PublicKey' | 'array' | 'object';

export function kindOf(value: unknown): ValueKind {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'undefined':
      return 'undefined';
    case 'boolean':
      return 'boolean';
    case 'number':
      return 'number';
    case 'string':
      return 'string';
  }
  if (Array.isArray(value)) return 'array';
  if (value instanceof Uint8Array) return 'bytes';
  if (value instanceof PublicKey) return 'PublicKey';
  return 'object';
}

/** Freezes a value and everything inside it: records of other collections are read-only. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value) && !(value instanceof PublicKey)) {
    // Typed arrays cannot be frozen; bytes inside a read-only record are copied on read instead.
    if (value instanceof Uint8Array) return value;
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
    Object.freeze(value);
  }
  return value;
}

/** Structural equality of public keys; JavaScript's `===` otherwise. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  return a instanceof PublicKey && b instanceof PublicKey && a.equals(b);
}

// ---------------------------------------------------------------------------------------------
// Public keys from their wire forms. Decoding checks the point is on the curve, which costs a few
// microseconds, so recent keys are remembered (a bounded cache: the oldest entry goes first).

const KEY_CACHE_SIZE = 1024;
const keyCache = new Map<string, PublicKey>();

function cached(cacheKey: string, decode: () => PublicKey): PublicKey {
  const hit = keyCache.get(cacheKey);
  if (hit) return hit;
  const key = decode();
  if (keyCache.size >= KEY_CACHE_SIZE) keyCache.delete(keyCache.keys().next().value!);
  keyCache.set(cacheKey, key);
  return key;
}

/** A key from its JWK (records, `ctx`) or `0x` + 128 hex digits form; throws KeyFormatError. */
export function publicKeyFrom(value: unknown): PublicKey {
  if (value instanceof PublicKey) return value;
  if (typeof value === 'string') return cached(value.toLowerCase(), () => PublicKey.fromHex(value));
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const { x, y } = value as { x?: unknown; y?: unknown };
    const simple = Object.keys(value).every((k) => ['kty', 'crv', 'alg', 'use', 'x', 'y'].includes(k));
    if (typeof x === 'string' && typeof y === 'string' && simple) {
      const jwk = value as Record<string, unknown>;
      const cacheKey = `${String(jwk.kty)}|${String(jwk.crv)}|${String(jwk.alg)}|${String(jwk.use)}|${x}|${y}`;
      return cached(cacheKey, () => PublicKey.fromJwk(value));
    }
  }
  return PublicKey.fromJwk(value);
}
