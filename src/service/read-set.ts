// What one attempt of a write (a call or a create) read: every record, with the version it was read at, or
// null when it was looked for and found missing. The records read for permission (the @delegate walks) and the
// record arguments decide whether the write is allowed and what it writes, so its commit expects each of them
// still as read, atomically with the write (RecordStore.commit's expectations): a delegation revoked, or a record
// argument changed, between the read and the commit makes the commit conflict, and the write runs again on fresh
// reads. Without this, a call could commit under a permission already withdrawn, and two calls that each read the
// other's record and wrote their own could both commit on stale reads (write skew).
//
// A write that reads no record but its own adds nothing to its commit. Which collections exist (and their schemas)
// is the meta collection's, whose stamp the commit expects already.

import { ConflictError, type Expectation } from '../store/index.ts';

export class ReadSet {
  /** Made on the first read: most writes read nothing besides what they write. */
  #reads: Map<string, Expectation> | undefined;

  /**
   * The record was read at `version` (null: found missing). A second read of it at another version (a record
   * read again after the request's loader stopped keeping it) means the attempt's reads are not one state: it
   * conflicts at once, and runs again.
   */
  saw(collectionId: string, id: string, version: number | null): void {
    const key = readKey(collectionId, id);
    const earlier = this.#reads?.get(key);
    if (earlier === undefined) {
      (this.#reads ??= new Map()).set(key, { collectionId, id, version });
      return;
    }
    if (earlier.version !== version) {
      throw new ConflictError(
        `record "${id}" in collection "${collectionId}" changed while the write was reading it (read at version ${earlier.version}, then ${version})`,
        collectionId,
        id,
      );
    }
  }

  /** The version the record was read at: undefined when it was not read, null when it was found missing. */
  versionOf(collectionId: string, id: string): number | null | undefined {
    return this.#reads?.get(readKey(collectionId, id))?.version;
  }

  /** How many records were read. */
  get size(): number {
    return this.#reads?.size ?? 0;
  }

  /**
   * The expectations of the records read that `written` does not already hold (a record written is expected at
   * the version its write started from; expecting it twice would add nothing).
   */
  expectationsBesides(written: readonly Expectation[]): Expectation[] {
    if (this.#reads === undefined) return [];
    const covered = new Set(written.map((e) => readKey(e.collectionId, e.id)));
    const expectations: Expectation[] = [];
    for (const [key, read] of this.#reads) if (!covered.has(key)) expectations.push(read);
    return expectations;
  }
}

function readKey(collectionId: string, id: string): string {
  // The collection id's length first: no two (collection, id) pairs give one key, whatever characters they hold.
  return `${collectionId.length}:${collectionId}\u0000${id}`;
}
