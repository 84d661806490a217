// Validation of what callers hand the record store: list limits, ids, writes, expectations and signature
// claims. Every problem is a typed StoreError that names the field, raised before anything is read or written.

import { invalidQuery, StoreError } from './errors.ts';
import { MAX_COLLECTION_ID_BYTES, MAX_RECORD_ID_BYTES } from './keys.ts';
import type { Expectation, SignatureClaim, StampExpectation, Write } from './writes.ts';

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;

export function parseLimit(limit: unknown): number {
  if (limit === undefined || limit === null || limit === '') return DEFAULT_LIMIT;
  const n = typeof limit === 'string' && /^\s*\d+\s*$/.test(limit) ? Number(limit) : limit;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1) throw invalidQuery(`limit must be a positive integer, got ${JSON.stringify(limit)}`);
  return Math.min(n, MAX_LIMIT);
}

const LONE_SURROGATE = /\p{Surrogate}/u;

export function checkCollectionId(collectionId: unknown): asserts collectionId is string {
  if (typeof collectionId !== 'string' || collectionId.length === 0) {
    throw new StoreError('invalid-argument', 'collection/invalid-id', 'collection id must be a non-empty string');
  }
  if (Buffer.byteLength(collectionId) > MAX_COLLECTION_ID_BYTES) {
    throw new StoreError('invalid-argument', 'collection/invalid-id', `collection id is longer than ${MAX_COLLECTION_ID_BYTES} bytes`);
  }
  // As with record ids below: in a key, a lone surrogate would become U+FFFD, and two collections share a prefix.
  if (LONE_SURROGATE.test(collectionId)) {
    throw new StoreError('invalid-argument', 'collection/invalid-id', `collection id ${JSON.stringify(collectionId)} is not well-formed UTF-16: it has a lone surrogate`);
  }
}

/** A UTF-16 code unit of a surrogate pair standing alone (`String.prototype.isWellFormed`, absent from the ES2023 lib types). */
export function checkRecordId(id: unknown): asserts id is string {
  if (typeof id !== 'string') throw new StoreError('invalid-argument', 'record/id-not-string', 'record id must be a string');
  if (Buffer.byteLength(id) > MAX_RECORD_ID_BYTES) {
    throw new StoreError('invalid-argument', 'record/invalid-id', `record id is longer than ${MAX_RECORD_ID_BYTES} bytes`);
  }
  // Keys hold ids as UTF-8, where a lone surrogate becomes U+FFFD: two different ids would share one record.
  if (LONE_SURROGATE.test(id)) {
    throw new StoreError('invalid-argument', 'record/invalid-id', `record id ${JSON.stringify(id)} is not well-formed UTF-16: it has a lone surrogate`);
  }
}

function invalidCommit(message: string): StoreError {
  return new StoreError('invalid-argument', 'store/invalid-commit', message);
}

/** Validates the writes and returns each put's record as JSON text (undefined for deletes). */
export function checkWrites(writes: readonly Write[]): (string | undefined)[] {
  if (!Array.isArray(writes)) throw invalidCommit('writes must be an array');
  const seen = new Set<string>();
  return writes.map((write) => {
    if (typeof write !== 'object' || write === null) throw invalidCommit('each write must be an object');
    checkCollectionId(write.collectionId);
    let id: string;
    let json: string | undefined;
    if (write.kind === 'put') {
      const record = write.record as unknown;
      if (typeof record !== 'object' || record === null || Array.isArray(record)) {
        throw new StoreError('invalid-argument', 'record/not-object', `record should be an object, got: ${JSON.stringify(record) ?? String(record)}`);
      }
      checkRecordId(write.record.id);
      id = write.record.id;
      checkPlainJson(record, id);
      try {
        json = JSON.stringify(record);
      } catch (error) {
        throw new StoreError('invalid-argument', 'record/not-object', `record "${id}" is not JSON: ${(error as Error).message}`);
      }
    } else if (write.kind === 'delete') {
      checkRecordId(write.id);
      id = write.id;
    } else {
      throw invalidCommit(`unknown write kind ${JSON.stringify((write as { kind?: unknown }).kind)}`);
    }
    const key = JSON.stringify([write.collectionId, id]);
    if (seen.has(key)) throw invalidCommit(`record "${id}" of collection "${write.collectionId}" is written twice in one commit`);
    seen.add(key);
    return json;
  });
}

/**
 * Refuses a record JSON would store as something else: the record is stored as its JSON text but its index entries
 * are computed from the object, so a `Date` (stored as its ISO string), a `toJSON` object or an array hole
 * (stored as null) would leave index entries that do not match the stored record. Properties holding `undefined`
 * are fine: JSON drops them, and an index treats the field as absent either way.
 */
function checkPlainJson(record: object, id: string): void {
  let found: NonPlain | undefined;
  try {
    found = nonPlain(record);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error; // the call stack ran out: a cycle, or nesting too deep
    throw new StoreError('invalid-argument', 'record/not-object', `record "${id}" is nested too deeply (or refers to itself) to be stored as JSON`);
  }
  if (found) {
    const field = found.path.reverse().join('');
    throw new StoreError('invalid-argument', 'record/not-object', `record "${id}" field "${field.startsWith('.') ? field.slice(1) : field}" is ${found.what}: records hold plain JSON values (strings, numbers, booleans, null, arrays and plain objects)`);
  }
}

interface NonPlain {
  /** The field's path, innermost first (`.name` and `[index]` segments), filled in on the way out. */
  readonly path: string[];
  readonly what: string;
}

/** The first value under `value` that is not plain JSON; undefined when all are (nothing is allocated then). */
function nonPlain(value: unknown): NonPlain | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
    case 'number': // NaN and ±Infinity too: JSON stores null, and cast.ts indexes them as null
    case 'undefined':
      return undefined;
    case 'object': {
      if (value === null) return undefined;
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) {
          const element: unknown = value[i];
          const found = element === undefined ? { path: [], what: `undefined (an array element JSON stores as null)` } : nonPlain(element);
          if (found) {
            found.path.push(`[${i}]`);
            return found;
          }
        }
        return undefined;
      }
      const prototype: unknown = Object.getPrototypeOf(value);
      if (prototype !== Object.prototype && prototype !== null) return { path: [], what: `a ${(value as object).constructor?.name || 'non-plain object'}` };
      if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return { path: [], what: 'an object with a toJSON method' };
      for (const key in value) {
        const found = nonPlain((value as Record<string, unknown>)[key]);
        if (found) {
          found.path.push(`.${key}`);
          return found;
        }
      }
      return undefined;
    }
    default:
      return { path: [], what: `a ${typeof value}` };
  }
}

export function checkExpectations(expectations: readonly Expectation[]): void {
  if (!Array.isArray(expectations)) throw invalidCommit('expect must be an array');
  for (const e of expectations) {
    checkCollectionId(e.collectionId);
    checkRecordId(e.id);
    if (e.version !== null && !(Number.isSafeInteger(e.version) && e.version >= 0)) {
      throw invalidCommit(`expected version of record "${e.id}" must be a timestamp or null`);
    }
  }
}

export function checkStampExpectations(expectations: readonly StampExpectation[]): void {
  if (!Array.isArray(expectations)) throw invalidCommit('expectStamps must be an array');
  for (const e of expectations) {
    checkCollectionId(e.collectionId);
    if (!(Number.isSafeInteger(e.stamp) && e.stamp >= 0)) throw invalidCommit(`expected stamp of collection "${e.collectionId}" must be a timestamp or 0`);
  }
}

export function checkClaim(claim: SignatureClaim): void {
  if (typeof claim.signature !== 'string' || claim.signature.length === 0 || claim.signature.length > 1024) {
    throw invalidCommit('the signature to claim must be a non-empty string of at most 1024 characters');
  }
  if (!Number.isSafeInteger(claim.expiresAt) || claim.expiresAt < 0) throw invalidCommit('the signature expiry must be a time in ms');
}
