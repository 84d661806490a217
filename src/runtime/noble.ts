// @noble's hashes, loaded on first use: importing the library (to check a schema, say) should not pay
// for them. They are ES modules, which Node (>= 20.19, as package.json requires) loads with `require`.
import { createRequire } from 'node:module';
import type * as Sha2 from '@noble/hashes/sha2.js';
import type * as Blake3 from '@noble/hashes/blake3.js';

const load = createRequire(import.meta.url);
let sha256Function: typeof Sha2.sha256 | undefined;
let blake3Function: typeof Blake3.blake3 | undefined;

/** SHA-256 of `data`. */
export function sha256(data: Uint8Array): Uint8Array {
  sha256Function ??= (load('@noble/hashes/sha2.js') as typeof Sha2).sha256;
  return sha256Function(data);
}

/** BLAKE3 of `data`. */
export function blake3(data: Uint8Array): Uint8Array {
  blake3Function ??= (load('@noble/hashes/blake3.js') as typeof Blake3).blake3;
  return blake3Function(data);
}
