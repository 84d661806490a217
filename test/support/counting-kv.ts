// A key-value store that counts the entries its range reads hand over: how many index entries (or records) a
// list or a count read, measured below the record store, so no code path of the store can read unseen.
import type { ClockedText, KeyRange, KvEntry, KvStore, ScanOptions, SearchHit, SearchScan, TextScanOptions, TransactionBody } from '../../src/store/index.ts';

export class CountingKv implements KvStore {
  /** Entries returned by `scan` and `scanText` since the last reset. */
  scanned = 0;

  constructor(private readonly inner: KvStore) {}

  get backend(): KvStore['backend'] {
    return this.inner.backend;
  }

  get(key: Buffer): Promise<Buffer | undefined> {
    return this.inner.get(key);
  }

  getMany(keys: readonly Buffer[]): Promise<(Buffer | undefined)[]> {
    return this.inner.getMany(keys);
  }

  getWithClock(key: Buffer): Promise<ClockedText> {
    return this.inner.getWithClock(key);
  }

  async scan(range: KeyRange, options: ScanOptions): Promise<KvEntry[]> {
    const entries = await this.inner.scan(range, options);
    this.scanned += entries.length;
    return entries;
  }

  async scanText(range: KeyRange, options: TextScanOptions, skip: number): Promise<string[]> {
    const texts = await this.inner.scanText(range, options, skip);
    this.scanned += texts.length;
    return texts;
  }

  count(range: KeyRange): Promise<number> {
    return this.inner.count(range);
  }

  /** A search's hits are entries read, as a scan's are. */
  async search(index: string, scan: SearchScan): Promise<SearchHit[]> {
    const hits = await this.inner.search(index, scan);
    this.scanned += hits.length;
    return hits;
  }

  transact<T>(reads: readonly Buffer[], body: TransactionBody<T>): Promise<{ result: T; timestamp: number }> {
    return this.inner.transact(reads, body);
  }

  onCommit(listener: () => void): () => void {
    return this.inner.onCommit(listener);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
