// The storage layout of a collection, derived from its schema: the type of every field path (for casting query
// values) and the set of indexes (docs/store.md, "Indexes and the planner").
//
// - One index per `@index(...)`, in source order; every index ends with `id asc` unless its last field is `id`.
// - An automatic `[field asc, id asc]` index for every top-level indexable field, unless a single-field index on
//   it was declared.
// - `[id]` itself is the primary index: the records' own keys, so it needs no entries.
// - An `@index` may name an array of indexable values (one entry per element, index-entries.ts); arrays get no
//   automatic index.
// - Indexes are tried shortest first.
// A layout is plain JSON: the store keeps it with the collection and compares it on schema updates.

import { createHash } from 'node:crypto';
import { typeText, type Collection, type FieldDeclaration, type TypeNode } from '../lang/index.ts';
import type { Direction } from './encoding.ts';
import type { IndexableType } from './cast.ts';
import { StoreError } from './errors.ts';
import { searchOf, type SearchDefinition } from './search-layout.ts';

export interface FieldInfo {
  /** The dotted path, `info.name`. */
  readonly path: string;
  /** The type as written in the schema (for messages). */
  readonly typeText: string;
  /** Null when the type cannot be indexed (arrays, maps, bytes, objects). */
  readonly indexable: IndexableType | null;
  /**
   * Present when the field may be absent: a field made required (or optional) is a change of the layout's
   * fields, which a schema update casts the stored records for (docs/service.md).
   */
  readonly optional?: true;
  /** For an array of indexable values: the element's type (an `@index` on it has one entry per element). */
  readonly element?: IndexableType;
}

export interface IndexField {
  readonly path: string;
  readonly direction: Direction;
  /** The element type when `array` is set. */
  readonly type: IndexableType;
  /** An array field: the index has one entry per distinct element (served by `$contains`). */
  readonly array?: true;
}

export interface IndexDefinition {
  /** 16 hex digits derived from the fields, directions and types: the index's name in keys and cursors. */
  readonly id: string;
  /** The fields in order, ending with `id` (the primary index is just `[id asc]`). */
  readonly fields: readonly IndexField[];
  /** The primary index is the record keys themselves. */
  readonly primary: boolean;
}

export interface Layout {
  readonly collection: string;
  readonly fields: Readonly<Record<string, FieldInfo>>;
  readonly indexes: readonly IndexDefinition[];
  /** The collection's full-text search index (`@search(...)`), when it declares one (search-layout.ts). */
  readonly search?: SearchDefinition;
}

const ID_FIELD: IndexField = { path: 'id', direction: 'asc', type: { kind: 'string' } };

export function layoutOf(collection: Collection): Layout {
  // A Map, not an object: a field may be called `__proto__`.
  const fields = new Map<string, FieldInfo>();
  const topLevel: FieldInfo[] = [];
  const walk = (declarations: readonly FieldDeclaration[], prefix: string): void => {
    for (const field of declarations) {
      const path = prefix + field.name.name;
      const element = field.type.kind === 'arrayType' ? indexableType(field.type.element) : null;
      const info: FieldInfo = {
        path,
        typeText: describeType(field.type, path),
        indexable: indexableType(field.type),
        ...(field.optional ? { optional: true as const } : {}),
        ...(element ? { element } : {}),
      };
      fields.set(path, info);
      if (prefix === '') topLevel.push(info);
      if (field.type.kind === 'objectType') walk(field.type.fields, `${path}.`);
    }
  };
  walk(
    collection.items.filter((item): item is FieldDeclaration => item.kind === 'field'),
    '',
  );
  if (!fields.has('id')) fields.set('id', { path: 'id', typeText: 'string', indexable: { kind: 'string' } });

  const declared: IndexField[][] = [];
  for (const item of collection.items) {
    if (item.kind !== 'index') continue;
    const indexFields = item.fields.map((field): IndexField => {
      const path = field.path.map((segment) => segment.name).join('.');
      const info = fields.get(path);
      if (!info) throw invalidSchema(`index field "${path}" not found in schema`);
      if (info.element) return { path, direction: field.direction, type: info.element, array: true };
      if (!info.indexable) throw invalidSchema(`cannot index field "${path}" of type ${info.typeText}`);
      return { path, direction: field.direction, type: info.indexable };
    });
    const arrays = indexFields.filter((f) => f.array);
    if (arrays.length > 1) throw invalidSchema(`an index may hold at most one array field, got ${arrays.map((f) => `"${f.path}"`).join(' and ')}`);
    if (indexFields.at(-1)?.path !== 'id') indexFields.push(ID_FIELD);
    declared.push(indexFields);
  }

  const singleFieldDeclared = new Set(declared.filter((f) => f.length === 2).map((f) => f[0]!.path));
  const automatic: IndexField[][] = topLevel
    .filter((info) => info.indexable && info.path !== 'id' && !singleFieldDeclared.has(info.path))
    .map((info) => [{ path: info.path, direction: 'asc', type: info.indexable! }, ID_FIELD]);

  const indexes: IndexDefinition[] = [{ id: indexId([ID_FIELD]), fields: [ID_FIELD], primary: true }];
  for (const indexFields of [...declared, ...automatic]) {
    // `[id asc]` and `[id desc]` are the primary index read in one direction or the other.
    if (indexFields.length === 1) continue;
    const id = indexId(indexFields);
    if (!indexes.some((index) => index.id === id)) indexes.push({ id, fields: indexFields, primary: false });
  }
  indexes.sort((a, b) => a.fields.length - b.fields.length); // stable: source order within a length
  const search = searchOf(collection, fields);
  return { collection: collection.name.name, fields: Object.fromEntries(fields), indexes, ...(search ? { search } : {}) };
}

function indexId(fields: readonly IndexField[]): string {
  // An array field's flag is hashed only when set, so the ids of every other index stay what they were.
  const text = JSON.stringify(fields.map((f) => (f.array ? [f.path, f.direction, f.type, 'array'] : [f.path, f.direction, f.type])));
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

function indexableType(type: TypeNode): IndexableType | null {
  switch (type.kind) {
    case 'primitiveType':
      return type.name === 'bytes' ? null : { kind: type.name };
    case 'sizedNumberType':
      return { kind: 'number' };
    case 'publicKeyType':
      return { kind: 'publicKey' };
    case 'referenceType':
      return { kind: 'reference', collection: type.collection.name };
    default:
      return null;
  }
}

/** Object types print with their full paths, as Polybase's messages do: `{ info.name: string; }`. */
function describeType(type: TypeNode, path: string): string {
  if (type.kind !== 'objectType') return typeText(type);
  const inner = type.fields.map((f) => `${path}.${f.name.name}${f.optional ? '?' : ''}: ${describeType(f.type, `${path}.${f.name.name}`)};`);
  return `{ ${inner.join(' ')} }`;
}

function invalidSchema(message: string): StoreError {
  return new StoreError('invalid-argument', 'collection/invalid-schema', message);
}

/** Reads a dotted path out of a record in its JSON wire form; undefined when any step is missing. */
export function valueAtPath(record: unknown, path: string): unknown {
  let value: unknown = record;
  for (const segment of path.split('.')) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
    value = Object.hasOwn(value, segment) ? (value as Record<string, unknown>)[segment] : undefined;
  }
  return value;
}
