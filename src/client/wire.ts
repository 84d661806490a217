// The values a record and a call's arguments hold on the wire, as TypeScript types, and the conversions a client
// needs for them. The service speaks JSON: bytes are padded base64 text, a PublicKey is a JWK (arguments may also
// give `0x` + 128 hex digits), a reference to a record is `{ collectionId, id }`. Records are typed as the wire
// has them, so what a client reads is exactly what the service sent.
import type { PublicKeyJwk } from '../wire/index.ts';

/** `bytes` as the service sends them: standard padded base64 (`bytesFromBase64` gives the Uint8Array). */
export type Base64Bytes = string;

/** `bytes` in an argument: a Uint8Array (the client encodes it) or base64 text. */
export type BytesInput = Uint8Array | Base64Bytes;

// The sized numeric types of Polylang after 0.6: JSON numbers whose range the service checks (an argument outside
// it is refused with `function/invalid-args`). Named so that an editor shows the range where they are used.
/** `u32`: a whole number from 0 to 4294967295. */
export type U32 = number;
/** `i32`: a whole number from -2147483648 to 2147483647. */
export type I32 = number;
/** `u64`: a whole number from 0 to 2^53−1 (Vellum limits 64-bit integers to what a double holds exactly). */
export type U64 = number;
/** `i64`: a whole number from −(2^53−1) to 2^53−1 (Vellum limits 64-bit integers to what a double holds exactly). */
export type I64 = number;
/** `f32`: a finite number of magnitude at most 3.4028234663852886e38 (stored as a double, not rounded). */
export type F32 = number;
/** `f64`: a finite number. */
export type F64 = number;

// A `PublicKey` as records hold it; src/auth's own type, from a module with no imports (browser-safe).
export type { PublicKeyJwk };

/** A `PublicKey` as `0x` followed by the 128 hex digits of x and y (what `toHex()` gives in a function). */
export type HexPublicKey = `0x${string}`;

/** A `PublicKey` in an argument or a where: the JWK or the hex form. */
export type PublicKeyInput = PublicKeyJwk | HexPublicKey;

// Makes references to different collections different types, although both are `{ collectionId, id }` on the
// wire: a reference to a User does not pass where a Post is expected. Types only; no such property exists.
declare const referenceBrand: unique symbol;

/** A field that refers to a record of collection `Name`, as records hold it. */
export interface RecordReference<Name extends string = string> {
  collectionId: string;
  id: string;
  readonly [referenceBrand]?: Name;
}

/** A reference in an argument: the service fills in the collection when `collectionId` is left out. */
export interface ReferenceInput<Name extends string = string> {
  collectionId?: string;
  id: string;
  readonly [referenceBrand]?: Name;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Standard padded base64 of bytes (in browsers and Node alike: no Buffer). */
export function base64FromBytes(bytes: Uint8Array): Base64Bytes {
  let binary = '';
  // In slices: String.fromCharCode takes its arguments on the stack.
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** The bytes of standard padded base64 text, as the service sends `bytes`; a TypeError names what is wrong. */
export function bytesFromBase64(text: Base64Bytes): Uint8Array {
  if (typeof text !== 'string' || !BASE64.test(text)) throw new TypeError('expected standard padded base64 text (A-Z a-z 0-9 + /, padded with =)');
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** Arguments as JSON text: every Uint8Array, at any depth, becomes base64 (only `bytes` values are Uint8Arrays). */
export function argumentsJson(args: readonly unknown[]): string {
  return JSON.stringify({ args }, (_key, value: unknown) => (value instanceof Uint8Array ? base64FromBytes(value) : value));
}
