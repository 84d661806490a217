// The storage format's bytes, frozen: fixtures/vectors/store-keys.json holds keys as the code at commit 5da41f9
// composed them (encodeValue, encodeString and encodeU64 joined by Buffer.concat), for values at every limit the
// writers tell apart. in-place-keys.test.ts compares the in-place writers with today's encodeValue; this file
// catches a change to both at once, which would leave an existing data folder's keys unreachable.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { encodeValue, inPlaceSize, writeValue, type Direction, type KeyValue } from '../../src/store/encoding.ts';
import { CollectionIndexes, type JsonObject } from '../../src/store/index-entries.ts';
import {
  changeKey,
  changePartKey,
  collectionChangedKey,
  layoutKey,
  recordDeletedKey,
  recordKey,
  signatureExpiryKey,
  signatureKey,
} from '../../src/store/keys.ts';
import { layoutOf } from '../../src/store/layout.ts';
import { collection, type TypeSpec } from './schemas.ts';

type StoredValue = { kind: string; value?: unknown; collectionId?: string; id?: string };
const vectors = JSON.parse(readFileSync(new URL('../../fixtures/vectors/store-keys.json', import.meta.url), 'utf8')) as {
  layout: { name: string; fields: Record<string, TypeSpec>; indexes: string[][] };
  values: { value: StoredValue; dir: Direction; truncate: boolean; hex: string }[];
  keys: { collectionId: string; id: string; timestamp: number; [builder: string]: string | number }[];
  entries: { collectionId: string; record: JsonObject; keys: string[] }[];
};

/** The fixture's value: numbers JSON cannot hold (-0, ±Infinity, NaN) as text, PublicKey bytes as hex. */
function valueOf(stored: StoredValue): KeyValue {
  if (stored.kind === 'number') return { kind: 'number', value: Number(stored.value) };
  if (stored.kind === 'publicKey') return { kind: 'publicKey', value: Buffer.from(stored.value as string, 'hex') };
  return stored as KeyValue;
}

const hex = (key: Buffer) => key.toString('hex');

describe('the storage format of 5da41f9', () => {
  it('values: encodeValue and the in-place writer give the same bytes, and refuse the same values', () => {
    expect(vectors.values.length).toBeGreaterThan(200);
    for (const { value: stored, dir, truncate, hex: expected } of vectors.values) {
      const value = valueOf(stored);
      if (expected === 'error') {
        expect(() => encodeValue(value, dir, truncate)).toThrow(RangeError);
        expect(inPlaceSize(value, truncate)).toBe(-1);
        continue;
      }
      expect(hex(encodeValue(value, dir, truncate))).toBe(expected);
      const size = inPlaceSize(value, truncate);
      if (size < 0) continue;
      const out = Buffer.alloc(size);
      writeValue(out, 0, value, dir);
      expect(hex(out)).toBe(expected);
    }
  });

  it('record, deletion, layout, stamp, signature and change-log keys', () => {
    for (const v of vectors.keys) {
      expect(hex(recordKey(v.collectionId, v.id))).toBe(v.record);
      expect(hex(recordDeletedKey(v.collectionId, v.id))).toBe(v.deleted);
      expect(hex(layoutKey(v.collectionId))).toBe(v.layout);
      expect(hex(collectionChangedKey(v.collectionId))).toBe(v.stamp);
      expect(hex(signatureKey(v.collectionId))).toBe(v.signature);
      expect(hex(signatureExpiryKey(v.timestamp, v.collectionId))).toBe(v.signatureExpiry);
      expect(hex(changeKey(v.timestamp))).toBe(v.change);
    }
    vectors.keys.forEach((v, i) => expect(hex(changePartKey(i, i + 1))).toBe(v.changePart));
  });

  it('index entry keys of records of every shape', () => {
    const layout = layoutOf(collection(vectors.layout.name, vectors.layout.fields, vectors.layout.indexes));
    for (const { collectionId, record, keys } of vectors.entries) {
      expect(new CollectionIndexes(collectionId, { layout, building: [] }).entriesOf(record).map(hex)).toEqual(keys);
    }
  });
});
