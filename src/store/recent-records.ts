// The records this store updated last, as it committed them: a bounded, least-recently-used map from a record
// to its JSON text, version and index entry keys. A write may start from one instead of reading the record again, but only with
// an expectation on that version in its commit: another process (or another store on the same database) may
// have changed the record since, and the commit's check under the commit lock is what tells. So an entry is a
// guess that is usually right, never a source of truth.

/** The characters kept at most, keys and each entry's overhead included (about 4 MiB of UTF-16 strings). */
export const RECENT_RECORDS_CHARS = 2 * 1024 * 1024;
/**
 * What an entry costs beyond its text and key, in characters (the map's slot and the entry object, about 100
 * bytes). Counted with the key: records of a dozen characters under a 256-byte collection id would otherwise
 * hold some 40 times the budget.
 */
export const RECENT_ENTRY_OVERHEAD_CHARS = 48;
/** What each kept index entry key costs beyond its characters (a string's header). */
export const RECENT_KEY_OVERHEAD_CHARS = 8;
/** A record longer than this (its text and entry keys) is not kept: one large record would push out hundreds of small ones. */
const MAX_RECENT_RECORD_CHARS = 16 * 1024;

export interface RecentRecord {
  readonly text: string;
  readonly version: number;
  /**
   * The record's index entry keys as committed (latin1 strings: a Buffer kept here would be a slice that holds a
   * whole 8 KiB pool chunk alive), and the layout they follow (the store's object for it), when known.
   */
  readonly entries: RecentEntries | undefined;
}

export interface RecentEntries {
  readonly layout: object;
  readonly keys: readonly string[];
}

interface Entry extends RecentRecord {
  /** What the entry counts against the budget: its text, its key and RECENT_ENTRY_OVERHEAD_CHARS. */
  readonly cost: number;
}

export class RecentRecords {
  readonly #entries = new Map<string, Entry>();
  readonly #budget: number;
  #chars = 0;

  constructor(budget = RECENT_RECORDS_CHARS) {
    this.#budget = budget;
  }

  get(collectionId: string, id: string): RecentRecord | undefined {
    return this.#entries.get(entryKey(collectionId, id));
  }

  /** The record as just committed at `version`; evicts the least recently committed while over budget. */
  committed(collectionId: string, id: string, text: string, version: number, entries?: RecentEntries): void {
    const key = entryKey(collectionId, id);
    // Commits may be reported out of order (PostgreSQL runs them on several connections): keep the newest.
    if ((this.#entries.get(key)?.version ?? -1) > version) return;
    this.#drop(key);
    let entryChars = 0;
    for (const entryKey of entries?.keys ?? []) entryChars += entryKey.length + RECENT_KEY_OVERHEAD_CHARS;
    if (text.length + entryChars > MAX_RECENT_RECORD_CHARS) return;
    const cost = text.length + entryChars + key.length + RECENT_ENTRY_OVERHEAD_CHARS;
    this.#entries.set(key, { text, version, entries, cost });
    this.#chars += cost;
    for (const [oldest, entry] of this.#entries) {
      if (this.#chars <= this.#budget) break;
      this.#entries.delete(oldest);
      this.#chars -= entry.cost;
    }
  }

  /** The characters counted against the budget: the texts and keys kept, and each entry's overhead. */
  get size(): number {
    return this.#chars;
  }

  deleted(collectionId: string, id: string): void {
    this.#drop(entryKey(collectionId, id));
  }

  #drop(key: string): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    this.#entries.delete(key);
    this.#chars -= entry.cost;
  }
}

function entryKey(collectionId: string, id: string): string {
  // The collection id's length first: no two (collection, id) pairs give one key, whatever characters they hold.
  return `${collectionId.length}:${collectionId}\u0000${id}`;
}
