import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeTuple, encodeValue, MAX_INDEXED_STRING_BYTES, publicKeyBytes, queryKeyValue, type Direction, type KeyValue } from '../../src/store/index.ts';
import { componentLength, decodeU64, encodeString, encodeU64 } from '../../src/store/encoding.ts';

// The order values should have, written independently of the encoding.
const KIND_ORDER: KeyValue['kind'][] = ['null', 'string', 'number', 'boolean', 'publicKey', 'reference'];
const utf8 = (s: string) => Buffer.from(s, 'utf8');
const sign = (n: number) => (n < 0 ? -1 : n > 0 ? 1 : 0);

function compareValues(a: KeyValue, b: KeyValue): number {
  if (a.kind !== b.kind) return KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind);
  switch (a.kind) {
    case 'null':
      return 0;
    case 'string':
      return Buffer.compare(utf8(a.value), utf8((b as typeof a).value));
    case 'number': {
      const y = (b as typeof a).value;
      return a.value < y ? -1 : a.value > y ? 1 : 0; // -0 === 0
    }
    case 'boolean':
      return Number(a.value) - Number((b as typeof a).value);
    case 'publicKey':
      return Buffer.compare(Buffer.from(a.value), Buffer.from((b as typeof a).value));
    case 'reference': {
      const other = b as typeof a;
      return Buffer.compare(utf8(a.collectionId), utf8(other.collectionId)) || Buffer.compare(utf8(a.id), utf8(other.id));
    }
  }
}

const shortString = fc.string({ unit: 'binary', maxLength: 12 });
const valueOf: Record<KeyValue['kind'], fc.Arbitrary<KeyValue>> = {
  null: fc.constant({ kind: 'null' }),
  // Binary units include NUL, lone surrogates and astral characters; a small alphabet makes prefixes common.
  string: fc.oneof(shortString, fc.string({ unit: fc.constantFrom('a', 'b', '\u0000', '\u00ff', '😀'), maxLength: 6 })).map((value) => ({ kind: 'string', value })),
  number: fc
    .oneof(fc.double({ noNaN: true }), fc.constantFrom(0, -0, 1, -1, 0.5, -0.5, Number.MIN_VALUE, -Number.MIN_VALUE, Number.MAX_VALUE, -Number.MAX_VALUE, Infinity, -Infinity))
    .map((value) => ({ kind: 'number', value })),
  boolean: fc.boolean().map((value) => ({ kind: 'boolean', value })),
  publicKey: fc.uint8Array({ minLength: 64, maxLength: 64 }).map((value) => ({ kind: 'publicKey', value })),
  reference: fc.record({ collectionId: shortString, id: shortString }).map(({ collectionId, id }) => ({ kind: 'reference', collectionId, id })),
};
const anyValue = fc.oneof(...Object.values(valueOf));

describe('key encoding', () => {
  for (const kind of KIND_ORDER) {
    it(`orders ${kind} values (and null) as their values, both directions`, () => {
      const values = fc.oneof(valueOf[kind], valueOf.null);
      fc.assert(
        fc.property(values, values, (a, b) => {
          const expected = sign(compareValues(a, b));
          expect(sign(Buffer.compare(encodeValue(a), encodeValue(b)))).toBe(expected);
          expect(sign(Buffer.compare(encodeValue(a, 'desc'), encodeValue(b, 'desc')))).toBe(0 - expected || 0);
        }),
        { numRuns: 2000 },
      );
    });
  }

  it('measures one whole component of a field type (cursor checks): never a part of one, never the next one', () => {
    const typed = fc.constantFrom<Exclude<KeyValue['kind'], 'null'>>('string', 'number', 'boolean', 'publicKey', 'reference').chain((kind) =>
      fc.tuple(fc.constant(kind), fc.oneof(valueOf[kind], valueOf.null, fc.string({ minLength: MAX_INDEXED_STRING_BYTES - 2, maxLength: 300 }).map((value): KeyValue => ({ kind: 'string', value })))),
    );
    fc.assert(
      fc.property(typed, fc.constantFrom<Direction>('asc', 'desc'), anyValue, ([kind, value], direction, next) => {
        const bytes = encodeValue(value, direction);
        const fits = value.kind === kind || value.kind === 'null';
        // Followed by another component, as in a key: the length is this component's alone.
        const key = Buffer.concat([Buffer.of(0x7e), bytes, encodeValue(next, direction)]);
        expect(componentLength(key, 1, kind, direction)).toBe(fits ? bytes.length : 0);
        for (let cut = 0; cut < bytes.length; cut++) expect(componentLength(bytes.subarray(0, cut), 0, kind, direction)).toBe(0);
        // A record id: a whole string only, neither null nor cut.
        const id = value.kind === 'string' ? encodeValue(value, direction, false) : bytes;
        expect(componentLength(id, 0, 'string', direction, true)).toBe(value.kind === 'string' ? id.length : 0);
        if (value.kind === 'string' && id.length !== bytes.length) expect(componentLength(bytes, 0, 'string', direction, true)).toBe(0);
      }),
      { numRuns: 1000 },
    );
  });

  it('orders values of different types by type tag: null < string < number < boolean < PublicKey < reference', () => {
    fc.assert(
      fc.property(anyValue, anyValue, (a, b) => {
        expect(sign(Buffer.compare(encodeValue(a), encodeValue(b)))).toBe(sign(compareValues(a, b)));
      }),
      { numRuns: 2000 },
    );
  });

  it('orders tuples field by field, with descending fields inverted and the id last', () => {
    const tuple = fc.tuple(valueOf.string, fc.oneof(valueOf.number, valueOf.null), valueOf.string);
    const directions = fc.tuple(fc.constantFrom<Direction>('asc', 'desc'), fc.constantFrom<Direction>('asc', 'desc'));
    fc.assert(
      fc.property(tuple, tuple, directions, (a, b, [d1, d2]) => {
        const dirs: Direction[] = [d1, d2, 'asc'];
        let expected = 0;
        for (let i = 0; i < 3 && expected === 0; i++) expected = sign(compareValues(a[i]!, b[i]!)) * (dirs[i] === 'desc' ? -1 : 1) || 0;
        expect(sign(Buffer.compare(encodeTuple(a, dirs), encodeTuple(b, dirs)))).toBe(expected);
      }),
      { numRuns: 2000 },
    );
  });

  it('encodes -0 as 0, and negatives before positives', () => {
    expect(encodeValue({ kind: 'number', value: -0 })).toEqual(encodeValue({ kind: 'number', value: 0 }));
    const sorted = [-Infinity, -1e300, -2, -1.5, -1, -Number.MIN_VALUE, 0, Number.MIN_VALUE, 0.25, 1, 2, 1e300, Infinity];
    const keys = sorted.map((value) => encodeValue({ kind: 'number', value }));
    expect([...keys].sort(Buffer.compare)).toEqual(keys);
  });

  it('never contradicts value order for strings longer than the indexed prefix', () => {
    const long = fc.string({ unit: fc.constantFrom('a', 'b'), minLength: MAX_INDEXED_STRING_BYTES - 2, maxLength: MAX_INDEXED_STRING_BYTES + 4 });
    fc.assert(
      fc.property(long, long, (a, b) => {
        const byValue = sign(Buffer.compare(utf8(a), utf8(b)));
        const byKey = sign(Buffer.compare(encodeValue({ kind: 'string', value: a }), encodeValue({ kind: 'string', value: b })));
        // Equal keys are allowed (both cut at the same prefix); an inverted order is not.
        expect(byKey === 0 || byKey === byValue).toBe(true);
        if (utf8(a).length <= MAX_INDEXED_STRING_BYTES || utf8(b).length <= MAX_INDEXED_STRING_BYTES) expect(byKey).toBe(byValue);
      }),
      { numRuns: 1000 },
    );
  });

  it('reads a PublicKey from its JWK and from hex alike', () => {
    const x = Buffer.alloc(32, 7);
    const y = Buffer.alloc(32, 9);
    const jwk = { kty: 'EC', crv: 'secp256k1', alg: 'ES256K', use: 'sig', x: x.toString('base64url') + '=', y: y.toString('base64url') + '=' };
    const hex = '0x' + Buffer.concat([x, y]).toString('hex');
    expect(publicKeyBytes(jwk)).toEqual(Buffer.concat([x, y]));
    expect(publicKeyBytes(hex)).toEqual(Buffer.concat([x, y]));
    expect(encodeValue(queryKeyValue({ kind: 'publicKey' }, hex, 'owner'))).toEqual(encodeValue(queryKeyValue({ kind: 'publicKey' }, jwk, 'owner')));
    expect(publicKeyBytes('0x1234')).toBeUndefined();
    expect(publicKeyBytes({ ...jwk, x: 'short' })).toBeUndefined();
  });

  it('refuses NaN rather than encoding it somewhere arbitrary', () => {
    expect(() => encodeValue({ kind: 'number', value: NaN })).toThrow(RangeError);
  });
});

describe('u64 timestamps', () => {
  it('round-trip every safe unsigned integer, in the same byte order as BigInt big-endian', () => {
    fc.assert(
      fc.property(fc.oneof(fc.nat(), fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), fc.constantFrom(0, 2 ** 32 - 1, 2 ** 32, Number.MAX_SAFE_INTEGER)), (n) => {
        const bytes = encodeU64(n);
        const reference = Buffer.alloc(8);
        reference.writeBigUInt64BE(BigInt(n));
        expect(bytes.equals(reference)).toBe(true);
        expect(decodeU64(bytes)).toBe(n);
        expect(decodeU64(Buffer.concat([Buffer.of(7), bytes]), 1)).toBe(n);
        expect(decodeU64(new Uint8Array(bytes))).toBe(n);
      }),
    );
  });

  it('refuses what is not a safe unsigned integer', () => {
    for (const bad of [-1, 0.5, Number.MAX_SAFE_INTEGER + 1, Number.NaN, Infinity]) expect(() => encodeU64(bad)).toThrow(RangeError);
  });
});

describe('string key components', () => {
  it('are the tag, the UTF-8 bytes with 0x00 escaped as 0x00 0xFF, then 0x00 0x01', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', '\u0000', '\u00ff', '😀', '\ud800') }), (text) => {
        const escaped: number[] = [];
        for (const byte of Buffer.from(text, 'utf8')) escaped.push(...(byte === 0 ? [0, 0xff] : [byte]));
        expect([...encodeString(text)]).toEqual([0x04, ...escaped, 0x00, 0x01]);
      }),
    );
  });
});
