// Token buckets kept in the database, for limits that must hold across every process sharing it. The store knows
// nothing of what the buckets count or of HTTP: it takes tokens when a bucket, refilled for the time since its
// last take, holds enough, and says how long until it would have. The service decides the buckets and their
// rates (src/service/rate-limit.ts) and turns a refusal into its answer.
//
// Only the shared backend has them (PostgreSQL: postgres-buckets.ts). An SQLite file is served by one process,
// whose buckets in memory already count every request.

/** One take from one bucket. */
export interface TokenTake {
  /** The bucket's name (a client and what it counts); up to 200 characters. */
  readonly bucket: string;
  /** Tokens added per second. */
  readonly rate: number;
  /** The most the bucket holds; a new bucket starts full. */
  readonly capacity: number;
  /** Tokens taken when the take is allowed; the bucket never goes below minus its capacity. */
  readonly cost: number;
  /**
   * What the bucket must hold for the take to be allowed (default `cost`): a small positive number checks that
   * the bucket is not empty without taking from it; `-Infinity` takes whatever it holds (work already done).
   */
  readonly need?: number;
}

/** A refused take: which of the takes, and the seconds until its bucket will hold what it needed. */
export interface TokenRefusal {
  readonly index: number;
  readonly retryAfter: number;
}

export interface TokenBuckets {
  /**
   * Makes the takes in order, atomically each, stopping at the first refused (it and the later ones take
   * nothing; the earlier ones stay taken). Resolves with undefined when every take was allowed.
   */
  take(takes: readonly TokenTake[]): Promise<TokenRefusal | undefined>;
}
