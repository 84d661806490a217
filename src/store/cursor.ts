// Cursors: an opaque, URL-safe string holding a position in an index (the key of an entry, without the
// collection's prefix), and the index it belongs to. `after` continues past that position in the query's
// order, `before` goes back from it. Because every key ends with the record id, a position is unique, and
// paging neither skips nor repeats records, whatever the sort, filter or direction. A cursor is taken only when
// its position is exactly one whole key component per field of the index, the record id last: a cursor cut short
// or extended is refused like any other that the service did not hand out.
//
// A cursor of a list that ran with a read filter is sealed (AES-256-GCM, under a key kept in the store: every
// server sharing the database seals and opens alike): its position is the key of an index entry, which holds the
// record's indexed values and id, and the entry may be one the caller may not read. A sealed cursor shows nothing
// of it, not even its exact length (the plain bytes are padded to a multiple of SEAL_BLOCK before sealing). A
// sealed cursor's first byte is SEALED_VERSION, which no plain cursor starts with; once opened, it is checked
// like a plain one. Both kinds are base64url (never a dot: the service appends `.` and the carried query).

import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { componentLength } from './encoding.ts';
import { invalidCursor } from './errors.ts';
import type { IndexDefinition } from './layout.ts';

const VERSION = 1;
const SEALED_VERSION = 2;
const INDEX_ID_BYTES = 8;
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Sealed plain bytes are padded to a multiple of this: a sealed cursor tells only roughly how long its key is. */
const SEAL_BLOCK = 64;
/** The length of the cursor key (AES-256). */
export const CURSOR_KEY_BYTES = 32;
const MAX_CURSOR_LENGTH = 8192;
/** A sealed cursor of a plain one of MAX_CURSOR_LENGTH: the marker, IV, tag and padding, in base64url characters. */
const MAX_SEALED_LENGTH = MAX_CURSOR_LENGTH + Math.ceil(((1 + IV_BYTES + TAG_BYTES + SEAL_BLOCK) * 4) / 3);
const BASE64URL = /^[A-Za-z0-9_-]*$/;

/** A plain cursor, or a sealed one under `sealKey` when given. */
export function encodeCursor(indexId: string, position: Buffer, sealKey?: Buffer): string {
  const plain = plainCursor(indexId, position);
  return (sealKey ? seal(sealKey, pad(plain)) : plain).toString('base64url');
}

/**
 * The padded sizes of a scan-position cursor (see `encodeScanCursor`): the small one holds positions of up to
 * about 1,000 bytes, the large one any position a cursor may hold (MAX_CURSOR_LENGTH).
 */
export const SCAN_CURSOR_SIZES = { small: 1024, large: (Math.floor((MAX_CURSOR_LENGTH * 3) / 4 / SEAL_BLOCK) + 1) * SEAL_BLOCK } as const;

/**
 * A sealed cursor padded to exactly `size` plain bytes, so that every such cursor has one length whatever the
 * position it holds; undefined when the position does not fit. A filtered list hands one out when its scan bound
 * stopped it among entries the caller may not have read: the position is theirs, and its length must say nothing.
 */
export function encodeScanCursor(indexId: string, position: Buffer, sealKey: Buffer, size: number): string | undefined {
  const plain = plainCursor(indexId, position);
  // The padding is at least the 0x80 byte.
  if (plain.length >= size) return undefined;
  return seal(sealKey, pad(plain, size)).toString('base64url');
}

function plainCursor(indexId: string, position: Buffer): Buffer {
  return Buffer.concat([Buffer.of(VERSION), Buffer.from(indexId, 'hex'), position]);
}

/** Whether `cursor` is a sealed one (which `decodeCursor` opens only with the store's cursor key). */
export function isSealedCursor(cursor: unknown): boolean {
  // The first byte is in the first two base64url characters.
  return typeof cursor === 'string' && BASE64URL.test(cursor.slice(0, 4)) && Buffer.from(cursor.slice(0, 4), 'base64url')[0] === SEALED_VERSION;
}

/**
 * The position the cursor holds, checked to belong to `index` (the index the query is planned on). A sealed
 * cursor needs `sealKey`; one that does not open under it (tampered, cut, another database's) is refused like
 * any other foreign cursor.
 */
export function decodeCursor(cursor: unknown, index: IndexDefinition, sealKey?: Buffer): Buffer {
  const foreign = () => invalidCursor('invalid cursor: not a cursor returned by this service');
  if (typeof cursor !== 'string' || cursor.length === 0) throw invalidCursor('invalid cursor: expected a non-empty string');
  if (cursor.length > MAX_SEALED_LENGTH || !BASE64URL.test(cursor)) throw foreign();
  let bytes: Buffer = Buffer.from(cursor, 'base64url');
  if (bytes[0] === SEALED_VERSION) {
    if (!sealKey) throw new Error('decodeCursor: a sealed cursor needs the cursor key');
    const opened = open(sealKey, bytes);
    if (!opened) throw foreign();
    bytes = opened;
  } else if (cursor.length > MAX_CURSOR_LENGTH) {
    throw foreign();
  }
  if (bytes.length < 1 + INDEX_ID_BYTES || bytes[0] !== VERSION) throw foreign();
  if (bytes.subarray(1, 1 + INDEX_ID_BYTES).toString('hex') !== index.id) {
    throw invalidCursor('invalid cursor: it belongs to a query with a different where or sort');
  }
  const position = bytes.subarray(1 + INDEX_ID_BYTES);
  if (!isPositionIn(index, position)) throw foreign();
  return position;
}

/** Whether `position` is one whole component per field of the index and nothing more (index-entries.ts, `entryKey`). */
function isPositionIn(index: IndexDefinition, position: Buffer): boolean {
  const last = index.fields.length - 1;
  let offset = 0;
  for (let i = 0; i < last; i++) {
    const field = index.fields[i]!;
    const length = componentLength(position, offset, field.type.kind, field.direction);
    if (length === 0) return false;
    offset += length;
  }
  // The record id ends every key: a whole string, never null or cut.
  const length = componentLength(position, offset, 'string', index.fields[last]!.direction, true);
  return length > 0 && offset + length === position.length;
}

/** [SEALED_VERSION, IV, AES-256-GCM of the padded plain bytes, tag]; the marker byte is authenticated too. */
function seal(key: Buffer, padded: Buffer): Buffer {
  const marker = Buffer.of(SEALED_VERSION);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(marker);
  const body = Buffer.concat([cipher.update(padded), cipher.final()]);
  return Buffer.concat([marker, iv, body, cipher.getAuthTag()]);
}

/** The plain bytes of a sealed cursor, or undefined when it does not open under `key`. */
function open(key: Buffer, sealed: Buffer): Buffer | undefined {
  if (sealed.length < 1 + IV_BYTES + SEAL_BLOCK + TAG_BYTES) return undefined;
  const iv = sealed.subarray(1, 1 + IV_BYTES);
  const body = sealed.subarray(1 + IV_BYTES, sealed.length - TAG_BYTES);
  const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  decipher.setAAD(sealed.subarray(0, 1));
  decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
  try {
    return unpad(Buffer.concat([decipher.update(body), decipher.final()]));
  } catch {
    return undefined; // the tag does not match
  }
}

/**
 * ISO/IEC 7816-4 padding: 0x80, then zeros up to `size` (greater than the plain length), by default the next
 * multiple of SEAL_BLOCK (always at least the 0x80).
 */
function pad(plain: Buffer, size = (Math.floor(plain.length / SEAL_BLOCK) + 1) * SEAL_BLOCK): Buffer {
  const padded = Buffer.alloc(size);
  plain.copy(padded);
  padded[plain.length] = 0x80;
  return padded;
}

function unpad(padded: Buffer): Buffer | undefined {
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end--;
  return end >= 0 && padded[end] === 0x80 ? padded.subarray(0, end) : undefined;
}
