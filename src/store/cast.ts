// Turning JSON wire values into typed key values, for a field's indexable type.
//
// Record values are stored as the HTTP service returns them (docs/store.md, "Records and values"): a PublicKey is a JWK
// `{kty, crv, alg, use, x, y}` with base64url x and y, a reference is `{collectionId, id}`. Query values may
// also arrive in other forms (a number as a string, a key as `0x` + 128 hex digits) and are cast to the field's
// type, with a typed error when they cannot be. A record value that does not fit its field (for example a
// record written before the field's type changed) is indexed as null rather than failing the write.

import { invalidQueryValue } from './errors.ts';
import { NULL_VALUE, type KeyValue } from './encoding.ts';

export type IndexableType =
  | { readonly kind: 'string' }
  | { readonly kind: 'number' }
  | { readonly kind: 'boolean' }
  | { readonly kind: 'publicKey' }
  | { readonly kind: 'reference'; readonly collection: string };

export function typeName(type: IndexableType): string {
  return type.kind === 'publicKey' ? 'PublicKey' : type.kind === 'reference' ? type.collection : type.kind;
}

/** A record's field value as a key value; missing, null or ill-typed values are null. */
export function recordKeyValue(type: IndexableType, value: unknown): KeyValue {
  if (value === undefined || value === null) return NULL_VALUE;
  return exactCast(type, value) ?? NULL_VALUE;
}

/** A query value cast to the field's type, or a typed error naming the field. */
export function queryKeyValue(type: IndexableType, value: unknown, path: string): KeyValue {
  const cast = value === null || value === undefined ? undefined : exactCast(type, value) ?? looseCast(type, value);
  if (cast === undefined) {
    throw invalidQueryValue(
      `value at field "${path}" does not match the schema type, expected type: ${typeName(type)}, got value: ${preview(value)}`,
    );
  }
  return cast;
}

function exactCast(type: IndexableType, value: unknown): KeyValue | undefined {
  switch (type.kind) {
    case 'string':
      return typeof value === 'string' ? { kind: 'string', value } : undefined;
    case 'number':
      // Not ±Infinity either: JSON stores it as null, and a record's index keys must be what its stored text gives.
      return typeof value === 'number' && Number.isFinite(value) ? { kind: 'number', value } : undefined;
    case 'boolean':
      return typeof value === 'boolean' ? { kind: 'boolean', value } : undefined;
    case 'publicKey': {
      const bytes = publicKeyBytes(value);
      return bytes ? { kind: 'publicKey', value: bytes } : undefined;
    }
    case 'reference': {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
      const { collectionId, id } = value as { collectionId?: unknown; id?: unknown };
      return typeof collectionId === 'string' && typeof id === 'string' ? { kind: 'reference', collectionId, id } : undefined;
    }
  }
}

/** The query-only conversions: text to number and boolean, numbers and booleans to text. */
function looseCast(type: IndexableType, value: unknown): KeyValue | undefined {
  switch (type.kind) {
    case 'string':
      return typeof value === 'number' || typeof value === 'boolean' ? { kind: 'string', value: String(value) } : undefined;
    case 'number': {
      if (typeof value !== 'string' || value.trim() === '') return undefined;
      const n = Number(value);
      return Number.isNaN(n) ? undefined : { kind: 'number', value: n };
    }
    case 'boolean':
      if (value === 'true' || value === 1) return { kind: 'boolean', value: true };
      if (value === 'false' || value === 0) return { kind: 'boolean', value: false };
      return undefined;
    default:
      return undefined;
  }
}

const HEX_KEY = /^(?:0x)?(?:04)?([0-9a-fA-F]{128})$/;

/** The 64 bytes x || y of a PublicKey given as a JWK object or as hex (`0x` + 128 digits, `04` prefix allowed). */
export function publicKeyBytes(value: unknown): Uint8Array | undefined {
  if (typeof value === 'string') {
    const match = HEX_KEY.exec(value);
    return match ? Buffer.from(match[1]!, 'hex') : undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const jwk = value as Record<string, unknown>;
  if (jwk.kty !== 'EC' || jwk.crv !== 'secp256k1') return undefined;
  const x = base64Url32(jwk.x);
  const y = base64Url32(jwk.y);
  return x && y ? Buffer.concat([x, y]) : undefined;
}

const BASE64URL = /^[A-Za-z0-9_-]{43}=?$/;

function base64Url32(value: unknown): Buffer | undefined {
  if (typeof value !== 'string' || !BASE64URL.test(value)) return undefined;
  const bytes = Buffer.from(value.replace(/=$/, ''), 'base64url');
  return bytes.length === 32 ? bytes : undefined;
}

function preview(value: unknown): string {
  // JSON has no text for ±Infinity or NaN (a query's 1e309 parses as Infinity): JSON.stringify would say null.
  const notFinite = typeof value === 'number' && !Number.isFinite(value);
  const text = value === undefined || notFinite ? String(value) : JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
