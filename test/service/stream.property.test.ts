// A push stream's view of a query, kept by applying its events (put, remove, reset), equals a brute-force filter of
// all records by the where and the caller's read permission, after random creates, changes, hand-overs and
// deletes, and after reconnecting from the last event id at a random point (fast-check, in process).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { publicKeyOf } from '../../src/auth/index.ts';
import { RecordService } from '../../src/service/index.ts';
import { prepareStream, runStream } from '../../src/service/stream.ts';
import { openSqliteStore, secondsToTimestamp } from '../../src/store/index.ts';
import { KEYS, jwkOf } from './support.ts';

const SCHEMA = `
collection Item {
  id: string;
  @read
  reader: PublicKey;
  n: number;
  constructor (id: string, reader: PublicKey, n: number) {
    this.id = id;
    this.reader = reader;
    this.n = n;
  }
  @call(reader)
  set (n: number) {
    this.n = n;
  }
  @call(reader)
  give (to: PublicKey) {
    this.reader = to;
  }
  @call(reader)
  remove () {
    selfdestruct();
  }
}
`;

type Operation =
  | { kind: 'create'; id: string; reader: 'alice' | 'bob'; n: number }
  | { kind: 'set'; id: string; n: number }
  | { kind: 'give'; id: string; to: 'alice' | 'bob' }
  | { kind: 'remove'; id: string };

const idArb = fc.constantFrom('a', 'b', 'c');
const operationArb: fc.Arbitrary<Operation> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('create' as const), id: idArb, reader: fc.constantFrom('alice' as const, 'bob' as const), n: fc.integer({ min: 0, max: 4 }) }),
  },
  fc.record({ kind: fc.constant('set' as const), id: idArb, n: fc.integer({ min: 0, max: 4 }) }),
  fc.record({ kind: fc.constant('give' as const), id: idArb, to: fc.constantFrom('alice' as const, 'bob' as const) }),
  fc.record({ kind: fc.constant('remove' as const), id: idArb }),
);

const alice = { publicKey: publicKeyOf(KEYS.alice) };
const bob = { publicKey: publicKeyOf(KEYS.bob) };
/** The wheres streamed, each with its brute-force meaning. */
const WHERES: [unknown, (n: number) => boolean][] = [
  [{}, () => true],
  [{ n: { $gte: 2 } }, (n) => n >= 2],
  [{ n: { $in: [1, 3] } }, (n) => n === 1 || n === 3],
  [{ n: { $ne: 2 } }, (n) => n !== 2],
];
const keyOf = { alice: jwkOf(KEYS.alice), bob: jwkOf(KEYS.bob) };

/** A stream run in process: its events are applied to a view as they arrive. */
function follow(service: RecordService, where: unknown, resumeAfter: number | undefined) {
  const view = new Map<string, unknown>();
  const strayRemoves: string[] = [];
  let lastId: string | undefined;
  const controller = new AbortController();
  const seen: ((event: string, data: any) => void)[] = [];
  const write = async (text: string) => {
    if (text.startsWith(':')) return;
    const [, name] = /^event: (\w+)/.exec(text)!;
    const id = /\nid: (\S+)/.exec(text)?.[1];
    const data = JSON.parse(/\ndata: (.*)\n/.exec(text)![1]!);
    if (name === 'reset') view.clear();
    if (name === 'put') view.set(data.id, data.data);
    // A remove names only a record the caller holds (docs/service.md): never one the stream did not send.
    if (name === 'remove' && !view.delete(data.id)) strayRemoves.push(data.id);
    if (id) lastId = id;
    for (const listener of seen) listener(name!, data);
  };
  const done = (async () => {
    const prepared = await prepareStream(service, { target: { collectionId: 'p/Item' }, query: { where }, caller: alice, resumeAfter });
    await runStream(service, prepared, { write, signal: controller.signal });
  })();
  /** Resolves once an event satisfies `test`. */
  const until = (test: (event: string, data: any) => boolean) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no such event within 5 s')), 5000);
      seen.push((event, data) => {
        if (test(event, data)) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
  return { view, strayRemoves, lastId: () => lastId, until, stop: () => controller.abort(), done };
}

describe('push stream (fast-check)', () => {
  it("a stream's view equals the readable records that match, through random writes and a reconnection", async () => {
    const store = openSqliteStore(':memory:');
    // Filtered: the wheres are not limited to the caller's records, so every event's read check is what keeps
    // the view right (under the default such a stream is refused at its start, private-lists.test.ts).
    const service = new RecordService(store, { privateLists: 'filtered' });
    await service.initialise();
    await service.installSchema('p/Item', SCHEMA);
    let run = 0;
    let seenInViews = 0;
    let calls = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(operationArb, { minLength: 4, maxLength: 14 }), fc.nat(14), fc.nat(3), fc.constantFrom(...WHERES), async (operations, breakAt, away, [where, matches]) => {
        const prefix = `r${run++}-`;
        const apply = async (operation: Operation) => {
          const id = prefix + operation.id;
          // A call needs read permission: the record's reader makes it (whoever that is now).
          const call = (fn: string, args: unknown[]) =>
            service
              .call('p/Item', id, fn, args, alice)
              .catch(() => service.call('p/Item', id, fn, args, bob))
              .then(
                () => void calls++,
                () => null, // no such record (not created, or removed): nothing changes
              );
          if (operation.kind === 'create') await service.create('p/Item', [id, keyOf[operation.reader], operation.n], {}).catch(() => null); // the id may be taken
          else if (operation.kind === 'set') await call('set', [operation.n]);
          else if (operation.kind === 'give') await call('give', [keyOf[operation.to]]);
          else await call('remove', []);
        };
        /** Waits for the put of a new record every where matches: every earlier commit's events came before it. */
        const flush = async (follower: ReturnType<typeof follow>, name: string) => {
          await service.create('p/Item', [`${prefix}${name}`, keyOf.alice, 3], {});
          await follower.until((event, data) => event === 'put' && data.id === `${prefix}${name}`);
        };

        let stream = follow(service, where, undefined);
        await stream.until((event) => event === 'ready');
        for (let i = 0; i < operations.length; i++) {
          if (i === breakAt) {
            // Disconnect after the events so far, write while away, then reconnect from the last id seen.
            await flush(stream, `mark${i}`);
            stream.stop();
            await stream.done;
            const resumeAfter = secondsToTimestamp(stream.lastId()!)!;
            const previous = stream.view;
            for (const operation of operations.slice(i, i + away)) await apply(operation);
            i += away;
            stream = follow(service, where, resumeAfter);
            for (const [id, record] of previous) stream.view.set(id, record);
            await stream.until((event) => event === 'ready');
            if (i >= operations.length) break;
          }
          await apply(operations[i]!);
        }
        await flush(stream, 'sentinel');
        stream.stop();
        await stream.done;

        // The brute force: every record of this run, filtered by the where and by alice's read permission.
        const expected: unknown[] = [];
        for (const id of ['a', 'b', 'c']) {
          const { record } = await store.get('p/Item', prefix + id);
          if (record && JSON.stringify(record.reader) === JSON.stringify(keyOf.alice) && matches(record.n as number)) expected.push(record);
        }
        const mine = (id: string) => id.startsWith(prefix) && /^[a-c]$/.test(id.slice(prefix.length));
        const viewed = [...stream.view.entries()].filter(([id]) => mine(id)).map(([, record]) => record);
        seenInViews += viewed.length;
        expect(stream.strayRemoves).toEqual([]);
        expect(viewed.sort((x: any, y: any) => (x.id < y.id ? -1 : 1))).toEqual(expected);
      }),
      { numRuns: 40 },
    );
    // The runs did change records and put them in views (a property over empty views would prove nothing).
    expect(seenInViews).toBeGreaterThan(10);
    expect(calls).toBeGreaterThan(10);
    await store.close();
  }, 120_000);
});
