// The browser's signing key: a secp256k1 private key that signs requests as the Polybase client does
// (Ethereum personal-sign over `<t>.<body>`, src/auth), and never leaves the page.
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import type { PublicKeyJwk } from '../../src/auth/jwk.ts';
import { requestHash } from '../../src/auth/personal-sign.ts';
import { signDigest } from '../../src/auth/sign-digest.ts';

const PRIVATE_KEY_HEX = /^(0x)?[0-9a-fA-F]{64}$/;

export class SigningKey {
  readonly #secret: Uint8Array;
  readonly #public: Uint8Array;

  private constructor(secret: Uint8Array) {
    this.#secret = secret;
    this.#public = secp256k1.getPublicKey(secret, false);
  }

  /** A new random key (from the browser's crypto.getRandomValues). */
  static generate(): SigningKey {
    return new SigningKey(secp256k1.utils.randomSecretKey());
  }

  /** From 64 hex digits, with or without `0x`; throws an Error saying what is wrong otherwise. */
  static fromHex(text: string): SigningKey {
    const trimmed = text.trim();
    if (!PRIVATE_KEY_HEX.test(trimmed)) {
      throw new Error(`a private key is 64 hex digits, optionally after "0x"; got ${trimmed.length} characters${/[^0-9a-fA-Fx]/.test(trimmed) ? ' with some that are not hex' : ''}`);
    }
    const secret = hexToBytes(trimmed.replace(/^0x/, ''));
    if (!secp256k1.utils.isValidSecretKey(secret)) throw new Error('a private key must be between 1 and the curve order minus 1');
    return new SigningKey(secret);
  }

  get privateKeyHex(): string {
    return `0x${bytesToHex(this.#secret)}`;
  }

  /** `0x` + x‖y in hex: the form of `PublicKey.toHex()`, whitelists and where-values. */
  get publicKeyHex(): string {
    return `0x${bytesToHex(this.#public.subarray(1))}`;
  }

  /** The JWK that records and `ctx.publicKey` carry (base64url with `=` padding, as Polybase writes it). */
  get publicKeyJwk(): PublicKeyJwk {
    return { alg: 'ES256K', crv: 'secp256k1', kty: 'EC', use: 'sig', x: base64url(this.#public.subarray(1, 33)), y: base64url(this.#public.subarray(33)) };
  }

  /** The `X-Polybase-Signature` value for a request with exactly this body (empty for a GET), signed at `t` ms. */
  signatureHeader(body: string, t: number = Date.now()): string {
    const signature = signDigest(requestHash(t, body), this.#secret);
    return `v=0,t=${t},h=eth-personal-sign,sig=0x${bytesToHex(signature)}`;
  }
}

function base64url(bytes: Uint8Array): string {
  return `${btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')}=`;
}
