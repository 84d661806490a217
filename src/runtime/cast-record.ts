// A stored record cast to its collection's current schema, as Polybase 0.6 re-cast every record when a schema
// changed (docs/service.md, "Schema updates and stored records"): a missing required field gets its type's
// default ('' / 0 / false / empty bytes / [] / {} / an object of defaults / the empty reference
// `{collectionId: '', id: ''}`), a field the schema no longer declares is dropped, and a value of a field whose
// type changed is cast where a cast is defined: a number or boolean to its text, a text of a finite decimal number to
// that number, "true"/"false" to a boolean; element by element inside arrays, maps and objects. Unlike
// Polybase, a value that cannot be cast is not replaced by a default: the cast fails and says where, so the
// service can refuse the update (and count the records it would break) instead of losing data. PublicKey has
// no default (Polybase used an arbitrary fixed point), so a new required PublicKey field fails too.

import type { FieldDeclaration, TypeNode } from '../lang/index.ts';
import type { CompiledCollection } from './collection.ts';
import { ConversionError, fieldsFromWire, fieldsToWire, type WireRecord } from './wire.ts';

export type CastResult =
  | { readonly ok: true; readonly record: WireRecord; /** False when the record already had this exact form. */ readonly changed: boolean }
  | { readonly ok: false; /** The field (`a.b`, `list[2]`) whose value cannot be cast or filled in. */ readonly path: string; readonly message: string };

export function castStoredRecord(collection: CompiledCollection, record: { readonly [key: string]: unknown }): CastResult {
  try {
    const prepared = castFields(collection.fields, record);
    const runtime = fieldsFromWire(collection.fields, prepared, '', collection.storedConversion);
    const cast = fieldsToWire(collection.fields, runtime, '', collection.storedConversion);
    return { ok: true, record: cast, changed: JSON.stringify(cast) !== JSON.stringify(record) };
  } catch (error) {
    if (!(error instanceof ConversionError)) throw error;
    const message =
      error.kind === 'missing'
        ? `required field "${error.path}" is missing and type ${error.expected} has no default`
        : `field "${error.path}": ${error.detail}`;
    return { ok: false, path: error.path, message };
  }
}

/** The object's declared fields with their values cast (see castValue); null counts as missing. */
function castFields(fields: readonly FieldDeclaration[], value: { readonly [key: string]: unknown }): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of fields) {
    const name = field.name.name;
    const raw = Object.hasOwn(value, name) ? value[name] : undefined;
    if (raw === undefined || raw === null) continue;
    Object.defineProperty(out, name, { value: castValue(field.type, raw), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

// A decimal number (Polybase parsed one with Rust's f64 parse; surrounding spaces are forgiven here): `Number()`
// alone would also read `0x10`, `0b11` and `0o7`, turning a stored text such as a hex id into an unrelated
// number without a word.
const DECIMAL_NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** The value cast towards the type where a cast is defined; anything else unchanged (the wire check judges it). */
function castValue(type: TypeNode, value: unknown): unknown {
  switch (type.kind) {
    case 'primitiveType':
      if (type.name === 'string' && ((typeof value === 'number' && Number.isFinite(value)) || typeof value === 'boolean')) return String(value);
      if (type.name === 'number' && typeof value === 'string' && DECIMAL_NUMBER.test(value.trim()) && Number.isFinite(Number(value))) return Number(value);
      if (type.name === 'boolean' && (value === 'true' || value === 'false')) return value === 'true';
      return value;
    case 'sizedNumberType':
      return typeof value === 'string' && DECIMAL_NUMBER.test(value.trim()) && Number.isFinite(Number(value)) ? Number(value) : value;
    case 'arrayType':
      return Array.isArray(value) ? value.map((element) => (element === null ? element : castValue(type.element, element))) : value;
    case 'mapType':
      if (!isPlainObject(value)) return value;
      return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, entry === null ? entry : castValue(type.value, entry)]));
    case 'objectType':
      return isPlainObject(value) ? castFields(type.fields, value) : value;
    default:
      return value;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
