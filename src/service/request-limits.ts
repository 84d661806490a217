// The abuse limits of HTTP requests: the client address (client-address.ts, with the trusted proxies) and the
// token buckets (rate-limit.ts), turned into 429 `request/rate-limited` with `Retry-After`. Where each is
// counted: a signature check before the key is recovered (per address: the key is not known yet); a read or a
// write once the caller is known (per key when signed, and per address); a call's or create's gas after it ran
// (per key, or per address when unsigned), a write being refused while the budget is spent. A signed write's
// key budgets (writes, gas) are the store's shared buckets when it has them (rate-limit.ts): one statement.

import type { IncomingMessage } from 'node:http';
import type { PublicKey } from '../auth/index.ts';
import type { TokenBuckets } from '../store/index.ts';
import { ClientAddresses } from './client-address.ts';
import { RateLimitedError } from './errors.ts';
import { RateLimiter, type RateLimitOptions, type Refusal } from './rate-limit.ts';

export interface RequestLimitOptions {
  /** The token-bucket limits (rate-limit.ts; default DEFAULT_RATE_LIMITS); false: none. */
  rateLimits?: RateLimitOptions | false;
  /** Proxies whose X-Forwarded-For gives the client address (client-address.ts; default none). */
  trustProxy?: readonly string[];
  /** The store's shared buckets, for keys' write and gas budgets (unless `rateLimits.shared` is false). */
  sharedBuckets?: TokenBuckets;
}

const hexOfKey = new WeakMap<PublicKey, string>();

/** A key's hex form, computed once per key object (a signed read's cached key is the same object each time). */
function hexOf(key: PublicKey): string {
  let hex = hexOfKey.get(key);
  if (hex === undefined) {
    hex = key.toHex();
    hexOfKey.set(key, hex);
  }
  return hex;
}

const WHAT: Record<Refusal['kind'], string> = { read: 'reads', write: 'writes', signature: 'signature checks', gas: 'function gas' };

function refused(refusal: Refusal, address: string, key: PublicKey | undefined): RateLimitedError {
  const retryAfter = Math.max(1, Math.ceil(refusal.retryAfter));
  const who = refusal.of === 'key' && key ? `key ${hexOf(key)}` : `client address ${address}`;
  const limit = refusal.kind === 'gas' ? `${refusal.rate} gas per minute per ${refusal.of}` : `${refusal.rate} per second per ${refusal.of}`;
  return new RateLimitedError(`too many ${WHAT[refusal.kind]} from ${who} (the limit is ${limit}); retry after ${retryAfter} s`, retryAfter);
}

export class RequestLimits {
  readonly #addresses: ClientAddresses;
  readonly #limiter: RateLimiter | undefined;
  /** Gets the fast path counted and then handed to the route (a 404, a refused read): not counted again there. */
  readonly #counted = new WeakSet<IncomingMessage>();

  constructor(options: RequestLimitOptions = {}, now?: () => number) {
    this.#addresses = new ClientAddresses(options.trustProxy);
    this.#limiter = options.rateLimits === false ? undefined : new RateLimiter(options.rateLimits ?? {}, now, options.sharedBuckets);
  }

  /** The client address of a request (the proxy's client when the connection comes from a trusted proxy). */
  address(request: IncomingMessage): string {
    return this.#addresses.of(request.socket.remoteAddress, request.headers['x-forwarded-for']);
  }

  /** Throws 429 when the address has made too many signature checks. */
  signatureCheck(address: string): void {
    const refusal = this.#limiter?.signature(address);
    if (refusal) throw refused(refusal, address, undefined);
  }

  /** Throws 429 when the caller is over its read limit (`request`: not when the get fast path counted it). */
  read(address: string, key: PublicKey | undefined, request?: IncomingMessage): void {
    if (request !== undefined && this.#counted.has(request)) return;
    const refusal = this.#limiter?.read(address, key && hexOf(key));
    if (refusal) throw refused(refusal, address, key);
  }

  /** For the get fast path: takes a read and says whether it was allowed (a refused one goes to the route). */
  tryRead(address: string): boolean {
    return this.#limiter === undefined || this.#limiter.read(address) === undefined;
  }

  /** A get the fast path counted (tryRead) and hands to the route after all. */
  counted(request: IncomingMessage): void {
    this.#counted.add(request);
  }

  /**
   * Rejects with 429 when the caller is over its write limit or has spent its gas; else returns what charges the gas
   * the write's functions use (the Caller's `onGas`), or undefined when gas is not limited.
   */
  async write(address: string, key: PublicKey | undefined): Promise<((gas: number) => void) | undefined> {
    const limiter = this.#limiter;
    if (limiter === undefined) return undefined;
    const client = key ? hexOf(key) : address;
    if (key !== undefined && limiter.shared) {
      const refusal = (await limiter.keyWrite(client)) ?? limiter.addressWrite(address);
      if (refusal) throw refused(refusal, address, key);
      return (gas) => limiter.spendKeyGas(client, gas);
    }
    const refusal = limiter.gas(client, key !== undefined) ?? limiter.write(address, key && client);
    if (refusal) throw refused(refusal, address, key);
    return (gas) => limiter.spendGas(client, gas);
  }

  /** Whether keys' write and gas budgets are shared by every server on the store (rate-limit.ts). */
  get shared(): boolean {
    return this.#limiter?.shared === true;
  }

  /** For the call fast path (unsigned): `write`, answering undefined instead of throwing (the route then refuses). */
  tryWrite(address: string): { onGas?: (gas: number) => void } | undefined {
    const limiter = this.#limiter;
    if (limiter === undefined) return {};
    if (limiter.gas(address, false) ?? limiter.write(address)) return undefined;
    return { onGas: (gas) => limiter.spendGas(address, gas) };
  }
}
