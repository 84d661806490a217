// Semantic types: what the checker computes for fields, parameters and expressions, and what the
// built-ins catalogue uses for signatures. Unlike `TypeNode` (ast.ts) these carry no spans and are
// compared structurally.
//
// Two kinds stand for collections:
//   - `reference`: a stored reference to a record of a collection, `{ collectionId, id }` — what a
//     field typed `User` or `User[]` holds;
//   - `record`: a whole record of a collection (typed by its fields) — `this`, a `record` parameter,
//     or a parameter typed with a collection name (Polybase fetched the referenced record for it).

import { SIZED_NUMBER_RANGES } from './sized-numbers.ts';
import { SIZED_NUMBER_NAMES, type SizedNumberName } from './words.ts';

export type Type =
  | PrimitiveType
  | PublicKeyType
  | ArrayType
  | MapType
  | ObjectType
  | ReferenceType
  | RecordType
  | NullType
  | UndefinedType
  | VoidType
  | NeverType
  | AnyType
  | TypeParameter
  | NamespaceType;

export interface PrimitiveType {
  kind: 'string' | 'number' | 'boolean' | 'bytes';
  /** Only on numbers: the sized type (`u32` …) whose range the value must stay in; none for `number`. */
  size?: SizedNumberName;
}

export interface PublicKeyType {
  kind: 'publicKey';
}

export interface ArrayType {
  kind: 'array';
  element: Type;
}

export interface MapType {
  kind: 'map';
  key: Type;
  value: Type;
}

export interface ObjectField {
  name: string;
  optional: boolean;
  type: Type;
}

export interface ObjectType {
  kind: 'object';
  fields: ObjectField[];
}

export interface ReferenceType {
  kind: 'reference';
  collection: string;
}

export interface RecordType {
  kind: 'record';
  collection: string;
}

/** The `null` literal. */
export interface NullType {
  kind: 'null';
}

/** The `undefined` identifier. */
export interface UndefinedType {
  kind: 'undefined';
}

/** The result of a function that returns nothing. */
export interface VoidType {
  kind: 'void';
}

/** The result of a call that never returns (`error(...)`). */
export interface NeverType {
  kind: 'never';
}

/** Anything: accepted everywhere. Used for values the checker cannot know (records of collections
 *  declared elsewhere, `let x = null`) and after an error, so that one mistake is reported once. */
export interface AnyType {
  kind: 'any';
}

/** A placeholder in a built-in signature: `T` (array element), `K` / `V` (map key / value). */
export interface TypeParameter {
  kind: 'typeParameter';
  name: string;
}

/** A built-in namespace used as a value: `Math`, `Object`, `Number`, `ctx` / `$auth`. */
export interface NamespaceType {
  kind: 'namespace';
  name: string;
}

// ---------------------------------------------------------------------------------------------
// Constructors

export const stringType: PrimitiveType = { kind: 'string' };
export const numberType: PrimitiveType = { kind: 'number' };
export const booleanType: PrimitiveType = { kind: 'boolean' };
export const bytesType: PrimitiveType = { kind: 'bytes' };
export const publicKeyType: PublicKeyType = { kind: 'publicKey' };
export const nullType: NullType = { kind: 'null' };
export const undefinedType: UndefinedType = { kind: 'undefined' };
export const voidType: VoidType = { kind: 'void' };
export const neverType: NeverType = { kind: 'never' };
export const anyType: AnyType = { kind: 'any' };

/** A number of a sized type: a `number` whose value must stay in the type's range (sized-numbers.ts). */
export function sizedNumber(size: SizedNumberName): PrimitiveType {
  return sizedNumberTypes[size];
}

const sizedNumberTypes = Object.fromEntries(SIZED_NUMBER_NAMES.map((size) => [size, { kind: 'number', size }])) as Record<
  SizedNumberName,
  PrimitiveType
>;

export function arrayOf(element: Type): ArrayType {
  return { kind: 'array', element };
}

export function mapOf(key: Type, value: Type): MapType {
  return { kind: 'map', key, value };
}

export function objectOf(fields: ObjectField[]): ObjectType {
  return { kind: 'object', fields };
}

export function referenceTo(collection: string): ReferenceType {
  return { kind: 'reference', collection };
}

export function recordOf(collection: string): RecordType {
  return { kind: 'record', collection };
}

export function typeParameter(name: string): TypeParameter {
  return { kind: 'typeParameter', name };
}

export function namespaceType(name: string): NamespaceType {
  return { kind: 'namespace', name };
}

// ---------------------------------------------------------------------------------------------
// Display

/** The type as a person writes it: `string[]`, `map<string, number>`, `{ a: string; b?: number; }`. */
export function typeToString(type: Type): string {
  switch (type.kind) {
    case 'number':
      return type.size ?? 'number';
    case 'string':
    case 'boolean':
    case 'bytes':
    case 'null':
    case 'undefined':
    case 'void':
    case 'never':
    case 'any':
      return type.kind;
    case 'publicKey':
      return 'PublicKey';
    case 'array':
      return `${typeToString(type.element)}[]`;
    case 'map':
      return `map<${typeToString(type.key)}, ${typeToString(type.value)}>`;
    case 'object':
      if (type.fields.length === 0) return '{}';
      return `{ ${type.fields.map((f) => `${f.name}${f.optional ? '?' : ''}: ${typeToString(f.type)};`).join(' ')} }`;
    case 'reference':
    case 'record':
      return type.collection;
    case 'typeParameter':
      return type.name;
    case 'namespace':
      return `typeof ${type.name}`;
  }
}

// ---------------------------------------------------------------------------------------------
// Relations

export function typesEqual(a: Type, b: Type): boolean {
  if (a.kind !== b.kind) return false;
  switch (a.kind) {
    case 'number':
      return (a as PrimitiveType).size === (b as PrimitiveType).size;
    case 'array':
      return typesEqual(a.element, (b as ArrayType).element);
    case 'map':
      return typesEqual(a.key, (b as MapType).key) && typesEqual(a.value, (b as MapType).value);
    case 'object': {
      const other = b as ObjectType;
      if (a.fields.length !== other.fields.length) return false;
      return a.fields.every((field) => {
        const match = objectField(other, field.name);
        return match !== undefined && match.optional === field.optional && typesEqual(field.type, match.type);
      });
    }
    case 'reference':
    case 'record':
      return a.collection === (b as ReferenceType | RecordType).collection;
    case 'typeParameter':
    case 'namespace':
      return a.name === (b as TypeParameter | NamespaceType).name;
    default:
      return true;
  }
}

const fieldIndexes = new WeakMap<ObjectType, Map<string, ObjectField>>();

/** Object types with at most this many fields are searched in order: faster than a lookup, and no entry in a weak map
 *  (whose entries of short-lived keys are costly to collect). */
const SCANNED_FIELDS = 16;

/** The field `name` of an object type (indexed once per type, so large object types stay fast). */
export function objectField(type: ObjectType, name: string): ObjectField | undefined {
  if (type.fields.length <= SCANNED_FIELDS) {
    for (const field of type.fields) if (field.name === name) return field;
    return undefined;
  }
  let index = fieldIndexes.get(type);
  if (!index) {
    index = new Map();
    for (const field of type.fields) if (!index.has(field.name)) index.set(field.name, field);
    fieldIndexes.set(type, index);
  }
  return index.get(name);
}

export function isNullish(type: Type): boolean {
  return type.kind === 'null' || type.kind === 'undefined';
}

/** Types the permission model can match a caller's key against (Polybase `is_authenticable`). */
export function isAuthenticable(type: Type): boolean {
  if (type.kind === 'publicKey' || type.kind === 'reference') return true;
  if (type.kind === 'array') return type.element.kind === 'publicKey' || type.element.kind === 'reference';
  return false;
}

/** Types an index (and a where/sort) can use. */
export function isIndexable(type: Type): boolean {
  return (
    type.kind === 'string' ||
    type.kind === 'number' ||
    type.kind === 'boolean' ||
    type.kind === 'publicKey' ||
    type.kind === 'reference'
  );
}

/**
 * Whether a value of type `source` may be stored where `target` is expected. No coercions: a
 * number is not a string. `null`/`undefined` are never assignable here; whether a place may hold
 * them (an optional field, an optional parameter, a variable) is the caller's decision.
 */
export function isAssignable(source: Type, target: Type): boolean {
  if (source.kind === 'any' || target.kind === 'any' || source.kind === 'never') return true;
  switch (target.kind) {
    case 'array':
      return source.kind === 'array' && isAssignable(source.element, target.element);
    case 'map':
      if (source.kind === 'map') return isAssignable(source.key, target.key) && isAssignable(source.value, target.value);
      // An object value (`{ a: 1 }`) is a map with those keys.
      if (source.kind === 'object') {
        return target.key.kind !== 'number' && source.fields.every((f) => isAssignable(f.type, target.value));
      }
      return false;
    case 'object':
      if (source.kind === 'object') {
        return (
          target.fields.every((tf) => {
            const sf = objectField(source, tf.name);
            if (!sf) return tf.optional;
            return (!sf.optional || tf.optional) && isAssignable(sf.type, tf.type);
          }) && source.fields.every((sf) => objectField(target, sf.name) !== undefined)
        );
      }
      // A map does not fit an object type, even one with only optional fields: its other keys
      // would be dropped silently (Polybase did exactly that).
      return false;
    case 'reference':
      // Storing a record stores a reference to it.
      return (source.kind === 'reference' || source.kind === 'record') && source.collection === target.collection;
    case 'record':
      return source.kind === 'record' && source.collection === target.collection;
    case 'number':
      return source.kind === 'number' && numberFits(source.size, target.size);
    default:
      return typesEqual(source, target);
  }
}

/**
 * Whether a number of one (sized) type may be stored as another without a check that can fail: every
 * number fits `number`; a plain `number` may be stored in a sized type, and is checked against its range
 * when it leaves the call (a literal is checked by the checker); a sized type fits another whose range
 * holds it (u32 in i64, i32 in f64), not one that could not hold all of its values.
 */
export function numberFits(source: SizedNumberName | undefined, target: SizedNumberName | undefined): boolean {
  if (target === undefined || source === undefined || source === target) return true;
  const from = SIZED_NUMBER_RANGES[source];
  const to = SIZED_NUMBER_RANGES[target];
  return from.min >= to.min && from.max <= to.max && (from.integer || !to.integer);
}

/** Replace type parameters (`T`, `K`, `V`) by their bindings; unbound ones become `any`. */
export function instantiate(type: Type, bindings: ReadonlyMap<string, Type>): Type {
  switch (type.kind) {
    case 'typeParameter':
      return bindings.get(type.name) ?? anyType;
    case 'array':
      return arrayOf(instantiate(type.element, bindings));
    case 'map':
      return mapOf(instantiate(type.key, bindings), instantiate(type.value, bindings));
    case 'object':
      return objectOf(type.fields.map((f) => ({ ...f, type: instantiate(f.type, bindings) })));
    default:
      return type;
  }
}

/**
 * Bind the type parameters of `pattern` by matching it against `actual` (first binding wins).
 * Used for built-ins whose parameters are generic, e.g. `Object.values(m: map<K, V>): V[]`.
 */
export function bindTypeParameters(pattern: Type, actual: Type, bindings: Map<string, Type>): void {
  if (pattern.kind === 'typeParameter') {
    if (!bindings.has(pattern.name) && !isNullish(actual)) bindings.set(pattern.name, actual);
    return;
  }
  if (pattern.kind === 'array' && actual.kind === 'array') bindTypeParameters(pattern.element, actual.element, bindings);
  if (pattern.kind === 'map' && actual.kind === 'map') {
    bindTypeParameters(pattern.key, actual.key, bindings);
    bindTypeParameters(pattern.value, actual.value, bindings);
  }
}
