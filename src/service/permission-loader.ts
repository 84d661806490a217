// The records one request's permission checks load through `@delegate` references. A list checks each record
// it scans, and records of one collection tend to delegate to the same few users, so what one check loaded is
// kept for the next (by collection id and record id). Every reference the checks of one request follow, kept or
// not, is also counted against a budget, which bounds the request's work: past it, a list treats what it would load as absent (the record is not readable through it), while a
// get or a call fails with 400 `permission/limit-exceeded`, so that no check is ever allowed for want of a load.
// A new loader per request (and per attempt of a write), so nothing is kept across requests. A write's loader also
// notes every record it reads, and its version, in the write's read set, which the commit then expects (read-set.ts).

import type { LoadedRecord, PermissionLoader, WireRecord } from '../runtime/index.ts';
import type { RecordStore } from '../store/index.ts';
import type { CollectionRegistry } from './collections.ts';
import { ServiceError } from './errors.ts';
import { isUnknownCollection, readInForm, type FormRead } from './read-in-form.ts';
import type { ReadSet } from './read-set.ts';

/** How many references the permission checks of one request may follow (each check follows at most 256). */
export const MAX_REQUEST_DELEGATE_LOADS = 10_000;

/** How many characters of records' JSON one request keeps for its permission checks; past it they are read again. */
export const MAX_REQUEST_LOADED_CHARS = 16 * 1024 * 1024;

export type OverBudget = 'absent' | 'fail';

export class RequestLoader {
  /** Made on the first load: most requests load nothing (a public collection's get or call). */
  #cache: Map<string, LoadedRecord | null> | undefined;
  #loads = 0;
  #cachedChars = 0;

  constructor(
    private readonly collections: CollectionRegistry,
    private readonly store: RecordStore,
    private readonly maxLoads: number,
    private readonly overBudget: OverBudget,
    private readonly reads?: ReadSet,
  ) {}

  readonly load: PermissionLoader = async (collectionId, id) => {
    // Every reference followed counts, loaded before or not: the budget bounds the walks' work, not only reads.
    if (this.#loads >= this.maxLoads) {
      if (this.overBudget === 'absent') return null;
      throw new ServiceError(
        'failed-precondition',
        'permission/limit-exceeded',
        `the permission check follows more than ${this.maxLoads} records through @delegate references (the limit of one request)`,
      );
    }
    this.#loads++;
    const key = `${collectionId}\u0000${id}`;
    const cached = this.#cache?.get(key);
    if (cached !== undefined) return cached;
    // In the form of the collection's schema, as a get would answer it (a cast pass may not have reached it yet).
    let read: FormRead;
    try {
      read = await readInForm(this.collections, this.store, collectionId, id);
    } catch (error) {
      // A collection that does not exist has no records to note: whether it exists is the meta collection's, whose
      // stamp a write's commit expects.
      if (isUnknownCollection(error)) return this.#keep(key, null, 0);
      throw error;
    }
    const { collection, text, version } = read;
    this.reads?.saw(collectionId, id, version);
    if (text === null) return this.#keep(key, null, 0);
    const record = JSON.parse(text) as WireRecord;
    return this.#keep(key, { collection: collection.kind === 'user' ? collection.compiled : collection.node, record }, text.length);
  };

  #keep(key: string, loaded: LoadedRecord | null, chars: number): LoadedRecord | null {
    if (this.#cachedChars + chars <= MAX_REQUEST_LOADED_CHARS) {
      (this.#cache ??= new Map()).set(key, loaded);
      this.#cachedChars += chars;
    }
    return loaded;
  }
}
