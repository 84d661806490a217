// The edges of an execution: records and arguments arrive in wire form (JSON: bytes as padded base64,
// PublicKey as a JWK or `0x` hex, references as `{collectionId, id}`) and become runtime values; the
// record and the changed arguments leave in wire form again. Output follows Polybase's rules: only
// declared fields are kept, required fields must be present, values must match their types
// (no coercions, and NaN or Infinity are not storable).

import { sizedNumberProblem, typeText, type FieldDeclaration, type TypeNode } from '../lang/index.ts';
import { describeValue } from './errors.ts';
import { PublicKey, isRuntimeObject, newObject, publicKeyFrom, recordCollectionOf, type RuntimeObject } from './values.ts';

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type WireRecord = { [key: string]: JsonValue };

/** Why a value could not be converted, and where (`a.b`, `list[2]`). */
export class ConversionError extends Error {
  constructor(
    readonly kind: 'missing' | 'invalid',
    readonly path: string,
    readonly expected: string,
    readonly detail: string,
  ) {
    super(detail);
  }
}

/** How a conversion resolves collection names to collection ids (`ns/Name`). */
export interface ConversionContext {
  collectionIdOf(name: string): string;
  /** Fill in type defaults for missing required fields (records stored before a field was added). */
  defaults: boolean;
  /**
   * A reference must name the collection of the schema's namespace (`ns/User`, not `other/User`): true for
   * arguments, where anyone may name a same-named collection of their own; stored records keep what they hold.
   */
  exactReferences: boolean;
}

function join(path: string, name: string): string {
  return path === '' ? name : `${path}.${name}`;
}

function invalid(type: TypeNode, value: unknown, path: string, detail?: string): ConversionError {
  return new ConversionError('invalid', path, typeText(type), detail ?? `expected type: ${typeText(type)}, got value: ${describeWire(value)}`);
}

function describeWire(value: unknown): string {
  if (value instanceof Uint8Array) return `bytes(${value.length})`;
  return describeValue(value, 100);
}

function isWireObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array) && !(value instanceof PublicKey);
}

/** The default of a type, for a required field missing from a stored record (Polybase's rule). */
function defaultOf(type: TypeNode, context: ConversionContext): unknown {
  switch (type.kind) {
    case 'primitiveType':
      return type.name === 'string' ? '' : type.name === 'number' ? 0 : type.name === 'boolean' ? false : new Uint8Array(0);
    case 'sizedNumberType':
      return 0;
    case 'arrayType':
      return [];
    case 'mapType':
      return newObject();
    case 'objectType':
      return fieldsFromWire(type.fields, newObject() as Record<string, unknown>, '', context);
    case 'referenceType': {
      const reference = newObject();
      reference.collectionId = '';
      reference.id = '';
      return reference;
    }
    default:
      return undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// Wire → runtime

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export function bytesFromBase64(text: string): Uint8Array | undefined {
  if (!BASE64.test(text)) return undefined;
  return new Uint8Array(Buffer.from(text, 'base64'));
}

/** 'number' or 'string' for arrays of those (converted without a call per element), else ''. */
function simpleElement(type: TypeNode): string {
  return type.kind === 'primitiveType' && (type.name === 'number' || type.name === 'string') ? type.name : '';
}

export function valueFromWire(type: TypeNode, value: unknown, path: string, context: ConversionContext): unknown {
  switch (type.kind) {
    case 'primitiveType':
      switch (type.name) {
        case 'string':
          if (typeof value === 'string') return value;
          break;
        case 'number':
          if (typeof value === 'number' && Number.isFinite(value)) return value;
          break;
        case 'boolean':
          if (typeof value === 'boolean') return value;
          break;
        case 'bytes': {
          if (value instanceof Uint8Array) return value.slice();
          if (typeof value === 'string') {
            const bytes = bytesFromBase64(value);
            if (bytes) return bytes;
            throw invalid(type, value, path, 'base64 decode error: expected standard padded base64');
          }
          break;
        }
      }
      throw invalid(type, value, path);
    case 'sizedNumberType':
      return sizedNumber(type, value, path);
    case 'publicKeyType':
      try {
        return publicKeyFrom(value);
      } catch (error) {
        throw invalid(type, value, path, `invalid public key: ${(error as Error).message}`);
      }
    case 'arrayType': {
      if (!Array.isArray(value)) throw invalid(type, value, path);
      // Built by push so the array is packed (map gives a holey one, slower to push to and splice).
      const array: unknown[] = [];
      const simple = simpleElement(type.element);
      for (let i = 0; i < value.length; i++) {
        const element = value[i];
        // Numbers and strings inline: the general call builds the element's path text for every element.
        if (simple === 'number' ? typeof element === 'number' && Number.isFinite(element) : simple === 'string' && typeof element === 'string') {
          array.push(element);
        } else {
          array.push(valueFromWire(type.element, element, `${path}[${i}]`, context));
        }
      }
      return array;
    }
    case 'mapType': {
      if (!isWireObject(value)) throw invalid(type, value, path);
      const map = newObject();
      for (const key of Object.keys(value)) {
        checkMapKey(type, key, path);
        map[key] = valueFromWire(type.value, value[key], join(path, key), context);
      }
      return map;
    }
    case 'objectType': {
      if (!isWireObject(value)) throw invalid(type, value, path);
      return fieldsFromWire(type.fields, value, path, context);
    }
    case 'referenceType':
      return referenceFromWire(type, value, path, context);
    case 'recordType':
      throw invalid(type, value, path, 'a record is not a storable value');
  }
}

/** A value of a sized numeric type: a finite number within the type's range (whole for the integer types). */
function sizedNumber(type: Extract<TypeNode, { kind: 'sizedNumberType' }>, value: unknown, path: string): number {
  if (typeof value !== 'number') throw invalid(type, value, path);
  const problem = sizedNumberProblem(type.name, value);
  if (problem !== undefined) throw invalid(type, value, path, problem);
  return value;
}

function checkMapKey(type: Extract<TypeNode, { kind: 'mapType' }>, key: string, path: string): void {
  if (type.key.kind === 'primitiveType' && type.key.name === 'number' && !isNumericKey(key)) {
    throw new ConversionError('invalid', join(path, key), typeText(type), `map key ${JSON.stringify(key)} at field "${path}" is not a number`);
  }
  if (type.key.kind === 'sizedNumberType') {
    const problem = isNumericKey(key) ? sizedNumberProblem(type.key.name, Number(key)) : 'it is not a number';
    if (problem !== undefined) {
      throw new ConversionError('invalid', join(path, key), typeText(type), `map key ${JSON.stringify(key)} at field "${path}" is not a ${type.key.name}: ${problem}`);
    }
  }
}

function isNumericKey(key: string): boolean {
  return key.trim() !== '' && Number.isFinite(Number(key));
}

export function fieldsFromWire(
  fields: readonly FieldDeclaration[],
  value: Record<string, unknown>,
  path: string,
  context: ConversionContext,
): RuntimeObject {
  const object = newObject();
  for (const field of fields) {
    const name = field.name.name;
    const fieldPath = join(path, name);
    const raw = Object.hasOwn(value, name) ? value[name] : undefined;
    if (raw === undefined || raw === null) {
      if (field.optional) continue;
      if (context.defaults && raw === undefined) {
        const fallback = defaultOf(field.type, context);
        if (fallback !== undefined) {
          object[name] = fallback;
          continue;
        }
      }
      if (raw === null) throw invalid(field.type, raw, fieldPath);
      throw new ConversionError('missing', fieldPath, typeText(field.type), `missing field "${fieldPath}"`);
    }
    object[name] = valueFromWire(field.type, raw, fieldPath, context);
  }
  return object;
}

function referenceFromWire(type: Extract<TypeNode, { kind: 'referenceType' }>, value: unknown, path: string, context: ConversionContext): RuntimeObject {
  if (!isWireObject(value)) throw invalid(type, value, path);
  if (value.id === undefined) throw invalid(type, value, path, 'record reference missing "id" field');
  if (typeof value.id !== 'string') throw invalid(type, value, path, 'record reference has invalid field type');
  const expected = type.collection.name;
  const collectionId = value.collectionId === undefined ? context.collectionIdOf(expected) : value.collectionId;
  if (typeof collectionId !== 'string') throw invalid(type, value, path, 'record reference has invalid field type');
  // Polybase stored `{collectionId: "", id: ""}` as the default reference; anything else must name the type's collection.
  if (collectionId !== '' && lastSegment(collectionId) !== expected) {
    throw invalid(type, value, path, `foreign record reference has incorrect collection id, expected: "${expected}", got: "${lastSegment(collectionId)}"`);
  }
  if (context.exactReferences && collectionId !== '' && collectionId !== context.collectionIdOf(expected)) {
    throw invalid(type, value, path, otherCollection(collectionId, context.collectionIdOf(expected)));
  }
  const reference = newObject();
  reference.collectionId = collectionId;
  reference.id = value.id;
  return reference;
}

/**
 * The message for a reference to a same-named collection of another namespace (`other/User` for `ns/User`):
 * anyone can create one, with any contents, so it does not pass for the schema's own (and the call may change a
 * record of its own collection).
 */
export function otherCollection(given: string, own: string): string {
  return `the record reference names collection "${given}", but this parameter takes a record of "${own}"`;
}

export function lastSegment(collectionId: string): string {
  return collectionId.slice(collectionId.lastIndexOf('/') + 1);
}

/** A record of a collection whose schema is unknown here: JSON with JWK-shaped objects as keys. */
export function genericFromWire(value: unknown, depth = 0): unknown {
  if (depth > 256) throw new ConversionError('invalid', '', 'JSON', 'the record nests more than 256 levels deep');
  if (Array.isArray(value)) {
    const array: unknown[] = []; // packed, as above
    for (let i = 0; i < value.length; i++) array.push(genericFromWire(value[i], depth + 1));
    return array;
  }
  if (isWireObject(value)) {
    if (typeof value.x === 'string' && typeof value.y === 'string' && value.kty === 'EC') {
      try {
        return publicKeyFrom(value);
      } catch {
        // not a key after all: an ordinary object
      }
    }
    const object = newObject();
    for (const key of Object.keys(value)) object[key] = genericFromWire(value[key], depth + 1);
    return object;
  }
  return value;
}

// ---------------------------------------------------------------------------------------------
// Runtime → wire

export function valueToWire(type: TypeNode, value: unknown, path: string, context: ConversionContext): JsonValue {
  switch (type.kind) {
    case 'primitiveType':
      switch (type.name) {
        case 'string':
          if (typeof value === 'string') return value;
          break;
        case 'number':
          if (typeof value === 'number' && Number.isFinite(value)) return Object.is(value, -0) ? 0 : value;
          break;
        case 'boolean':
          if (typeof value === 'boolean') return value;
          break;
        case 'bytes':
          if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.length).toString('base64');
          break;
      }
      throw invalid(type, value, path);
    case 'sizedNumberType': {
      const number = sizedNumber(type, value, path);
      return Object.is(number, -0) ? 0 : number;
    }
    case 'publicKeyType':
      if (value instanceof PublicKey) return value.toJwk() as unknown as JsonValue;
      throw invalid(type, value, path);
    case 'arrayType': {
      if (!Array.isArray(value)) throw invalid(type, value, path);
      const out: JsonValue[] = [];
      const simple = simpleElement(type.element);
      for (let i = 0; i < value.length; i++) {
        const element = value[i];
        // Numbers (with -0 as 0) and strings inline, as in valueFromWire.
        if (simple === 'number' && typeof element === 'number' && Number.isFinite(element)) {
          out.push(element === 0 ? 0 : element);
          continue;
        }
        if (simple === 'string' && typeof element === 'string') {
          out.push(element);
          continue;
        }
        if (element === undefined || element === null) throw invalid(type.element, element, `${path}[${i}]`);
        out.push(valueToWire(type.element, element, `${path}[${i}]`, context));
      }
      return out;
    }
    case 'mapType': {
      if (!isRuntimeObject(value) || recordCollectionOf(value)) throw invalid(type, value, path);
      const out: { [key: string]: JsonValue } = {};
      for (const key of Object.keys(value)) {
        const entry = value[key];
        if (entry === undefined) continue;
        checkMapKey(type, key, path);
        if (entry === null) throw invalid(type.value, entry, join(path, key));
        setOwn(out, key, valueToWire(type.value, entry, join(path, key), context));
      }
      return out;
    }
    case 'objectType': {
      if (!isRuntimeObject(value)) throw invalid(type, value, path);
      return fieldsToWire(type.fields, value, path, context);
    }
    case 'referenceType':
      return referenceToWire(type, value, path, context);
    case 'recordType':
      throw invalid(type, value, path, 'a record is not a storable value');
  }
}

/** `object[key] = value`, also for the key `__proto__`, which an assignment would take as the object's prototype. */
function setOwn(object: { [key: string]: JsonValue }, key: string, value: JsonValue): void {
  if (key === '__proto__') Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  else object[key] = value;
}

export function fieldsToWire(fields: readonly FieldDeclaration[], value: RuntimeObject, path: string, context: ConversionContext): WireRecord {
  const out: WireRecord = {};
  for (const field of fields) {
    const name = field.name.name;
    const fieldPath = join(path, name);
    const entry = value[name];
    if (entry === undefined || (entry === null && field.optional)) {
      if (field.optional) continue;
      throw new ConversionError('missing', fieldPath, typeText(field.type), `missing field "${fieldPath}"`);
    }
    setOwn(out, name, valueToWire(field.type, entry, fieldPath, context));
  }
  return out;
}

function referenceToWire(type: Extract<TypeNode, { kind: 'referenceType' }>, value: unknown, path: string, context: ConversionContext): JsonValue {
  if (!isRuntimeObject(value)) throw invalid(type, value, path);
  const expected = type.collection.name;
  const recordCollection = recordCollectionOf(value);
  const collectionId = recordCollection ?? (value.collectionId === undefined ? context.collectionIdOf(expected) : value.collectionId);
  const id = value.id;
  if (typeof id !== 'string' || typeof collectionId !== 'string') throw invalid(type, value, path);
  if (collectionId !== '' && lastSegment(collectionId) !== expected) {
    throw invalid(type, value, path, `expected a reference to a record of "${expected}", got one of "${collectionId}"`);
  }
  return { collectionId, id };
}

/** A value without a declared type (a return value): JSON, keys as JWK, bytes as base64, records as references. */
export function genericToWire(value: unknown, ancestors: Set<unknown> = new Set()): JsonValue | undefined {
  if (value === undefined) return undefined;
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (value instanceof PublicKey) return value.toJwk() as unknown as JsonValue;
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.length).toString('base64');
  if (typeof value !== 'object' || value === null) return null;
  if (ancestors.has(value)) throw new ConversionError('invalid', '', 'JSON', 'the value contains itself (a cycle) and has no JSON form');
  if (ancestors.size >= 256) throw new ConversionError('invalid', '', 'JSON', 'the value nests more than 256 levels deep');
  ancestors.add(value);
  let out: JsonValue = null;
  if (Array.isArray(value)) out = value.map((element) => genericToWire(element, ancestors) ?? null);
  else if (isRuntimeObject(value)) {
    const object: { [key: string]: JsonValue } = {};
    for (const key of Object.keys(value)) {
      const entry = genericToWire(value[key], ancestors);
      if (entry !== undefined) setOwn(object, key, entry);
    }
    out = object;
  }
  ancestors.delete(value);
  return out;
}

/**
 * Whether `value`'s JSON text is longer than `limit` characters. The count is a lower bound (escapes and the
 * digits of numbers beyond the first are not counted) and stops as soon as it passes the limit, so a value that
 * holds one large string many times is measured without being serialised.
 */
export function jsonLongerThan(value: JsonValue | undefined, limit: number): boolean {
  return jsonSizeUpTo(value, 0, limit) > limit;
}

/**
 * `size` plus the JSON length of `value` (the lower bound above), or a partial sum once it passes `limit`. A
 * module-level function rather than a closure: it runs after every call, and tsx names each closure it creates.
 */
function jsonSizeUpTo(value: JsonValue | undefined, size: number, limit: number): number {
  if (typeof value === 'string') return size + value.length + 2;
  if (Array.isArray(value)) {
    size += 2 + value.length;
    for (let i = 0; i < value.length && size <= limit; i++) size = jsonSizeUpTo(value[i], size, limit);
    return size;
  }
  if (typeof value === 'object' && value !== null) {
    size += 2;
    for (const key of Object.keys(value)) {
      if (size > limit) break;
      size = jsonSizeUpTo(value[key], size + key.length + 4, limit);
    }
    return size;
  }
  return size + 1;
}

/** Deep equality of two wire values (key order does not matter). */
export function wireEquals(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => wireEquals(x, b[i]));
  }
  const keysA = Object.keys(a).filter((k) => a[k] !== undefined);
  const keysB = Object.keys(b).filter((k) => b[k] !== undefined);
  return keysA.length === keysB.length && keysA.every((k) => Object.hasOwn(b, k) && wireEquals(a[k], b[k]));
}
