// The signature's soundness checks: recovery byte, r and s ranges, low-S.
import { describe, expect, it } from 'vitest';
import vectors from '../../fixtures/vectors/signatures.json' with { type: 'json' };
import { AuthError, decodeSignature, jsBackend, nativeBackend, requestHash, verifySignatureHeader } from '../../src/auth/index.ts';
import { refusal } from './helpers.ts';

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const vector = vectors.valid[0]!;
const sigHex = vector.header.slice(vector.header.indexOf('sig=0x') + 6);

const scalar = (n: bigint) => n.toString(16).padStart(64, '0');
function signature(r: string, s: string, v: number): Uint8Array {
  return Buffer.from(r + s + v.toString(16).padStart(2, '0'), 'hex');
}

const failure = (bytes: Uint8Array) => refusal(() => decodeSignature(bytes));
const r = sigHex.slice(0, 64);
const s = sigHex.slice(64, 128);

describe('decodeSignature', () => {
  it.each([
    [27, 0],
    [28, 1],
    [0, 0],
    [1, 1],
  ])('maps recovery byte %i to recovery id %i', (v, id) => {
    expect(decodeSignature(signature(r, s, v)).recoveryId).toBe(id);
  });

  it.each([2, 3, 4, 26, 29, 30, 31, 35, 36, 255])('refuses recovery byte %i', (v) => {
    const error = failure(signature(r, s, v));
    expect(error.kind).toBe('invalid-recovery-id');
    expect(error.message).toContain(`invalid recovery id ${v}`);
  });

  it.each([
    ['r = 0', scalar(0n), s],
    ['r = n', scalar(N), s],
    ['r > n', 'f'.repeat(64), s],
    ['s = 0', r, scalar(0n)],
    ['s = n', r, scalar(N)],
    ['s > n', r, 'f'.repeat(64)],
  ])('refuses %s', (_name, rHex, sHex) => {
    const error = failure(signature(rHex, sHex, 27));
    expect(error.kind).toBe('invalid-signature-scalar');
    expect(error.part).toBe('sig');
  });

  it('accepts the largest low s, n/2, and refuses n/2 + 1', () => {
    expect(decodeSignature(signature(r, scalar(N / 2n), 27)).recoveryId).toBe(0);
    expect(failure(signature(r, scalar(N / 2n + 1n), 27)).kind).toBe('high-s-signature');
  });

  it('refuses the high-S twin of a valid signature, although it recovers the same key', () => {
    const highS = scalar(N - BigInt(`0x${s}`));
    const flippedV = sigHex.endsWith('1c') ? 27 : 28;
    const twin = signature(r, highS, flippedV);
    // The twin is a valid signature by the same key: only the low-S rule stops it.
    const recovered = jsBackend.recover({ compact: twin.subarray(0, 64), recoveryId: (flippedV - 27) as 0 | 1 }, requestHash(vector.t, vector.body));
    expect(Buffer.from(recovered).toString('hex')).toBe(vector.expected.publicKeyUncompressed.slice(2));
    const header = vector.header.replace(sigHex, Buffer.from(twin).toString('hex'));
    expect(() => verifySignatureHeader(header, vector.body, { method: 'GET', now: vector.t })).toThrow(/lower half of the curve order/);
  });

  it('refuses a signature whose r is no x coordinate on the curve, with a typed error from either backend', () => {
    // x = 5 has no point on secp256k1 (5^3 + 7 = 132 is not a square mod p), so nothing can be recovered.
    const header = vector.header.replace(sigHex, Buffer.from(signature(scalar(5n), s, 27)).toString('hex'));
    for (const backend of [jsBackend, nativeBackend].filter((b) => b !== null)) {
      try {
        verifySignatureHeader(header, vector.body, { method: 'GET', now: vector.t, backend });
        throw new Error('expected a refusal');
      } catch (error) {
        expect(error).toBeInstanceOf(AuthError);
        expect((error as AuthError).kind).toBe('recovery-failed');
      }
    }
  });
});
