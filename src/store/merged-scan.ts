// Reading several key ranges as one sequence, merged by order key (planner.ts). Each range is read in
// batches; the next entry is the smallest head of all ranges (the largest, read backwards), and heads with the
// same order key are one record, taken once. Memory is bounded by the ranges times a batch: each range reads at
// most its share of the entries and bytes still wanted.

import { keySuccessor } from './encoding.ts';
import type { JsonObject } from './index-entries.ts';
import type { KeyRange } from './keys.ts';
import type { KvStore } from './kv.ts';

/** The most entries one range reads at once: a page's most records (MAX_LIMIT). */
const MAX_BATCH = 1000;

export interface MergeSource {
  /** The absolute key bytes before an entry's order key: the index prefix, then the equality prefix. */
  readonly base: Buffer;
  readonly range: KeyRange;
}

/**
 * An entry read. Its record is parsed, and its order key computed, only when asked for: a single range needs
 * the key of the last entry of each batch only, and a count without conditions no record at all.
 */
export class MergedEntry {
  #record: JsonObject | undefined;
  #orderKey: Buffer | undefined;

  constructor(
    readonly text: string,
    /** The text's length in UTF-8 bytes (what page budgets count). */
    readonly bytes: number,
    private readonly orderKeyOf: (record: JsonObject) => Buffer,
  ) {}

  get record(): JsonObject {
    return (this.#record ??= JSON.parse(this.text) as JsonObject);
  }

  /** The record if it was parsed already (for a key or a check), else undefined. */
  get parsed(): JsonObject | undefined {
    return this.#record;
  }

  get orderKey(): Buffer {
    return (this.#orderKey ??= this.orderKeyOf(this.record));
  }
}

interface SourceState {
  readonly base: Buffer;
  gte: Buffer;
  lt: Buffer;
  buffer: MergedEntry[];
  at: number;
  /** The range has been read to its end (what is left is in `buffer`). */
  ended: boolean;
}

export interface MergedScanOptions {
  readonly reverse: boolean;
  /** The order key of a record (the key bytes after its source's `base`). */
  readonly orderKeyOf: (record: JsonObject) => Buffer;
  /** How many bytes of a stored value come before the record's JSON text. */
  readonly textStart: number;
}

export class MergedScan {
  readonly #kv: KvStore;
  readonly #sources: SourceState[];
  readonly #options: MergedScanOptions;
  /** Entries read from the store so far (consumed or still buffered). */
  read = 0;

  constructor(kv: KvStore, sources: readonly MergeSource[], options: MergedScanOptions) {
    this.#kv = kv;
    this.#options = options;
    this.#sources = [];
    for (const s of sources) {
      if (Buffer.compare(s.range.gte, s.range.lt) < 0) this.#sources.push({ base: s.base, gte: s.range.gte, lt: s.range.lt, buffer: [], at: 0, ended: false });
    }
  }

  /**
   * The next entry in merged order; undefined when every range is read; null when a range must be read further
   * first (call `fill`). Taking buffered entries needs no await, so a page or a count costs no promise per entry.
   */
  take(): MergedEntry | undefined | null {
    if (this.#sources.length === 1) {
      // One range (every plain where): its entries in the order read, with nothing to compare or skip.
      const source = this.#sources[0]!;
      if (source.at < source.buffer.length) return source.buffer[source.at++]!;
      return source.ended ? undefined : null;
    }
    let best: SourceState | undefined;
    for (const source of this.#sources) {
      if (source.at === source.buffer.length) {
        if (!source.ended) return null;
        continue;
      }
      if (!best || this.#before(source.buffer[source.at]!.orderKey, best.buffer[best.at]!.orderKey)) best = source;
    }
    if (!best) return undefined;
    const entry = best.buffer[best.at]!;
    best.at++;
    // The same record read through another range (an $or branch it also matches) is the same entry: taken once.
    if (this.#sources.length > 1) {
      for (const source of this.#sources) {
        if (source.at < source.buffer.length && source.buffer[source.at]!.orderKey.equals(entry.orderKey)) source.at++;
      }
    }
    return entry;
  }

  /**
   * Reads on in every range whose buffer is empty. `wanted` is about how many more entries, and `bytes` how many
   * more bytes of text, the caller may take: each range reads its share.
   */
  async fill(wanted: number, bytes: number): Promise<void> {
    // Plain loops: this runs once per batch of every page, and a plain where's page is one batch.
    const empty: SourceState[] = [];
    let share = 0;
    for (const s of this.#sources) {
      if (s.at === s.buffer.length && !s.ended) empty.push(s);
      if (s.at < s.buffer.length || !s.ended) share++;
    }
    share = Math.max(1, share);
    // One range reads exactly what is wanted (a page without conditions: its rest); several, at least a few each.
    const limit = Math.min(MAX_BATCH, Math.max(share > 1 ? 8 : 1, Math.ceil(wanted / share)));
    const maxBytes = Math.max(1, Math.floor(bytes / share));
    if (empty.length === 1) await this.#refill(empty[0]!, limit, maxBytes);
    else await Promise.all(empty.map((s) => this.#refill(s, limit, maxBytes)));
  }

  /** `take`, reading on first when needed. */
  async next(wanted: number, bytes: number): Promise<MergedEntry | undefined> {
    const entry = this.take();
    if (entry !== null) return entry;
    await this.fill(wanted, bytes);
    return this.take() ?? undefined;
  }

  #before(a: Buffer, b: Buffer): boolean {
    const cmp = Buffer.compare(a, b);
    return this.#options.reverse ? cmp > 0 : cmp < 0;
  }

  async #refill(source: SourceState, limit: number, maxBytes: number): Promise<void> {
    const { reverse, orderKeyOf, textStart } = this.#options;
    const texts = await this.#kv.scanText({ gte: source.gte, lt: source.lt }, { reverse, limit, maxBytes }, textStart);
    this.read += texts.length;
    let bytesRead = 0;
    const buffer: MergedEntry[] = new Array<MergedEntry>(texts.length);
    for (let i = 0; i < texts.length; i++) {
      const text = texts[i]!;
      const bytes = Buffer.byteLength(text);
      bytesRead += bytes;
      buffer[i] = new MergedEntry(text, bytes, orderKeyOf);
    }
    source.buffer = buffer;
    source.at = 0;
    // Fewer entries than asked for, and not because of the byte budget: the range is exhausted.
    if (texts.length < limit && bytesRead < maxBytes) {
      source.ended = true;
      return;
    }
    const last = Buffer.concat([source.base, source.buffer.at(-1)!.orderKey]);
    if (reverse) source.lt = last;
    else source.gte = keySuccessor(last);
  }
}
