// The typed failures of signed-request authentication. Every `AuthError` is `invalid-argument` /
// `auth/invalid-signature` to the caller, with the error's message, so each message names the part of the header
// that is wrong and what was expected.

/** The part of `v=0,t=…,h=…,sig=…,pk=…` a failure is about (`header` when it is about the whole value). */
export type HeaderPart = 'header' | 'v' | 't' | 'h' | 'sig' | 'pk';

export type AuthErrorKind =
  | 'malformed-header' // a pair without `=`, an empty pair, a value too long
  | 'unknown-key'
  | 'duplicate-key'
  | 'missing-part'
  | 'unsupported-version'
  | 'unsupported-hash'
  | 'invalid-timestamp'
  | 'invalid-hex' // a `sig` or `pk` value that is not `0x` followed by hex digits
  | 'invalid-length' // a `sig` that is not 65 bytes, a `pk` that is neither 33 nor 65 bytes
  | 'invalid-recovery-id'
  | 'invalid-signature-scalar' // r or s is zero or not below the curve order
  | 'high-s-signature' // s is in the upper half of the order: a malleated copy of a low-S signature
  | 'invalid-public-key' // `pk` is not a point on secp256k1
  | 'public-key-mismatch'
  | 'recovery-failed'
  | 'expired'
  | 'from-future'
  | 'already-used'
  | 'replay-guard-full';

export class AuthError extends Error {
  override readonly name = 'AuthError';
  /** Every authentication failure has this code and reason; `kind` and `part` say what failed. */
  readonly code = 'invalid-argument';
  readonly reason = 'auth/invalid-signature';

  constructor(
    readonly kind: AuthErrorKind,
    readonly part: HeaderPart,
    message: string,
  ) {
    super(message);
  }
}

export type KeyFormatErrorKind = 'invalid-public-key' | 'invalid-private-key';

/** A public or private key given in a form that is not a valid secp256k1 key (any input form: JWK, hex, bytes). */
export class KeyFormatError extends Error {
  override readonly name = 'KeyFormatError';

  constructor(
    readonly kind: KeyFormatErrorKind,
    message: string,
  ) {
    super(message);
  }
}

/** Quotes untrusted text for an error message: escaped, and cut short so a huge header cannot make a huge message. */
export function quote(text: string, max = 40): string {
  const shown = text.length > max ? `${text.slice(0, max)}…` : text;
  return JSON.stringify(shown);
}
