// Store timestamps are microseconds since the epoch (a hybrid clock: the wall clock, but always past the last
// commit). Over HTTP they travel as seconds with six decimals (`X-Service-Timestamp`, the `since` parameter),
// which is what the Polybase client sends back; these two functions convert without losing a microsecond.

export function timestampToSeconds(timestamp: number): string {
  const micros = BigInt(Math.max(0, Math.floor(timestamp)));
  return `${micros / 1_000_000n}.${(micros % 1_000_000n).toString().padStart(6, '0')}`;
}

/**
 * Seconds (a number or decimal text, as the client sends `since`) to a store timestamp; null when not a time,
 * or past 2^53 microseconds (the year 2255), which is no exact integer and so no timestamp the store gives out.
 */
export function secondsToTimestamp(seconds: number | string): number | null {
  const n = typeof seconds === 'number' ? seconds : /^\s*\d+(\.\d*)?\s*$/.test(seconds) ? Number(seconds) : NaN;
  if (!Number.isFinite(n) || n < 0) return null;
  const timestamp = Math.round(n * 1_000_000);
  return Number.isSafeInteger(timestamp) ? timestamp : null;
}
