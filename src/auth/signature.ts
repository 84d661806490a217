// The 65-byte recoverable signature r ‖ s ‖ v of a signed request, checked before any curve arithmetic.
//
// Decisions:
// - The recovery byte may be 27/28 (what ethers' joinSignature and the Polybase client send) or 0/1 (the
//   "low recovery byte" form some signers emit); the shared vectors include both. Recovery ids 2 and 3 (an R
//   whose x overflowed the order, probability about 2^-127) are never produced by real signers and are rejected.
// - r and s must be in [1, n-1], and s must be in the lower half of the order (s <= n/2). Every Ethereum signer
//   (ethers, libsecp256k1, noble, hardware wallets) emits low-S signatures; a high-S signature is the malleated
//   twin (r, n-s, v^1) of a low-S one and would let anyone re-encode a captured signature, so it is refused.
import { AuthError } from './errors.ts';

export interface RecoverableSignature {
  /** r ‖ s, 64 bytes. */
  readonly compact: Uint8Array;
  readonly recoveryId: 0 | 1;
}

// The order n of secp256k1 and n/2 (rounded down), big-endian.
const ORDER = Buffer.from('fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141', 'hex');
const HALF_ORDER = Buffer.from('7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0', 'hex');

export function decodeSignature(bytes: Uint8Array): RecoverableSignature {
  if (bytes.length !== 65) {
    throw new AuthError('invalid-length', 'sig', `signature must be 65 bytes (r, s and the recovery byte), got ${bytes.length}`);
  }
  const v = bytes[64]!;
  const recoveryId = v >= 27 ? v - 27 : v;
  if (recoveryId !== 0 && recoveryId !== 1) {
    throw new AuthError('invalid-recovery-id', 'sig', `invalid recovery id ${v}: the last signature byte must be 27, 28, 0 or 1`);
  }
  const r = bytes.subarray(0, 32);
  const s = bytes.subarray(32, 64);
  if (isZero(r) || compare(r, ORDER) >= 0) {
    throw new AuthError('invalid-signature-scalar', 'sig', 'signature r must be between 1 and the curve order minus 1');
  }
  if (isZero(s) || compare(s, ORDER) >= 0) {
    throw new AuthError('invalid-signature-scalar', 'sig', 'signature s must be between 1 and the curve order minus 1');
  }
  if (compare(s, HALF_ORDER) > 0) {
    throw new AuthError('high-s-signature', 'sig', 'signature s must be in the lower half of the curve order (low-S form)');
  }
  return { compact: bytes.subarray(0, 64), recoveryId };
}

function isZero(bytes: Uint8Array): boolean {
  for (const byte of bytes) if (byte !== 0) return false;
  return true;
}

/** Compares two equal-length big-endian numbers. */
function compare(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== b[i]) return a[i]! - b[i]!;
  }
  return 0;
}
