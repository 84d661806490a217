// A push stream with a limit follows a window: after every random write, the records its events leave the caller
// holding equal the first `limit` records of a fresh list of the same query, each with its expanded reference as
// a fresh expansion gives it (a readable tag, or null for one the caller may not read); it never holds more than
// `limit`, and never gets a remove for a record it does not hold; also across a reconnection from the last event
// id. On SQLite and PostgreSQL (fast-check, in process).
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publicKeyOf } from '../../src/auth/index.ts';
import { Expander, planExpand } from '../../src/service/expand.ts';
import { RecordService } from '../../src/service/index.ts';
import { prepareStream, runStream } from '../../src/service/stream.ts';
import { openPostgres, openSqlite, RecordStore, secondsToTimestamp, type KvStore } from '../../src/store/index.ts';
import { dropTablesAndStop, startTestPostgres, uniqueTableName, type TestPostgres } from '../support/postgres.ts';
import { KEYS, jwkOf } from './support.ts';

const SCHEMA = `
collection Tag {
  id: string;
  @read
  owner: PublicKey;
  constructor (id: string, owner: PublicKey) {
    this.id = id;
    this.owner = owner;
  }
}

@public
collection Item {
  id: string;
  n: number;
  tag: Tag;
  constructor (id: string, n: number, tag: Tag) {
    this.id = id;
    this.n = n;
    this.tag = tag;
  }
  set (n: number) {
    this.n = n;
  }
  remove () {
    selfdestruct();
  }
}
`;

type Operation = { kind: 'create'; id: string; n: number; tag: 'alice' | 'bob' } | { kind: 'set'; id: string; n: number } | { kind: 'remove'; id: string };

const idArb = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f');
const nArb = fc.integer({ min: 0, max: 5 });
const operationArb: fc.Arbitrary<Operation> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('create' as const), id: idArb, n: nArb, tag: fc.constantFrom('alice' as const, 'bob' as const) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('set' as const), id: idArb, n: nArb }) },
  fc.record({ kind: fc.constant('remove' as const), id: idArb }),
);
/** The queries streamed: where, sort (ties broken by id, as a list does). */
const QUERIES: [unknown, unknown][] = [
  [undefined, undefined],
  [undefined, [['n', 'asc']]],
  [undefined, [['n', 'desc']]],
  [{ n: { $gte: 2 } }, [['n', 'asc']]],
  [{ n: { $ne: 3 } }, undefined],
];
/** The stream's caller: it may read alice's tag, not bob's. */
const caller = { publicKey: publicKeyOf(KEYS.alice) };
const owners = { alice: { publicKey: publicKeyOf(KEYS.alice) }, bob: { publicKey: publicKeyOf(KEYS.bob) } };

/** A stream run in process: its events applied to a view as they arrive. */
function follow(
  service: RecordService,
  collectionId: string,
  query: { where: unknown; sort: unknown; limit: string },
  expand: Awaited<ReturnType<typeof planExpand>>,
  resumeAfter: number | undefined,
  held: Map<string, unknown>,
) {
  const view = new Map(held);
  const problems: string[] = [];
  let lastId: string | undefined;
  let ready = false;
  const controller = new AbortController();
  const write = async (text: string) => {
    if (text.startsWith(':')) return;
    const name = /^event: (\w+)/.exec(text)![1];
    const id = /\nid: (\S+)/.exec(text)?.[1];
    const data = JSON.parse(/\ndata: (.*)\n/.exec(text)![1]!);
    if (name === 'reset') view.clear();
    if (name === 'put') view.set(data.id, { record: data.data, expand: data.expand });
    if (name === 'remove' && !view.delete(data.id)) problems.push(`remove of ${data.id}, not held`);
    if (name === 'error') problems.push(`error event ${JSON.stringify(data)}`);
    if (name === 'ready') ready = true;
    if (view.size > Number(query.limit)) problems.push(`holds ${view.size} records, more than the limit ${query.limit}`);
    if (id) lastId = id;
  };
  const done = (async () => {
    const prepared = await prepareStream(service, { target: { collectionId }, query, caller, resumeAfter, expand });
    await runStream(service, prepared, { write, signal: controller.signal });
  })();
  return { view, problems, lastId: () => lastId, ready: () => ready, stop: () => controller.abort(), done };
}

const byId = (entries: unknown[]) => [...entries].sort((x: any, y: any) => (x.record.id < y.record.id ? -1 : 1));

function windowSuite(name: string, open: () => Promise<KvStore>, numRuns: number): void {
  describe(`a windowed stream on ${name} (fast-check)`, () => {
    it('holds the first `limit` records of a fresh list, expanded, after every write and across a reconnection', async () => {
      const store = new RecordStore(await open());
      const service = new RecordService(store);
      await service.initialise();
      let run = 0;
      let held = 0;
      let moved = 0;
      const tags = { readable: 0, hidden: 0 };
      await fc.assert(
        fc.asyncProperty(
          fc.array(operationArb, { minLength: 3, maxLength: 12 }),
          fc.constantFrom(...QUERIES),
          fc.integer({ min: 1, max: 4 }),
          fc.nat(12),
          fc.nat(3),
          async (operations, [where, sort], limit, breakAt, away) => {
            // A collection per run: the window ranges over every record of it.
            const namespace = `w${name}${run++}`;
            const collectionId = `${namespace}/Item`;
            await service.installSchema(`${namespace}/Tag`, SCHEMA);
            await service.installSchema(collectionId, SCHEMA);
            for (const owner of ['alice', 'bob'] as const) await service.create(`${namespace}/Tag`, [owner, jwkOf(KEYS[owner])], owners[owner]);
            const expand = await planExpand(service, collectionId, [['tag']]);
            const query = { where, sort, limit: String(limit) };
            const apply = async (operation: Operation) => {
              const args = operation.kind === 'create' ? [operation.id, operation.n, { collectionId: `${namespace}/Tag`, id: operation.tag }] : operation.kind === 'set' ? [operation.n] : [];
              // The tag's owner creates (a record argument must be readable); the id may be taken.
              if (operation.kind === 'create') await service.create(collectionId, args, owners[operation.tag]).catch(() => null);
              else await service.call(collectionId, operation.id, operation.kind, args, caller).catch(() => null); // no such record
            };
            /** Waits until the view equals a fresh list's page (the stream has caught up), or fails showing both. */
            const converged = async (stream: ReturnType<typeof follow>) => {
              const deadline = Date.now() + 5000;
              for (;;) {
                const expander = new Expander(service, caller);
                const records = (await service.list(collectionId, query, caller)).records.map((text) => JSON.parse(text));
                const expected = byId(await Promise.all(records.map(async (record) => ({ record, expand: await expander.expand(record, expand) }))));
                const viewed = byId([...stream.view.values()]);
                expect(stream.problems).toEqual([]);
                if (stream.ready() && JSON.stringify(viewed) === JSON.stringify(expected)) return expected.length;
                if (Date.now() > deadline) expect({ viewed, ready: stream.ready() }).toEqual({ viewed: expected, ready: true });
                await new Promise((resolve) => setTimeout(resolve, 5));
              }
            };

            let stream = follow(service, collectionId, query, expand, undefined, new Map());
            await converged(stream);
            for (let i = 0; i < operations.length; i++) {
              if (i === breakAt) {
                stream.stop();
                await stream.done;
                const lastId = stream.lastId();
                for (const operation of operations.slice(i, i + away)) await apply(operation);
                i += away;
                stream = follow(service, collectionId, query, expand, lastId === undefined ? undefined : secondsToTimestamp(lastId)!, stream.view);
                await converged(stream);
                if (i >= operations.length) break;
              }
              const before = JSON.stringify(byId([...stream.view.values()]));
              await apply(operations[i]!);
              held += await converged(stream);
              for (const entry of stream.view.values() as Iterable<{ expand: { tag: unknown } }>) tags[entry.expand.tag === null ? 'hidden' : 'readable']++;
              if (JSON.stringify(byId([...stream.view.values()])) !== before) moved++;
            }
            stream.stop();
            await stream.done;
          },
        ),
        { numRuns },
      );
      // The runs held records and moved windows (a property over empty windows would prove nothing).
      expect(held).toBeGreaterThan(numRuns);
      expect(moved).toBeGreaterThan(numRuns);
      expect(tags.readable).toBeGreaterThan(numRuns);
      expect(tags.hidden).toBeGreaterThan(numRuns);
      await store.close();
    }, 240_000);
  });
}

windowSuite('sqlite', async () => openSqlite(':memory:'), 40);

describe('PostgreSQL', () => {
  let server: TestPostgres;
  const tables = [uniqueTableName()];
  beforeAll(async () => {
    server = await startTestPostgres();
  });
  afterAll(() => dropTablesAndStop(server, tables));
  windowSuite('postgres', async () => openPostgres({ connectionString: server.url, table: tables[0]!, pool: { max: 4 } }) as unknown as Promise<KvStore>, 15);
});
