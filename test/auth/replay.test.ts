// Single use of write signatures: the memory guard, and verification of POSTs through it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import vectors from '../../fixtures/vectors/signatures.json' with { type: 'json' };
import { MAX_AGE_MS, MemoryReplayGuard, signRequest, verifySignatureHeader, type ReplayGuard } from '../../src/auth/index.ts';
import { outcomeKind } from './helpers.ts';

describe('MemoryReplayGuard', () => {
  it('claims an id once while it is alive, and forgets it when it expires', () => {
    const guard = new MemoryReplayGuard();
    expect(guard.claim('a', 100, 0)).toBe('claimed');
    expect(guard.claim('a', 100, 50)).toBe('already-used');
    expect(guard.claim('a', 100, 99)).toBe('already-used');
    expect(guard.size).toBe(1);
    expect(guard.claim('b', 200, 100)).toBe('claimed');
    expect(guard.size).toBe(1); // 'a' expired at 100 and was swept
    expect(guard.claim('a', 300, 100)).toBe('claimed');
  });

  it('refuses new ids when full, rather than forgetting live ones, and makes room as they expire', () => {
    const guard = new MemoryReplayGuard({ capacity: 2 });
    expect(guard.claim('a', 100, 0)).toBe('claimed');
    expect(guard.claim('b', 50, 0)).toBe('claimed');
    expect(guard.claim('c', 100, 0)).toBe('full');
    expect(guard.claim('a', 100, 0)).toBe('already-used');
    expect(guard.claim('c', 100, 50)).toBe('claimed'); // 'b' expired
    expect(guard.claim('a', 100, 60)).toBe('already-used');
  });

  it('refuses a capacity that is not a positive integer', () => {
    expect(() => new MemoryReplayGuard({ capacity: 0 })).toThrow(RangeError);
    expect(() => new MemoryReplayGuard({ capacity: 1.5 })).toThrow(RangeError);
  });

  it('behaves like a map of live ids for any sequence of claims (property)', () => {
    const claim = fc.record({ id: fc.integer({ min: 0, max: 20 }), life: fc.integer({ min: 1, max: 50 }), step: fc.integer({ min: 0, max: 10 }) });
    fc.assert(
      fc.property(fc.array(claim, { maxLength: 200 }), fc.integer({ min: 1, max: 25 }), (claims, capacity) => {
        const guard = new MemoryReplayGuard({ capacity });
        const model = new Map<string, number>();
        let now = 0;
        for (const { id, life, step } of claims) {
          now += step;
          for (const [key, expiry] of model) if (expiry <= now) model.delete(key);
          const expected = model.has(String(id)) ? 'already-used' : model.size >= capacity ? 'full' : 'claimed';
          if (expected === 'claimed') model.set(String(id), now + life);
          expect(guard.claim(String(id), now + life, now)).toBe(expected);
          expect(guard.size).toBe(model.size);
          expect(guard.size).toBeLessThanOrEqual(capacity);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('verifying writes', () => {
  const vector = vectors.valid[1]!;
  const post = (header: string, guard: ReplayGuard, now = vector.t) =>
    verifySignatureHeader(header, vector.body, { method: 'POST', now, replayGuard: guard });

  it('accepts a POST signature once and refuses its replay', () => {
    const guard = new MemoryReplayGuard();
    expect(post(vector.header, guard).toHex()).toBe(vector.expected.publicKeyHex);
    expect(() => post(vector.header, guard, vector.t + 1000)).toThrow(/^signature already used/);
    expect(outcomeKind(() => post(vector.headerWithPk, guard))).toBe('already-used');
  });

  it('refuses the replay re-encoded with the low recovery byte', () => {
    const guard = new MemoryReplayGuard();
    post(vector.header, guard);
    const lowByte = vector.header.replace(/1c$/, '01').replace(/1b$/, '00');
    expect(lowByte).not.toBe(vector.header);
    expect(outcomeKind(() => post(lowByte, guard))).toBe('already-used');
  });

  it('a replay after the window closes is refused as expired, and the guard has forgotten it', () => {
    const guard = new MemoryReplayGuard();
    const later = vector.t + MAX_AGE_MS + 1;
    post(vector.header, guard);
    expect(outcomeKind(() => post(vector.header, guard, later))).toBe('expired');
    post(signRequest(vectors.valid[2]!.privateKey, vector.body, later), guard, later);
    expect(guard.size).toBe(1); // the fresh claim; the expired one was swept
  });

  it('counts one use per signer and message: another signer of the same message is not a replay', () => {
    const guard = new MemoryReplayGuard();
    post(signRequest(vectors.valid[0]!.privateKey, vector.body, vector.t), guard);
    post(signRequest(vectors.valid[2]!.privateKey, vector.body, vector.t), guard);
    expect(guard.size).toBe(2);
  });

  it('does not spend a claim on a refused signature', () => {
    const guard = new MemoryReplayGuard();
    const wrongPk = `${vector.header},pk=${vectors.valid[0]!.expected.publicKeyCompressed}`;
    expect(outcomeKind(() => post(wrongPk, guard))).toBe('public-key-mismatch');
    expect(guard.size).toBe(0);
    expect(post(vector.header, guard).toHex()).toBe(vector.expected.publicKeyHex);
  });

  it('refuses a write when the guard is full', () => {
    const guard = new MemoryReplayGuard({ capacity: 1 });
    post(vector.header, guard);
    const other = signRequest(vector.privateKey, vector.body, vector.t + 1);
    expect(outcomeKind(() => post(other, guard))).toBe('replay-guard-full');
  });

  it('lets reads reuse a signature, and needs a guard for anything else', () => {
    for (let i = 0; i < 3; i++) {
      expect(verifySignatureHeader(vector.header, vector.body, { method: 'GET', now: vector.t }).toHex()).toBe(vector.expected.publicKeyHex);
      expect(verifySignatureHeader(vector.header, vector.body, { method: 'head', now: vector.t }).toHex()).toBe(vector.expected.publicKeyHex);
    }
    expect(() => verifySignatureHeader(vector.header, vector.body, { method: 'POST', now: vector.t })).toThrow(TypeError);
    expect(() => verifySignatureHeader(vector.header, vector.body, { method: 'DELETE', now: vector.t })).toThrow(/replayGuard is required/);
    const guard = new MemoryReplayGuard();
    verifySignatureHeader(vector.header, vector.body, { method: 'put', now: vector.t, replayGuard: guard });
    expect(guard.size).toBe(1);
  });
});
