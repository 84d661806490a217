// The keys written in place (one allocation each: encoding.ts `writeValue`, keys.ts, index-entries.ts) must be
// byte for byte the keys of the plain composition (encodeValue, encodeString, Buffer.concat), since the bytes
// are the storage format. Each fast builder is compared with that composition, written out here, over values of
// every kind, the rare ones (0x00 bytes, long strings, NaN, malformed keys) included.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeString, encodeU64, encodeValue, inPlaceSize, MAX_INDEXED_STRING_BYTES, writeValue, type Direction, type KeyValue } from '../../src/store/encoding.ts';
import { recordKeyValue } from '../../src/store/cast.ts';
import { CollectionIndexes, type JsonObject } from '../../src/store/index-entries.ts';
import {
  changeKey,
  changePartKey,
  collectionChangedKey,
  collectionIndexesPrefix,
  indexPrefix,
  layoutKey,
  layoutVersionKey,
  recordDeletedKey,
  recordDeletedPrefix,
  recordKey,
  recordPrefix,
  signatureExpiryKey,
  signatureKey,
} from '../../src/store/keys.ts';
import { layoutOf, valueAtPath } from '../../src/store/layout.ts';
import { collection } from './schemas.ts';

const utf8Length = (text: string) => Buffer.byteLength(text, 'utf8');
const hex = (key: Buffer) => key.toString('hex');

// Texts of every shape the writers tell apart: ASCII or not, with U+0000 or not, lone surrogates, astral
// characters, short (written by a loop) or long (by Buffer.write), and around the indexed cap in UTF-8 bytes.
const unit = fc.constantFrom('a', 'Z', '~', '\u0000', '\u007f', '\u0080', '\u00e9', '\u07ff', '\u0800', '\uffff', '😀', '\ud800', '\udc00');
// And texts built to sit at each limit (the 32-unit ASCII loop, the 256-byte cap, the 512-byte id), with a rare
// character just before, at or after it: a cut inside a multi-byte character, 0x00, U+00FF, lone surrogates.
const rare = ['\u0000', '\u00ff', '\ufffd', '\uffff', '\ud800', '\udc00', '\udc00\ud800', '😀', '\u07ff', '\u0800'];
const atLimit = fc
  .tuple(fc.constantFrom(31, 32, 33, 84, 85, 86, 127, 128, 129, 253, 254, 255, 256, 257, 510, 511, 512), fc.constantFrom(...rare), fc.integer({ min: -2, max: 1 }))
  .map(([length, character, shift]) => 'a'.repeat(Math.max(0, length + shift)) + character + 'a'.repeat(Math.max(0, -shift)));
const text = fc.oneof(
  atLimit,
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit, maxLength: 40 }),
  fc.string({ unit: fc.constantFrom('a', 'b'), minLength: MAX_INDEXED_STRING_BYTES - 4, maxLength: MAX_INDEXED_STRING_BYTES + 4 }),
  fc.string({ unit: fc.constantFrom('a', '\u00e9', '😀', '\u0000'), minLength: 60, maxLength: 300 }),
  fc.string({ unit: 'grapheme-ascii', minLength: 28, maxLength: 36 }),
);
const number = fc.oneof(
  fc.double(),
  fc.constantFrom(0, -0, 1, -1, NaN, Infinity, -Infinity, Number.MIN_VALUE, -Number.MIN_VALUE, Number.MAX_VALUE, -Number.MAX_VALUE),
);
const keyValue: fc.Arbitrary<KeyValue> = fc.oneof(
  fc.constant<KeyValue>({ kind: 'null' }),
  text.map((value): KeyValue => ({ kind: 'string', value })),
  number.map((value): KeyValue => ({ kind: 'number', value })),
  fc.boolean().map((value): KeyValue => ({ kind: 'boolean', value })),
  fc.oneof(fc.uint8Array({ minLength: 64, maxLength: 64 }), fc.uint8Array({ maxLength: 70 })).map((value): KeyValue => ({ kind: 'publicKey', value })),
  fc.record({ collectionId: text, id: text }).map(({ collectionId, id }): KeyValue => ({ kind: 'reference', collectionId, id })),
);
const direction = fc.constantFrom<Direction>('asc', 'desc');

/** encodeValue's bytes, or its error. */
function encoded(value: KeyValue, dir: Direction, truncate: boolean): Buffer | Error {
  try {
    return encodeValue(value, dir, truncate);
  } catch (error) {
    return error as Error;
  }
}

/** True when encodeValue must escape a 0x00 byte or cut a string of `value`. */
function needsEscapeOrCut(value: KeyValue, truncate: boolean): boolean {
  const rare = (s: string) => s.includes('\u0000') || (truncate && utf8Length(s) > MAX_INDEXED_STRING_BYTES);
  return value.kind === 'string' ? rare(value.value) : value.kind === 'reference' ? rare(value.collectionId) || rare(value.id) : false;
}

describe('a value written in place', () => {
  it('is encodeValue byte for byte, leaves the bytes around it alone, and is refused exactly where encodeValue escapes, cuts or fails', () => {
    fc.assert(
      fc.property(keyValue, direction, fc.boolean(), fc.nat(8), fc.integer({ min: 0, max: 255 }), (value, dir, truncate, offset, fill) => {
        const expected = encoded(value, dir, truncate);
        const size = inPlaceSize(value, truncate);
        if (expected instanceof Error || needsEscapeOrCut(value, truncate)) {
          expect(size).toBe(-1);
          return;
        }
        expect(size).toBe(expected.length);
        const out = Buffer.alloc(offset + size + 8, fill);
        expect(writeValue(out, offset, value, dir)).toBe(offset + size);
        expect(out.subarray(offset, offset + size)).toEqual(expected);
        expect(out.subarray(0, offset).every((byte) => byte === fill)).toBe(true);
        expect(out.subarray(offset + size).every((byte) => byte === fill)).toBe(true);
      }),
      { numRuns: 5000 },
    );
  });

  it('covers the values the writers tell apart', () => {
    const sizes = (value: KeyValue) => [inPlaceSize(value), inPlaceSize(value, false)];
    expect(sizes({ kind: 'number', value: -0 })).toEqual([9, 9]);
    expect(sizes({ kind: 'number', value: NaN })).toEqual([-1, -1]);
    expect(sizes({ kind: 'string', value: 'a\u0000b' })).toEqual([-1, -1]);
    expect(sizes({ kind: 'string', value: 'é'.repeat(128) })).toEqual([259, 259]);
    expect(sizes({ kind: 'string', value: 'é'.repeat(129) })).toEqual([-1, 261]);
    expect(sizes({ kind: 'string', value: '😀\ud800' })).toEqual([10, 10]);
    expect(sizes({ kind: 'publicKey', value: new Uint8Array(63) })).toEqual([-1, -1]);
    expect(sizes({ kind: 'reference', collectionId: 'c', id: 'i' })).toEqual([7, 7]);
  });
});

describe('keys built in one allocation', () => {
  const SYSTEM = (name: string) => Buffer.concat([Buffer.of(0x00), Buffer.from(name)]);
  it('are the head and the string components, as Buffer.concat of encodeString gives them', () => {
    fc.assert(
      fc.property(text, text, fc.uint8Array({ minLength: 8, maxLength: 8 }).map((bytes) => Buffer.from(bytes).toString('hex')), (collectionId, id, indexId) => {
        const c = encodeString(collectionId);
        const i = encodeString(id);
        expect(hex(layoutKey(collectionId))).toBe(hex(Buffer.concat([SYSTEM('layout'), c])));
        expect(hex(collectionChangedKey(collectionId))).toBe(hex(Buffer.concat([SYSTEM('stamp'), c])));
        expect(hex(layoutVersionKey(collectionId))).toBe(hex(Buffer.concat([SYSTEM('version'), c])));
        expect(hex(recordPrefix(collectionId))).toBe(hex(Buffer.concat([Buffer.of(0x10), c])));
        expect(hex(recordKey(collectionId, id))).toBe(hex(Buffer.concat([Buffer.of(0x10), c, i])));
        expect(hex(collectionIndexesPrefix(collectionId))).toBe(hex(Buffer.concat([Buffer.of(0x11), c])));
        expect(hex(indexPrefix(collectionId, indexId))).toBe(hex(Buffer.concat([Buffer.of(0x11), c, Buffer.from(indexId, 'hex')])));
        expect(hex(recordDeletedPrefix(collectionId))).toBe(hex(Buffer.concat([Buffer.of(0x13), c])));
        expect(hex(recordDeletedKey(collectionId, id))).toBe(hex(Buffer.concat([Buffer.of(0x13), c, i])));
        expect(hex(signatureKey(id))).toBe(hex(Buffer.concat([Buffer.of(0x15), i])));
      }),
      { numRuns: 3000 },
    );
  });

  it('with u64 timestamps are the head, the u64s and the string, as Buffer.concat of encodeU64 gives them', () => {
    const u64 = fc.oneof(fc.nat(), fc.constantFrom(0, 2 ** 32 - 1, 2 ** 32, Number.MAX_SAFE_INTEGER), fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }));
    fc.assert(
      fc.property(u64, u64, text, (timestamp, part, signature) => {
        expect(hex(changeKey(timestamp))).toBe(hex(Buffer.concat([SYSTEM('log'), encodeU64(timestamp)])));
        expect(hex(changePartKey(timestamp, part))).toBe(hex(Buffer.concat([SYSTEM('log'), encodeU64(timestamp), encodeU64(part)])));
        expect(hex(signatureExpiryKey(timestamp, signature))).toBe(hex(Buffer.concat([Buffer.of(0x16), encodeU64(timestamp), encodeString(signature)])));
      }),
      { numRuns: 2000 },
    );
    for (const bad of [-1, 0.5, Number.MAX_SAFE_INTEGER + 1, NaN]) {
      expect(() => changeKey(bad)).toThrow(RangeError);
      expect(() => changePartKey(1, bad)).toThrow(RangeError);
      expect(() => signatureExpiryKey(bad, 'sig')).toThrow(RangeError);
    }
  });
});

describe('index entry keys', () => {
  // Every indexable kind, ascending and descending, a nested path, an array field, and the id descending.
  const layout = layoutOf(
    collection(
      'Thing',
      {
        id: 'string',
        's?': 'string',
        'n?': 'number',
        'b?': 'boolean',
        'k?': 'PublicKey',
        'r?': { ref: 'Thing' },
        'tags?': 'string[]',
        'info?': { object: { 'city?': 'string' } },
      },
      [['s', 'n desc'], ['tags', 'b desc'], ['info.city desc', 'k'], ['r desc', 'id desc'], ['b', 's desc', 'k desc', 'r', 'n']],
    ),
  );
  const secondary = layout.indexes.filter((index) => !index.primary);

  // A field holds its type's value in its wire form, or null, or something of another type (indexed as null).
  const jwk = fc.uint8Array({ minLength: 64, maxLength: 64 }).map((bytes) => ({
    kty: 'EC',
    crv: 'secp256k1',
    alg: 'ES256K',
    use: 'sig',
    x: Buffer.from(bytes.subarray(0, 32)).toString('base64url'),
    y: Buffer.from(bytes.subarray(32)).toString('base64url'),
  }));
  const other = fc.oneof(text, fc.double(), fc.boolean(), fc.constant(null), fc.constant([]), fc.constant({}));
  const field = <T>(typed: fc.Arbitrary<T>) => fc.option(fc.oneof({ arbitrary: typed, weight: 4 }, { arbitrary: other, weight: 1 }), { nil: undefined });
  const record = fc.record(
    {
      id: text,
      s: field(text),
      n: field(fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(0, -0, 1, -1))),
      b: field(fc.boolean()),
      k: field(jwk),
      r: field(fc.record({ collectionId: text, id: text })),
      tags: field(fc.array(fc.oneof(text, fc.constantFrom('x', 'y'), other), { maxLength: 8 })),
      info: field(fc.record({ city: field(text) }, { requiredKeys: [] })),
    },
    { requiredKeys: ['id'] },
  ) as fc.Arbitrary<JsonObject>;

  /** The keys of the record in the index, composed as the storage format defines them. */
  function referenceKeys(collectionId: string, index: (typeof secondary)[number], thing: JsonObject): Buffer[] {
    const prefix = Buffer.concat([Buffer.of(0x11), encodeString(collectionId), Buffer.from(index.id, 'hex')]);
    const last = index.fields.length - 1;
    const keyOf = (element?: unknown) =>
      Buffer.concat([
        prefix,
        ...index.fields.slice(0, last).map((f) => encodeValue(recordKeyValue(f.type, f.array ? element : valueAtPath(thing, f.path)), f.direction)),
        encodeValue({ kind: 'string', value: String(thing.id) }, index.fields[last]!.direction, false),
      ]);
    const arrayField = index.fields.find((f) => f.array);
    if (!arrayField) return [keyOf()];
    const array = valueAtPath(thing, arrayField.path);
    if (!Array.isArray(array)) return [];
    const distinct = new Map<string, Buffer>();
    for (const element of array) {
      const key = keyOf(element);
      distinct.set(key.toString('hex'), key);
    }
    return [...distinct.values()];
  }

  it('are the composed keys of every index, in order, for records of every shape', () => {
    fc.assert(
      fc.property(text, record, (collectionId, thing) => {
        const indexes = new CollectionIndexes(collectionId, { layout, building: [] });
        const expected = secondary.map((index) => referenceKeys(collectionId, index, thing).map(hex));
        expect(indexes.entriesOf(thing).map(hex)).toEqual(expected.flat());
        secondary.forEach((index, i) => {
          expect(indexes.entriesOf(thing, new Set([index.id])).map(hex)).toEqual(expected[i]);
          if (!index.fields.some((f) => f.array)) expect(hex(indexes.keyOf(index, thing))).toEqual(expected[i]![0]);
        });
        expect(hex(indexes.keyOf(layout.indexes[0]!, thing))).toEqual(hex(Buffer.concat([Buffer.of(0x10), encodeString(collectionId), encodeString(String(thing.id))])));
      }),
      { numRuns: 1000 },
    );
  });
});
