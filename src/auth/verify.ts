// Verification of a signed request: parse the header, check the time window, recover the signer's key from
// the personal-sign hash of `<t>.<body>`, compare it with `pk` when one is given, and for writes claim the
// signature so it cannot be used twice. Every failure is an `AuthError`.
import { AuthError } from './errors.ts';
import { hexOf } from './hex.ts';
import { parseSignatureHeader, type SignatureHeader } from './header.ts';
import { requestHash } from './personal-sign.ts';
import { PublicKey } from './public-key.ts';
import { defaultBackend, recoverPublicKey, signerOf, type RecoveryBackend } from './recover.ts';
import type { RecoveryPool } from './recovery-pool.ts';
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

/** The options of `verifySignatureHeaderAsync`: recovery runs in the pool's worker threads, with its backend. */
export interface AsyncVerifyOptions extends Omit<VerifyOptions, 'backend'> {
  pool: RecoveryPool;
}

const READ_METHODS = new Set(['GET', 'HEAD']);

/** The caller's public key, from the signature header value and the exact request body. */
export function verifySignatureHeader(headerValue: string, body: string | Uint8Array, options: VerifyOptions): PublicKey {
  const { header, now } = checkHeader(headerValue, options);
  const hash = requestHash(header.t, body);
  const signer = recoverPublicKey(header.signature, hash, options.backend ?? defaultBackend);
  return acceptSigner(header, hash, signer, now, options);
}

/**
 * `verifySignatureHeader` with the hashing and the key recovery done in a worker thread of `options.pool`: the
 * same checks in the same order, the same `AuthError`s.
 */
export async function verifySignatureHeaderAsync(headerValue: string, body: string | Uint8Array, options: AsyncVerifyOptions): Promise<PublicKey> {
  const { header, now } = checkHeader(headerValue, options);
  const { hash, key } = await options.pool.recover(header.t, body, header.signature);
  return acceptSigner(header, hash, signerOf(key), now, options);
}

/** Everything before the curve arithmetic: the replay guard's presence, the header's syntax, the time window. */
function checkHeader(headerValue: string, options: Omit<VerifyOptions, 'backend'>): { header: SignatureHeader; now: number } {
  if (isSingleUse(options) && options.replayGuard === undefined) {
    throw new TypeError(`verifySignatureHeader: a replayGuard is required to verify a ${options.method} request`);
  }
  const header = parseSignatureHeader(headerValue);
  const now = typeof options.now === 'function' ? options.now() : (options.now ?? systemClock());
  checkTimeWindow(header.t, now);
  return { header, now };
}

/** Everything after recovery: the claimed `pk` must be the signer's, and a write's signature is claimed. */
function acceptSigner(header: SignatureHeader, hash: Uint8Array, signer: PublicKey, now: number, options: Omit<VerifyOptions, 'backend'>): PublicKey {
  if (header.publicKey !== undefined && !signer.matchesBytes(header.publicKey)) {
    try {
      PublicKey.fromBytes(header.publicKey);
    } catch {
      throw new AuthError('invalid-public-key', 'pk', 'public key (pk) is not a point on secp256k1');
    }
    throw new AuthError('public-key-mismatch', 'pk', 'public key does not match the key recovered from the signature (pk)');
  }

  if (isSingleUse(options)) {
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

function isSingleUse(options: { method: string }): boolean {
  return !READ_METHODS.has(options.method.toUpperCase());
}
