// Confined lists (issue 13 item 1, docs/service.md "Private records in lists"), as a property on SQLite and
// PostgreSQL: for random private records (three owners, some shared with a team through a reference that
// delegates), a random caller (or none) and random queries (a pin on the caller's key, another key, an $in, a
// team, an $or of them, or none; with random ranges, $startsWith, $exists, sorts and limits), walked forward and back:
// - a query the service serves gives the same pages (records, and each cursor's presence and length) as it gives
//   over a store holding only the records the caller may read, and the store reads exactly as many entries from
//   the database as there (counted below the record store, test/support/counting-kv.ts): no unreadable entry
//   was read;
// - a query the service refuses gets the same refusal over both stores, having read nothing.
// Both outcomes must occur (served with records, refused for want of a pin), each in a twentieth of the runs at
// least.

import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publicKeyOf } from '../../src/auth/index.ts';
import { RecordService, toErrorResponse, UNCONFINED_REASON, type Caller } from '../../src/service/index.ts';
import { openPostgres, openSqlite, RecordStore, type JsonObject, type KvStore, type ListQuery } from '../../src/store/index.ts';
import { CountingKv } from '../support/counting-kv.ts';
import { dropTablesAndStop, startTestPostgres, uniqueTableName, type TestPostgres } from '../support/postgres.ts';
import { KEYS } from './support.ts';

const SCHEMA = `
collection Team {
  id: string;
  @delegate members: PublicKey[];
  constructor (id: string, members: PublicKey[]) { this.id = id; this.members = members; }
}

collection Note {
  id: string;
  @read owner: PublicKey;
  @read team?: Team;
  secret: string;
  rank?: number;
  @index(owner, secret);
  @index(owner, rank);
  @index(team, secret);
  constructor (id: string, owner: PublicKey, secret: string) { this.id = id; this.owner = owner; this.secret = secret; }
}
`;

const PEOPLE = ['alice', 'bob', 'carol'] as const;
type Person = (typeof PEOPLE)[number];
const jwk = (person: Person) => publicKeyOf(KEYS[person]).toJwk();
const hex = (person: Person) => publicKeyOf(KEYS[person]).toHex();
const TEAMS: Record<string, readonly Person[]> = { ab: ['alice', 'bob'], c: ['carol'], none: [] };
const teamRef = (id: string) => ({ collectionId: 'pp/Team', id });

interface Note {
  id: string;
  owner: Person;
  team: string | undefined;
  secret: string;
  rank: number | undefined;
}

const secretArb = fc.string({ unit: fc.constantFrom('a', 'b', 'Q', 'Z'), maxLength: 3 });
const notesArb = fc.uniqueArray(
  fc.record({
    id: fc.string({ unit: fc.constantFrom('x', 'y', '1'), minLength: 1, maxLength: 3 }),
    owner: fc.constantFrom(...PEOPLE),
    team: fc.option(fc.constantFrom('ab', 'c', 'none'), { nil: undefined }),
    secret: secretArb,
    rank: fc.option(fc.integer({ min: -2, max: 2 }), { nil: undefined }),
  }),
  { selector: (note) => note.id, minLength: 3, maxLength: 20 },
);

/** A key in a where: the caller's own (when it has one), or a named person's, in the JWK or the hex form. */
type KeyChoice = 'self' | Person;
const keyArb = fc.constantFrom<KeyChoice>('self', 'self', 'self', 'self', 'alice', 'bob', 'carol');
const pinArb = fc.oneof(
  { weight: 1, arbitrary: fc.constant({ kind: 'none' as const }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('owner' as const), key: keyArb, hex: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('in' as const), keys: fc.array(keyArb, { minLength: 1, maxLength: 2 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('team' as const), team: fc.constantFrom('ab', 'ab', 'c', 'none') }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('or' as const), key: keyArb, team: fc.constantFrom('ab', 'ab', 'c', 'none') }) },
);
type Pin = typeof pinArb extends fc.Arbitrary<infer T> ? T : never;

const filterArb = fc.oneof(
  { weight: 2, arbitrary: fc.constant(undefined) },
  { weight: 2, arbitrary: fc.record({ field: fc.constantFrom('secret', 'rank', 'id'), lower: fc.option(secretArb, { nil: undefined }), upper: fc.option(secretArb, { nil: undefined }), equal: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ field: fc.constant('secret' as const), prefix: secretArb }) },
  { weight: 1, arbitrary: fc.record({ field: fc.constant('rank' as const), exists: fc.boolean() }) },
);
type Filter = typeof filterArb extends fc.Arbitrary<infer T> ? T : never;
const queryArb = fc.record({
  caller: fc.constantFrom<Person | 'unsigned'>('alice', 'bob', 'carol', 'alice', 'bob', 'unsigned'),
  pin: pinArb,
  filter: filterArb,
  sort: fc.constantFrom(undefined, 'asc', 'desc'),
  limit: fc.integer({ min: 1, max: 4 }),
});

function keyValue(choice: KeyChoice, caller: Person | 'unsigned', asHex: boolean): unknown {
  const person = choice === 'self' ? (caller === 'unsigned' ? 'alice' : caller) : choice;
  return asHex ? hex(person) : jwk(person);
}

function whereOf(pin: Pin, caller: Person | 'unsigned', filter: Filter): Record<string, unknown> {
  const where: Record<string, unknown> = {};
  if (filter && 'prefix' in filter) where.secret = { $startsWith: filter.prefix };
  else if (filter && 'exists' in filter) where.rank = { $exists: filter.exists };
  else if (filter && (filter.lower !== undefined || filter.upper !== undefined)) {
    const value = (text: string) => (filter.field === 'rank' ? text.length - 1 : text);
    if (filter.equal && filter.lower !== undefined) where[filter.field] = value(filter.lower);
    else where[filter.field] = { ...(filter.lower !== undefined ? { $gte: value(filter.lower) } : {}), ...(filter.upper !== undefined ? { $lt: value(filter.upper) } : {}) };
  }
  switch (pin.kind) {
    case 'none':
      break;
    case 'owner':
      where.owner = keyValue(pin.key, caller, pin.hex);
      break;
    case 'in':
      where.owner = { $in: pin.keys.map((key, i) => keyValue(key, caller, i % 2 === 1)) };
      break;
    case 'team':
      where.team = teamRef(pin.team);
      break;
    case 'or':
      where.$or = [{ owner: keyValue(pin.key, caller, false) }, { team: teamRef(pin.team) }];
      break;
  }
  return where;
}

function mayRead(note: Note, caller: Person | 'unsigned'): boolean {
  if (caller === 'unsigned') return false;
  return note.owner === caller || (note.team !== undefined && TEAMS[note.team]!.includes(caller));
}

function noteRecord(note: Note): JsonObject {
  return {
    id: note.id,
    owner: jwk(note.owner) as unknown as JsonObject,
    ...(note.team !== undefined ? { team: teamRef(note.team) } : {}),
    secret: note.secret,
    ...(note.rank !== undefined ? { rank: note.rank } : {}),
  };
}

/** What may be compared of a cursor across stores: null, the request's own cursor repeated, or a new one's length. */
function shape(cursor: string | null, request: string | undefined): null | 'repeated' | number {
  if (cursor === null) return null;
  return cursor === request ? 'repeated' : cursor.length;
}

type Outcome =
  | { readonly served: { ids: string[]; before: ReturnType<typeof shape>; after: ReturnType<typeof shape> }[] }
  | { readonly refused: unknown };

/** Pages forward from the start until the range ends, then back from the last cursor until it ends again. */
async function walk(service: RecordService, query: ListQuery, caller: Caller, maxPages: number): Promise<Outcome> {
  const pages: { ids: string[]; before: ReturnType<typeof shape>; after: ReturnType<typeof shape> }[] = [];
  const page = async (cursor: { after?: string; before?: string }) => {
    const answer = await service.list('pp/Note', { ...query, ...cursor }, caller);
    const request = cursor.after ?? cursor.before;
    pages.push({ ids: answer.records.map((text) => String((JSON.parse(text) as JsonObject).id)), before: shape(answer.cursor.before, request), after: shape(answer.cursor.after, request) });
    return answer.cursor;
  };
  try {
    let after: string | undefined;
    let lastAfter: string | undefined;
    for (let i = 0; i < maxPages; i++) {
      const cursor = await page(after ? { after } : {});
      if (cursor.after === null || cursor.after === after) break;
      after = lastAfter = cursor.after;
    }
    let before = lastAfter;
    for (let i = 0; before !== undefined && i < maxPages; i++) {
      const cursor = await page({ before });
      if (cursor.before === null || cursor.before === before) break;
      before = cursor.before;
    }
  } catch (error) {
    const { status, body } = toErrorResponse(error);
    return { refused: { status, ...body.error, afterPages: pages.length } };
  }
  return { served: pages };
}

interface Side {
  kv: CountingKv;
  store: RecordStore;
  service: RecordService;
}

async function side(kv: KvStore): Promise<Side> {
  const counting = new CountingKv(kv);
  const store = new RecordStore(counting);
  const service = new RecordService(store);
  await service.initialise();
  await service.installSchema('pp/Team', SCHEMA);
  await service.installSchema('pp/Note', SCHEMA);
  const teams = Object.entries(TEAMS).map(([id, members]) => ({ kind: 'put' as const, collectionId: 'pp/Team', record: { id, members: members.map((m) => jwk(m) as unknown as JsonObject) } }));
  await store.commit({ writes: teams });
  return { kv: counting, store, service };
}

function propertySuite(name: string, open: () => Promise<[KvStore, KvStore]>, numRuns: number): void {
  describe(`on ${name}`, () => {
    let full: Side;
    let readable: Side;
    beforeAll(async () => {
      const [a, b] = await open();
      full = await side(a);
      readable = await side(b);
    });
    afterAll(async () => {
      await full?.store.close();
      await readable?.store.close();
    });

    it("a served query reads and answers only what the caller may read; a refused one reads nothing", async () => {
      let served = 0;
      let refused = 0;
      await fc.assert(
        fc.asyncProperty(notesArb, queryArb, async (notes, { caller, pin, filter, sort, limit }) => {
          const where = whereOf(pin, caller, filter);
          const sortField = filter?.field ?? 'secret';
          const query: ListQuery = { where, ...(sort ? { sort: [[sortField, sort]] } : {}), limit };
          const callerOf: Caller = caller === 'unsigned' ? {} : { publicKey: publicKeyOf(KEYS[caller]) };
          const put = (list: readonly Note[]) => list.map((note) => ({ kind: 'put' as const, collectionId: 'pp/Note', record: noteRecord(note) }));
          const own = notes.filter((note) => mayRead(note, caller));
          if (notes.length > 0) await full.store.commit({ writes: put(notes) });
          if (own.length > 0) await readable.store.commit({ writes: put(own) });
          try {
            full.kv.scanned = 0;
            readable.kv.scanned = 0;
            const maxPages = notes.length + 3;
            const expected = await walk(readable.service, query, callerOf, maxPages);
            const actual = await walk(full.service, query, callerOf, maxPages);
            expect(actual).toEqual(expected);
            expect(full.kv.scanned).toBe(readable.kv.scanned);
            if ('refused' in actual) {
              expect(full.kv.scanned).toBe(0);
              if ((actual.refused as { reason: string }).reason === UNCONFINED_REASON) refused++;
            } else if (actual.served.some((page) => page.ids.length > 0)) {
              served++;
            }
          } finally {
            const remove = (list: readonly Note[]) => list.map((note) => ({ kind: 'delete' as const, collectionId: 'pp/Note', id: note.id }));
            if (notes.length > 0) await full.store.commit({ writes: remove(notes) });
            if (own.length > 0) await readable.store.commit({ writes: remove(own) });
          }
        }),
        { numRuns },
      );
      // Neither outcome may be vacuous: served queries that returned records, and refusals for want of a pin.
      // (About a fifth of the runs are each; the bound leaves room for chance.)
      expect(served).toBeGreaterThanOrEqual(numRuns / 20);
      expect(refused).toBeGreaterThanOrEqual(numRuns / 20);
    });
  });
}

propertySuite('sqlite', async () => [openSqlite(':memory:'), openSqlite(':memory:')], 150);

describe('PostgreSQL', () => {
  let server: TestPostgres;
  const tables = [uniqueTableName(), uniqueTableName()];
  beforeAll(async () => {
    server = await startTestPostgres();
  });
  afterAll(() => dropTablesAndStop(server, tables));
  propertySuite('postgres', async () => Promise.all(tables.map((table) => openPostgres({ connectionString: server.url, table, pool: { max: 2 } }))) as unknown as Promise<[KvStore, KvStore]>, 40);
});
