// The caller of a request: the signature header (X-Service-Signature, or X-Polybase-Signature as the Polybase
// client sends it) verified against the exact body gives `ctx.publicKey`. A write's signature is single-use:
// instead of an in-process memory, the claim is handed to the store, which records it in the same transaction
// as the write it authorises, so a replay is refused by every process sharing the database, and a request
// that changed nothing has not used its signature up.

import {
  checkTimeWindow,
  readSignatureHeader,
  verifySignatureHeaderAsync,
  type ClaimResult,
  type PublicKey,
  type RecoveryPool,
  type ReplayGuard,
} from '../auth/index.ts';
import type { SignatureClaim } from '../store/index.ts';

export interface Caller {
  /** The signer's key; undefined on an unsigned request. */
  publicKey?: PublicKey;
  /** For a signed write: the signature to mark as used with the write. */
  claim?: SignatureClaim;
  /** Charged with the gas each function run of the request uses (request-limits.ts's gas budget). */
  onGas?: (gas: number) => void;
}

/** A guard that accepts every claim and remembers it, so the store can make it durable. */
class ClaimRecorder implements ReplayGuard {
  claimed: SignatureClaim | undefined;

  claim(id: string, expiresAt: number, now: number): ClaimResult {
    this.claimed = { signature: id, expiresAt, now };
    return 'claimed';
  }
}

type Headers = Record<string, string | string[] | undefined>;

/**
 * Verified read signatures. A read signs only `<t>.` (no body), and the Polybase client signs reads an hour
 * ahead and reuses the header, so the same header value keeps giving the same key: a hit skips the key recovery
 * (the most expensive step) but still checks the time window. Bounded; the oldest entry goes first.
 */
const READ_CACHE_SIZE = 10_000;
const verifiedReads = new Map<string, { publicKey: PublicKey; t: number }>();

function cachedRead(value: string, now: number): PublicKey | undefined {
  const hit = verifiedReads.get(value);
  if (!hit) return undefined;
  checkTimeWindow(hit.t, now);
  return hit.publicKey;
}

function rememberRead(value: string, publicKey: PublicKey): void {
  const t = Number(/(?:^|,)t=(\d+)/.exec(value)?.[1]);
  if (!Number.isSafeInteger(t)) return;
  if (verifiedReads.size >= READ_CACHE_SIZE) verifiedReads.delete(verifiedReads.keys().next().value!);
  verifiedReads.set(value, { publicKey, t });
}

/**
 * The caller of a request; the key recovery runs in `pool`'s worker threads. `beforeRecovery` runs (and may
 * throw) just before a key is recovered, which a signed read whose header was verified before skips.
 */
export async function authenticate(
  headers: Headers,
  method: string,
  body: string,
  pool: RecoveryPool,
  now: number = Date.now(),
  beforeRecovery?: () => void,
): Promise<Caller> {
  // Both names with different values, or one name twice, are refused: picking one would ignore the other signer.
  const value = readSignatureHeader(headers);
  if (value === undefined) return {};
  const read = method === 'GET' || method === 'HEAD';
  if (read) {
    const cached = cachedRead(value, now);
    if (cached) return { publicKey: cached };
    beforeRecovery?.();
    const publicKey = await verifySignatureHeaderAsync(value, '', { method, now, pool });
    rememberRead(value, publicKey);
    return { publicKey };
  }
  beforeRecovery?.();
  const recorder = new ClaimRecorder();
  const publicKey = await verifySignatureHeaderAsync(value, body, { method, replayGuard: recorder, now, pool });
  return { publicKey, ...(recorder.claimed ? { claim: recorder.claimed } : {}) };
}
