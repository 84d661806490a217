// signRequest signs with libsecp256k1 when it loads: the header must be the one @noble/curves makes (both sign
// low-S with the RFC 6979 nonce), for any key, body and time.
import { secp256k1 } from '@noble/curves/secp256k1.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { requestHash, signRequest } from '../../src/auth/index.ts';

function nobleHeader(secretKey: Uint8Array, body: string | Uint8Array, t: number): string {
  const recovered = secp256k1.sign(requestHash(t, body), secretKey, { prehash: false, format: 'recovered' });
  const v = (27 + recovered[0]!).toString(16);
  return `v=0,t=${t},h=eth-personal-sign,sig=0x${Buffer.from(recovered.subarray(1)).toString('hex')}${v}`;
}

describe('signRequest', () => {
  it('gives the header @noble/curves gives, for any key, body and time', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 32, maxLength: 32 }).filter((key) => secp256k1.utils.isValidSecretKey(key)),
        fc.oneof(fc.string({ unit: 'grapheme' }), fc.uint8Array()),
        fc.integer({ min: 0, max: 4_000_000_000_000 }),
        (key, body, t) => {
          expect(signRequest(key, body, t)).toBe(nobleHeader(key, body, t));
        },
      ),
      { numRuns: 200 },
    );
  });
});
