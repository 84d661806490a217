// A collection's layout as stored with it, ready for use: which indexes are being built (not yet usable by
// queries, but already maintained by every commit), each index's key prefix, and the index entries of a record.

import { encodeValue } from './encoding.ts';
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
  readonly #secondary: readonly { index: IndexDefinition; prefix: Buffer; paths: string[][] }[];
  readonly #recordPrefix: Buffer;

  constructor(readonly collectionId: string, stored: StoredLayout) {
    this.layout = stored.layout;
    this.building = new Set(stored.building);
    this.usable = stored.layout.indexes.filter((index) => !this.building.has(index.id));
    this.#secondary = stored.layout.indexes
      .filter((index) => !index.primary)
      .map((index) => ({ index, prefix: indexPrefix(collectionId, index.id), paths: index.fields.map((f) => f.path.split('.')) }));
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
      for (const key of entryKeys(secondary, record)) keys.push(key);
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

type Secondary = { index: IndexDefinition; prefix: Buffer; paths: string[][] };

/** The record's keys in the index: one, or one per distinct element of its array field (none for an empty one). */
function entryKeys(secondary: Secondary, record: JsonObject): Buffer[] {
  const keys = distinctEntryKeys(secondary, record);
  if (keys.length > MAX_INDEXED_ARRAY_ELEMENTS) {
    const path = secondary.index.fields.find((field) => field.array)!.path;
    throw new StoreError(
      'invalid-argument',
      'record/invalid-field',
      `record "${String(record.id)}" holds ${keys.length} distinct values in field "${path}", which an index covers; at most ${MAX_INDEXED_ARRAY_ELEMENTS} are allowed`,
    );
  }
  return keys;
}

/** The record's keys in the index, however many its array field gives. */
function distinctEntryKeys({ index, prefix, paths }: Secondary, record: JsonObject): Buffer[] {
  const last = index.fields.length - 1;
  const arrayAt = index.fields.findIndex((field) => field.array);
  const components = (element?: unknown): Buffer => {
    const parts: Buffer[] = [prefix];
    for (let i = 0; i < last; i++) {
      const field = index.fields[i]!;
      const value = i === arrayAt ? element : valueAt(record, paths[i]!);
      parts.push(encodeValue(recordKeyValue(field.type, value), field.direction));
    }
    // The trailing id is never truncated: it is what makes every key unique.
    parts.push(encodeValue({ kind: 'string', value: String(record.id) }, index.fields[last]!.direction, false));
    return Buffer.concat(parts);
  };
  if (arrayAt === -1) return [components()];
  const array = valueAt(record, paths[arrayAt]!);
  if (!Array.isArray(array)) return [];
  const keys = new Map<string, Buffer>();
  for (const element of array) {
    const key = components(element);
    keys.set(key.toString('latin1'), key);
  }
  return [...keys.values()];
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
