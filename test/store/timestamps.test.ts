import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { secondsToTimestamp, timestampToSeconds } from '../../src/store/index.ts';

describe('timestamps over HTTP', () => {
  it('travel as seconds with six decimals and come back to the same microsecond', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4_102_444_800_000_000 }), (timestamp) => {
        const seconds = timestampToSeconds(timestamp);
        expect(seconds).toMatch(/^\d+\.\d{6}$/);
        expect(secondsToTimestamp(seconds)).toBe(timestamp);
        expect(secondsToTimestamp(Number(seconds))).toBe(timestamp);
      }),
      { numRuns: 5000 },
    );
  });

  it('read the client\'s own clock (Date.now() / 1000) and refuse what is not a time', () => {
    expect(secondsToTimestamp(1661981492.0362)).toBe(1661981492036200);
    expect(secondsToTimestamp('1661981492')).toBe(1661981492000000);
    expect(secondsToTimestamp('abc')).toBeNull();
    expect(secondsToTimestamp('-1')).toBeNull();
    expect(secondsToTimestamp(Number.NaN)).toBeNull();
    // Past 2^53 microseconds (the year 2255) a time is no longer an exact integer, and no store timestamp.
    expect(secondsToTimestamp('9007199254.74')).toBe(9007199254740000);
    expect(secondsToTimestamp('9007199254.740993')).toBeNull();
    expect(secondsToTimestamp('99999999999999999999')).toBeNull();
    expect(secondsToTimestamp(1e300)).toBeNull();
  });
});
