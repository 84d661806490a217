// The change feed. Every commit appends one log entry, keyed by its timestamp, listing the records it put or
// deleted, and stamps the collection (and a deleted record) with that timestamp. `waitForChange` answers a
// long-poll: it resolves as soon as a change newer than `since` touches the collection (or the record), or with
// null at the timeout. It sleeps on the backend's commit notifications (in-process for SQLite, LISTEN/NOTIFY
// for PostgreSQL), then reads the new log entries: no polling loop. With no one waiting, a commit reads nothing
// (see #catchUp).

import { changeKey, changeKeyTimestamp, changeLogRange, changePartKey, clockKey, clockTimestamp, collectionChangedKey, layoutKey, recordDeletedKey, recordKey } from './keys.ts';
import { decodeU64, keySuccessor } from './encoding.ts';
import type { KvOp, KvStore } from './kv.ts';
import { invalidQuery } from './errors.ts';

export interface Change {
  readonly collectionId: string;
  readonly id: string;
  /** `drop`: the whole collection was deleted (`id` is empty). */
  readonly kind: 'put' | 'delete' | 'drop';
  /**
   * On a put: the record did not exist before this commit. A push stream resuming from a time before it knows
   * then that the caller cannot hold it (src/service/stream.ts). Absent in entries logged before it was kept.
   */
  readonly created?: true;
}

export interface CommitChanges {
  readonly timestamp: number;
  readonly changes: readonly Change[];
}

/** A collection, or one record of it. */
export interface ChangeTarget {
  readonly collectionId: string;
  readonly id?: string;
}

interface Waiter {
  readonly target: ChangeTarget;
  readonly since: number;
  readonly finish: (timestamp: number | null) => void;
}

const LOG_PAGE = 500;
export const MAX_WAIT_MS = 10 * 60 * 1000;

/**
 * The most bytes of JSON in one part of a log entry. SQLite keeps a larger row on overflow pages, and in a
 * WITHOUT ROWID table it reads such a row whole (every overflow page) each time a B-tree search compares a key
 * with it. A bulk commit of 2,000 records logged 120 KB under one key, and the point reads of the clock and the
 * layouts next to the log then cost 10-25 µs instead of 2 µs (half of a list's time on a 1M-record store
 * loaded 2,000 records a commit). Split below SQLite's in-page limit (about 1,000 bytes with 4 KiB pages), no
 * row of the log overflows unless one change alone is that large.
 */
const LOG_PART_BYTES = 900;

/** The change-log writes of one commit: one entry, in parts of at most LOG_PART_BYTES (changesSince joins them). */
export function changeLogEntries(timestamp: number, changes: readonly Change[]): KvOp[] {
  const ops: KvOp[] = [];
  let part: string[] = [];
  let bytes = 2;
  const flush = () => {
    const key = ops.length === 0 ? changeKey(timestamp) : changePartKey(timestamp, ops.length);
    ops.push({ kind: 'put', key, value: Buffer.from(`[${part.join(',')}]`) });
    part = [];
    bytes = 2;
  };
  for (const change of changes) {
    const text = JSON.stringify(change);
    const size = Buffer.byteLength(text) + 1;
    if (part.length > 0 && bytes + size > LOG_PART_BYTES) flush();
    part.push(text);
    bytes += size;
  }
  if (part.length > 0 || ops.length === 0) flush();
  return ops;
}

export class ChangeFeed {
  readonly #kv: KvStore;
  readonly #waiters = new Set<Waiter>();
  readonly #unsubscribe: () => void;
  /** The newest commit the feed has read (from the log, or from the clock when catching up). */
  #lastSeen = 0;
  /** Commits may have gone unread (before the first waiter, or reported while no one waited): `#lastSeen` may be stale. */
  #behind = true;
  #catchingUp: Promise<void> | undefined;
  #closed = false;
  #refreshing = false;
  #again = false;

  constructor(kv: KvStore) {
    this.#kv = kv;
    // A commit nobody waits for costs nothing here: reading the log for it would only move `#lastSeen`, and a
    // server that once answered a long-poll would pay a log scan on every later write.
    this.#unsubscribe = kv.onCommit(() => {
      if (this.#waiters.size > 0) this.#refresh();
      else this.#behind = true;
    });
  }

  /** The commits after `since`, oldest first, at most `limit` of them. */
  async changesSince(since: number, limit = 1000): Promise<CommitChanges[]> {
    const commits: { timestamp: number; changes: Change[] }[] = [];
    // A commit's entry may be in several parts (changeLogEntries), which sort together: read until `limit`
    // commits are whole (the next commit's first part is seen) or the log ends.
    const most = Math.floor(limit);
    const scanLimit = Math.max(1, most);
    let gte = changeKey(Math.floor(since) + 1);
    for (;;) {
      const entries = await this.#kv.scan({ gte, lt: changeLogRange.lt }, { limit: scanLimit });
      for (const entry of entries) {
        const timestamp = changeKeyTimestamp(entry.key);
        const changes = JSON.parse(entry.value.toString('utf8')) as Change[];
        const previous = commits.at(-1);
        if (previous?.timestamp === timestamp) {
          for (const change of changes) previous.changes.push(change);
          continue;
        }
        if (commits.length >= most) return commits;
        commits.push({ timestamp, changes });
      }
      if (entries.length < scanLimit) return commits;
      gte = keySuccessor(entries.at(-1)!.key);
    }
  }

  /** The timestamp of the last change of the target (0 when it never changed). */
  async lastChange(target: ChangeTarget): Promise<number> {
    if (target.id === undefined) {
      const stamp = await this.#kv.get(collectionChangedKey(target.collectionId));
      return stamp ? decodeU64(stamp) : 0;
    }
    const record = await this.#kv.get(recordKey(target.collectionId, target.id));
    if (record) return decodeU64(record);
    const deleted = await this.#kv.get(recordDeletedKey(target.collectionId, target.id));
    if (deleted) return decodeU64(deleted);
    // A drop deletes the records with their deletion stamps, and wakes every waiter on a record of the collection
    // (#deliver): a waiter arriving after it finds the drop in the collection's stamp. (Once the collection is
    // defined again, that stamp no longer tells a drop from any other change: such a drop is not seen here.)
    if (await this.#kv.get(layoutKey(target.collectionId))) return 0;
    const dropped = await this.#kv.get(collectionChangedKey(target.collectionId));
    return dropped ? decodeU64(dropped) : 0;
  }

  /**
   * Resolves with the timestamp of a change newer than `since` to the target, as soon as there is one, or with
   * null after `timeoutMs` (at most ten minutes) or when `signal` aborts.
   */
  async waitForChange(target: ChangeTarget, since: number, timeoutMs: number, signal?: AbortSignal): Promise<number | null> {
    if (typeof since !== 'number' || Number.isNaN(since)) throw invalidQuery(`since must be a timestamp, got ${String(since)}`);
    const timeout = Number.isFinite(timeoutMs) ? Math.min(Math.max(0, timeoutMs), MAX_WAIT_MS) : MAX_WAIT_MS;
    if (this.#behind || this.#catchingUp) {
      try {
        await this.#catchUp();
      } catch (error) {
        // An aborted wait ends with null, as it would had the catch-up answered: the caller has gone.
        if (signal?.aborted) return null;
        throw error;
      }
    }
    // Closed while catching up: close() ended the registered waiters, and no commit would be reported now.
    if (signal?.aborted || this.#closed) return null;
    return new Promise<number | null>((resolve) => {
      let done = false;
      const finish = (timestamp: number | null) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.#waiters.delete(waiter);
        resolve(timestamp);
      };
      const onAbort = () => finish(null);
      const waiter: Waiter = { target, since, finish };
      const timer = setTimeout(() => finish(null), timeout);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiters.add(waiter);
      // Registered first, checked second: a change committed in between is caught by one or the other. The
      // check is sent after the catch-up's clock read has answered, so it sees every commit the clock covers.
      this.lastChange(target).then(
        (last) => {
          if (last > since) finish(last);
        },
        () => {},
      );
    });
  }

  close(): void {
    this.#closed = true;
    this.#unsubscribe();
    for (const waiter of [...this.#waiters]) waiter.finish(null);
  }

  /**
   * Brings `#lastSeen` up to date after commits went unread, without reading the log they wrote: it reads the
   * clock once, shared by every waiter arriving meanwhile (they all await it before registering).
   *
   * Skipping the log up to the clock is safe only for waiters whose own `lastChange` check comes after the clock
   * read, since that check then sees every skipped commit. The waiters awaiting this catch-up register and check
   * afterwards; but a waiter already registered (its check possibly answered before a skipped commit) would
   * lose such a commit if the feed jumped past it. So the feed jumps only when no one is registered when the
   * clock answers, and otherwise reads the log from `#lastSeen` as after any commit: with someone registered
   * every commit is read, so that log is short (commits reported while a waiter was still catching up).
   *
   * A failed clock read (the database is unreachable) leaves the feed behind, so the next waiter tries again.
   */
  #catchUp(): Promise<void> {
    this.#catchingUp ??= this.#readClock().finally(() => {
      this.#catchingUp = undefined;
    });
    return this.#catchingUp;
  }

  async #readClock(): Promise<void> {
    // Commits reported from here on may be missed by the clock read below: they mark the feed behind again.
    this.#behind = false;
    try {
      const clock = clockTimestamp(await this.#kv.get(clockKey));
      if (this.#waiters.size === 0) this.#lastSeen = Math.max(this.#lastSeen, clock);
      else this.#refresh();
    } catch (error) {
      this.#behind = true;
      throw error;
    }
  }

  #refresh(): void {
    if (this.#refreshing) {
      this.#again = true;
      return;
    }
    this.#refreshing = true;
    void (async () => {
      try {
        do {
          this.#again = false;
          await this.#readNewEntries();
        } while (this.#again);
      } catch {
        // The database is unreachable for now: waiters time out, and the next commit notification retries.
      } finally {
        this.#refreshing = false;
      }
    })();
  }

  async #readNewEntries(): Promise<void> {
    for (;;) {
      const batch = await this.changesSince(this.#lastSeen, LOG_PAGE);
      for (const commit of batch) {
        // A read begun before a catch-up may answer after it, with commits older than the clock it read.
        this.#lastSeen = Math.max(this.#lastSeen, commit.timestamp);
        if (this.#waiters.size > 0) this.#deliver(commit);
      }
      if (batch.length < LOG_PAGE) return;
    }
  }

  #deliver(commit: CommitChanges): void {
    for (const waiter of [...this.#waiters]) {
      if (commit.timestamp <= waiter.since) continue;
      const { collectionId, id } = waiter.target;
      if (commit.changes.some((c) => c.collectionId === collectionId && (id === undefined || c.id === id || c.kind === 'drop'))) waiter.finish(commit.timestamp);
    }
  }
}
