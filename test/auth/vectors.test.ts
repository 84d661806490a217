// The shared vectors, made with ethers (an independent implementation), through both recovery backends.
import { describe, expect, it } from 'vitest';
import vectors from '../../fixtures/vectors/signatures.json' with { type: 'json' };
import {
  AuthError,
  PublicKey,
  jsBackend,
  nativeBackend,
  requestHash,
  requestMessage,
  signRequest,
  verifySignatureHeader,
  type RecoveryBackend,
} from '../../src/auth/index.ts';
import { refusal } from './helpers.ts';

const hex = (bytes: Uint8Array) => `0x${Buffer.from(bytes).toString('hex')}`;
const backends: RecoveryBackend[] = nativeBackend === null ? [jsBackend] : [nativeBackend, jsBackend];

describe('the native binding', () => {
  it.runIf(process.platform === 'linux' && process.arch === 'x64')('loads on linux-x64, where the package ships a binary', () => {
    expect(nativeBackend?.name).toBe('native');
  });
});

describe.each(backends)('vectors through the $name backend', (backend) => {
  const read = (header: string, body: string, t: number) => verifySignatureHeader(header, body, { method: 'GET', now: t, backend });

  it.each(vectors.valid)('valid vector at t=$t recovers the expected key in every form', (vector) => {
    for (const header of [vector.header, vector.headerWithPk]) {
      const key = read(header, vector.body, vector.t);
      expect(key.toHex()).toBe(vector.expected.publicKeyHex);
      expect(key.toJwk()).toEqual(vector.expected.jwk);
      expect(hex(key.toCompressed())).toBe(vector.expected.publicKeyCompressed);
      expect(hex(key.toUncompressed())).toBe(vector.expected.publicKeyUncompressed);
    }
  });

  it('accepts the low recovery byte (0/1) form of a signature', () => {
    const vector = vectors.lowRecoveryByte;
    const key = read(vector.header, vector.body, vector.t);
    expect(key.toHex()).toBe(vector.expected.publicKeyHex);
    expect(key.toJwk()).toEqual(vector.expected.jwk);
  });

  it.each(vectors.invalid)('invalid vector "$why" is refused ($expect)', (vector) => {
    if (vector.expect === 'different key or rejection') {
      const original = vectors.valid.find((valid) => valid.header === vector.header)!;
      let key: PublicKey | undefined;
      try {
        key = read(vector.header, vector.body, vector.t);
      } catch (error) {
        expect(error).toBeInstanceOf(AuthError);
      }
      if (key !== undefined) expect(key.toHex()).not.toBe(original.expected.publicKeyHex);
      return;
    }
    const error = refusal(() => read(vector.header, vector.body, vector.t));
    expect(error).toBeInstanceOf(AuthError);
    expect(error.code).toBe('invalid-argument');
    expect(error.reason).toBe('auth/invalid-signature');
    const expectedText = vector.expect.replace(/^reject(: )?/, '');
    expect(error.message).toContain(expectedText);
  });
});

describe('hashing and signing agree with ethers', () => {
  it.each(vectors.valid)('personal-sign hash of the message at t=$t', (vector) => {
    expect(Buffer.from(requestMessage(vector.t, vector.body)).toString('utf8')).toBe(vector.message);
    expect(hex(requestHash(vector.t, vector.body))).toBe(vector.personalSignHash);
  });

  it.each(vectors.valid)('signRequest reproduces the header at t=$t (deterministic RFC 6979 signatures)', (vector) => {
    expect(signRequest(vector.privateKey, vector.body, vector.t)).toBe(vector.header);
    expect(signRequest(vector.privateKey, vector.body, vector.t, { includePublicKey: true })).toBe(vector.headerWithPk);
    expect(signRequest(vector.privateKey, new TextEncoder().encode(vector.body), vector.t)).toBe(vector.header);
  });
});
