// Public key forms: JWK, hex, compressed and uncompressed bytes; every way in checks the point is on the curve.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import vectors from '../../fixtures/vectors/signatures.json' with { type: 'json' };
import { KeyFormatError, PublicKey, publicKeyOf } from '../../src/auth/index.ts';

const bytes = (hex: string) => Buffer.from(hex.replace(/^0x/, ''), 'hex');
const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString('hex')}`;
const expected = vectors.valid[1]!.expected;

function failure(action: () => unknown): KeyFormatError {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(KeyFormatError);
    expect((error as KeyFormatError).kind).toBe('invalid-public-key');
    return error as KeyFormatError;
  }
  throw new Error('expected the key to be refused');
}

describe('PublicKey forms', () => {
  it.each(vectors.valid.map((v) => v.expected))('reads and writes every form of $publicKeyHex', (e) => {
    const keys = [
      PublicKey.fromHex(e.publicKeyHex),
      PublicKey.fromJwk(e.jwk),
      PublicKey.fromBytes(bytes(e.publicKeyCompressed)),
      PublicKey.fromBytes(bytes(e.publicKeyUncompressed)),
    ];
    for (const key of keys) {
      expect(key.equals(keys[0]!)).toBe(true);
      expect(key.toHex()).toBe(e.publicKeyHex);
      expect(key.toJwk()).toEqual(e.jwk);
      expect(JSON.parse(JSON.stringify(key))).toEqual(e.jwk);
      expect(hex(key.toCompressed())).toBe(e.publicKeyCompressed);
      expect(hex(key.toUncompressed())).toBe(e.publicKeyUncompressed);
      expect(key.matchesBytes(bytes(e.publicKeyCompressed))).toBe(true);
      expect(key.matchesBytes(bytes(e.publicKeyUncompressed))).toBe(true);
    }
  });

  it('tells different keys apart', () => {
    const a = PublicKey.fromHex(vectors.valid[0]!.expected.publicKeyHex);
    const b = PublicKey.fromHex(expected.publicKeyHex);
    expect(a.equals(b)).toBe(false);
    expect(a.matchesBytes(b.toCompressed())).toBe(false);
    expect(a.matchesBytes(b.toUncompressed())).toBe(false);
  });

  it('keeps its bytes to itself', () => {
    const key = PublicKey.fromHex(expected.publicKeyHex);
    key.toUncompressed().fill(0);
    expect(key.toHex()).toBe(expected.publicKeyHex);
  });

  it('accepts upper-case hex and unpadded JWK coordinates, and writes the canonical forms', () => {
    expect(PublicKey.fromHex(`0x${expected.publicKeyHex.slice(2).toUpperCase()}`).toHex()).toBe(expected.publicKeyHex);
    const unpadded = { ...expected.jwk, x: expected.jwk.x.replace('=', ''), y: expected.jwk.y.replace('=', '') };
    expect(PublicKey.fromJwk(unpadded).toJwk()).toEqual(expected.jwk);
    const { alg: _alg, use: _use, ...minimal } = expected.jwk;
    expect(PublicKey.fromJwk(minimal).toJwk()).toEqual(expected.jwk);
  });

  it('round-trips every form for any key (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (seed) => {
        fc.pre(secp256k1.utils.isValidSecretKey(seed));
        const key = PublicKey.fromBytes(secp256k1.getPublicKey(seed, false));
        for (const other of [
          PublicKey.fromHex(key.toHex()),
          PublicKey.fromJwk(key.toJwk()),
          PublicKey.fromBytes(key.toCompressed()),
          PublicKey.fromBytes(key.toUncompressed()),
        ]) {
          expect(other.equals(key)).toBe(true);
        }
        expect(hex(key.toCompressed())).toBe(hex(secp256k1.getPublicKey(seed, true)));
      }),
      { numRuns: 100 },
    );
  });
});

describe('PublicKey refuses what is not a key', () => {
  const offCurve = `0x${'11'.repeat(64)}`;

  it.each([
    ['hex without 0x', expected.publicKeyHex.slice(2), 'must be "0x" followed by 128 hex digits'],
    ['hex of 65 bytes', expected.publicKeyUncompressed, 'must be "0x" followed by 128 hex digits'],
    ['hex with a non-hex digit', `${expected.publicKeyHex.slice(0, -1)}g`, 'must be "0x" followed by 128 hex digits'],
    ['hex off the curve', offCurve, 'not a point on secp256k1'],
    ['the point at zero', `0x${'00'.repeat(64)}`, 'not a point on secp256k1'],
  ])('fromHex: %s', (_name, input, message) => {
    expect(failure(() => PublicKey.fromHex(input)).message).toContain(message);
  });

  it('fromHex: not a string', () => {
    expect(failure(() => PublicKey.fromHex(42 as unknown as string)).message).toContain('got number');
  });

  it.each([
    ['32 bytes', new Uint8Array(32), 'must be 33 bytes (compressed) or 65 bytes (uncompressed), got 32'],
    ['64 bytes', bytes(expected.publicKeyHex), 'got 64'],
    ['compressed with prefix 04', bytes(`04${expected.publicKeyCompressed.slice(4)}`), 'must start with 02 or 03, got 0x04'],
    ['uncompressed with prefix 06 (hybrid)', bytes(`06${expected.publicKeyUncompressed.slice(4)}`), 'must start with 04, got 0x06'],
    ['compressed x off the curve', bytes(`02${'00'.repeat(31)}05`), 'not a point on secp256k1'],
    ['compressed x not below p', bytes(`02${'ff'.repeat(32)}`), 'not a point on secp256k1'],
    ['uncompressed with the wrong y', bytes(`${expected.publicKeyUncompressed.slice(0, -2)}00`), 'not a point on secp256k1'],
  ])('fromBytes: %s', (_name, input, message) => {
    expect(failure(() => PublicKey.fromBytes(input)).message).toContain(message);
  });

  it.each([
    ['null', null, 'must be an object, got null'],
    ['a string', expected.publicKeyHex, 'must be an object, got string'],
    ['an array', [], 'must be an object, got an array'],
    ['the wrong kty', { ...expected.jwk, kty: 'OKP' }, 'JWK member "kty" must be "EC", got "OKP"'],
    ['the wrong curve', { ...expected.jwk, crv: 'P-256' }, 'JWK member "crv" must be "secp256k1", got "P-256"'],
    ['no curve', { ...expected.jwk, crv: undefined }, 'JWK member "crv" must be "secp256k1", got nothing'],
    ['the wrong alg', { ...expected.jwk, alg: 'ES256' }, 'JWK member "alg" must be "ES256K"'],
    ['the wrong use', { ...expected.jwk, use: 'enc' }, 'JWK member "use" must be "sig"'],
    ['an extra member', { ...expected.jwk, d: 'secret' }, 'unexpected JWK member "d"'],
    ['a member named like an Object method', { ...expected.jwk, constructor: 'x' }, 'unexpected JWK member "constructor"'],
    ['a __proto__ member from JSON', JSON.parse(`{"__proto__": 1, ${JSON.stringify(expected.jwk).slice(1)}`), 'unexpected JWK member "__proto__"'],
    ['no x', { ...expected.jwk, x: undefined }, 'JWK member "x" must be 32 bytes of base64url'],
    ['x as a number', { ...expected.jwk, x: 5 }, 'got number'],
    ['standard base64 in y', { ...expected.jwk, y: 'CouGyv6VDfWY7wiswu4kEohFae3H8IZVhe7ueX1b2o0+' }, 'JWK member "y" must be 32 bytes'],
    ['a short x', { ...expected.jwk, x: expected.jwk.x.slice(4) }, 'JWK member "x" must be 32 bytes'],
    ['double padding', { ...expected.jwk, x: `${expected.jwk.x}=` }, 'JWK member "x" must be 32 bytes'],
    // The last character of x is 'I' (001000); 'J' (001001) differs only in a spare bit.
    ['non-canonical spare bits', { ...expected.jwk, x: `${expected.jwk.x.slice(0, 42)}J=` }, 'JWK member "x" is not canonical base64url'],
    ['a point off the curve', { ...expected.jwk, y: expected.jwk.x }, 'not a point on secp256k1'],
  ])('fromJwk: %s', (_name, input, message) => {
    expect(failure(() => PublicKey.fromJwk(input)).message).toContain(message);
  });
});

describe('publicKeyOf', () => {
  it('derives the signer key of each vector', () => {
    for (const vector of vectors.valid) expect(publicKeyOf(vector.privateKey).toHex()).toBe(vector.expected.publicKeyHex);
  });

  it.each([
    ['too short', '0x1234'],
    ['zero', `0x${'00'.repeat(32)}`],
    ['the curve order', '0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141'],
  ])('refuses a private key that is %s, without echoing it', (_name, key) => {
    try {
      publicKeyOf(key);
      throw new Error('expected a refusal');
    } catch (error) {
      expect(error).toBeInstanceOf(KeyFormatError);
      expect((error as KeyFormatError).kind).toBe('invalid-private-key');
      expect((error as Error).message).not.toContain(key.slice(2));
    }
  });
});
