// The change feed at rest, on every backend (sqlite.test.ts and postgres.test.ts run it): commits nobody waits
// for read nothing, and a waiter arriving after them still misses no change and wakes for no unrelated one.

import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { RecordStore, type JsonObject, type KeyRange, type KvEntry, type ScanOptions } from '../../src/store/index.ts';
import { changeLogRange } from '../../src/store/keys.ts';
import { CountingKv } from '../support/counting-kv.ts';
import type { Backend } from './conformance.ts';
import { itemLayout, personLayout } from './schemas.ts';

const PEOPLE = 'ns/Person';
const ITEMS = 'ns/Item';

/** Counts the reads of the change log: how many scans, and how many entries they handed over. */
class LogReadCounter extends CountingKv {
  logScans = 0;
  logEntries = 0;

  override async scan(range: KeyRange, options: ScanOptions): Promise<KvEntry[]> {
    const entries = await super.scan(range, options);
    if (range.gte.compare(changeLogRange.gte) >= 0 && range.gte.compare(changeLogRange.lt) < 0) {
      this.logScans++;
      this.logEntries += entries.length;
    }
    return entries;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Long enough for PostgreSQL's notifications of the commits made so far to arrive. */
const SETTLE_MS = 150;

export function changeFeedConformance(backend: Backend): void {
  describe(`change feed at rest on ${backend.name}`, () => {
    const open: RecordStore[] = [];
    afterEach(async () => {
      await Promise.all(open.splice(0).map((s) => s.close()));
    });
    async function fresh(): Promise<{ store: RecordStore; kv: LogReadCounter }> {
      const kv = new LogReadCounter((await backend.fresh()).kv);
      const store = new RecordStore(kv);
      open.push(store);
      await store.defineCollection(ITEMS, itemLayout);
      await store.defineCollection(PEOPLE, personLayout);
      return { store, kv };
    }
    const putItem = (store: RecordStore, id: string, group = 'g') => store.commit({ writes: [{ kind: 'put', collectionId: ITEMS, record: { id, group } }] });
    const putPerson = (store: RecordStore, id: string) => store.commit({ writes: [{ kind: 'put', collectionId: PEOPLE, record: { id, name: 'n' } }] });

    it('reads no log for commits made after the last long-poll ended, and only the new commits for the next one', async () => {
      const { store, kv } = await fresh();
      // A long-poll that has ended (as the Polybase client's onSnapshot leaves behind between its polls).
      expect(await store.waitForChange({ collectionId: ITEMS }, await store.timestamp(), 0)).toBeNull();
      await sleep(SETTLE_MS);
      kv.logScans = 0;
      for (let i = 0; i < 30; i++) await putItem(store, `r${i}`);
      await sleep(SETTLE_MS);
      expect(kv.logScans).toBe(0);

      // The next long-poll starts from the clock: the commit that wakes it is the only log entry read.
      kv.logEntries = 0;
      const wait = store.waitForChange({ collectionId: ITEMS }, await store.timestamp(), 10_000);
      await sleep(30);
      const { timestamp } = await putItem(store, 'last');
      expect(await wait).toBe(timestamp);
      expect(kv.logScans).toBeGreaterThan(0);
      expect(kv.logEntries).toBe(1);
    });

    it('a waiter arriving after many unwatched commits wakes for the next change to its target only', async () => {
      const { store } = await fresh();
      expect(await store.waitForChange({ collectionId: ITEMS }, await store.timestamp(), 0)).toBeNull();
      for (let i = 0; i < 40; i++) await (i % 2 ? putItem(store, `r${i}`) : putPerson(store, `p${i}`));
      await sleep(SETTLE_MS);
      const since = await store.timestamp();
      let woken = false;
      const recordWait = store.waitForChange({ collectionId: ITEMS, id: 'a' }, since, 10_000).finally(() => (woken = true));
      const peopleWait = store.waitForChange({ collectionId: PEOPLE }, since, 10_000);
      await sleep(30);
      await putItem(store, 'b'); // the collection, another record
      const person = await putPerson(store, 'p');
      expect(await peopleWait).toBe(person.timestamp);
      await sleep(SETTLE_MS);
      expect(woken).toBe(false);
      const { timestamp } = await putItem(store, 'a');
      expect(await recordWait).toBe(timestamp);
    });

    it('reports at once a change committed after `since` but before the waiter arrived', async () => {
      const { store } = await fresh();
      expect(await store.waitForChange({ collectionId: ITEMS }, await store.timestamp(), 0)).toBeNull();
      const since = await store.timestamp();
      for (let i = 0; i < 20; i++) await putPerson(store, `p${i}`);
      const change = await putItem(store, 'a');
      for (let i = 0; i < 20; i++) await putPerson(store, `q${i}`);
      // No settling: on PostgreSQL these commits' notifications may still be on their way.
      expect(await store.waitForChange({ collectionId: ITEMS, id: 'a' }, since, 10_000)).toBe(change.timestamp);
      expect(await store.waitForChange({ collectionId: ITEMS }, since, 10_000)).toBe(change.timestamp);
      // Many waiters arriving together share one catch-up, and each sees the change.
      await putPerson(store, 'r');
      const all = await Promise.all(Array.from({ length: 10 }, () => store.waitForChange({ collectionId: ITEMS }, since, 10_000)));
      expect(all).toEqual(Array.from({ length: 10 }, () => change.timestamp));
    });

    it('every waiter wakes with a change to its target newer than `since`, and stays asleep only when there is none', async () => {
      type Target = { collectionId: string; id?: string };
      type Step =
        | { kind: 'commit'; collectionId: string; id: string; remove: boolean; awaited: boolean }
        | { kind: 'wait'; target: Target; since: 'setup' | 'now' | 'future' | number; timeoutMs: number | 'long' }
        | { kind: 'abort'; waiter: number }
        | { kind: 'pause'; ms: number };
      const target = fc.oneof(
        fc.constantFrom(ITEMS, PEOPLE).map((collectionId): Target => ({ collectionId })),
        fc.record({ collectionId: fc.constantFrom(ITEMS, PEOPLE), id: fc.constantFrom('a', 'b', 'c') }),
      );
      const step: fc.Arbitrary<Step> = fc.oneof(
        { weight: 4, arbitrary: fc.record({ kind: fc.constant('commit' as const), collectionId: fc.constantFrom(ITEMS, PEOPLE), id: fc.constantFrom('a', 'b', 'c'), remove: fc.boolean(), awaited: fc.boolean() }) },
        {
          weight: 3,
          arbitrary: fc.record({
            kind: fc.constant('wait' as const),
            target,
            since: fc.oneof(fc.constantFrom('setup' as const, 'now' as const, 'future' as const), fc.nat(20)),
            timeoutMs: fc.oneof(fc.constant('long' as const), fc.integer({ min: 0, max: 30 })),
          }),
        },
        { weight: 1, arbitrary: fc.record({ kind: fc.constant('abort' as const), waiter: fc.nat(20) }) },
        { weight: 2, arbitrary: fc.record({ kind: fc.constant('pause' as const), ms: fc.integer({ min: 0, max: 40 }) }) },
      );
      const touches = (t: Target, change: { collectionId: string; id: string; kind: string }) =>
        change.collectionId === t.collectionId && (t.id === undefined || change.id === t.id || change.kind === 'drop');

      await fc.assert(
        fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 25 }), async (steps) => {
          const { store } = await fresh();
          try {
            await runSteps(store, steps);
          } finally {
            open.splice(open.indexOf(store), 1);
            await store.close();
          }
        }),
        { numRuns: backend.name === 'sqlite' ? 25 : 15 },
      );

      async function runSteps(store: RecordStore, steps: Step[]): Promise<void> {
        const setup = await store.timestamp();
        const committed: Promise<unknown>[] = [];
        const commitTimes: number[] = [];
        const waiters: {
          target: Target;
          since: number;
          long: boolean;
          controller: AbortController;
          aborted: boolean;
          outcome: number | null | undefined;
          done: Promise<number | null>;
        }[] = [];
        for (const s of steps) {
          if (s.kind === 'commit') {
            const write = s.remove ? { kind: 'delete' as const, collectionId: s.collectionId, id: s.id } : { kind: 'put' as const, collectionId: s.collectionId, record: s.collectionId === ITEMS ? { id: s.id, group: 'g' } : { id: s.id, name: 'n' } };
            const commit = store.commit({ writes: [write] }).then(({ timestamp }) => commitTimes.push(timestamp));
            committed.push(commit);
            if (s.awaited) await commit;
          } else if (s.kind === 'wait') {
            const since =
              s.since === 'setup' ? setup : s.since === 'now' ? await store.timestamp() : s.since === 'future' ? Date.now() * 1000 + 60e6 : (commitTimes[s.since] ?? setup);
            const controller = new AbortController();
            const long = s.timeoutMs === 'long';
            const waiter = { target: s.target, since, long, controller, aborted: false, outcome: undefined as number | null | undefined, done: undefined as unknown as Promise<number | null> };
            waiter.done = store.waitForChange(s.target, since, long ? 60_000 : (s.timeoutMs as number), controller.signal).then((outcome) => (waiter.outcome = outcome));
            waiters.push(waiter);
          } else if (s.kind === 'abort') {
            const waiter = waiters[s.waiter];
            if (waiter) {
              waiter.aborted = true;
              waiter.controller.abort();
            }
          } else {
            await sleep(s.ms);
          }
        }
        await Promise.all(committed);
        await sleep(SETTLE_MS);
        const log = await store.changesSince(setup);
        const changed = (w: (typeof waiters)[number]) => log.some((c) => c.timestamp > w.since && c.changes.some((change) => touches(w.target, change)));
        for (const w of waiters) {
          if (w.outcome === undefined || w.outcome === null) continue;
          // Woken: by a change to its target, newer than its `since`.
          expect(w.outcome).toBeGreaterThan(w.since);
          expect(log.find((c) => c.timestamp === w.outcome)?.changes.some((change) => touches(w.target, change))).toBe(true);
        }
        for (const w of waiters.filter((w) => w.long && !w.aborted)) {
          // A long waiter still asleep now has no change to wait for; one that has a change was woken by it.
          expect({ target: w.target, since: w.since, woken: w.outcome !== undefined }).toEqual({ target: w.target, since: w.since, woken: changed(w) });
        }
        for (const w of waiters) w.controller.abort();
        await Promise.all(waiters.map((w) => w.done));
      }
    }, 120_000);

    it('a waiter on a record wakes for the drop of its collection, also when the drop came before it arrived', async () => {
      const { store } = await fresh();
      await putItem(store, 'a');
      await store.commit({ writes: [{ kind: 'delete', collectionId: ITEMS, id: 'b' }] });
      const since = await store.timestamp();
      // A registered waiter is woken by the drop (the log names no record for it).
      const registered = store.waitForChange({ collectionId: ITEMS, id: 'a' }, since, 10_000);
      await sleep(30);
      await store.deleteCollection(ITEMS);
      const [drop] = await store.changesSince(since);
      expect(await registered).toBe(drop!.timestamp);
      // One arriving after the drop has only its check: the drop took the record and its deletion stamp with it.
      for (const id of ['a', 'b', 'never']) expect(await store.waitForChange({ collectionId: ITEMS, id }, since, 2_000)).toBe(drop!.timestamp);
      expect(await store.waitForChange({ collectionId: ITEMS, id: 'a' }, drop!.timestamp, 50)).toBeNull();
    });
  });
}
