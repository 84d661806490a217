// A collection's layout as stored with it, ready for use: which indexes are being built (not yet usable by
// queries, but already maintained by every commit), each index's key prefix, and the index entries of a record.

import { encodeValue, inPlaceSize, writeValue, type KeyValue } from './encoding.ts';
import { recordKeyValue } from './cast.ts';
import { StoreError } from './errors.ts';
import { indexPrefix, recordKey, recordPrefix } from './keys.ts';
import { valueAtPath, type IndexDefinition, type Layout } from './layout.ts';

/** What the store keeps under a collection's layout key. */
export interface StoredLayout {
  readonly layout: Layout;
  /** Ids of indexes whose entries are still being written for existing records. */
  readonly building: readonly string[];
  /**
   * Present (true) while the records are being cast to a changed schema (`DefineOptions.conform`): the pass
   * resumes where it stopped when the collection is defined again.
   */
  readonly conforming?: true;
}

export type JsonObject = { [key: string]: unknown };

export class CollectionIndexes {
  readonly layout: Layout;
  readonly building: ReadonlySet<string>;
  /** The indexes queries may use (shortest first). */
  readonly usable: readonly IndexDefinition[];
  readonly #secondary: readonly Secondary[];
  readonly #recordPrefix: Buffer;

  constructor(readonly collectionId: string, stored: StoredLayout) {
    this.layout = stored.layout;
    this.building = new Set(stored.building);
    this.usable = stored.layout.indexes.filter((index) => !this.building.has(index.id));
    this.#secondary = stored.layout.indexes
      .filter((index) => !index.primary)
      .map((index) => ({
        index,
        prefix: indexPrefix(collectionId, index.id),
        paths: index.fields.map((f) => f.path.split('.')),
        arrayAt: index.fields.findIndex((f) => f.array),
      }));
    this.#recordPrefix = recordPrefix(collectionId);
  }

  prefixOf(index: IndexDefinition): Buffer {
    return index.primary ? this.#recordPrefix : this.#secondary.find((s) => s.index.id === index.id)!.prefix;
  }

  /** The keys of the record's entries in every secondary index (or only in the ones listed). */
  entriesOf(record: JsonObject, only?: ReadonlySet<string>): Buffer[] {
    const keys: Buffer[] = [];
    for (const secondary of this.#secondary) {
      if (only && !only.has(secondary.index.id)) continue;
      if (secondary.arrayAt === -1) keys.push(entryKey(secondary, record, undefined));
      else for (const key of entryKeys(secondary, record)) keys.push(key);
    }
    return keys;
  }

  /** The record's array fields that some index covers and that hold more than MAX_INDEXED_ARRAY_ELEMENTS values. */
  overfullArrayFields(record: JsonObject): OverfullArrayField[] {
    const found = new Map<string, number>();
    for (const secondary of this.#secondary) {
      const field = secondary.index.fields.find((f) => f.array);
      if (!field) continue;
      const values = distinctEntryKeys(secondary, record).length;
      if (values > MAX_INDEXED_ARRAY_ELEMENTS) found.set(field.path, Math.max(values, found.get(field.path) ?? 0));
    }
    return [...found].map(([path, values]) => ({ path, values }));
  }

  /**
   * The key under which `index` holds the record: its record key for the primary index, else its entry's key.
   * A key is a function of the record alone, so it can be recomputed from the value stored under it. (An index
   * with an array field holds a record under several keys; the planner never reads one through this.)
   */
  keyOf(index: IndexDefinition, record: JsonObject): Buffer {
    if (index.primary) return recordKey(this.collectionId, String(record.id));
    return entryKeys(this.#secondary.find((s) => s.index.id === index.id)!, record)[0]!;
  }
}

/**
 * The most distinct elements an indexed array field of one record may hold: each is an index entry holding a
 * copy of the record, so a write costs its size times this many.
 */
export const MAX_INDEXED_ARRAY_ELEMENTS = 100;

interface Secondary {
  readonly index: IndexDefinition;
  readonly prefix: Buffer;
  /** Each field's path, split at its dots. */
  readonly paths: readonly string[][];
  /** Which field is an array (one entry per element), or -1. */
  readonly arrayAt: number;
}

/** The record's keys in the index: one, or one per distinct element of its array field (none for an empty one). */
function entryKeys(secondary: Secondary, record: JsonObject): Buffer[] {
  const keys = distinctEntryKeys(secondary, record);
  if (keys.length > MAX_INDEXED_ARRAY_ELEMENTS) {
    const path = secondary.index.fields[secondary.arrayAt]!.path;
    throw new StoreError(
      'invalid-argument',
      'record/invalid-field',
      `record "${String(record.id)}" holds ${keys.length} distinct values in field "${path}", which an index covers; at most ${MAX_INDEXED_ARRAY_ELEMENTS} are allowed`,
    );
  }
  return keys;
}

/** The record's keys in the index, however many its array field gives. */
function distinctEntryKeys(secondary: Secondary, record: JsonObject): Buffer[] {
  if (secondary.arrayAt === -1) return [entryKey(secondary, record, undefined)];
  const array = valueAt(record, secondary.paths[secondary.arrayAt]!);
  if (!Array.isArray(array)) return [];
  const keys = new Map<string, Buffer>();
  for (const element of array) {
    const key = entryKey(secondary, record, element);
    keys.set(key.toString('latin1'), key);
  }
  return [...keys.values()];
}

/**
 * The record's key in the index (with `element` as the value of its array field, if it has one): the prefix, each
 * field's value, then the record id, never truncated (it is what makes every key unique). Written in place into
 * one Buffer when every component can be (encoding.ts), as almost every one can; else composed from encodeValue.
 */
function entryKey(secondary: Secondary, record: JsonObject, element: unknown): Buffer {
  const { index, prefix } = secondary;
  const fields = index.fields;
  const last = fields.length - 1;
  const values: KeyValue[] = [];
  let size = prefix.length;
  for (let i = 0; i < last; i++) {
    const value = recordKeyValue(fields[i]!.type, i === secondary.arrayAt ? element : valueAt(record, secondary.paths[i]!));
    values.push(value);
    const valueSize = inPlaceSize(value);
    size = valueSize < 0 || size < 0 ? -1 : size + valueSize;
  }
  const id: KeyValue = { kind: 'string', value: String(record.id) };
  const idSize = inPlaceSize(id, false);
  if (size < 0 || idSize < 0) return composedEntryKey(secondary, values, id);
  const out = Buffer.allocUnsafe(size + idSize);
  out.set(prefix, 0);
  let offset = prefix.length;
  for (let i = 0; i < last; i++) offset = writeValue(out, offset, values[i]!, fields[i]!.direction);
  writeValue(out, offset, id, fields[last]!.direction);
  return out;
}

/** The same key as entryKey, one component at a time: for the values that cannot be written in place. */
function composedEntryKey({ index, prefix }: Secondary, values: readonly KeyValue[], id: KeyValue): Buffer {
  const parts = [prefix];
  values.forEach((value, i) => parts.push(encodeValue(value, index.fields[i]!.direction)));
  parts.push(encodeValue(id, index.fields.at(-1)!.direction, false));
  return Buffer.concat(parts);
}

/** An indexed array field of a record that holds more distinct values than an index may hold for one record. */
export interface OverfullArrayField {
  readonly path: string;
  /** How many distinct values (as the index tells them apart) the record's array holds. */
  readonly values: number;
}

/**
 * A check of records against a layout's array indexes: the fields of a record that the layout's indexes could
 * not hold (writes refuse such a record, and an index build would stop at it). Lets a caller refuse a layout
 * change before it is stored rather than leave an index whose build cannot finish.
 */
export function overfullArrayFieldsCheck(collectionId: string, layout: Layout): (record: JsonObject) => OverfullArrayField[] {
  const indexes = new CollectionIndexes(collectionId, { layout, building: [] });
  return (record) => indexes.overfullArrayFields(record);
}

function valueAt(record: JsonObject, path: readonly string[]): unknown {
  return path.length === 1 ? (Object.hasOwn(record, path[0]!) ? record[path[0]!] : undefined) : valueAtPath(record, path.join('.'));
}
