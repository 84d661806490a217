// Signing a personal-sign digest into the 65 bytes a signature header carries, with @noble/curves: the JavaScript
// path of signRequest (the browser client, src/client/signer.ts, signs the same way with its own copy).
import { secp256k1 } from './noble.ts';

/** r ‖ s ‖ (27 + recovery id) of a 32-byte digest: low-S, with the deterministic RFC 6979 nonce. */
export function signDigest(hash: Uint8Array, secretKey: Uint8Array): Uint8Array {
  // 'recovered' is recovery id ‖ r ‖ s.
  const recovered = secp256k1().sign(hash, secretKey, { prehash: false, format: 'recovered' });
  const signature = new Uint8Array(65);
  signature.set(recovered.subarray(1), 0);
  signature[64] = 27 + recovered[0]!;
  return signature;
}
