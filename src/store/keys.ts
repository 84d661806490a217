// Where everything lives in the one sorted key space. The first byte says what a key is; collection ids and
// record ids are untruncated string components (encoding.ts), which are prefix-free, so "every key of
// collection C" is one contiguous range.
//
//   0x00 'layout' coll                            -> JSON StoredLayout
//   0x00 'log' timestamp(u64) [part(u64)]         -> JSON Change[] of that commit (the change log), in parts
//   0x00 'stamp' coll                             -> u64 timestamp of the last change in the collection
//   0x00 'time'                                   -> u64 the last commit timestamp (the commit lock in SQL)
//   0x00 'cursor-key'                             -> 32 random bytes: the AES-256 key of sealed cursors (cursor.ts)
//   0x10 coll id                                  -> u64 version (the commit timestamp) + record JSON
//   0x11 coll index(8 bytes) value... id          -> a copy of the record's value (a covering index)
//   0x13 coll id                                  -> u64 timestamp of the record's deletion
//   0x15 signature                                -> u64 expiry (ms)
//   0x16 expiry(u64) signature                    -> the signature (to forget expired signatures by range)
//
// The newest log entries, the collection stamps and the clock sort next to each other, so in a B-tree they
// share a leaf page: every commit writes all three, and one page is cheaper to write than three.

import { decodeU64, encodeString, encodeU64, inPlaceStringSize, prefixEnd, TAG, writeStringComponent, writeU64 } from './encoding.ts';

export interface KeyRange {
  /** Inclusive lower bound. */
  readonly gte: Buffer;
  /** Exclusive upper bound. */
  readonly lt: Buffer;
}

const SYSTEM = 0x00;
const RECORD = 0x10;
const INDEX = 0x11;
const RECORD_DELETED = 0x13;
const SIGNATURE = 0x15;
const SIGNATURE_EXPIRY = 0x16;

export const MAX_COLLECTION_ID_BYTES = 256;
export const MAX_RECORD_ID_BYTES = 512;

export const clockKey = Buffer.concat([Buffer.of(SYSTEM), Buffer.from('time')]);

/** Made once per database by the first list that needs it; every server sharing the database uses the same. */
export const cursorKeyKey = Buffer.concat([Buffer.of(SYSTEM), Buffer.from('cursor-key')]);

/** The timestamp the clock key's value holds: the last commit's, or 0 before the first commit. */
export function clockTimestamp(value: Buffer | undefined): number {
  return value ? decodeU64(value) : 0;
}

// The constant heads of keys, built once.
const LAYOUT = Buffer.concat([Buffer.of(SYSTEM), Buffer.from('layout')]);
const STAMP = Buffer.concat([Buffer.of(SYSTEM), Buffer.from('stamp')]);
const RECORD_HEAD = Buffer.of(RECORD);
const INDEX_HEAD = Buffer.of(INDEX);
const RECORD_DELETED_HEAD = Buffer.of(RECORD_DELETED);
const SIGNATURE_HEAD = Buffer.of(SIGNATURE);
const SIGNATURE_EXPIRY_HEAD = Buffer.of(SIGNATURE_EXPIRY);

export function layoutKey(collectionId: string): Buffer {
  return withStrings(LAYOUT, collectionId);
}

export function recordPrefix(collectionId: string): Buffer {
  return withStrings(RECORD_HEAD, collectionId);
}

export function recordKey(collectionId: string, id: string): Buffer {
  return withStrings(RECORD_HEAD, collectionId, id);
}

export function indexPrefix(collectionId: string, indexId: string): Buffer {
  return Buffer.concat([INDEX_HEAD, encodeString(collectionId), Buffer.from(indexId, 'hex')]);
}

/** Every index entry of a collection, whatever the index. */
export function collectionIndexesPrefix(collectionId: string): Buffer {
  return Buffer.concat([INDEX_HEAD, encodeString(collectionId)]);
}

/** Next to the clock, which every commit writes anyway: one page fewer to write per commit. */
export function collectionChangedKey(collectionId: string): Buffer {
  return withStrings(STAMP, collectionId);
}

export function recordDeletedKey(collectionId: string, id: string): Buffer {
  return withStrings(RECORD_DELETED_HEAD, collectionId, id);
}

export function recordDeletedPrefix(collectionId: string): Buffer {
  return withStrings(RECORD_DELETED_HEAD, collectionId);
}

/**
 * `head`, then each text as an untruncated string component: the bytes of `Buffer.concat([head,
 * encodeString(first), encodeString(second)])`, written into one Buffer (these keys are built on every read and
 * write). A text with a 0x00 byte to escape is left to encodeString.
 */
function withStrings(head: Buffer, first: string, second?: string): Buffer {
  const firstSize = inPlaceStringSize(first, false);
  const secondSize = second === undefined ? 0 : inPlaceStringSize(second, false);
  if (firstSize < 0 || secondSize < 0) {
    return Buffer.concat(second === undefined ? [head, encodeString(first)] : [head, encodeString(first), encodeString(second)]);
  }
  const out = Buffer.allocUnsafe(head.length + firstSize + secondSize);
  out.set(head, 0);
  const end = writeStringComponent(out, head.length, TAG.string, first);
  if (second !== undefined) writeStringComponent(out, end, TAG.string, second);
  return out;
}

const CHANGE_LOG = Buffer.concat([Buffer.of(SYSTEM), Buffer.from('log')]);

export function changeKey(timestamp: number): Buffer {
  const out = Buffer.allocUnsafe(CHANGE_LOG.length + 8);
  out.set(CHANGE_LOG, 0);
  writeU64(out, CHANGE_LOG.length, timestamp);
  return out;
}

/**
 * Part `part` (from 1) of a commit's log entry that was split (changes.ts, `changeLogEntries`). It sorts after
 * `changeKey(timestamp)` and before the next timestamp's key, so ranges of timestamps keep their meaning.
 */
export function changePartKey(timestamp: number, part: number): Buffer {
  const out = Buffer.allocUnsafe(CHANGE_LOG.length + 16);
  out.set(CHANGE_LOG, 0);
  writeU64(out, CHANGE_LOG.length, timestamp);
  writeU64(out, CHANGE_LOG.length + 8, part);
  return out;
}

export const changeLogRange: KeyRange = prefixRange(CHANGE_LOG);

/** The timestamp of a change-log key (of any of its parts). */
export function changeKeyTimestamp(key: Buffer): number {
  return decodeU64(key, CHANGE_LOG.length);
}

export function signatureKey(signature: string): Buffer {
  return withStrings(SIGNATURE_HEAD, signature);
}

export function signatureExpiryKey(expiresAt: number, signature: string): Buffer {
  const size = inPlaceStringSize(signature, false);
  if (size < 0) return Buffer.concat([SIGNATURE_EXPIRY_HEAD, encodeU64(expiresAt), encodeString(signature)]);
  const out = Buffer.allocUnsafe(9 + size);
  out[0] = SIGNATURE_EXPIRY;
  writeU64(out, 1, expiresAt);
  writeStringComponent(out, 9, TAG.string, signature);
  return out;
}

export const signatureExpiryRange = (before: number): KeyRange => ({
  gte: Buffer.of(SIGNATURE_EXPIRY),
  lt: Buffer.concat([Buffer.of(SIGNATURE_EXPIRY), encodeU64(before)]),
});

/** Every key that starts with `prefix`. */
export function prefixRange(prefix: Buffer): KeyRange {
  return { gte: prefix, lt: prefixEnd(prefix)! };
}

const LAYOUT_VERSION = Buffer.concat([Buffer.of(SYSTEM), Buffer.from('version')]);

/**
 * `00 'version' coll` -> u64: the timestamp of the last transaction that wrote the collection's layout key. A
 * commit reads this small row instead of the layout, whose row overflows a B-tree page (not under `00 'layout'`:
 * every key there is a layout).
 */
export function layoutVersionKey(collectionId: string): Buffer {
  return withStrings(LAYOUT_VERSION, collectionId);
}
