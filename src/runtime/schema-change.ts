// What a schema change does to one stored record, and whether any value is lost on the way. The record is cast
// to the new schema as castStoredRecord does; a value that cannot be cast at all is dropped (its field takes its
// type's default when it is required), and the result is compared with the old record field by field: a value is
// kept only when the old one can be read back from the new one exactly (number ↔ text only where it round-trips,
// an object only while every field holding a value is still there, a reference never turned into anything
// else). The plan (src/service/schema-plan.ts) counts these outcomes over every stored record; nothing here
// writes.

import { typeText, type FieldDeclaration, type TypeNode } from '../lang/index.ts';
import { castStoredRecord } from './cast-record.ts';
import type { CompiledCollection } from './collection.ts';
import type { JsonValue, WireRecord } from './wire.ts';

/** A top-level field whose declaration differs between the two schemas. */
export interface FieldChange {
  readonly field: string;
  readonly change: 'added' | 'removed' | 'retyped';
  /** The old declaration's type (`string`, `number?`, `{ a: string; }`), absent for an added field. */
  readonly from?: string;
  /** The new declaration's type, absent for a removed field. */
  readonly to?: string;
}

/** The fields of two schemas, compared: what changed, and each old field's type (to judge a value's loss). */
export class SchemaChange {
  readonly changes: readonly FieldChange[];
  readonly #oldTypes: ReadonlyMap<string, TypeNode>;
  readonly #newTypes: ReadonlyMap<string, TypeNode>;

  constructor(oldFields: readonly FieldDeclaration[], newFields: readonly FieldDeclaration[]) {
    const declared = (field: FieldDeclaration) => `${typeText(field.type)}${field.optional ? '?' : ''}`;
    const olds = new Map(oldFields.map((f) => [f.name.name, f]));
    const news = new Map(newFields.map((f) => [f.name.name, f]));
    const changes: FieldChange[] = [];
    for (const [name, field] of olds) {
      const next = news.get(name);
      if (!next) changes.push({ field: name, change: 'removed', from: declared(field) });
      else if (declared(next) !== declared(field)) changes.push({ field: name, change: 'retyped', from: declared(field), to: declared(next) });
    }
    for (const [name, field] of news) if (!olds.has(name)) changes.push({ field: name, change: 'added', to: declared(field) });
    this.changes = changes;
    this.#oldTypes = new Map([...olds].map(([name, f]) => [name, f.type]));
    this.#newTypes = new Map([...news].map(([name, f]) => [name, f.type]));
  }

  /** The first place (`x`, `x.name`, `list[2]`) where the old value is not kept by the new one, with the value lost there; null when it is kept. */
  lostAt(field: string, oldValue: unknown, newValue: unknown): LostValue | null {
    return lostAt(oldValue, newValue, this.#oldTypes.get(field), this.#newTypes.get(field), field);
  }
}

/** A value the change loses: where, and what it was. */
export interface LostValue {
  readonly path: string;
  readonly value: JsonValue;
}

export type RecordFollow =
  | {
      readonly ok: true;
      /** The record under the new schema. */
      readonly record: WireRecord;
      /** False when the record already had this exact form. */
      readonly changed: boolean;
      /** The top-level fields whose value is lost (dropped, or cast to a form it cannot be read back from). */
      readonly lost: ReadonlyMap<string, LostValue>;
      /** The top-level fields whose value changed form without loss. */
      readonly cast: readonly string[];
    }
  | { readonly ok: false; /** The field that cannot be filled in. */ readonly path: string; readonly message: string };

/**
 * The record as the new schema has it, with what it loses. Fails only when the record cannot follow even by losing
 * values: a new required field with no default (PublicKey).
 */
export function followRecord(change: SchemaChange, collection: CompiledCollection, record: { readonly [key: string]: unknown }): RecordFollow {
  const cast = castDropping(collection, record);
  return cast.ok ? compare(change, record, cast.record, cast.dropped) : cast;
}

/**
 * The record cast to the collection's schema as castStoredRecord casts it, except that a value that cannot be cast
 * is dropped (its field then takes its type's default when it is required) rather than failing the cast. Fails
 * only when a required field is missing and has no default. `dropped`: each field dropped, with its old value.
 */
export function castDropping(
  collection: CompiledCollection,
  record: { readonly [key: string]: unknown },
): { ok: true; record: WireRecord; changed: boolean; dropped: ReadonlyMap<string, LostValue> } | { ok: false; path: string; message: string } {
  const working: Record<string, unknown> = { ...record };
  const dropped = new Map<string, LostValue>();
  for (;;) {
    const cast = castStoredRecord(collection, working);
    if (cast.ok) return { ok: true, record: cast.record, changed: cast.changed || dropped.size > 0, dropped };
    const field = topField(cast.path);
    const value = working[field];
    // Nothing left to drop: the field is missing and cannot be filled in.
    if (value === undefined || value === null || field === 'id') return cast;
    dropped.set(field, { path: cast.path, value: valueAt(record, cast.path) ?? (record[field] as JsonValue) });
    delete working[field];
  }
}

/**
 * What a migration (migrate-record.ts) did to one record, as followRecord says it for a cast: `migrated` is its
 * result. The fields the migration reads (`reads`) are its to keep, so their values are never counted as lost; any
 * other field's value is judged as a cast's would be (a value the migration overwrote or dropped is lost).
 */
export function followMigrated(change: SchemaChange, record: { readonly [key: string]: unknown }, migrated: WireRecord, reads: ReadonlySet<string>): RecordFollow & { ok: true } {
  return compare(change, record, migrated, new Map(), reads);
}

function compare(
  change: SchemaChange,
  record: { readonly [key: string]: unknown },
  next: WireRecord,
  dropped: ReadonlyMap<string, LostValue>,
  reads: ReadonlySet<string> = new Set(),
): RecordFollow & { ok: true } {
  const lost = new Map(dropped);
  const cast: string[] = [];
  for (const field of Object.keys(record)) {
    const value = record[field];
    if (value === undefined || value === null || lost.has(field) || reads.has(field)) continue;
    const at = change.lostAt(field, value, next[field]);
    if (at !== null) lost.set(field, at);
    else if (JSON.stringify(value) !== JSON.stringify(next[field])) cast.push(field);
  }
  return { ok: true, record: next, changed: JSON.stringify(next) !== JSON.stringify(record), lost, cast };
}

/** The value at a path such as `a.b[2].c`; undefined when the path does not lead to one (a map key with a dot). */
function valueAt(record: { readonly [key: string]: unknown }, path: string): JsonValue | undefined {
  let value: unknown = record;
  for (const [, name, index] of path.matchAll(/\.?([^.[\]]+)|\[(\d+)\]/g)) {
    if (typeof value !== 'object' || value === null) return undefined;
    const key = index ?? name!;
    if (!Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value as JsonValue;
}

/** `a` of `a.b`, `a[2]`, `a`. */
function topField(path: string): string {
  const end = path.search(/[.[]/);
  return end === -1 ? path : path.slice(0, end);
}

function lostAt(oldValue: unknown, newValue: unknown, oldType: TypeNode | undefined, newType: TypeNode | undefined, path: string): LostValue | null {
  if (oldValue === undefined || oldValue === null) return null;
  const lost: LostValue = { path, value: oldValue as JsonValue };
  // A reference's meaning (which record it points to, which permissions follow it) is gone once it is anything else.
  if (oldType?.kind === 'referenceType' && newType?.kind !== 'referenceType') return lost;
  if (newValue === undefined || newValue === null) return lost;
  switch (typeof oldValue) {
    case 'string':
    case 'number':
    case 'boolean':
      // Text and numbers and booleans: the old value must be what the new one reads back as.
      if (typeof newValue === typeof oldValue) return newValue === oldValue ? null : lost;
      if (typeof newValue === 'string') return String(oldValue) === newValue ? null : lost;
      if (typeof newValue === 'number' || typeof newValue === 'boolean') return String(newValue) === oldValue ? null : lost;
      return lost;
    case 'object': {
      if (Array.isArray(oldValue)) {
        if (!Array.isArray(newValue) || newValue.length !== oldValue.length) return lost;
        const oldElement = oldType?.kind === 'arrayType' ? oldType.element : undefined;
        const newElement = newType?.kind === 'arrayType' ? newType.element : undefined;
        for (let i = 0; i < oldValue.length; i++) {
          const at = lostAt(oldValue[i], newValue[i], oldElement, newElement, `${path}[${i}]`);
          if (at !== null) return at;
        }
        return null;
      }
      if (typeof newValue !== 'object' || Array.isArray(newValue)) return lost;
      for (const [key, value] of Object.entries(oldValue as Record<string, unknown>)) {
        const at = lostAt(value, (newValue as Record<string, unknown>)[key], member(oldType, key), member(newType, key), `${path}.${key}`);
        if (at !== null) return at;
      }
      return null;
    }
    default:
      return lost;
  }
}

/** The type of an object's field or a map's entry. */
function member(type: TypeNode | undefined, key: string): TypeNode | undefined {
  if (type?.kind === 'objectType') return type.fields.find((f) => f.name.name === key)?.type;
  if (type?.kind === 'mapType') return type.value;
  return undefined;
}
