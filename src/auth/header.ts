// Parsing of the signature header value `v=0,t=<ms>,h=eth-personal-sign,sig=0x<65 bytes>[,pk=0x<33|65 bytes>]`.
// Pairs may come in any order; everything else is strict: no spaces, no duplicate or unknown keys, only
// version 0 and the eth-personal-sign hash, `t` as a plain decimal integer. The header is checked in full
// before any curve arithmetic, so a malformed header costs almost nothing.
import { AuthError, quote, type HeaderPart } from './errors.ts';
import { sec1ShapeProblem } from './public-key.ts';
import { decodeSignature, type RecoverableSignature } from './signature.ts';

/** The request header that carries the signature (names are lowercase, as Node presents them). */
export const SIGNATURE_HEADER = 'x-service-signature';
/** The name the Polybase client sends; accepted as an alias. */
export const SIGNATURE_HEADER_ALIAS = 'x-polybase-signature';

/** The longest header value we read; a valid one is under 350 characters. */
export const MAX_HEADER_LENGTH = 1024;

export interface SignatureHeader {
  /** The signing time in milliseconds since the epoch. */
  readonly t: number;
  readonly signature: RecoverableSignature;
  /** The `pk` the caller claims: 33 or 65 bytes with a valid SEC1 prefix, compared later with the recovered key. */
  readonly publicKey: Uint8Array | undefined;
}

const KEYS = ['v', 't', 'h', 'sig', 'pk'] as const;
type Key = (typeof KEYS)[number];
const HEX_DIGITS = /^[0-9a-fA-F]*$/;
const DECIMAL = /^(0|[1-9][0-9]{0,15})$/;

export function parseSignatureHeader(value: string): SignatureHeader {
  if (typeof value !== 'string') throw malformed(`the signature header must be a string, got ${typeof value}`);
  if (value.length > MAX_HEADER_LENGTH) {
    throw malformed(`the signature header is ${value.length} characters long; at most ${MAX_HEADER_LENGTH} are allowed`);
  }
  const pairs = new Map<Key, string>();
  for (const pair of value.split(',')) {
    const equals = pair.indexOf('=');
    if (equals < 0) throw malformed(`missing = in key=value pair ${quote(pair)}`);
    const key = pair.slice(0, equals);
    if (!(KEYS as readonly string[]).includes(key)) {
      throw new AuthError('unknown-key', 'header', `unknown key ${quote(key)}: expected v, t, h, sig and optionally pk`);
    }
    if (pairs.has(key as Key)) throw new AuthError('duplicate-key', key as Key, `duplicate key "${key}"`);
    pairs.set(key as Key, pair.slice(equals + 1));
  }
  const sig = required(pairs, 'sig', 'signature');
  const t = required(pairs, 't', 'timestamp');
  const v = required(pairs, 'v', 'version');
  const h = required(pairs, 'h', 'hash');
  if (v !== '0') throw new AuthError('unsupported-version', 'v', `unsupported version ${quote(v)}: only v=0 is supported`);
  if (h !== 'eth-personal-sign') {
    throw new AuthError('unsupported-hash', 'h', `unsupported hash ${quote(h)}: only h=eth-personal-sign is supported`);
  }
  const pk = pairs.get('pk');
  return {
    t: parseTimestamp(t),
    signature: decodeSignature(decodeHex(sig, 'sig', 'signature')),
    publicKey: pk === undefined ? undefined : checkPublicKeyShape(decodeHex(pk, 'pk', 'public key')),
  };
}

/**
 * The signature header of a request (Node's lowercase header map), under either name; undefined when the request
 * is unsigned. Both names at once are accepted only when they carry the same value.
 */
export function readSignatureHeader(headers: Readonly<Record<string, string | string[] | undefined>>): string | undefined {
  const primary = single(headers[SIGNATURE_HEADER], 'X-Service-Signature');
  const alias = single(headers[SIGNATURE_HEADER_ALIAS], 'X-Polybase-Signature');
  if (primary !== undefined && alias !== undefined && primary !== alias) {
    throw malformed('X-Service-Signature and X-Polybase-Signature are both present with different values');
  }
  return primary ?? alias;
}

function single(value: string | string[] | undefined, name: string): string | undefined {
  if (!Array.isArray(value)) return value;
  if (value.length === 1) return value[0];
  throw malformed(`${name} must be sent once, got ${value.length} values`);
}

function required(pairs: Map<Key, string>, key: Key, name: string): string {
  const value = pairs.get(key);
  if (value === undefined) throw new AuthError('missing-part', key, `missing ${name} (${key}=…)`);
  return value;
}

function parseTimestamp(text: string): number {
  const t = DECIMAL.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(t)) {
    throw new AuthError(
      'invalid-timestamp',
      't',
      `failed to decode timestamp ${quote(text)}: t must be milliseconds since 1970 as a decimal integer without leading zeros`,
    );
  }
  return t;
}

function decodeHex(text: string, part: HeaderPart, name: string): Uint8Array {
  if (!text.startsWith('0x')) throw new AuthError('invalid-hex', part, `${name} (${part}) must start with 0x`);
  const digits = text.slice(2);
  if (!HEX_DIGITS.test(digits)) throw new AuthError('invalid-hex', part, `${name} (${part}) must be hex digits after 0x`);
  if (digits.length % 2 !== 0) {
    throw new AuthError('invalid-hex', part, `${name} (${part}) has an odd number of hex digits (${digits.length})`);
  }
  return Buffer.from(digits, 'hex');
}

function checkPublicKeyShape(bytes: Uint8Array): Uint8Array {
  const problem = sec1ShapeProblem(bytes);
  if (problem !== undefined) {
    throw new AuthError(problem.kind === 'length' ? 'invalid-length' : 'invalid-public-key', 'pk', `public key (pk) ${problem.message}`);
  }
  return bytes;
}

function malformed(message: string): AuthError {
  return new AuthError('malformed-header', 'header', message);
}
