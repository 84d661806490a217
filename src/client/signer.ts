// Signing requests in the client: a signer turns the message `<t>.<body>` into `{ h, sig }`, and the client puts
// it in the header `X-Polybase-Signature: v=0,t=<t>,h=<h>,sig=<sig>`. That is @polybase/client's contract, so
// `ethPersonalSigner(key)` also works as `new Polybase({ signer })`, and any signer written for that client (a
// wallet's personal_sign) works here.
//
// It does not go through src/auth, which loads Node-only modules (worker threads, the native secp256k1 binding,
// @noble through `require`): the client must also run in a browser. It hashes and signs with @noble alone, as
// src/auth's personal-sign.ts and sign-digest.ts do; test/client checks that its signatures are exactly src/auth's
// signRequest ones (both sign with the deterministic RFC 6979 nonce).
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import type { HexPublicKey } from './wire.ts';

export interface SignerResponse {
  h: 'eth-personal-sign';
  /** `0x` + 65 bytes in hex: r ‖ s ‖ recovery byte (27 or 28). */
  sig: string;
  /** Optionally the signer's public key, `0x` + 33 or 65 bytes in hex. */
  pk?: string;
}

/** Signs the message `<t>.<body>` of a request; null (as @polybase/client's signers may answer) sends it unsigned. */
export type Signer = (data: string) => SignerResponse | null | Promise<SignerResponse | null>;

export const SIGNATURE_HEADER = 'X-Polybase-Signature';

const encoder = new TextEncoder();
const PRIVATE_KEY_HEX = /^0x[0-9a-fA-F]{64}$/;

/**
 * An Ethereum personal-sign signer for a private key (`0x` + 64 hex digits, or 32 bytes), as MetaMask's
 * `personal_sign` and ethers' `signMessage` sign: keccak-256 of `"\x19Ethereum Signed Message:\n" + length +
 * message`, a low-S signature with the recovery byte as 27 or 28. A bad key is a TypeError at once.
 */
export function ethPersonalSigner(privateKey: string | Uint8Array): Signer {
  const secretKey = privateKeyBytes(privateKey);
  return (data: string) => {
    return { h: 'eth-personal-sign', sig: `0x${bytesToHex(personalSign(encoder.encode(data), secretKey))}` };
  };
}

/**
 * r ‖ s ‖ (27 + recovery id) over keccak256("\x19Ethereum Signed Message:\n" + length + message): low-S, with the
 * deterministic RFC 6979 nonce.
 */
function personalSign(message: Uint8Array, secretKey: Uint8Array): Uint8Array {
  const prefix = encoder.encode(`\x19Ethereum Signed Message:\n${message.length}`);
  const prefixed = new Uint8Array(prefix.length + message.length);
  prefixed.set(prefix);
  prefixed.set(message, prefix.length);
  // 'recovered' is recovery id ‖ r ‖ s.
  const recovered = secp256k1.sign(keccak_256(prefixed), secretKey, { prehash: false, format: 'recovered' });
  const signature = new Uint8Array(65);
  signature.set(recovered.subarray(1), 0);
  signature[64] = 27 + recovered[0]!;
  return signature;
}

/**
 * The public key of a private key (as `ethPersonalSigner` takes it), as `0x` and the 128 hex digits of x and y: what
 * a where pins a PublicKey field to, so that a list of a private collection can be limited to the signer's own
 * records (`where('owner', '==', publicKeyHex(key))`, docs/service.md "Private records in lists").
 */
export function publicKeyHex(privateKey: string | Uint8Array): HexPublicKey {
  return `0x${bytesToHex(secp256k1.getPublicKey(privateKeyBytes(privateKey), false).subarray(1))}`;
}

/** A new private key from the platform's secure random numbers (`crypto.getRandomValues`), as `0x` + 64 hex digits. */
export function randomPrivateKey(): `0x${string}` {
  return `0x${bytesToHex(secp256k1.utils.randomSecretKey())}`;
}

const HEX = /^0x[0-9a-fA-F]+$/;

/**
 * The header value for a request signed at `t` (milliseconds) over its exact body text ('' for a read), or null
 * when the signer declines. A signer's answer that is not `{ h: 'eth-personal-sign', sig: '0x…' }` is a TypeError
 * (its parts go into a header, so nothing else may pass).
 */
export async function signatureHeader(signer: Signer, body: string, t: number = Date.now()): Promise<string | null> {
  const response: unknown = await signer(`${t}.${body}`);
  if (response === null || response === undefined) return null;
  const { h, sig, pk } = response as Partial<Record<keyof SignerResponse, unknown>>;
  if (h !== 'eth-personal-sign' || typeof sig !== 'string' || !HEX.test(sig) || (pk !== undefined && (typeof pk !== 'string' || !HEX.test(pk)))) {
    throw new TypeError(`the signer answered ${describe(response)}; expected { h: 'eth-personal-sign', sig: '0x…' (hex), pk?: '0x…' (hex) }`);
  }
  return `v=0,t=${t},h=${h},sig=${sig}${pk === undefined ? '' : `,pk=${pk}`}`;
}

function describe(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

function privateKeyBytes(privateKey: string | Uint8Array): Uint8Array {
  let bytes: Uint8Array;
  if (typeof privateKey === 'string') {
    if (!PRIVATE_KEY_HEX.test(privateKey)) throw new TypeError('a private key must be "0x" followed by 64 hex digits');
    bytes = hexToBytes(privateKey.slice(2));
  } else if (privateKey instanceof Uint8Array && privateKey.length === 32) {
    bytes = privateKey.slice();
  } else {
    throw new TypeError('a private key must be 32 bytes');
  }
  if (!secp256k1.utils.isValidSecretKey(bytes)) throw new TypeError('a private key must be between 1 and the curve order minus 1');
  return bytes;
}
