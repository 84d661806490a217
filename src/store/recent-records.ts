// The records this store committed last, as it committed them: a bounded, least-recently-used map from a record
// to its JSON text, version and index entry keys. A write may start from one instead of reading the record again, but only with
// an expectation on that version in its commit: another process (or another store on the same database) may
// have changed the record since, and the commit's check under the commit lock is what tells. So an entry is a
// guess that is usually right, never a source of truth.

/** The size of what is kept at most: characters of record JSON plus bytes of index entry keys (about 4 MiB). */
export const RECENT_RECORDS_SIZE = 2 * 1024 * 1024;
/** A record larger than this (its JSON's characters, its entry keys' bytes) is not kept: it would push out hundreds. */
const MAX_RECENT_RECORD_SIZE = 16 * 1024;

export interface RecentRecord {
  readonly text: string;
  readonly version: number;
  /** Its index entry keys as committed, and the layout (the store's object for it) they were made under. */
  readonly entries?: { readonly indexes: object; readonly keys: readonly Buffer[] } | undefined;
}

export class RecentRecords {
  readonly #entries = new Map<string, RecentRecord & { readonly size: number }>();
  readonly #budget: number;
  #size = 0;

  constructor(budget = RECENT_RECORDS_SIZE) {
    this.#budget = budget;
  }

  get(collectionId: string, id: string): RecentRecord | undefined {
    return this.#entries.get(entryKey(collectionId, id));
  }

  /** The record as just committed at `version`; evicts the least recently committed while over budget. */
  committed(collectionId: string, id: string, text: string, version: number, entries?: RecentRecord['entries']): void {
    const key = entryKey(collectionId, id);
    // Commits may be reported out of order (PostgreSQL runs them on several connections): keep the newest.
    if ((this.#entries.get(key)?.version ?? -1) > version) return;
    this.#drop(key);
    let size = text.length;
    for (const entry of entries?.keys ?? []) size += entry.length;
    if (size > MAX_RECENT_RECORD_SIZE) return;
    this.#entries.set(key, { text, version, entries, size });
    this.#size += size;
    for (const [oldest, entry] of this.#entries) {
      if (this.#size <= this.#budget) break;
      this.#entries.delete(oldest);
      this.#size -= entry.size;
    }
  }

  /** The total size kept (characters of JSON plus bytes of keys). */
  get size(): number {
    return this.#size;
  }

  deleted(collectionId: string, id: string): void {
    this.#drop(entryKey(collectionId, id));
  }

  #drop(key: string): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    this.#entries.delete(key);
    this.#size -= entry.size;
  }
}

function entryKey(collectionId: string, id: string): string {
  // The collection id's length first: no two (collection, id) pairs give one key, whatever characters they hold.
  return `${collectionId.length}:${collectionId}\u0000${id}`;
}
