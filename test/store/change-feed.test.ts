// The change feed's catch-up, step by step: commit notifications held back and the clock read gated, so the
// orders PostgreSQL allows (a notification arriving after a later query's answer) can be replayed on SQLite.

import { afterEach, describe, expect, it } from 'vitest';
import { openSqlite, RecordStore } from '../../src/store/index.ts';
import { clockKey } from '../../src/store/keys.ts';
import { CountingKv } from '../support/counting-kv.ts';
import { itemLayout, personLayout } from './schemas.ts';

const ITEMS = 'ns/Item';
const PEOPLE = 'ns/Person';

/** A store whose commit notifications are delivered only by `notify()`, and whose clock reads can be held. */
class SteppedKv extends CountingKv {
  #listeners: (() => void)[] = [];
  #clockGate: Promise<void> | undefined;
  #openGate: (() => void) | undefined;

  override onCommit(listener: () => void): () => void {
    this.#listeners.push(listener);
    return () => (this.#listeners = this.#listeners.filter((l) => l !== listener));
  }

  notify(): void {
    for (const listener of this.#listeners) listener();
  }

  /** The next clock reads wait until `openClock()`. */
  holdClock(): void {
    this.#clockGate = new Promise((resolve) => (this.#openGate = resolve));
  }

  openClock(): void {
    this.#clockGate = undefined;
    this.#openGate?.();
  }

  override async get(key: Buffer): Promise<Buffer | undefined> {
    if (key.equals(clockKey) && this.#clockGate) await this.#clockGate;
    return super.get(key);
  }
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('change feed catch-up', () => {
  const open: RecordStore[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
  });

  async function fresh(): Promise<{ store: RecordStore; kv: SteppedKv }> {
    const kv = new SteppedKv(openSqlite(':memory:'));
    const store = new RecordStore(kv);
    open.push(store);
    await store.defineCollection(ITEMS, itemLayout);
    await store.defineCollection(PEOPLE, personLayout);
    return { store, kv };
  }

  it('does not skip past a commit a registered waiter has not seen when a later waiter catches up', async () => {
    const { store, kv } = await fresh();
    const since = await store.timestamp();
    // The first waiter's catch-up is slow; a commit notified meanwhile (no one registered yet) leaves the feed
    // behind after it, with the waiter registered.
    kv.holdClock();
    const first = store.waitForChange({ collectionId: ITEMS }, since, 1_000);
    await tick();
    kv.notify();
    kv.openClock();
    await tick();
    // A change to the first waiter's collection, after its own check; its notification is late (PostgreSQL).
    const change = await store.commit({ writes: [{ kind: 'put', collectionId: ITEMS, record: { id: 'a', group: 'g' } }] });
    // A second waiter catches up: its clock read covers the change. Jumping there would leave the first waiter
    // to a notification that then finds nothing newer than the clock.
    const second = store.waitForChange({ collectionId: PEOPLE }, since, 50);
    await tick();
    kv.notify();
    expect(await first).toBe(change.timestamp);
    expect(await second).toBeNull();
  });

  it('waiters arriving during a catch-up share its one clock read, and then check their targets', async () => {
    const { store, kv } = await fresh();
    const since = await store.timestamp();
    const change = await store.commit({ writes: [{ kind: 'put', collectionId: ITEMS, record: { id: 'a', group: 'g' } }] });
    kv.notify();
    let clockReads = 0;
    const get = kv.get.bind(kv);
    kv.get = (key) => {
      if (key.equals(clockKey)) clockReads++;
      return get(key);
    };
    kv.holdClock();
    const waits = [store.waitForChange({ collectionId: ITEMS }, since, 5_000), store.waitForChange({ collectionId: ITEMS, id: 'a' }, since, 5_000), store.waitForChange({ collectionId: PEOPLE }, since, 50)];
    await tick();
    kv.openClock();
    expect(await Promise.all(waits)).toEqual([change.timestamp, change.timestamp, null]);
    expect(clockReads).toBe(1);
  });

  it('a waiter whose catch-up answers after the feed was closed ends with null, as those registered did', async () => {
    const { store, kv } = await fresh();
    const since = await store.timestamp();
    kv.holdClock();
    const wait = store.waitForChange({ collectionId: ITEMS }, since, 60_000);
    await tick();
    store.changes.close(); // RecordStore.close does this first; PostgreSQL's pool still answers the clock read
    kv.openClock();
    expect(await Promise.race([wait, new Promise((resolve) => setTimeout(() => resolve('still waiting'), 300))])).toBeNull();
  });

  it('a failed catch-up fails its waiters, and the next waiter tries again', async () => {
    const { store, kv } = await fresh();
    const since = await store.timestamp();
    const get = kv.get.bind(kv);
    kv.get = async (key) => {
      if (key.equals(clockKey)) throw new Error('database unreachable');
      return get(key);
    };
    await expect(store.waitForChange({ collectionId: ITEMS }, since, 5_000)).rejects.toThrow('database unreachable');
    kv.get = get;
    const wait = store.waitForChange({ collectionId: ITEMS }, since, 5_000);
    await tick();
    const change = await store.commit({ writes: [{ kind: 'put', collectionId: ITEMS, record: { id: 'a', group: 'g' } }] });
    kv.notify();
    expect(await wait).toBe(change.timestamp);
  });

  it('a waiter aborted while its catch-up is pending ends with null even if the catch-up then fails', async () => {
    const { store, kv } = await fresh();
    const since = await store.timestamp();
    kv.holdClock();
    const get = kv.get.bind(kv);
    kv.get = async (key) => {
      if (!key.equals(clockKey)) return get(key);
      await get(key); // held until openClock()
      throw new Error('database unreachable');
    };
    const aborted = new AbortController();
    const wait = store.waitForChange({ collectionId: ITEMS }, since, 60_000, aborted.signal);
    await tick();
    aborted.abort();
    kv.openClock();
    await expect(wait).resolves.toBeNull();
  });
});
