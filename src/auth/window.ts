// When a signature is accepted: from 5 minutes before now to 65 minutes after. The future side is wide
// because the Polybase client signs reads an hour ahead and reuses that signature.
import { AuthError } from './errors.ts';

/** Milliseconds since the epoch; injected so tests and the service decide what "now" is. */
export type Clock = () => number;

export const systemClock: Clock = () => Date.now();

/** How long after its `t` a signature stays valid. */
export const MAX_AGE_MS = 5 * 60_000;
/** How far ahead of now a signature's `t` may be. */
export const MAX_AHEAD_MS = 65 * 60_000;

/** Accepts `t` when `now - 5 min <= t <= now + 65 min`. */
export function checkTimeWindow(t: number, now: number): void {
  if (t < now - MAX_AGE_MS) {
    throw new AuthError('expired', 't', `signature expired: t=${t} is more than 5 minutes before the server time ${now}`);
  }
  if (t > now + MAX_AHEAD_MS) {
    throw new AuthError('from-future', 't', `signature from the future: t=${t} is more than 65 minutes after the server time ${now}`);
  }
}

/** The first instant at which a signature made at `t` is no longer accepted. */
export function expiryOf(t: number): number {
  return t + MAX_AGE_MS + 1;
}
