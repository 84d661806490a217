// Property tests: sign then verify gives the signer's key; any single-byte change breaks the link to the
// signer; the two recovery backends agree; no header of any shape throws anything but an AuthError.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import vectors from '../../fixtures/vectors/signatures.json' with { type: 'json' };
import {
  AuthError,
  PublicKey,
  decodeSignature,
  jsBackend,
  nativeBackend,
  parseSignatureHeader,
  publicKeyOf,
  signRequest,
  verifySignatureHeader,
  type RecoveryBackend,
} from '../../src/auth/index.ts';

const backends: RecoveryBackend[] = nativeBackend === null ? [jsBackend] : [nativeBackend, jsBackend];
const privateKey = fc.uint8Array({ minLength: 32, maxLength: 32 }).filter((bytes) => secp256k1.utils.isValidSecretKey(bytes));
const body = fc.oneof(fc.string({ unit: 'grapheme', maxLength: 200 }), fc.uint8Array({ maxLength: 300 }));
const time = fc.integer({ min: 0, max: 4_000_000_000_000 });

/** The key a header yields at its own t, or the AuthError it is refused with; anything else fails the test. */
function outcome(header: string, payload: string | Uint8Array, backend: RecoveryBackend): PublicKey | AuthError {
  let now = 0;
  try {
    now = parseSignatureHeader(header).t;
  } catch {
    // verify will report the same error; the clock is irrelevant then
  }
  try {
    return verifySignatureHeader(header, payload, { method: 'GET', now, backend });
  } catch (error) {
    if (error instanceof AuthError) return error;
    throw error;
  }
}

const bytesOf = (payload: string | Uint8Array) => (typeof payload === 'string' ? new TextEncoder().encode(payload) : payload);

describe.each(backends)('signatures through the $name backend', (backend) => {
  it('sign then verify returns the signer key, for any body, key and time', () => {
    fc.assert(
      fc.property(privateKey, body, time, fc.boolean(), (key, payload, t, withPk) => {
        const header = signRequest(key, payload, t, { includePublicKey: withPk });
        const signer = verifySignatureHeader(header, payload, { method: 'GET', now: t, backend });
        expect(signer.equals(publicKeyOf(key))).toBe(true);
      }),
      { numRuns: 150 },
    );
  });

  it('changing one byte of the body fails or yields another key', () => {
    fc.assert(
      fc.property(privateKey, body.filter((b) => bytesOf(b).length > 0), time, fc.nat(), fc.integer({ min: 1, max: 255 }), (key, payload, t, at, delta) => {
        const header = signRequest(key, payload, t);
        const changed = bytesOf(payload).slice();
        const index = at % changed.length;
        changed[index] = (changed[index]! + delta) % 256;
        const result = outcome(header, changed, backend);
        if (result instanceof PublicKey) expect(result.equals(publicKeyOf(key))).toBe(false);
      }),
      { numRuns: 100 },
    );
  });

  it('changing one character of t fails or yields another key', () => {
    fc.assert(
      fc.property(privateKey, body, time, fc.nat(), fc.string({ minLength: 1, maxLength: 1 }), (key, payload, t, at, replacement) => {
        const header = signRequest(key, payload, t);
        const digits = String(t);
        const index = at % digits.length;
        fc.pre(digits[index] !== replacement);
        const changedT = digits.slice(0, index) + replacement + digits.slice(index + 1);
        const result = outcome(header.replace(`t=${digits},`, `t=${changedT},`), payload, backend);
        if (result instanceof PublicKey) expect(result.equals(publicKeyOf(key))).toBe(false);
      }),
      { numRuns: 100 },
    );
  });

  it('changing one byte of the signature fails or yields another key (the recovery byte only in its 0/1 twin)', () => {
    fc.assert(
      fc.property(privateKey, body, time, fc.integer({ min: 0, max: 64 }), fc.integer({ min: 1, max: 255 }), (key, payload, t, index, delta) => {
        const header = signRequest(key, payload, t);
        const sigHex = header.slice(header.indexOf('sig=0x') + 6);
        const sig = Buffer.from(sigHex, 'hex');
        sig[index] = (sig[index]! + delta) % 256;
        // 27 -> 0 and 28 -> 1 are the same signature in the low recovery byte form, not a change.
        const lowRecoveryTwin = parseInt(sigHex.slice(128), 16) - 27;
        fc.pre(!(index === 64 && sig[64] === lowRecoveryTwin));
        const result = outcome(header.replace(sigHex, sig.toString('hex')), payload, backend);
        if (result instanceof PublicKey) expect(result.equals(publicKeyOf(key))).toBe(false);
      }),
      { numRuns: 150 },
    );
  });
});

describe('the backends agree', () => {
  it.runIf(nativeBackend !== null)('on any 65 bytes that pass the signature checks, recovering the same key or failing both', () => {
    const candidate = fc.tuple(fc.uint8Array({ minLength: 64, maxLength: 64 }), fc.constantFrom(27, 28, 0, 1), fc.uint8Array({ minLength: 32, maxLength: 32 }));
    fc.assert(
      fc.property(candidate, ([compact, v, hash]) => {
        let signature;
        try {
          signature = decodeSignature(Uint8Array.of(...compact, v));
        } catch (error) {
          expect(error).toBeInstanceOf(AuthError);
          return;
        }
        const results = [nativeBackend!, jsBackend].map((backend) => {
          try {
            return Buffer.from(backend.recover(signature, hash)).toString('hex');
          } catch {
            return 'failed';
          }
        });
        expect(results[0]).toBe(results[1]);
      }),
      { numRuns: 200 },
    );
  });
});

describe('malformed headers', () => {
  const valid = vectors.valid[0]!;
  const sigHex = valid.header.slice(valid.header.indexOf('sig=0x') + 6);
  const keyName = fc.constantFrom('v', 't', 'h', 'sig', 'pk', 'x', '', 'V', ' t');
  const value = fc.oneof(
    fc.string({ maxLength: 30 }),
    fc.constantFrom('0', '1', 'eth-personal-sign', `0x${sigHex}`, valid.expected.publicKeyCompressed, valid.expected.publicKeyUncompressed),
    fc.uint8Array({ maxLength: 70 }).map((b) => `0x${Buffer.from(b).toString('hex')}`),
    fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }).map(String),
  );
  const pairs = fc.array(fc.tuple(keyName, value), { maxLength: 8 }).map((list) => list.map(([k, v]) => `${k}=${v}`).join(','));
  const mutated = fc
    .tuple(fc.nat(), fc.nat({ max: 5 }), fc.string({ maxLength: 5 }))
    .map(([at, cut, insert]) => {
      const index = at % (valid.headerWithPk.length + 1);
      return valid.headerWithPk.slice(0, index) + insert + valid.headerWithPk.slice(index + cut);
    });
  const anyText = fc.string({ unit: 'binary', maxLength: 400 });
  const huge = fc.integer({ min: 1000, max: 200_000 }).map((n) => `v=0,t=${'9'.repeat(n)}`);

  it('never throw anything but an AuthError, whatever their shape', () => {
    fc.assert(
      fc.property(fc.oneof(pairs, mutated, anyText, huge), body, (header, payload) => {
        for (const backend of backends) {
          const result = outcome(header, payload, backend);
          expect(result instanceof PublicKey || result instanceof AuthError).toBe(true);
          if (result instanceof AuthError) {
            expect(result.reason).toBe('auth/invalid-signature');
            expect(result.message.length).toBeGreaterThan(0);
            expect(result.message.length).toBeLessThan(300);
          }
        }
      }),
      { numRuns: 400 },
    );
  });
});
