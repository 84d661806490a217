// Signing a request as the Polybase client does: personal-sign over `<t>.<body>`, a low-S signature with
// the recovery byte as 27/28, and the header value `v=0,t=…,h=eth-personal-sign,sig=0x…[,pk=0x…]`.
import { secp256k1 } from './noble.ts';
import { KeyFormatError } from './errors.ts';
import { hexOf } from './hex.ts';
import { requestHash } from './personal-sign.ts';
import { signDigest } from './sign-digest.ts';
import { PublicKey } from './public-key.ts';
import { defaultBackend, nativeBinding } from './recover.ts';

export interface SignOptions {
  /** Also send the signer's compressed public key as `pk` (the server then checks it against the recovered key). */
  includePublicKey?: boolean;
}

const PRIVATE_KEY_HEX = /^0x[0-9a-fA-F]{64}$/;

/**
 * The signature header value for a request with this exact body, signed at `t` (milliseconds, default now).
 * `privateKey` is 32 bytes or `0x` + 64 hex digits.
 */
export function signRequest(
  privateKey: Uint8Array | string,
  body: string | Uint8Array,
  t: number = Date.now(),
  options: SignOptions = {},
): string {
  if (!Number.isSafeInteger(t) || t < 0) throw new RangeError(`t must be a non-negative integer of milliseconds, got ${t}`);
  const secretKey = parsePrivateKey(privateKey);
  const signature = sign(requestHash(t, body), secretKey);
  let header = `v=0,t=${t},h=eth-personal-sign,sig=0x${hexOf(signature)}`;
  if (options.includePublicKey) header += `,pk=0x${hexOf(publicKeyOf(secretKey).toCompressed())}`;
  return header;
}

// Both libraries sign low-S with the deterministic RFC 6979 nonce, so they give the same signature; libsecp256k1
// takes about a tenth of the time (it is used where recovery uses it: unless VELLUM_AUTH_BACKEND=js).
const useNative = nativeBinding !== null && defaultBackend.name === 'native';

/** r ‖ s ‖ (27 + recovery id), as the header carries it. */
function sign(hash: Uint8Array, secretKey: Uint8Array): Uint8Array {
  if (!useNative) return signDigest(hash, secretKey);
  const { signature: compact, recid } = nativeBinding!.ecdsaSign(hash, secretKey);
  const signature = new Uint8Array(65);
  signature.set(compact, 0);
  signature[64] = 27 + recid;
  return signature;
}

/** The public key of a private key (32 bytes or `0x` + 64 hex digits). */
export function publicKeyOf(privateKey: Uint8Array | string): PublicKey {
  return PublicKey.fromBytes(secp256k1().getPublicKey(parsePrivateKey(privateKey), false));
}

function parsePrivateKey(privateKey: Uint8Array | string): Uint8Array {
  let bytes: Uint8Array;
  if (typeof privateKey === 'string') {
    if (!PRIVATE_KEY_HEX.test(privateKey)) {
      throw new KeyFormatError('invalid-private-key', 'a private key must be "0x" followed by 64 hex digits');
    }
    bytes = Buffer.from(privateKey.slice(2), 'hex');
  } else if (privateKey instanceof Uint8Array && privateKey.length === 32) {
    bytes = privateKey;
  } else {
    throw new KeyFormatError('invalid-private-key', 'a private key must be 32 bytes');
  }
  if (!secp256k1().utils.isValidSecretKey(bytes)) {
    throw new KeyFormatError('invalid-private-key', 'a private key must be between 1 and the curve order minus 1');
  }
  return bytes;
}
