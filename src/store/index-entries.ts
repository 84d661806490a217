// A collection's layout as stored with it, ready for use: which indexes are being built (not yet usable by
// queries, but already maintained by every commit), each index's key prefix, and the index entries of a record.

import { encodeValue } from './encoding.ts';
import { recordKeyValue } from './cast.ts';
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
      keys.push(entryKey(secondary, record));
    }
    return keys;
  }

  /**
   * The key under which `index` holds the record: its record key for the primary index, else its entry's key.
   * A key is a function of the record alone, so it can be recomputed from the value stored under it.
   */
  keyOf(index: IndexDefinition, record: JsonObject): Buffer {
    if (index.primary) return recordKey(this.collectionId, String(record.id));
    return entryKey(this.#secondary.find((s) => s.index.id === index.id)!, record);
  }
}

function entryKey({ index, prefix, paths }: { index: IndexDefinition; prefix: Buffer; paths: string[][] }, record: JsonObject): Buffer {
  const parts: Buffer[] = [prefix];
  const last = index.fields.length - 1;
  for (let i = 0; i < last; i++) {
    const field = index.fields[i]!;
    parts.push(encodeValue(recordKeyValue(field.type, valueAt(record, paths[i]!)), field.direction));
  }
  // The trailing id is never truncated: it is what makes every key unique.
  parts.push(encodeValue({ kind: 'string', value: String(record.id) }, index.fields[last]!.direction, false));
  return Buffer.concat(parts);
}

function valueAt(record: JsonObject, path: readonly string[]): unknown {
  return path.length === 1 ? (Object.hasOwn(record, path[0]!) ? record[path[0]!] : undefined) : valueAtPath(record, path.join('.'));
}
