// @noble's curve and hash, loaded on first use: importing the library (to check a schema, say) should not pay
// for them (about 90 ms of a start). Both are ES modules, which Node (>= 20.19, as package.json requires) loads
// with `require`.
import { createRequire } from 'node:module';
import type * as Curve from '@noble/curves/secp256k1.js';
import type * as Sha3 from '@noble/hashes/sha3.js';

const load = createRequire(import.meta.url);
let curve: typeof Curve.secp256k1 | undefined;
let keccak: typeof Sha3.keccak_256 | undefined;

/** @noble/curves' secp256k1. */
export function secp256k1(): typeof Curve.secp256k1 {
  return (curve ??= (load('@noble/curves/secp256k1.js') as typeof Curve).secp256k1);
}

/** @noble/hashes' keccak-256 of `data`. */
export function keccak_256(data: Uint8Array): Uint8Array {
  keccak ??= (load('@noble/hashes/sha3.js') as typeof Sha3).keccak_256;
  return keccak(data);
}
