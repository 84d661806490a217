// No mixed reads during a schema change's cast pass (issue 22, item 4): every answer is a record in the form of
// the schema current at the answer's timestamp (old before the switch, the commit of the schema record; new from
// it on), whether the pass has reached that record yet or not, and a write made while the pass runs lands in the
// new form. On SQLite, and on two servers sharing one PostgreSQL table, the second having cached the old schema.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresStore, openSqliteStore, secondsToTimestamp, type JsonObject, type RecordStore } from '../../src/store/index.ts';
import { holdPass } from '../support/hold-pass.ts';
import { dropTablesAndStop, startTestPostgres, uniqueTableName, type TestPostgres } from '../support/postgres.ts';
import { KEYS, startTestServer, type Answer, type TestServer } from './support.ts';

// `n` changes from a number to its text: the old form holds 7, the new "7".
const schema = (type: 'number' | 'string', name = 'M') => `
@public collection ${name} {
  id: string;
  n: ${type};
  tag: string;
  constructor (id: string) { this.id = id; this.n = ${type === 'number' ? '7' : '"7"'}; this.tag = ""; }
  function setTag(tag: string) { this.tag = tag; }
}`;

type Form = 'old' | 'new';
const formOf = (record: JsonObject): Form => {
  if (record.n === 7) return 'old';
  if (record.n === '7') return 'new';
  throw new Error(`neither form: ${JSON.stringify(record)}`);
};

/** Writes `count` records of the old form straight into the store, 500 a commit. */
async function seed(store: RecordStore, collectionId: string, count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, (_, i) => `r${String(i).padStart(5, '0')}`);
  for (let start = 0; start < count; start += 500) {
    const writes = ids.slice(start, start + 500).map((id) => ({ kind: 'put' as const, collectionId, record: { id, n: 7, tag: '' } }));
    await store.commit({ writes });
  }
  return ids;
}

const timestampOf = (answer: Answer): number => secondsToTimestamp(answer.headers.get('x-service-timestamp')!)!;

/** The commit timestamp of the collection's schema record: the switch. */
async function switchOf(store: RecordStore, collectionId: string): Promise<number> {
  return (await store.get('Collection', collectionId)).version!;
}

describe('reads while the cast pass has not reached the records (SQLite)', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ store: openSqliteStore(':memory:') });
  });
  afterAll(() => s.close());

  it('answer the new form, without waiting for the pass; a call writes the new form', async () => {
    const store = s.server.service.store;
    await s.createCollection('mr/M', schema('number'));
    const ids = await seed(store, 'mr/M', 20);
    expect((await s.record('mr/M', ids[0]!)).json.data).toEqual({ id: ids[0], n: 7, tag: '' });

    const pass = holdPass(store);
    try {
      const update = s.updateCode('mr/M', schema('string'));
      await pass.held;
      // The schema record is committed and the layout stored; no record is cast yet.
      expect((await store.get('mr/M', ids[1]!)).record).toEqual({ id: ids[1], n: 7, tag: '' });
      const switchedAt = await switchOf(store, 'mr/M');
      const got = await s.record('mr/M', ids[1]!);
      expect(got.status, got.text).toBe(200);
      expect(got.json.data).toEqual({ id: ids[1], n: '7', tag: '' });
      expect(timestampOf(got)).toBeGreaterThanOrEqual(switchedAt);
      const listed = await s.list('mr/M', { limit: 5 });
      expect(listed.status, listed.text).toBe(200);
      expect(listed.json.data.map((r: { data: JsonObject }) => r.data)).toEqual(ids.slice(0, 5).map((id) => ({ id, n: '7', tag: '' })));
      const called = await s.call('mr/M', ids[2]!, 'setTag', ['x']);
      expect(called.status, called.text).toBe(200);
      expect((await store.get('mr/M', ids[2]!)).record).toEqual({ id: ids[2], n: '7', tag: 'x' });
      // A long-poll answered during the pass answers the new form too.
      const since = got.headers.get('x-service-timestamp')!;
      const poll = s.get(`/v0/collections/mr%2FM/records/${ids[3]}?since=${since}&waitFor=10s`);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect((await s.call('mr/M', ids[3]!, 'setTag', ['y'])).status).toBe(200);
      expect((await poll).json.data).toEqual({ id: ids[3], n: '7', tag: 'y' });
      expect((await store.get('mr/M', ids[4]!)).record).toEqual({ id: ids[4], n: 7, tag: '' });
      pass.release();
      expect((await update).status).toBe(200);
    } finally {
      pass.release();
      pass.restore();
    }
    for (const id of ids) expect(formOf((await store.get('mr/M', id)).record!)).toBe('new');
    expect((await store.get('mr/M', ids[2]!)).record!.tag).toBe('x');
  });
});

describe('reads while the pass of a migration (@migrate) has not reached the records (SQLite)', () => {
  const before = `
@public collection P {
  id: string;
  name: string;
  constructor (id: string, name: string) { this.id = id; this.name = name; }
}`;
  const after = `
@public collection P {
  id: string;
  first: string;
  last: string;
  tag?: string;
  constructor (id: string) { this.id = id; this.first = ""; this.last = ""; }
  function setTag(tag: string) { this.tag = tag; }
  @migrate
  splitName (old: { name: string; }) {
    const space = old.name.indexOf(' ');
    this.first = old.name.slice(0, space);
    this.last = old.name.slice(space + 1);
  }
}`;

  it('answer and call the migrated record, not only its cast', async () => {
    const s = await startTestServer({ store: openSqliteStore(':memory:') });
    try {
      const store = s.server.service.store;
      await s.createCollection('mr/P', before);
      for (const [id, name] of [['a', 'Ada Lovelace'], ['b', 'Alan Turing'], ['c', 'Grace Hopper']]) {
        expect((await s.create('mr/P', [id, name])).status).toBe(200);
      }
      const pass = holdPass(store);
      try {
        const update = s.updateCode('mr/P', after);
        await pass.held;
        expect((await store.get('mr/P', 'a')).record).toEqual({ id: 'a', name: 'Ada Lovelace' });
        const got = await s.record('mr/P', 'a');
        expect(got.status, got.text).toBe(200);
        expect(got.json.data).toEqual({ id: 'a', first: 'Ada', last: 'Lovelace' });
        const listed = await s.list('mr/P');
        expect(listed.json.data.map((r: { data: JsonObject }) => r.data)).toEqual([
          { id: 'a', first: 'Ada', last: 'Lovelace' },
          { id: 'b', first: 'Alan', last: 'Turing' },
          { id: 'c', first: 'Grace', last: 'Hopper' },
        ]);
        const called = await s.call('mr/P', 'b', 'setTag', ['x']);
        expect(called.status, called.text).toBe(200);
        expect((await store.get('mr/P', 'b')).record).toEqual({ id: 'b', first: 'Alan', last: 'Turing', tag: 'x' });
        pass.release();
        expect((await update).status).toBe(200);
      } finally {
        pass.release();
        pass.restore();
      }
      expect((await store.get('mr/P', 'c')).record).toEqual({ id: 'c', first: 'Grace', last: 'Hopper' });
      expect((await store.get('mr/P', 'b')).record).toEqual({ id: 'b', first: 'Alan', last: 'Turing', tag: 'x' });
    } finally {
      await s.close();
    }
  });
});

/**
 * Reads `reader` continuously (gets of random records and list pages) and calls `setTag` through `writer` while
 * `update` runs; every answer's form must be the one of the schema current at its timestamp.
 */
async function readThroughUpdate(options: {
  updater: TestServer;
  readers: readonly TestServer[];
  store: RecordStore;
  collectionId: string;
  ids: readonly string[];
}): Promise<{ answers: number; old: number; new: number; tags: Map<string, string> }> {
  const { updater, readers, store, collectionId, ids } = options;
  const seen: { form: Form; timestamp: number; what: string }[] = [];
  const tags = new Map<string, string>();
  let running = true;
  let writes = 0;
  const loop = async (reader: TestServer, lane: number) => {
    for (let i = 0; running; i++) {
      const id = ids[(i * 7919 + lane * 104_729) % ids.length]!;
      if (i % 3 === 0) {
        const listed = await reader.list(collectionId, { limit: 20, after: undefined });
        expect(listed.status, listed.text).toBe(200);
        for (const entry of listed.json.data as { data: JsonObject }[]) seen.push({ form: formOf(entry.data), timestamp: timestampOf(listed), what: `list on lane ${lane}` });
      } else if (i % 7 === 1) {
        const tag = `t${lane}-${writes++}`;
        const called = await reader.call(collectionId, id, 'setTag', [tag]);
        expect(called.status, called.text).toBe(200);
        tags.set(id, tag);
      } else {
        const got = await reader.record(collectionId, id);
        expect(got.status, got.text).toBe(200);
        seen.push({ form: formOf(got.json.data), timestamp: timestampOf(got), what: `get ${id} on lane ${lane}` });
      }
    }
  };
  const lanes = readers.flatMap((reader, r) => [loop(reader, 2 * r), loop(reader, 2 * r + 1)]);
  await new Promise((resolve) => setTimeout(resolve, 200));
  const update = await updater.updateCode(collectionId, schema('string', collectionId.split('/')[1]));
  expect(update.status, update.text).toBe(200);
  await new Promise((resolve) => setTimeout(resolve, 200));
  running = false;
  await Promise.all(lanes);
  const switchedAt = await switchOf(store, collectionId);
  const wrong = seen.filter(({ form, timestamp }) => form !== (timestamp < switchedAt ? 'old' : 'new'));
  expect(wrong.slice(0, 5), `${wrong.length} of ${seen.length} answers in the other schema's form (switch at ${switchedAt})`).toEqual([]);
  return { answers: seen.length, old: seen.filter((a) => a.form === 'old').length, new: seen.filter((a) => a.form === 'new').length, tags };
}

async function expectAllNew(store: RecordStore, collectionId: string, ids: readonly string[], tags: Map<string, string>): Promise<void> {
  for (const id of ids) {
    const { record } = await store.get(collectionId, id);
    expect(formOf(record!)).toBe('new');
    expect(record!.tag).toBe(tags.get(id) ?? '');
  }
}

describe('continuous reads and writes through a cast pass', () => {
  it('SQLite: every answer is in the form of its schema, and no write is lost', async () => {
    const s = await startTestServer({ store: openSqliteStore(':memory:') });
    try {
      await s.createCollection('mr/C', schema('number', 'C'));
      const ids = await seed(s.server.service.store, 'mr/C', 3000);
      const result = await readThroughUpdate({ updater: s, readers: [s], store: s.server.service.store, collectionId: 'mr/C', ids });
      expect(result.old).toBeGreaterThan(0);
      expect(result.new).toBeGreaterThan(0);
      await expectAllNew(s.server.service.store, 'mr/C', ids, result.tags);
    } finally {
      await s.close();
    }
  }, 120_000);

  describe('PostgreSQL, two servers', () => {
    let pg: TestPostgres;
    const tables: string[] = [];
    beforeAll(async () => {
      pg = await startTestPostgres();
    }, 120_000);
    afterAll(() => dropTablesAndStop(pg, tables), 60_000);

    it('the server that did not update, with the old schema cached, answers each form exactly on its side of the switch', async () => {
      const table = uniqueTableName('migration_reads');
      tables.push(table);
      const a = await startTestServer({ store: await openPostgresStore({ connectionString: pg.url, table }) });
      const b = await startTestServer({ store: await openPostgresStore({ connectionString: pg.url, table }) });
      try {
        await a.createCollection('mr/P', schema('number', 'P'));
        const ids = await seed(a.server.service.store, 'mr/P', 2000);
        // b caches the old schema.
        expect((await b.record('mr/P', ids[0]!)).json.data.n).toBe(7);
        const result = await readThroughUpdate({ updater: a, readers: [b], store: a.server.service.store, collectionId: 'mr/P', ids });
        expect(result.old).toBeGreaterThan(0);
        expect(result.new).toBeGreaterThan(0);
        await expectAllNew(a.server.service.store, 'mr/P', ids, result.tags);
      } finally {
        await a.close();
        await b.close();
      }
    }, 180_000);
  });
});

// The records a request loads besides the one it reads or runs on (a call's record argument, a record a permission
// check walks to through a reference) are in the form of their own collection's schema too, pass or no pass.
const LOADED = (team: 'old' | 'new') => `
collection User {
  id: string;
  @delegate
  key: PublicKey;
  constructor (id: string) { this.id = id; this.key = ctx.publicKey; }
}
${
  team === 'old'
    ? `@public collection Team {
  id: string;
  boss: User;
  constructor (id: string, boss: User) { this.id = id; this.boss = boss; }
}`
    : `@public collection Team {
  id: string;
  @delegate
  lead?: User;
  constructor (id: string) { this.id = id; }
  @migrate
  promote (old: { boss: User; }) { this.lead = old.boss; }
}`
}
collection Doc {
  id: string;
  @read
  team: Team;
  text: string;
  constructor (id: string, team: Team) { this.id = id; this.team = team; this.text = ""; }
  @call(team)
  write (text: string) { this.text = text; }
}
${schema('string')}
@public collection Holder {
  id: string;
  seen: string;
  constructor (id: string) { this.id = id; this.seen = ""; }
  function look (m: M) { this.seen = m.n; }
}`;

describe.each(['SQLite', 'PostgreSQL'] as const)('records a request loads while the pass has not reached them (%s)', (backend) => {
  let pg: TestPostgres | undefined;
  const tables: string[] = [];
  let s: TestServer;
  beforeAll(async () => {
    if (backend === 'SQLite') s = await startTestServer({ store: openSqliteStore(':memory:') });
    else {
      pg = await startTestPostgres();
      const table = uniqueTableName('migration_loads');
      tables.push(table);
      s = await startTestServer({ store: await openPostgresStore({ connectionString: pg.url, table }) });
    }
  }, 120_000);
  afterAll(async () => {
    await s?.close();
    if (pg) await dropTablesAndStop(pg, tables);
  }, 60_000);

  it('a call with a record argument whose collection is mid-pass receives the new form', async () => {
    const store = s.server.service.store;
    await s.createCollection('ml/M', schema('number'));
    await s.createCollection('ml/Holder', LOADED('old'));
    const ids = await seed(store, 'ml/M', 3);
    expect((await s.create('ml/Holder', ['h'])).status).toBe(200);
    const pass = holdPass(store);
    try {
      const update = s.updateCode('ml/M', schema('string'));
      await pass.held;
      expect((await store.get('ml/M', ids[1]!)).record).toEqual({ id: ids[1], n: 7, tag: '' });
      const called = await s.call('ml/Holder', 'h', 'look', [{ collectionId: 'ml/M', id: ids[1] }]);
      expect(called.status, called.text).toBe(200);
      expect(called.json.data).toEqual({ id: 'h', seen: '7' });
      // The argument was read in the new form, not cast in the store: the pass has not reached it.
      expect((await store.get('ml/M', ids[1]!)).record).toEqual({ id: ids[1], n: 7, tag: '' });
      pass.release();
      expect((await update).status).toBe(200);
    } finally {
      pass.release();
      pass.restore();
    }
  });

  it('a permission walk through a @delegate field the migration fills decides on the new form; expand embeds it', async () => {
    const store = s.server.service.store;
    for (const name of ['User', 'Team', 'Doc']) await s.createCollection(`ml/${name}`, LOADED('old'));
    expect((await s.create('ml/User', ['alice'], KEYS.alice)).status).toBe(200);
    expect((await s.create('ml/Team', ['t', { collectionId: 'ml/User', id: 'alice' }], KEYS.alice)).status).toBe(200);
    expect((await s.create('ml/Doc', ['d', { collectionId: 'ml/Team', id: 't' }])).status).toBe(200);
    // Under the old schema the team delegates to nobody: alice may not read the doc.
    expect((await s.record('ml/Doc', 'd', KEYS.alice)).status).toBe(403);
    const pass = holdPass(store);
    try {
      const update = s.updateCode('ml/Team', LOADED('new'));
      await pass.held;
      expect((await store.get('ml/Team', 't')).record).toEqual({ id: 't', boss: { collectionId: 'ml/User', id: 'alice' } });
      // The new schema delegates through `lead`, which only the migrated team has.
      const read = await s.record('ml/Doc', 'd', KEYS.alice);
      expect(read.status, read.text).toBe(200);
      // An expanded reference is the migrated team too.
      const expanded = await s.get('/v0/collections/ml%2FDoc/records/d?expand=team', { key: KEYS.alice });
      expect(expanded.status, expanded.text).toBe(200);
      expect(expanded.json.expand).toEqual({ team: { data: { id: 't', lead: { collectionId: 'ml/User', id: 'alice' } } } });
      const written = await s.call('ml/Doc', 'd', 'write', ['hello'], KEYS.alice);
      expect(written.status, written.text).toBe(200);
      expect((await s.record('ml/Doc', 'd', KEYS.bob)).status).toBe(403);
      expect((await store.get('ml/Team', 't')).record).toEqual({ id: 't', boss: { collectionId: 'ml/User', id: 'alice' } });
      pass.release();
      const updated = await update;
      expect(updated.status, updated.text).toBe(200);
    } finally {
      pass.release();
      pass.restore();
    }
    expect((await store.get('ml/Team', 't')).record).toEqual({ id: 't', lead: { collectionId: 'ml/User', id: 'alice' } });
    expect((await s.record('ml/Doc', 'd', KEYS.alice)).json.data.text).toBe('hello');
  });
});
