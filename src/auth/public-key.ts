// A secp256k1 public key and its forms: the JWK that records and `ctx.publicKey` carry, the `0x` + 128 hex
// form (x‖y) used by `toHex()`, whitelists and where-values, and the 33-byte compressed and 65-byte
// uncompressed SEC1 encodings. Every way in validates that the point is on the curve.
import { secp256k1 } from './noble.ts';
import { KeyFormatError, quote } from './errors.ts';
import { hexOf } from './hex.ts';
import type { PublicKeyJwk } from '../wire/index.ts';

export type { PublicKeyJwk } from '../wire/index.ts';

// 32 bytes are 43 base64url characters plus one `=` of padding; the padding is optional on input.
const JWK_COORDINATE = /^[A-Za-z0-9_-]{43}=?$/;
const HEX_FORM = /^0x[0-9a-fA-F]{128}$/;

/** Makes a PublicKey of bytes known to be a point on the curve (set by the class, used by recoveredPublicKey). */
let trusted: (uncompressed: Uint8Array) => PublicKey;

export class PublicKey {
  /** The 65-byte uncompressed SEC1 encoding, `04 ‖ x ‖ y`, of a point known to be on the curve. */
  readonly #uncompressed: Uint8Array;

  private constructor(uncompressed: Uint8Array) {
    this.#uncompressed = uncompressed;
  }

  static {
    trusted = (uncompressed) => new PublicKey(uncompressed);
  }

  /** From a 33-byte compressed (`02`/`03` ‖ x) or 65-byte uncompressed (`04` ‖ x ‖ y) SEC1 encoding. */
  static fromBytes(bytes: Uint8Array): PublicKey {
    const problem = sec1ShapeProblem(bytes);
    if (problem !== undefined) throw invalid(`a public key ${problem.message}`);
    let point;
    try {
      point = secp256k1().Point.fromBytes(bytes);
    } catch {
      throw invalid('the public key is not a point on secp256k1');
    }
    return new PublicKey(point.toBytes(false));
  }

  /** From the hex form `0x` + 128 hex digits: x ‖ y, 32 bytes each, without the `04` prefix. */
  static fromHex(hex: string): PublicKey {
    if (typeof hex !== 'string' || !HEX_FORM.test(hex)) {
      throw invalid(`a hex public key must be "0x" followed by 128 hex digits (x and y), got ${quoteAny(hex)}`);
    }
    const bytes = new Uint8Array(65);
    bytes[0] = 4;
    bytes.set(Buffer.from(hex.slice(2), 'hex'), 1);
    return PublicKey.fromBytes(bytes);
  }

  /**
   * From a JWK `{kty:"EC", crv:"secp256k1", x, y}` (as `ctx.publicKey` and records carry it). `alg` and `use` may
   * be left out but, when present, must be "ES256K" and "sig"; no other member is allowed.
   */
  static fromJwk(jwk: unknown): PublicKey {
    if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk)) {
      throw invalid(`a JWK public key must be an object, got ${jwk === null ? 'null' : Array.isArray(jwk) ? 'an array' : typeof jwk}`);
    }
    const fields = jwk as Record<string, unknown>;
    const expected: Record<string, string> = { kty: 'EC', crv: 'secp256k1', alg: 'ES256K', use: 'sig' };
    for (const name of Object.keys(fields)) {
      if (!Object.hasOwn(expected, name) && name !== 'x' && name !== 'y') throw invalid(`unexpected JWK member ${quote(name)}`);
    }
    for (const [name, value] of Object.entries(expected)) {
      const optional = name === 'alg' || name === 'use';
      if (optional && fields[name] === undefined) continue;
      if (fields[name] !== value) {
        throw invalid(`JWK member "${name}" must be ${JSON.stringify(value)}, got ${quoteAny(fields[name])}`);
      }
    }
    const bytes = new Uint8Array(65);
    bytes[0] = 4;
    bytes.set(decodeCoordinate(fields.x, 'x'), 1);
    bytes.set(decodeCoordinate(fields.y, 'y'), 33);
    return PublicKey.fromBytes(bytes);
  }

  /** The 65-byte uncompressed encoding `04 ‖ x ‖ y` (a fresh copy). */
  toUncompressed(): Uint8Array {
    return this.#uncompressed.slice();
  }

  /** The 33-byte compressed encoding: `02` (even y) or `03` (odd y), then x. */
  toCompressed(): Uint8Array {
    const bytes = new Uint8Array(33);
    bytes[0] = 2 + (this.#uncompressed[64]! & 1);
    bytes.set(this.#uncompressed.subarray(1, 33), 1);
    return bytes;
  }

  /** `0x` + 128 lowercase hex digits (x ‖ y), the form of `PublicKey.toHex()` in Polylang. */
  toHex(): string {
    return `0x${hexOf(this.#uncompressed.subarray(1))}`;
  }

  toJwk(): PublicKeyJwk {
    return {
      alg: 'ES256K',
      crv: 'secp256k1',
      kty: 'EC',
      use: 'sig',
      x: encodeCoordinate(this.#uncompressed.subarray(1, 33)),
      y: encodeCoordinate(this.#uncompressed.subarray(33, 65)),
    };
  }

  /** Whether `bytes` (33 or 65 bytes) encode this same key; false for any other input, valid or not. */
  matchesBytes(bytes: Uint8Array): boolean {
    return sameBytes(bytes, bytes.length === 33 ? this.toCompressed() : this.#uncompressed);
  }

  equals(other: PublicKey): boolean {
    return sameBytes(this.#uncompressed, other.#uncompressed);
  }

  toString(): string {
    return this.toHex();
  }

  toJSON(): PublicKeyJwk {
    return this.toJwk();
  }
}

/**
 * The key that signature recovery produced (65 bytes, `04 ‖ x ‖ y`), without checking again that it is on the
 * curve: recovery computes it as a curve point, and the check costs more than a tenth of the recovery itself.
 * For src/auth only; every other way in checks the point.
 */
export function recoveredPublicKey(uncompressed: Uint8Array): PublicKey {
  if (uncompressed.length !== 65 || uncompressed[0] !== 4) throw invalid('a recovered public key must be 65 bytes starting with 04');
  return trusted(uncompressed);
}

/**
 * What rules `bytes` out as a SEC1 public key by length and prefix alone (cheap: no curve arithmetic), or
 * undefined when both fit.
 */
export function sec1ShapeProblem(bytes: Uint8Array): { kind: 'length' | 'prefix'; message: string } | undefined {
  if (bytes.length !== 33 && bytes.length !== 65) {
    return { kind: 'length', message: `must be 33 bytes (compressed) or 65 bytes (uncompressed), got ${bytes.length}` };
  }
  const prefix = bytes[0]!;
  if (bytes.length === 33 ? prefix !== 2 && prefix !== 3 : prefix !== 4) {
    const expected = bytes.length === 33 ? '02 or 03' : '04';
    return { kind: 'prefix', message: `of ${bytes.length} bytes must start with ${expected}, got 0x${prefix.toString(16).padStart(2, '0')}` };
  }
  return undefined;
}

function decodeCoordinate(value: unknown, name: 'x' | 'y'): Uint8Array {
  if (typeof value !== 'string' || !JWK_COORDINATE.test(value)) {
    throw invalid(`JWK member "${name}" must be 32 bytes of base64url (43 characters and an optional "="), got ${quoteAny(value)}`);
  }
  const bytes = Buffer.from(value, 'base64url');
  // 43 characters carry 258 bits: the 2 spare bits must be zero, or the same 32 bytes would have several spellings.
  if (encodeCoordinate(bytes).slice(0, 43) !== value.slice(0, 43)) {
    throw invalid(`JWK member "${name}" is not canonical base64url`);
  }
  return bytes;
}

function encodeCoordinate(bytes: Uint8Array): string {
  return `${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('base64url')}=`;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function quoteAny(value: unknown): string {
  return typeof value === 'string' ? quote(value) : value === undefined ? 'nothing' : typeof value;
}

function invalid(message: string): KeyFormatError {
  return new KeyFormatError('invalid-public-key', message);
}
