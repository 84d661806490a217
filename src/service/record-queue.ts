// Calls on one record from one process run one after the other.
//
// Writes are optimistic (records.ts): a call reads the record, runs the function and commits only if the record
// is still at the version it read. When many calls on one record arrive together, all but one of each round find
// the record changed and run again, and on PostgreSQL every one of those doomed commits also takes the
// database-wide commit lock (docs/store.md) before it finds out: 300 concurrent increments through two servers
// took 6-25 s and some ran out of attempts. Queueing a process's calls per record leaves one attempt in flight per
// record and process, so conflicts happen only between processes (at most one writer each), and the retry limit
// is an overload signal again. A waiting call holds no database connection, only its place in the queue.

export class RecordQueue {
  /** The tail of each record's queue: settles when the last call queued on that record has finished. */
  readonly #tails = new Map<string, Promise<unknown>>();

  /** Runs `operation` after every operation queued earlier on the same key has settled. */
  run<T>(key: string, operation: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key);
    const result = previous ? previous.then(operation, operation) : operation();
    const tail = result.catch(() => undefined);
    this.#tails.set(key, tail);
    // The last call out removes the record's entry, so the map holds only records with calls in flight.
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return result;
  }

  /** How many records have calls queued or running (for tests). */
  get size(): number {
    return this.#tails.size;
  }
}
