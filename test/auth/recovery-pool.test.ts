// The RecoveryPool and verifySignatureHeaderAsync: the same keys and the same typed refusals as the synchronous
// path, from worker threads; a worker that dies or throws loses no request; close() ends the threads.
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import vectors from '../../fixtures/vectors/signatures.json' with { type: 'json' };
import {
  AuthError,
  MemoryReplayGuard,
  RecoveryPool,
  decodeSignature,
  jsBackend,
  nativeBackend,
  publicKeyOf,
  requestHash,
  signRequest,
  verifySignatureHeader,
  verifySignatureHeaderAsync,
  type RecoveryBackend,
} from '../../src/auth/index.ts';

const backends: RecoveryBackend[] = nativeBackend === null ? [jsBackend] : [nativeBackend, jsBackend];
const pools: RecoveryPool[] = [];
function pool(options: ConstructorParameters<typeof RecoveryPool>[0] = {}): RecoveryPool {
  const made = new RecoveryPool(options);
  pools.push(made);
  return made;
}
afterAll(() => Promise.all(pools.map((p) => p.close())));

/** 'accepted <hex key>' or '<kind>: <message>': what a verification came to, comparable across both paths. */
function outcomeOf(verify: () => { toHex(): string }): string {
  try {
    return `accepted ${verify().toHex()}`;
  } catch (error) {
    expect(error).toBeInstanceOf(AuthError);
    return `${(error as AuthError).kind}: ${(error as Error).message}`;
  }
}
async function asyncOutcomeOf(verify: () => Promise<{ toHex(): string }>): Promise<string> {
  try {
    return `accepted ${(await verify()).toHex()}`;
  } catch (error) {
    expect(error).toBeInstanceOf(AuthError);
    return `${(error as AuthError).kind}: ${(error as Error).message}`;
  }
}

const sigHex = (header: string) => header.slice(header.indexOf('sig=0x') + 6, header.indexOf('sig=0x') + 6 + 130);

describe.each(backends)('verifySignatureHeaderAsync through workers with the $name backend', (backend) => {
  const workers = pool({ backend, size: 2 });

  it('agrees with verifySignatureHeader on every shared vector, valid or not', async () => {
    const cases = [
      ...vectors.valid.flatMap((v) => [v, { ...v, header: v.headerWithPk }]),
      vectors.lowRecoveryByte,
      ...vectors.invalid,
    ];
    // A signature whose r is no x coordinate on the curve: nothing can be recovered.
    const valid = vectors.valid[0]!;
    const sig = sigHex(valid.header);
    cases.push({ ...valid, header: valid.header.replace(sig, `${'0'.repeat(63)}5${sig.slice(64)}`) });
    for (const c of cases) {
      const expected = outcomeOf(() => verifySignatureHeader(c.header, c.body, { method: 'GET', now: c.t, backend }));
      expect(await asyncOutcomeOf(() => verifySignatureHeaderAsync(c.header, c.body, { method: 'GET', now: c.t, pool: workers }))).toBe(expected);
    }
  });

  it('recovers the signer of any body (text or bytes), many at once', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.oneof(fc.string({ unit: 'grapheme' }), fc.uint8Array())), { minLength: 1, maxLength: 12 }),
        async (requests) => {
          const signed = requests.flatMap(([secret, body]) => {
            try {
              return [{ key: publicKeyOf(secret), body, header: signRequest(secret, body, 1_700_000_000_000) }];
            } catch {
              return []; // not a valid private key (0 or above the order)
            }
          });
          const keys = await Promise.all(signed.map((s) => verifySignatureHeaderAsync(s.header, s.body, { method: 'GET', now: 1_700_000_000_000, pool: workers })));
          keys.forEach((key, i) => expect(key.equals(signed[i]!.key)).toBe(true));
        },
      ),
      { numRuns: 20 },
    );
  });

  it('claims a write signature once, under the same id as the synchronous path', async () => {
    const secret = `0x${'42'.repeat(32)}`;
    const header = signRequest(secret, '{"args":[]}', 1_700_000_000_000);
    const guard = new MemoryReplayGuard();
    const options = { method: 'POST', now: 1_700_000_000_000, replayGuard: guard, pool: workers };
    expect((await verifySignatureHeaderAsync(header, '{"args":[]}', options)).equals(publicKeyOf(secret))).toBe(true);
    // The synchronous path sees the same claim as used.
    expect(outcomeOf(() => verifySignatureHeader(header, '{"args":[]}', { ...options, backend }))).toBe(
      'already-used: signature already used: a signature on a write is accepted once',
    );
    await expect(verifySignatureHeaderAsync(header, '{"args":[]}', options)).rejects.toMatchObject({ kind: 'already-used' });
  });

  it('refuses a malformed header or an expired one before any work, as the synchronous path does', async () => {
    const header = signRequest(`0x${'42'.repeat(32)}`, '', 1_700_000_000_000);
    await expect(verifySignatureHeaderAsync('x=1', '', { method: 'GET', pool: workers })).rejects.toMatchObject({ kind: 'unknown-key' });
    await expect(verifySignatureHeaderAsync(header, '', { method: 'GET', now: 1_800_000_000_000, pool: workers })).rejects.toMatchObject({ kind: 'expired' });
    await expect(verifySignatureHeaderAsync(header, '', { method: 'POST', pool: workers })).rejects.toThrow(TypeError);
  });
});

describe('RecoveryPool', () => {
  const secret = `0x${'42'.repeat(32)}`;
  const signer = publicKeyOf(secret);
  const jobs = (count: number) =>
    Array.from({ length: count }, (_, i) => {
      const body = `{"args":[${i}]}`;
      const header = signRequest(secret, body, 1_700_000_000_000 + i);
      return { t: 1_700_000_000_000 + i, body, signature: decodeSignature(Buffer.from(sigHex(header), 'hex')) };
    });

  it('gives the hash of requestHash and the signer key, for jobs spread over several threads', async () => {
    const workers = pool({ size: 3 });
    const all = jobs(30);
    const answers = await Promise.all(all.map((job) => workers.recover(job.t, job.body, job.signature)));
    answers.forEach((answer, i) => {
      expect(Buffer.from(answer.hash).equals(Buffer.from(requestHash(all[i]!.t, all[i]!.body)))).toBe(true);
      expect(signer.matchesBytes(answer.key!)).toBe(true);
    });
  });

  it.each([
    ['exits', 'exiting-worker.js'],
    ['throws', 'throwing-worker.js'],
    ['cannot be found', 'no-such-worker.js'],
  ])('answers every job when its worker %s, and keeps answering after repeated failures', async (_name, file) => {
    const workers = pool({ size: 1, workerUrl: new URL(`./fixtures/${file}`, import.meta.url) });
    for (let round = 0; round < 5; round++) {
      const answers = await Promise.all(jobs(4).map((job) => workers.recover(job.t, job.body, job.signature)));
      for (const answer of answers) expect(signer.matchesBytes(answer.key!)).toBe(true);
    }
  });

  it('answers every job when its worker stops answering: past the deadline the worker is ended and the jobs done here', async () => {
    const workers = pool({ size: 1, deadlineMs: 50, workerUrl: new URL('./fixtures/hanging-worker.js', import.meta.url) });
    for (let round = 0; round < 4; round++) {
      const answers = await Promise.all(jobs(3).map((job) => workers.recover(job.t, job.body, job.signature)));
      for (const answer of answers) expect(signer.matchesBytes(answer.key!)).toBe(true);
    }
  });

  it('answers jobs in flight when closed, and later ones in this thread', async () => {
    const workers = new RecoveryPool({ size: 1 });
    const pending = jobs(5).map((job) => workers.recover(job.t, job.body, job.signature));
    await workers.close();
    const later = jobs(1).map((job) => workers.recover(job.t, job.body, job.signature));
    for (const answer of await Promise.all([...pending, ...later])) expect(signer.matchesBytes(answer.key!)).toBe(true);
    await workers.close();
  });

  it('starts its threads ahead of the first job with warm(), and answers as before', async () => {
    const workers = pool({ size: 2 });
    workers.warm();
    workers.warm(); // idempotent
    const answers = await Promise.all(jobs(6).map((job) => workers.recover(job.t, job.body, job.signature)));
    for (const answer of answers) expect(signer.matchesBytes(answer.key!)).toBe(true);
  });

  it('refuses a size that is not a positive integer', () => {
    expect(() => new RecoveryPool({ size: 0 })).toThrow(RangeError);
    expect(() => new RecoveryPool({ size: 1.5 })).toThrow(RangeError);
  });
});
