// Order-preserving byte encoding of typed values, for index keys.
//
// Each value is one self-delimiting component: a type tag, then the value's bytes. Components are
// prefix-free (no component is a prefix of a different one), so a key made of several components compares
// field by field, and inverting every byte of a component reverses its order (descending fields) without
// disturbing the fields after it. Comparing two keys is plain `memcmp`, which is what SQLite (BLOB) and
// PostgreSQL (BYTEA) do.
//
//   null / missing  0x01                       (first when ascending, last when descending)
//   string          0x04  utf-8 with 0x00 -> 0x00 0xFF, then 0x00 0x01 (or 0x00 0x02 when truncated)
//   number          0x05  IEEE-754 big-endian, sign bit flipped (>= 0) or every bit flipped (< 0); -0 is 0
//   boolean         0x06  0x00 false, 0x01 true
//   PublicKey       0x08  the 64 raw bytes x || y
//   reference       0x09  collectionId as a string body, then id as a string body
//
// The tag order (null < string < number < boolean < PublicKey < reference) is Polybase's.

export type KeyValue =
  | { readonly kind: 'null' }
  | { readonly kind: 'string'; readonly value: string }
  | { readonly kind: 'number'; readonly value: number }
  | { readonly kind: 'boolean'; readonly value: boolean }
  | { readonly kind: 'publicKey'; readonly value: Uint8Array }
  | { readonly kind: 'reference'; readonly collectionId: string; readonly id: string };

export type Direction = 'asc' | 'desc';

export const TAG = {
  null: 0x01,
  string: 0x04,
  number: 0x05,
  boolean: 0x06,
  publicKey: 0x08,
  reference: 0x09,
} as const;

/**
 * Index keys hold at most this many UTF-8 bytes of a string value (PostgreSQL's B-tree refuses keys over
 * ~2.7 kB). Longer strings are cut and marked, so they still sort after every shorter string with the same
 * start; two long strings that share their first 256 bytes compare by record id instead, and query results
 * are re-checked against the full value, so filters stay exact.
 */
export const MAX_INDEXED_STRING_BYTES = 256;

export const NULL_VALUE: KeyValue = { kind: 'null' };

/** Encodes one value as a key component. */
export function encodeValue(value: KeyValue, direction: Direction = 'asc', truncate = true): Buffer {
  const bytes = encodeAscending(value, truncate);
  return direction === 'asc' ? bytes : invert(bytes);
}

/** Encodes a sequence of components into one key. */
export function encodeTuple(values: readonly KeyValue[], directions?: readonly Direction[]): Buffer {
  return Buffer.concat(values.map((value, i) => encodeValue(value, directions?.[i] ?? 'asc')));
}

/** A string as an untruncated key component (collection ids and record ids in keys). */
export function encodeString(text: string): Buffer {
  return taggedString(TAG.string, text, false);
}

/**
 * The bytes that begin the key of every string starting with `text`, and only of those: the tag and the escaped
 * UTF-8 bytes, without the terminator, cut where an index cuts a long string (a longer prefix is then re-checked
 * against the whole value). UTF-8 is prefix-free, so a string's characters start with `text` exactly when its
 * bytes do, for any character (U+FFFF and the characters above it, whose bytes sort after U+FFFF's, included).
 */
export function stringPrefixKey(text: string, direction: Direction): Buffer {
  const component = taggedString(TAG.string, text, true);
  const bytes = component.subarray(0, component.length - 2); // the terminator, 0x00 0x01 (or 0x02 when cut)
  return direction === 'asc' ? Buffer.from(bytes) : invert(bytes);
}

/** The one-byte prefix shared by every component of a type (used to bound a range scan to one type). */
export function typeTag(kind: KeyValue['kind'], direction: Direction): Buffer {
  const tag = TAG[kind];
  return Buffer.of(direction === 'asc' ? tag : 0xff - tag);
}

function encodeAscending(value: KeyValue, truncate: boolean): Buffer {
  switch (value.kind) {
    case 'null':
      return Buffer.of(TAG.null);
    case 'string':
      return taggedString(TAG.string, value.value, truncate);
    case 'number': {
      const bytes = Buffer.allocUnsafe(9);
      bytes[0] = TAG.number;
      writeNumberBody(bytes, 1, value.value);
      return bytes;
    }
    case 'boolean':
      return Buffer.of(TAG.boolean, value.value ? 1 : 0);
    case 'publicKey':
      if (value.value.length !== 64) throw new RangeError('a PublicKey key component must be 64 bytes');
      return Buffer.concat([Buffer.of(TAG.publicKey), value.value]);
    case 'reference':
      return Buffer.concat([taggedString(TAG.reference, value.collectionId, truncate), stringBody(value.id, truncate)]);
  }
}

/** Writes the 8 order-preserving bytes of a number at `offset`. */
function writeNumberBody(bytes: Buffer, offset: number, n: number): void {
  if (Number.isNaN(n)) throw new RangeError('NaN cannot be encoded in a key');
  bytes.writeDoubleBE(n === 0 ? 0 : n, offset); // -0 is 0
  if (bytes[offset]! & 0x80) {
    for (let i = offset; i < offset + 8; i++) bytes[i] = ~bytes[i]! & 0xff;
  } else {
    bytes[offset] = bytes[offset]! | 0x80;
  }
}

/** A tag byte followed by the string body. */
function taggedString(tag: number, text: string, truncate: boolean): Buffer {
  // The common case, one allocation: short enough to keep whole, and no 0x00 byte to escape (the in-place writer).
  const size = inPlaceStringSize(text, truncate);
  if (size >= 0) {
    const out = Buffer.allocUnsafe(size);
    writeStringComponent(out, 0, tag, text);
    return out;
  }
  let utf8 = Buffer.from(text, 'utf8');
  let truncated = false;
  if (truncate && utf8.length > MAX_INDEXED_STRING_BYTES) {
    utf8 = utf8.subarray(0, MAX_INDEXED_STRING_BYTES);
    truncated = true;
  }
  const terminator = truncated ? 0x02 : 0x01;
  if (utf8.indexOf(0) === -1) {
    const out = Buffer.allocUnsafe(utf8.length + 3);
    out[0] = tag;
    utf8.copy(out, 1);
    out[utf8.length + 1] = 0x00;
    out[utf8.length + 2] = terminator;
    return out;
  }
  let zeros = 0;
  for (const byte of utf8) if (byte === 0) zeros++;
  const out = Buffer.alloc(utf8.length + zeros + 3);
  out[0] = tag;
  let o = 1;
  for (const byte of utf8) {
    out[o++] = byte;
    if (byte === 0) out[o++] = 0xff;
  }
  out[o++] = 0x00;
  out[o] = terminator;
  return out;
}

/** The string body alone: escaped UTF-8 and its terminator. */
function stringBody(text: string, truncate: boolean): Buffer {
  return taggedString(0, text, truncate).subarray(1);
}

// Writing keys in place. A key is several components; encoding each into its own Buffer and concatenating them
// costs an allocation per component, and keys are built on every write (a record's key, its index entries, old
// and new). So a key's size is computed first, then its components are written into one Buffer. Only the common
// values are written this way: a string that needs neither 0x00 escapes nor cutting, and any other value that
// encodes without an error. The rest (`inPlaceSize` says -1) are left to `encodeValue`, the one definition of the
// bytes, which the in-place writers must match exactly (test/store/encoding.test.ts compares them).

/**
 * The size of `encodeValue(value, direction, truncate)` when `writeValue` can write it in place, or -1 when only
 * encodeValue can (a string with a 0x00 byte or one to cut, NaN, a PublicKey of the wrong length).
 */
export function inPlaceSize(value: KeyValue, truncate = true): number {
  switch (value.kind) {
    case 'null':
      return 1;
    case 'string':
      return inPlaceStringSize(value.value, truncate);
    case 'number':
      return Number.isNaN(value.value) ? -1 : 9;
    case 'boolean':
      return 2;
    case 'publicKey':
      return value.value.length === 64 ? 65 : -1;
    case 'reference': {
      const collectionId = inPlaceStringSize(value.collectionId, truncate);
      const id = inPlaceStringSize(value.id, truncate);
      // Two string components, less the id's tag byte (a reference has one tag).
      return collectionId < 0 || id < 0 ? -1 : collectionId + id - 1;
    }
  }
}

/**
 * Writes `encodeValue(value, direction)` at `offset` of `out` and returns where it ends; `out` must have the room
 * that `inPlaceSize` gave, and only a value it sized (not -1) may be written. `truncate` does not matter here:
 * the values that would be cut are the ones left to encodeValue.
 */
export function writeValue(out: Buffer, offset: number, value: KeyValue, direction: Direction): number {
  const end = writeAscending(out, offset, value);
  if (direction === 'desc') for (let i = offset; i < end; i++) out[i] = 0xff - out[i]!;
  return end;
}

/**
 * The size of a string component (tag, UTF-8 bytes, terminator) when its bytes need no escape and no cut, else
 * -1. Only U+0000 gives a 0x00 byte in UTF-8 (a lone surrogate is written as U+FFFD, EF BF BD).
 */
export function inPlaceStringSize(text: string, truncate: boolean): number {
  // A string of more UTF-16 units than the cap has more UTF-8 bytes than it too.
  if ((truncate && text.length > MAX_INDEXED_STRING_BYTES) || text.includes('\0')) return -1;
  const length = Buffer.byteLength(text, 'utf8');
  return truncate && length > MAX_INDEXED_STRING_BYTES ? -1 : length + 3;
}

/** Writes a string component that `inPlaceStringSize` sized, with the tag given, and returns where it ends. */
export function writeStringComponent(out: Buffer, offset: number, tag: number, text: string): number {
  out[offset] = tag;
  return writeStringBody(out, offset + 1, text);
}

function writeStringBody(out: Buffer, offset: number, text: string): number {
  let end = offset + text.length;
  // Most ids and values are short ASCII: a loop writes them in a fraction of the cost of Buffer.write's call into
  // C++. Anything else (a character over 0x7F, a long text) is written by Buffer.write, from the start again.
  if (text.length > SHORT_TEXT) {
    end = offset + out.write(text, offset, 'utf8');
  } else {
    for (let i = 0; i < text.length; i++) {
      const unit = text.charCodeAt(i);
      if (unit > 0x7f) {
        end = offset + out.write(text, offset, 'utf8');
        break;
      }
      out[offset + i] = unit;
    }
  }
  out[end] = 0x00;
  out[end + 1] = 0x01;
  return end + 2;
}

/** Up to this many UTF-16 units, writeStringBody copies an ASCII text itself. */
const SHORT_TEXT = 32;

function writeAscending(out: Buffer, offset: number, value: KeyValue): number {
  switch (value.kind) {
    case 'null':
      out[offset] = TAG.null;
      return offset + 1;
    case 'string':
      return writeStringComponent(out, offset, TAG.string, value.value);
    case 'number':
      out[offset] = TAG.number;
      writeNumberBody(out, offset + 1, value.value);
      return offset + 9;
    case 'boolean':
      out[offset] = TAG.boolean;
      out[offset + 1] = value.value ? 1 : 0;
      return offset + 2;
    case 'publicKey':
      out[offset] = TAG.publicKey;
      out.set(value.value, offset + 1);
      return offset + 65;
    case 'reference':
      return writeStringBody(out, writeStringComponent(out, offset, TAG.reference, value.collectionId), value.id);
  }
}

/**
 * The length of the one whole component at `offset` of `key` that a field of type `kind` can hold: a value of that
 * type or null, or, for a record id (`recordId`), a string that is neither null nor cut. 0 when the bytes there are
 * not such a component (another type, or cut short). Checks cursors: a position must be whole components only.
 */
export function componentLength(key: Buffer, offset: number, kind: Exclude<KeyValue['kind'], 'null'>, direction: Direction, recordId = false): number {
  // The byte at `i` as the ascending encoding has it, or -1 past the end.
  const at = (i: number) => (i >= key.length ? -1 : direction === 'asc' ? key[i]! : 0xff - key[i]!);
  const tag = at(offset);
  if (tag === TAG.null && !recordId) return 1;
  if (tag !== TAG[kind]) return 0;
  let end: number;
  switch (kind) {
    case 'string':
      end = stringBodyEnd(at, offset + 1, !recordId);
      break;
    case 'number':
      end = offset + 9;
      break;
    case 'boolean':
      end = at(offset + 1) === 0 || at(offset + 1) === 1 ? offset + 2 : -1;
      break;
    case 'publicKey':
      end = offset + 65;
      break;
    case 'reference': {
      const collectionEnd = stringBodyEnd(at, offset + 1, true);
      end = collectionEnd < 0 ? -1 : stringBodyEnd(at, collectionEnd, true);
      break;
    }
  }
  return end > offset && end <= key.length ? end - offset : 0;
}

/** Where the string body that starts at `start` ends (just after its terminator), or -1 when it has none. */
function stringBodyEnd(at: (i: number) => number, start: number, mayBeCut: boolean): number {
  for (let i = start; ; i++) {
    const byte = at(i);
    if (byte === -1) return -1;
    if (byte !== 0x00) continue;
    const next = at(i + 1);
    if (next === 0xff) {
      i++; // an escaped 0x00 of the text
      continue;
    }
    return next === 0x01 || (next === 0x02 && mayBeCut) ? i + 2 : -1;
  }
}

export function invert(bytes: Buffer): Buffer {
  const out = Buffer.alloc(bytes.length);
  for (let i = 0; i < bytes.length; i++) out[i] = 0xff - bytes[i]!;
  return out;
}

/**
 * The smallest key greater than every key that starts with `prefix` (for half-open ranges), or undefined
 * when there is none (a prefix of only 0xFF bytes).
 */
export function prefixEnd(prefix: Buffer): Buffer | undefined {
  let end = prefix.length;
  while (end > 0 && prefix[end - 1] === 0xff) end--;
  if (end === 0) return undefined;
  const out = Buffer.from(prefix.subarray(0, end));
  out[end - 1] = out[end - 1]! + 1;
  return out;
}

/** The smallest key greater than `key` itself. */
export function keySuccessor(key: Buffer): Buffer {
  return Buffer.concat([key, Buffer.of(0)]);
}

const TWO_32 = 2 ** 32;

/**
 * A 64-bit big-endian unsigned integer (timestamps in keys and values), from a safe integer. Written as two
 * 32-bit halves: no BigInt on the paths every request takes.
 */
export function encodeU64(n: number): Buffer {
  const bytes = Buffer.allocUnsafe(8);
  writeU64(bytes, 0, n);
  return bytes;
}

/** Writes `encodeU64(n)` at `offset` of `bytes` (for keys written in one allocation). */
export function writeU64(bytes: Buffer, offset: number, n: number): void {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`not an unsigned 64-bit integer in the safe range: ${n}`);
  bytes.writeUInt32BE(Math.floor(n / TWO_32), offset);
  bytes.writeUInt32BE(n % TWO_32, offset + 4);
}

export function decodeU64(bytes: Uint8Array, offset = 0): number {
  const view = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return view.readUInt32BE(offset) * TWO_32 + view.readUInt32BE(offset + 4);
}

/** `decodeU64` of the bytes whose hex (16 digits, as SQLite's `hex()` writes them) starts `hex`. */
export function decodeU64Hex(hex: string): number {
  return Number.parseInt(hex.slice(0, 8), 16) * TWO_32 + Number.parseInt(hex.slice(8, 16), 16);
}
