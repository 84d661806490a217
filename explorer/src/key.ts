// The browser's signing key: a secp256k1 private key that signs requests through vellum/client's
// ethPersonalSigner (Ethereum personal-sign over `<t>.<body>`, as the Polybase client signs), and never leaves the
// page. No DOM here, so test/explorer/modules.test.ts runs it in Node.
import { ethPersonalSigner, publicKeyHex, randomPrivateKey, type HexPublicKey, type Signer } from 'vellum/client';

export interface SigningKey {
  /** `0x` + 64 hex digits. */
  readonly privateKeyHex: `0x${string}`;
  /** `0x` + x‖y in hex: the form of `PublicKey.toHex()`, whitelists and where values. */
  readonly publicKeyHex: HexPublicKey;
  readonly signer: Signer;
}

const PRIVATE_KEY_HEX = /^(0x)?[0-9a-fA-F]{64}$/;

/** A new random key (from the browser's crypto.getRandomValues). */
export function generateKey(): SigningKey {
  return keyOf(randomPrivateKey());
}

/**
 * The key in a text a person pasted or a key file holds: 64 hex digits with or without `0x`, or JSON such as
 * `{"privateKey": "0x…"}`. Throws an Error saying what is wrong otherwise.
 */
export function keyFromText(text: string): SigningKey {
  let candidate = text.trim();
  if (candidate.startsWith('{')) {
    try {
      const json = JSON.parse(candidate) as Record<string, unknown>;
      candidate = String(json.privateKey ?? json.private_key ?? json.key ?? '').trim();
    } catch {
      // Not JSON after all: judged as hex below.
    }
  }
  if (!PRIVATE_KEY_HEX.test(candidate)) {
    throw new Error(`a private key is 64 hex digits, optionally after "0x"; got ${candidate.length} characters${/[^0-9a-fA-Fx]/.test(candidate) ? ' with some that are not hex' : ''}`);
  }
  return keyOf(`0x${candidate.replace(/^0x/, '').toLowerCase()}`);
}

function keyOf(privateKeyHex: `0x${string}`): SigningKey {
  let publicKey: HexPublicKey;
  try {
    publicKey = publicKeyHex(privateKeyHex);
  } catch (error) {
    // The client's TypeError says why (a key must be between 1 and the curve order minus 1).
    throw new Error((error as Error).message);
  }
  return { privateKeyHex, publicKeyHex: publicKey, signer: ethPersonalSigner(privateKeyHex) };
}

/** `0x1a2b…9f0e`: a key as a person tells it apart, the whole of it a copy away. */
export function shortKey(hex: string): string {
  return hex.length > 14 ? `${hex.slice(0, 6)}…${hex.slice(-4)}` : hex;
}
