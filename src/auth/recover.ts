// Public-key recovery from a recoverable signature, the most expensive step of a signed request.
// Two backends give identical results: libsecp256k1 through the `secp256k1` package's native binding (about 30x
// faster) and @noble/curves in pure JavaScript (the faster of the two noble libraries). The native binding is
// optional: when it cannot load, or when VELLUM_AUTH_BACKEND=js, the JavaScript backend is used.
import { createRequire } from 'node:module';
import { secp256k1 } from './noble.ts';
import { AuthError } from './errors.ts';
import { recoveredPublicKey, type PublicKey } from './public-key.ts';
import type { RecoverableSignature } from './signature.ts';

export type BackendName = 'native' | 'js';

export interface RecoveryBackend {
  readonly name: BackendName;
  /** The signer's 65-byte uncompressed public key; throws (any error) when no key can be recovered. */
  recover(signature: RecoverableSignature, hash: Uint8Array): Uint8Array;
}

export const jsBackend: RecoveryBackend = {
  name: 'js',
  recover(signature, hash) {
    return secp256k1().Signature.fromBytes(signature.compact, 'compact')
      .addRecoveryBit(signature.recoveryId)
      .recoverPublicKey(hash)
      .toBytes(false);
  },
};

interface NativeSecp256k1 {
  ecdsaRecover(sig64: Uint8Array, recid: number, msg32: Uint8Array, compressed: boolean): Uint8Array;
  /** A low-S signature with an RFC 6979 nonce (the same one noble derives). */
  ecdsaSign(msg32: Uint8Array, secretKey: Uint8Array): { signature: Uint8Array; recid: number };
}

/** libsecp256k1, or null when the binding cannot load on this machine. */
export const nativeBinding: NativeSecp256k1 | null = loadBinding();

/** The libsecp256k1 backend, or null when the binding cannot load on this machine. */
export const nativeBackend: RecoveryBackend | null = nativeBinding === null ? null : nativeBackendOf(nativeBinding);

function loadBinding(): NativeSecp256k1 | null {
  try {
    // `secp256k1/bindings.js` is the native addon alone: the package's main entry silently falls back to the
    // `elliptic` library when the addon is missing, and that fallback is neither fast nor the one we test.
    return createRequire(import.meta.url)('secp256k1/bindings.js') as NativeSecp256k1;
  } catch {
    return null;
  }
}

function nativeBackendOf(binding: NativeSecp256k1): RecoveryBackend {
  return {
    name: 'native',
    recover(signature, hash) {
      return binding.ecdsaRecover(signature.compact, signature.recoveryId, hash, false);
    },
  };
}

/** Picks a backend: `native` fails if the binding is unavailable; `auto` prefers native and falls back to js. */
export function recoveryBackend(choice: BackendName | 'auto' = 'auto'): RecoveryBackend {
  if (choice === 'js') return jsBackend;
  if (choice === 'native') {
    if (nativeBackend === null) throw new Error('the native secp256k1 binding (npm package "secp256k1") could not be loaded');
    return nativeBackend;
  }
  return nativeBackend ?? jsBackend;
}

/** The backend used when none is passed; VELLUM_AUTH_BACKEND=native|js|auto chooses, read once at start. */
export const defaultBackend: RecoveryBackend = recoveryBackend(backendChoiceFromEnvironment());

function backendChoiceFromEnvironment(): BackendName | 'auto' {
  const value = process.env.VELLUM_AUTH_BACKEND ?? 'auto';
  if (value === 'native' || value === 'js' || value === 'auto') return value;
  throw new Error(`VELLUM_AUTH_BACKEND must be "native", "js" or "auto", got ${JSON.stringify(value)}`);
}

/** Recovers the signer's key; any failure becomes a typed `AuthError`. */
export function recoverPublicKey(signature: RecoverableSignature, hash: Uint8Array, backend: RecoveryBackend): PublicKey {
  return signerOf(recoveredKey(signature, hash, backend));
}

/** The recovered key's bytes, or null when the backend finds none (`signerOf` reports that as an `AuthError`). */
export function recoveredKey(signature: RecoverableSignature, hash: Uint8Array, backend: RecoveryBackend): Uint8Array | null {
  try {
    return backend.recover(signature, hash);
  } catch {
    return null;
  }
}

/** The signer from a recovered key (both backends compute it as a curve point); null is a typed `AuthError`. */
export function signerOf(key: Uint8Array | null): PublicKey {
  if (key !== null && key.length === 65 && key[0] === 4) return recoveredPublicKey(key);
  throw new AuthError('recovery-failed', 'sig', 'failed to recover a public key from the signature');
}
