// Signed-request authentication: the public face of src/auth.
export { AuthError, KeyFormatError, type AuthErrorKind, type HeaderPart, type KeyFormatErrorKind } from './errors.ts';
export {
  MAX_HEADER_LENGTH,
  SIGNATURE_HEADER,
  SIGNATURE_HEADER_ALIAS,
  parseSignatureHeader,
  readSignatureHeader,
  type SignatureHeader,
} from './header.ts';
export { personalSignHash, requestHash, requestMessage } from './personal-sign.ts';
export { PublicKey, type PublicKeyJwk } from './public-key.ts';
export { defaultBackend, jsBackend, nativeBackend, recoveryBackend, type BackendName, type RecoveryBackend } from './recover.ts';
export { MemoryReplayGuard, type ClaimResult, type MemoryReplayGuardOptions, type ReplayGuard } from './replay.ts';
export { decodeSignature, type RecoverableSignature } from './signature.ts';
export { publicKeyOf, signRequest, type SignOptions } from './sign.ts';
export { RecoveryPool, type Recovery, type RecoveryPoolOptions } from './recovery-pool.ts';
export { verifySignatureHeader, verifySignatureHeaderAsync, type AsyncVerifyOptions, type VerifyOptions } from './verify.ts';
export { MAX_AGE_MS, MAX_AHEAD_MS, checkTimeWindow, expiryOf, systemClock, type Clock } from './window.ts';
