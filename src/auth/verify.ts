// Verification of a signed request: parse the header, check the time window, recover the signer's key from
// the personal-sign hash of `<t>.<body>`, compare it with `pk` when one is given, and for writes claim the
// signature so it cannot be used twice. Every failure is an `AuthError`.
import { AuthError } from './errors.ts';
import { hexOf } from './hex.ts';
import { parseSignatureHeader } from './header.ts';
import { requestHash } from './personal-sign.ts';
import { PublicKey } from './public-key.ts';
import { defaultBackend, recoverPublicKey, type RecoveryBackend } from './recover.ts';
import type { ReplayGuard } from './replay.ts';
import { checkTimeWindow, expiryOf, systemClock, type Clock } from './window.ts';

export interface VerifyOptions {
  /** The request's HTTP method. Reads (GET, HEAD) may reuse a signature; any other method uses it once. */
  method: string;
  /** Remembers used write signatures; required unless the method is a read. */
  replayGuard?: ReplayGuard;
  /** The server time in milliseconds, or a clock (default: `Date.now`). */
  now?: number | Clock;
  /** The recovery backend (default: native libsecp256k1 when it loads, else pure JavaScript). */
  backend?: RecoveryBackend;
}

const READ_METHODS = new Set(['GET', 'HEAD']);

/** The caller's public key, from the signature header value and the exact request body. */
export function verifySignatureHeader(headerValue: string, body: string | Uint8Array, options: VerifyOptions): PublicKey {
  const singleUse = !READ_METHODS.has(options.method.toUpperCase());
  if (singleUse && options.replayGuard === undefined) {
    throw new TypeError(`verifySignatureHeader: a replayGuard is required to verify a ${options.method} request`);
  }
  const header = parseSignatureHeader(headerValue);
  const now = typeof options.now === 'function' ? options.now() : (options.now ?? systemClock());
  checkTimeWindow(header.t, now);

  const hash = requestHash(header.t, body);
  const signer = recoverPublicKey(header.signature, hash, options.backend ?? defaultBackend);
  if (header.publicKey !== undefined && !signer.matchesBytes(header.publicKey)) {
    try {
      PublicKey.fromBytes(header.publicKey);
    } catch {
      throw new AuthError('invalid-public-key', 'pk', 'public key (pk) is not a point on secp256k1');
    }
    throw new AuthError('public-key-mismatch', 'pk', 'public key does not match the key recovered from the signature (pk)');
  }

  if (singleUse) {
    // The same signer approving the same message is one use, whichever encoding of the signature carried it
    // (recovery byte 0/1 or 27/28), and whichever route it was sent to: the signature does not cover the URL.
    const id = `${hexOf(hash)}:${hexOf(signer.toCompressed())}`;
    const claim = options.replayGuard!.claim(id, expiryOf(header.t), now);
    if (claim === 'already-used') {
      throw new AuthError('already-used', 'sig', 'signature already used: a signature on a write is accepted once');
    }
    if (claim === 'full') {
      throw new AuthError('replay-guard-full', 'sig', 'too many recent signed writes to remember; retry later');
    }
  }
  return signer;
}
