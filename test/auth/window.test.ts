// The acceptance window: now - 5 min <= t <= now + 65 min, with the clock injected.
import { describe, expect, it } from 'vitest';
import vectors from '../../fixtures/vectors/signatures.json' with { type: 'json' };
import { MAX_AGE_MS, MAX_AHEAD_MS, checkTimeWindow, verifySignatureHeader } from '../../src/auth/index.ts';
import { outcomeKind } from './helpers.ts';

const MINUTE = 60_000;
const now = 1_700_000_000_000;

describe('checkTimeWindow', () => {
  it('has the documented bounds', () => {
    expect(MAX_AGE_MS).toBe(5 * MINUTE);
    expect(MAX_AHEAD_MS).toBe(65 * MINUTE);
  });

  it.each([
    ['now', now, 'accepted'],
    ['exactly 5 minutes ago', now - 5 * MINUTE, 'accepted'],
    ['5 minutes and 1 ms ago', now - 5 * MINUTE - 1, 'expired'],
    ['an hour ago', now - 60 * MINUTE, 'expired'],
    ['at 0', 0, 'expired'],
    ['an hour ahead (the client signs reads so)', now + 60 * MINUTE, 'accepted'],
    ['exactly 65 minutes ahead', now + 65 * MINUTE, 'accepted'],
    ['65 minutes and 1 ms ahead', now + 65 * MINUTE + 1, 'from-future'],
    ['a year ahead', now + 365 * 24 * 60 * MINUTE, 'from-future'],
  ])('t %s: %s', (_name, t, outcome) => {
    expect(outcomeKind(() => checkTimeWindow(t, now))).toBe(outcome);
  });

  it('says which way the time is wrong', () => {
    expect(() => checkTimeWindow(now - 6 * MINUTE, now)).toThrow(/^signature expired: t=1699999640000 is more than 5 minutes before/);
    expect(() => checkTimeWindow(now + 66 * MINUTE, now)).toThrow(/^signature from the future: t=1700003960000 is more than 65 minutes after/);
  });
});

describe('verifySignatureHeader uses the injected clock', () => {
  const vector = vectors.valid[0]!;
  const verifyAt = (now: number | (() => number)) => () => verifySignatureHeader(vector.header, vector.body, { method: 'GET', now });

  it('as a number or as a function', () => {
    expect(outcomeKind(verifyAt(vector.t + 5 * MINUTE))).toBe('accepted');
    expect(outcomeKind(verifyAt(() => vector.t - 65 * MINUTE))).toBe('accepted');
    expect(outcomeKind(verifyAt(vector.t + 5 * MINUTE + 1))).toBe('expired');
    expect(outcomeKind(verifyAt(() => vector.t - 65 * MINUTE - 1))).toBe('from-future');
  });

  it('defaults to the system clock, which makes the 2023 vectors expired', () => {
    expect(outcomeKind(() => verifySignatureHeader(vector.header, vector.body, { method: 'GET' }))).toBe('expired');
  });
});
