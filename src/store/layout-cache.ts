// Each collection's layout as this store last read it, ready for use (CollectionIndexes), with the layout version
// it was read at when known. Shared by the store's reading, committing and defining parts.

import { decodeU64, encodeU64 } from './encoding.ts';
import { collectionNotFound } from './errors.ts';
import { CollectionIndexes } from './index-entries.ts';
import { layoutVersionKey } from './keys.ts';
import type { KvOp } from './kv.ts';
import { parseStoredLayout } from './record-value.ts';

/** Thrown by a commit's transaction when the layout changed since it was cached and was not read (see `committed`). */
export class StaleLayout extends Error {}

export class LayoutCache {
  /**
   * Each collection's layout as last read, with the layout version it was read at when known (read in the same
   * transaction, which committed: see `committed`).
   */
  readonly #layouts = new Map<string, { readonly bytes: Buffer; readonly indexes: CollectionIndexes; readonly version: number | undefined }>();

  /** The collection's layout ready for use, from its stored bytes (a version is cached with it only once known). */
  indexes(collectionId: string, bytes: Buffer): CollectionIndexes {
    const cached = this.#layouts.get(collectionId);
    if (cached?.bytes.equals(bytes)) return cached.indexes;
    const indexes = new CollectionIndexes(collectionId, parseStoredLayout(bytes));
    this.#layouts.set(collectionId, { bytes, indexes, version: undefined });
    return indexes;
  }

  /** Whether a layout version is cached for the collection (a commit then reads only the version, not the layout). */
  hasVersion(collectionId: string): boolean {
    return this.#layouts.get(collectionId)?.version !== undefined;
  }

  forget(collectionId: string): void {
    this.#layouts.delete(collectionId);
  }

  /**
   * Caches `version` as the one `indexes` (the collection's cached layout, if it still is) was read at, by a
   * commit that has committed. Not from inside its transaction: a SQLite group commit's transaction reads what
   * the earlier ones of its batch wrote, and when the batch's COMMIT fails, their timestamps are given out again,
   * one of them maybe to another layout's version.
   */
  committedAt(collectionId: string, indexes: CollectionIndexes, version: number): void {
    const cached = this.#layouts.get(collectionId);
    if (cached?.indexes === indexes && cached.version !== version) this.#layouts.set(collectionId, { ...cached, version });
  }

  /**
   * The layout a commit writes under, from what its transaction read: the collection's layout version and, when
   * `read`, its layout. Every write of a layout key writes the version key in the same transaction, so a version
   * equal to the one a cached layout was read at means the cached layout is current, and the layout row (which
   * overflows a B-tree page: about 1 KB for a 4-field schema) need not be read. A different version without the
   * layout read throws StaleLayout: the commit runs again reading it. The version read with the layout is cached
   * only once the commit has committed (`committedAt`). A layout without a version (a data folder written
   * before versions) gets one in this commit's writes (`versionPuts`); it is not cached as current until a later
   * commit reads it back, since this transaction may still fail and its timestamp be taken by another.
   */
  committed(collectionId: string, version: Buffer | undefined, bytes: Buffer | undefined, read: boolean, versionPuts: KvOp[], timestamp: number): CollectionIndexes {
    const versionNumber = version ? decodeU64(version) : undefined;
    const cached = this.#layouts.get(collectionId);
    if (versionNumber !== undefined && cached?.version === versionNumber) return cached.indexes;
    if (!read) throw new StaleLayout();
    if (!bytes) throw collectionNotFound(collectionId);
    if (versionNumber === undefined) versionPuts.push({ kind: 'put', key: layoutVersionKey(collectionId), value: encodeU64(timestamp) });
    return this.indexes(collectionId, bytes);
  }
}
