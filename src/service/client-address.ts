// The client address a request's limits are counted against. By default it is the address of the connection's
// other end. Behind a reverse proxy (nginx) every request comes from the proxy, so the operator lists the proxies
// (`--trust-proxy 127.0.0.1 10.0.0.0/8`): for a connection from a listed proxy, the address is taken from
// X-Forwarded-For, walking it from the right (the hop the nearest proxy added) past the listed proxies to the
// first address that is not one. A client can write anything into the header it sends, but only the entries to
// the right of the last untrusted hop were written by trusted proxies, so nothing it writes is believed. A
// connection from anywhere else has its X-Forwarded-For ignored.
//
// IPv6 clients are counted by their /64 network: one host usually holds a whole /64 and could rotate through it.

import { BlockList, isIP } from 'node:net';

/** `address`, `address/prefix`, or `loopback` (127.0.0.0/8 and ::1); throws a TypeError saying what was expected. */
function addTrusted(list: BlockList, entry: string): void {
  const text = entry.trim();
  if (text === 'loopback') {
    list.addSubnet('127.0.0.0', 8, 'ipv4');
    list.addAddress('::1', 'ipv6');
    return;
  }
  const [address, prefix, extra] = text.split('/');
  const family = isIP(address ?? '');
  const bits = prefix === undefined ? undefined : /^\d{1,3}$/.test(prefix) ? Number(prefix) : NaN;
  if (family === 0 || extra !== undefined || (bits !== undefined && !(bits <= (family === 4 ? 32 : 128)))) {
    throw new TypeError(`expected a proxy address or network such as 127.0.0.1, 10.0.0.0/8, fd00::/8 or loopback; got ${JSON.stringify(text.slice(0, 100))}`);
  }
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (bits === undefined) list.addAddress(address!, type);
  else list.addSubnet(address!, bits, type);
}

/** `::ffff:1.2.3.4` as `1.2.3.4`, an IPv6 address as its /64 network, an IPv4 address as it is. */
export function clientKey(address: string): string {
  if (!address.includes(':')) return address;
  if (address.startsWith('::ffff:') && address.includes('.')) return address.slice(7);
  return `${ipv6Prefix64(address)}::/64`;
}

/** The first four groups of an IPv6 address, `::` expanded. */
function ipv6Prefix64(address: string): string {
  const plain = address.split('%')[0]!; // a zone index
  const [head = '', tail] = plain.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = tail === undefined ? headGroups : [...headGroups, ...Array<string>(Math.max(0, 8 - headGroups.length - tailGroups.length)).fill('0'), ...tailGroups];
  return groups
    .slice(0, 4)
    .map((group) => (group.includes('.') ? group : group.replace(/^0+(?=.)/, '').toLowerCase()))
    .join(':');
}

/** How many addresses' trust ClientAddresses remembers (BlockList.check costs several µs per call). */
const TRUST_CACHE_SIZE = 10_000;

export class ClientAddresses {
  readonly #trusted: BlockList | undefined;
  readonly #trustOf = new Map<string, boolean>();

  /** `trustProxy`: the proxies whose X-Forwarded-For is believed (none by default). */
  constructor(trustProxy: readonly string[] = []) {
    if (trustProxy.length === 0) return;
    const list = new BlockList();
    for (const entry of trustProxy) addTrusted(list, entry);
    this.#trusted = list;
  }

  get trustsProxies(): boolean {
    return this.#trusted !== undefined;
  }

  /** The client address of a request from `peer` (the connection's address) carrying `forwardedFor`. */
  of(peer: string | undefined, forwardedFor: string | string[] | undefined): string {
    const socketAddress = peer ?? 'unknown';
    if (this.#trusted === undefined || forwardedFor === undefined || !this.#isTrusted(socketAddress)) return clientKey(socketAddress);
    const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor).split(',');
    let client = socketAddress;
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = hops[i]!.trim();
      if (this.#isTrusted(hop)) {
        client = hop;
        continue;
      }
      // Not an address: the last trusted hop is as far as the chain can be believed.
      if (isIP(hop) !== 0) client = hop;
      break;
    }
    return clientKey(client);
  }

  #isTrusted(address: string): boolean {
    let trusted = this.#trustOf.get(address);
    if (trusted === undefined) {
      trusted = this.#check(address);
      if (this.#trustOf.size >= TRUST_CACHE_SIZE) this.#trustOf.delete(this.#trustOf.keys().next().value!);
      this.#trustOf.set(address, trusted);
    }
    return trusted;
  }

  #check(address: string): boolean {
    const plain = address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
    const family = isIP(plain);
    return family !== 0 && this.#trusted!.check(plain, family === 4 ? 'ipv4' : 'ipv6');
  }
}
