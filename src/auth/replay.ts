// Single use of write signatures. A signature on a POST is accepted once; the guard remembers it until it
// expires (after that the time window rejects it anyway), so its memory is bounded by the traffic of one
// validity window. `ReplayGuard` is the seam: the record service can put a store-backed guard behind it that
// records the claim in the same transaction as the write (a guard may also just note the id and expiry it is
// given, answer 'claimed', and let the write's transaction insert them, refusing the write on a conflict).

export type ClaimResult = 'claimed' | 'already-used' | 'full';

export interface ReplayGuard {
  /**
   * Claims `id` until `expiresAt` (ms since the epoch): 'claimed' the first time, 'already-used' while an earlier
   * claim is alive, 'full' when the guard cannot remember another id (the request must then be refused: an
   * id that cannot be remembered could be replayed).
   */
  claim(id: string, expiresAt: number, now: number): ClaimResult;
}

export interface MemoryReplayGuardOptions {
  /** How many live ids to remember at most (default 100,000, a few tens of megabytes). */
  capacity?: number;
}

/** An in-process guard: a map of live ids and a min-heap of their expiry times, so expired ids go first. */
export class MemoryReplayGuard implements ReplayGuard {
  readonly capacity: number;
  readonly #expiries = new Map<string, number>();
  // A binary min-heap ordered by expiry, as two parallel arrays.
  readonly #heapTimes: number[] = [];
  readonly #heapIds: string[] = [];

  constructor(options: MemoryReplayGuardOptions = {}) {
    const capacity = options.capacity ?? 100_000;
    if (!Number.isSafeInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
    this.capacity = capacity;
  }

  /** How many ids are remembered now (expired ones included until the next claim sweeps them). */
  get size(): number {
    return this.#expiries.size;
  }

  claim(id: string, expiresAt: number, now: number): ClaimResult {
    this.#forgetExpired(now);
    if (this.#expiries.has(id)) return 'already-used';
    if (this.#expiries.size >= this.capacity) return 'full';
    this.#expiries.set(id, expiresAt);
    this.#push(expiresAt, id);
    return 'claimed';
  }

  #forgetExpired(now: number): void {
    while (this.#heapTimes.length > 0 && this.#heapTimes[0]! <= now) {
      this.#expiries.delete(this.#pop());
    }
  }

  #push(time: number, id: string): void {
    const times = this.#heapTimes;
    const ids = this.#heapIds;
    let i = times.length;
    times.push(time);
    ids.push(id);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (times[parent]! <= time) break;
      times[i] = times[parent]!;
      ids[i] = ids[parent]!;
      i = parent;
    }
    times[i] = time;
    ids[i] = id;
  }

  /** Removes the earliest-expiring entry and returns its id. */
  #pop(): string {
    const times = this.#heapTimes;
    const ids = this.#heapIds;
    const top = ids[0]!;
    const lastTime = times.pop()!;
    const lastId = ids.pop()!;
    const n = times.length;
    if (n === 0) return top;
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && times[child + 1]! < times[child]!) child++;
      if (times[child]! >= lastTime) break;
      times[i] = times[child]!;
      ids[i] = ids[child]!;
      i = child;
    }
    times[i] = lastTime;
    ids[i] = lastId;
    return top;
  }
}
