// resolveLimits runs on every call and is written as plain loops; these pin down what it accepts.
import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../../src/runtime/index.ts';
import { resolveLimits } from '../../src/runtime/limits.ts';

describe('resolveLimits', () => {
  it('fills in defaults, for missing and for undefined values', () => {
    expect(resolveLimits(undefined)).toEqual(DEFAULT_LIMITS);
    expect(resolveLimits({ gas: undefined })).toEqual(DEFAULT_LIMITS);
    expect(resolveLimits({ gas: 5, maxArrayLength: 3 })).toEqual({ ...DEFAULT_LIMITS, gas: 5, maxArrayLength: 3 });
  });

  it('returns a fresh object each time (never the frozen defaults)', () => {
    const a = resolveLimits(undefined);
    expect(a).not.toBe(DEFAULT_LIMITS);
    expect(Object.isFrozen(a)).toBe(false);
  });

  it('refuses values that are not non-negative safe integers, naming the limit', () => {
    expect(() => resolveLimits({ maxCallDepth: -1 })).toThrow('limit maxCallDepth must be a non-negative integer, got -1');
    expect(() => resolveLimits({ maxStringLength: Number.NaN })).toThrow('limit maxStringLength must be a non-negative integer, got NaN');
    expect(() => resolveLimits({ gas: 1e9 + 1 })).toThrow('limit gas must be at most 1000000000, got 1000000001');
  });

  it('checks the four limits first, in their order, then other keys in the order given', () => {
    const bad = { extra: 'x', maxArrayLength: -2, gas: 0.5 } as unknown as Partial<typeof DEFAULT_LIMITS>;
    expect(() => resolveLimits(bad)).toThrow('limit gas must be a non-negative integer, got 0.5');
    expect(() => resolveLimits({ extra: 'x' } as never)).toThrow('limit extra must be a non-negative integer, got x');
    expect(() => resolveLimits(JSON.parse('{"__proto__": "x"}'))).toThrow('limit __proto__ must be a non-negative integer, got x');
    expect(resolveLimits({ extra: 7 } as never)).toEqual(DEFAULT_LIMITS);
  });
});
