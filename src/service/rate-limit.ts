// Token buckets for abuse control, independent of HTTP: each client (a public key, or an address) has a bucket
// per kind of work: reads, writes, signature checks, and function gas. A bucket holds up to `rate × burstSeconds`
// tokens and refills at `rate` per second; a request takes one token (gas: what the call used, charged after it
// ran), and one that finds too few is refused with the seconds until there will be enough. request-limits.ts
// turns a refusal into the HTTP answer.
//
// Where the buckets live (docs/service.md, "Securing a deployment"): a key's write and gas budgets, the
// expensive work, are kept in the store's shared buckets when it has them (PostgreSQL: one statement per signed
// write, which also charges the gas the key's calls used since its last write through this server; gas not
// charged so within GAS_FOLD_MS gets a statement of its own), so they hold across every server on the database. Everything else is counted in this process: reads (a statement per read would cost about as much as
// the read), and everything per client address (an address is a connection's, which a balancer usually keeps on
// one server; and the address limits are the cheap first line in front of signature recovery). On SQLite every
// bucket is in the process, which is the only one serving the file. Each map of buckets here is bounded
// (`maxTracked`); past it the oldest entry is dropped, which can only give its client a full bucket again.

import type { TokenBuckets } from '../store/index.ts';

export interface RateLimitOptions {
  /** Reads (gets, lists, counts, long-polls, streams) per second per key (default 500). */
  readsPerKey?: number;
  /** Reads per second per client address, signed or not (default 1000: several keys may share an address). */
  readsPerAddress?: number;
  /** Writes (creates and calls) per second per key (default 100). */
  writesPerKey?: number;
  /** Writes per second per client address, signed or not (default 200). */
  writesPerAddress?: number;
  /** Signature checks (key recoveries) per second per client address (default 100). */
  signaturesPerAddress?: number;
  /** Function gas per minute, per key (per client address for unsigned calls) (default 1,000,000,000). */
  gasPerMinute?: number;
  /** How many seconds of its rate a bucket holds: the burst a client may send at once (default 2). */
  burstSeconds?: number;
  /** The most clients tracked per kind of bucket (default 100,000). */
  maxTracked?: number;
  /**
   * Keep each key's write and gas budgets in the store's shared buckets when it has them (PostgreSQL), so that
   * they hold across servers (default true); false: in each process, as the other limits.
   */
  shared?: boolean;
}

export const DEFAULT_RATE_LIMITS: Readonly<Required<RateLimitOptions>> = Object.freeze({
  readsPerKey: 500,
  readsPerAddress: 1000,
  writesPerKey: 100,
  writesPerAddress: 200,
  signaturesPerAddress: 100,
  gasPerMinute: 1_000_000_000,
  burstSeconds: 2,
  maxTracked: 100_000,
  shared: true,
});

/** What a take must find in a gas bucket: more than nothing (it checks, and takes nothing). */
const ANY_GAS = 1e-9;

/**
 * The longest a key's spent gas waits in the process for its next write's statement to charge it (`spendKeyGas`)
 * before it is charged by a statement of its own: how late other servers may see it.
 */
export const GAS_FOLD_MS = 100;

interface Bucket {
  tokens: number;
  /** When `tokens` was last brought up to date, in ms of the limiter's clock. */
  at: number;
}

/** Buckets of one kind, by client. */
export class Buckets {
  readonly #perMs: number;
  readonly #capacity: number;
  readonly #maxTracked: number;
  readonly #buckets = new Map<string, Bucket>();

  /** `rate` tokens per second, holding at most `capacity`. */
  constructor(rate: number, capacity: number, maxTracked: number) {
    this.#perMs = rate / 1000;
    this.#capacity = capacity;
    this.#maxTracked = maxTracked;
  }

  /**
   * Takes `cost` tokens from `client`'s bucket: 0 when there were enough, else the seconds until there will be
   * (nothing is taken then).
   */
  take(client: string, now: number, cost = 1): number {
    const bucket = this.#refilled(client, now);
    if (bucket.tokens >= cost) {
      bucket.tokens -= cost;
      return 0;
    }
    return (cost - bucket.tokens) / this.#perMs / 1000;
  }

  /** 0 while `client`'s bucket is not empty, else the seconds until it holds a token again. Takes nothing. */
  waitFor(client: string, now: number): number {
    const bucket = this.#buckets.get(client);
    if (bucket === undefined) return 0;
    const tokens = Math.min(this.#capacity, bucket.tokens + (now - bucket.at) * this.#perMs);
    return tokens > 0 ? 0 : (1 - tokens) / this.#perMs / 1000;
  }

  /** Takes `cost` tokens whatever the bucket holds (work already done), down to at most one bucket's worth of debt. */
  spend(client: string, now: number, cost: number): void {
    const bucket = this.#refilled(client, now);
    bucket.tokens = Math.max(-this.#capacity, bucket.tokens - cost);
  }

  get tracked(): number {
    return this.#buckets.size;
  }

  #refilled(client: string, now: number): Bucket {
    let bucket = this.#buckets.get(client);
    if (bucket === undefined) {
      if (this.#buckets.size >= this.#maxTracked) this.#buckets.delete(this.#buckets.keys().next().value!);
      bucket = { tokens: this.#capacity, at: now };
      this.#buckets.set(client, bucket);
      return bucket;
    }
    if (now > bucket.at) {
      bucket.tokens = Math.min(this.#capacity, bucket.tokens + (now - bucket.at) * this.#perMs);
      bucket.at = now;
    }
    return bucket;
  }
}

interface Pair {
  key: Buckets;
  keyRate: number;
  address: Buckets;
  addressRate: number;
}

export type LimitKind = 'read' | 'write' | 'signature' | 'gas';

/** A refusal: which limit, and the seconds until a retry may succeed. */
export interface Refusal {
  kind: LimitKind;
  /** 'key' or 'address': whose bucket was empty. */
  of: 'key' | 'address';
  retryAfter: number;
  /** The limit's rate, in its unit (per second; gas: per minute). */
  rate: number;
}

function positive(name: string, value: number): number {
  if (!(typeof value === 'number' && Number.isFinite(value) && value > 0)) throw new TypeError(`rate limit ${name} must be a positive number, got ${String(value)}`);
  return value;
}

/** Every kind of bucket, for keys and for addresses. `key` arguments are a key's hex form. */
export class RateLimiter {
  readonly options: Readonly<Required<RateLimitOptions>>;
  readonly #now: () => number;
  readonly #reads: Pair;
  readonly #writes: Pair;
  readonly #signatures: Buckets;
  readonly #gas: Buckets;
  readonly #shared: TokenBuckets | undefined;
  /** Keys the shared buckets refused, until when (ms of the clock): refused here with no statement till then. */
  readonly #refusedUntil = new Map<string, { until: number; refusal: Refusal }>();
  /** Gas keys' calls used and not yet charged to the shared buckets (`spendKeyGas`), by key. */
  readonly #unchargedGas = new Map<string, number>();
  #gasFlush: NodeJS.Timeout | undefined;

  /** `sharedBuckets`: the store's (used unless `options.shared` is false). */
  constructor(options: RateLimitOptions = {}, now: () => number = () => performance.now(), sharedBuckets?: TokenBuckets) {
    const o = { ...DEFAULT_RATE_LIMITS, ...Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) } as Required<RateLimitOptions>;
    for (const name of Object.keys(DEFAULT_RATE_LIMITS) as (keyof RateLimitOptions)[]) if (name !== 'shared') positive(name, o[name] as number);
    this.options = Object.freeze(o);
    this.#now = now;
    this.#shared = o.shared ? sharedBuckets : undefined;
    const buckets = (rate: number) => new Buckets(rate, rate * o.burstSeconds, o.maxTracked);
    this.#reads = { key: buckets(o.readsPerKey), keyRate: o.readsPerKey, address: buckets(o.readsPerAddress), addressRate: o.readsPerAddress };
    this.#writes = { key: buckets(o.writesPerKey), keyRate: o.writesPerKey, address: buckets(o.writesPerAddress), addressRate: o.writesPerAddress };
    this.#signatures = buckets(o.signaturesPerAddress);
    // A minute's gas, refilled over the minute.
    this.#gas = new Buckets(o.gasPerMinute / 60, o.gasPerMinute, o.maxTracked);
  }

  /** A read by the client at `address`, signed by `key` (hex) when signed; undefined when allowed. */
  read(address: string, key?: string): Refusal | undefined {
    return this.#take('read', this.#reads, address, key);
  }

  /** A write (create or call); as `read`. */
  write(address: string, key?: string): Refusal | undefined {
    return this.#take('write', this.#writes, address, key);
  }

  /** A signature check (a key recovery) for the client at `address`. */
  signature(address: string): Refusal | undefined {
    const retryAfter = this.#signatures.take(address, this.#now());
    return retryAfter === 0 ? undefined : { kind: 'signature', of: 'address', retryAfter, rate: this.options.signaturesPerAddress };
  }

  /** Whether `client` (a key's hex, or an unsigned caller's address) has gas left this minute. */
  gas(client: string, signed: boolean): Refusal | undefined {
    const retryAfter = this.#gas.waitFor(client, this.#now());
    return retryAfter === 0 ? undefined : { kind: 'gas', of: signed ? 'key' : 'address', retryAfter, rate: this.options.gasPerMinute };
  }

  /** Charges the gas a function used to `client`. */
  spendGas(client: string, gas: number): void {
    if (gas > 0) this.#gas.spend(client, this.#now(), gas);
  }

  /** Whether keys' write and gas budgets are in the shared buckets (`keyWrite`, `spendKeyGas`) rather than here. */
  get shared(): boolean {
    return this.#shared !== undefined;
  }

  /**
   * A signed write's budgets of its key (hex) in the shared buckets, in one statement: the gas the key's earlier
   * calls used and not yet charged (`spendKeyGas`) taken, then gas left checked (the take must find more than what
   * it charges), then a write taken. The address's write bucket is `addressWrite`'s. Only when `shared`.
   */
  async keyWrite(key: string): Promise<Refusal | undefined> {
    const known = this.#refusedUntil.get(key);
    if (known !== undefined) {
      const now = this.#now();
      if (now < known.until) return { ...known.refusal, retryAfter: (known.until - now) / 1000 };
      this.#refusedUntil.delete(key);
    }
    const o = this.options;
    let gas = this.#unchargedGas.get(key) ?? 0;
    this.#unchargedGas.delete(key);
    if (gas + ANY_GAS > o.gasPerMinute) {
      this.#charge(key, gas); // more than a take could charge and find more than
      gas = 0;
    }
    let refused;
    try {
      refused = await this.#shared!.take([
        { bucket: `gas:${key}`, rate: o.gasPerMinute / 60, capacity: o.gasPerMinute, cost: gas, need: gas + ANY_GAS },
        { bucket: `write:${key}`, rate: o.writesPerKey, capacity: o.writesPerKey * o.burstSeconds, cost: 1 },
      ]);
    } catch (error) {
      this.#leaveUncharged(key, gas);
      throw error;
    }
    // A refused take takes nothing: a refusal of the gas leaves its charge for the next write (or the flush).
    if (refused?.index === 0) this.#leaveUncharged(key, gas);
    if (refused === undefined) return undefined;
    const refusal: Refusal =
      refused.index === 0 ? { kind: 'gas', of: 'key', retryAfter: refused.retryAfter, rate: o.gasPerMinute } : { kind: 'write', of: 'key', retryAfter: refused.retryAfter, rate: o.writesPerKey };
    // Other servers can only take more meanwhile: the key stays refused at least that long, with no statement.
    if (refused.retryAfter > 0 && Number.isFinite(refused.retryAfter)) {
      if (this.#refusedUntil.size >= o.maxTracked) this.#refusedUntil.delete(this.#refusedUntil.keys().next().value!);
      this.#refusedUntil.set(key, { until: this.#now() + refused.retryAfter * 1000, refusal });
    }
    return refusal;
  }

  /** A write's take from its client address's bucket alone (a signed write's key is `keyWrite`'s). */
  addressWrite(address: string): Refusal | undefined {
    return this.#take('write', this.#writes, address, undefined);
  }

  /**
   * Charges the gas a signed write's functions used to its key (hex) in the shared buckets, without the answer
   * waiting for it: with the key's next write's statement (`keyWrite`), or within GAS_FOLD_MS by a statement of
   * its own (a failure leaves the gas uncharged). Gas that a take could not both charge and find more than (over
   * the budget) is charged at once: into debt of at most the budget, as the buckets spend. Only when `shared`.
   */
  spendKeyGas(key: string, gas: number): void {
    if (!(gas > 0)) return;
    const uncharged = (this.#unchargedGas.get(key) ?? 0) + gas;
    if (uncharged + ANY_GAS > this.options.gasPerMinute) {
      this.#unchargedGas.delete(key);
      this.#charge(key, uncharged);
      return;
    }
    this.#leaveUncharged(key, gas);
  }

  /** Charges every key's uncharged gas now, each in a statement of its own. */
  flushGas(): void {
    clearTimeout(this.#gasFlush);
    this.#gasFlush = undefined;
    for (const [key, gas] of this.#unchargedGas) this.#charge(key, gas);
    this.#unchargedGas.clear();
  }

  #leaveUncharged(key: string, gas: number): void {
    if (!(gas > 0)) return;
    if (!this.#unchargedGas.has(key) && this.#unchargedGas.size >= this.options.maxTracked) this.flushGas();
    this.#unchargedGas.set(key, (this.#unchargedGas.get(key) ?? 0) + gas);
    // Unreferenced: a process with nothing else to do may exit (the gas of its last GAS_FOLD_MS then goes uncharged).
    this.#gasFlush ??= setTimeout(() => this.flushGas(), GAS_FOLD_MS).unref();
  }

  #charge(key: string, gas: number): void {
    const o = this.options;
    this.#shared!.take([{ bucket: `gas:${key}`, rate: o.gasPerMinute / 60, capacity: o.gasPerMinute, cost: gas, need: -Infinity }]).catch(() => {});
  }

  #take(kind: LimitKind, pair: Pair, address: string, key: string | undefined): Refusal | undefined {
    const now = this.#now();
    // The key's bucket first: a key over its limit does not use up its address's (other keys behind one NAT).
    if (key !== undefined) {
      const retryAfter = pair.key.take(key, now);
      if (retryAfter > 0) return { kind, of: 'key', retryAfter, rate: pair.keyRate };
    }
    const retryAfter = pair.address.take(address, now);
    return retryAfter === 0 ? undefined : { kind, of: 'address', retryAfter, rate: pair.addressRate };
  }
}
