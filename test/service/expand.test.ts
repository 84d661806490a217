// Expanding references (`expand=`) on get, list and streams, on SQLite and PostgreSQL: a readable record is put
// beside its reference, an unreadable or missing one is null (the reference in `data` stays as it is), arrays of
// references element by element, two levels, in a stream's puts; and the 400s of bad paths.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, ethPersonalSigner, type CollectionSchema } from '../../src/client/index.ts';
import { startTestPostgres, storeBackends, type TestPostgres } from '../support/postgres.ts';
import { KEYS, errorOf, jwkOf, startTestServer, type TestServer } from './support.ts';

const SCHEMA = `
collection Person {
  id: string;
  @read
  owner: PublicKey;
  name: string;
  constructor (id: string, owner: PublicKey, name: string) {
    this.id = id;
    this.owner = owner;
    this.name = name;
  }
  @call(owner)
  remove () {
    selfdestruct();
  }
}

@public
collection Team {
  id: string;
  name: string;
  lead?: Person;
  constructor (id: string, name: string) {
    this.id = id;
    this.name = name;
  }
  setLead (lead: Person) {
    this.lead = lead;
  }
}

@public
collection Task {
  id: string;
  title: string;
  team: Team;
  assignee?: Person;
  watchers?: Person[];
  constructor (id: string, title: string, team: Team) {
    this.id = id;
    this.title = title;
    this.team = team;
  }
  assign (person: Person) {
    this.assignee = person;
  }
  watch (people: Person[]) {
    this.watchers = people;
  }
  rename (title: string) {
    this.title = title;
  }
}
`;

const ref = (collection: string, id: string) => ({ collectionId: `x/${collection}`, id });

/** The schemas as `vellum generate client` would type them, as far as expand needs. */
interface PersonSchema extends CollectionSchema {
  name: 'Person';
  record: { id: string; owner: unknown; name: string };
  constructorArgs: [];
  functions: {};
  queryFields: {};
}
interface TeamSchema extends CollectionSchema {
  name: 'Team';
  record: { id: string; name: string };
  constructorArgs: [];
  functions: {};
  queryFields: { id: string };
  references: { lead: PersonSchema };
}
interface TaskSchema extends CollectionSchema {
  name: 'Task';
  record: { id: string; title: string };
  constructorArgs: [];
  functions: {};
  queryFields: { id: string };
  references: { team: TeamSchema; assignee: PersonSchema; watchers: PersonSchema[] };
}

let postgres: TestPostgres;
beforeAll(async () => {
  postgres = await startTestPostgres();
}, 120_000);
afterAll(() => postgres?.stop());

const backends = storeBackends(() => postgres);

describe.each(backends)('expand on %s', (_name, openStore) => {
  let s: TestServer;
  const alice = { id: 'p-alice', owner: jwkOf(KEYS.alice), name: 'Alice' };
  const bob = { id: 'p-bob', owner: jwkOf(KEYS.bob), name: 'Bob' };

  beforeAll(async () => {
    s = await startTestServer({ store: await openStore() });
    for (const name of ['Person', 'Team', 'Task']) await s.createCollection(`x/${name}`, SCHEMA);
    const ok = async (pending: Promise<{ status: number; text: string }>) => {
      const answer = await pending;
      expect(answer.status, answer.text).toBe(200);
    };
    await ok(s.create('x/Person', [alice.id, alice.owner, alice.name], KEYS.alice));
    await ok(s.create('x/Person', [bob.id, bob.owner, bob.name], KEYS.bob));
    await ok(s.create('x/Person', ['p-gone', jwkOf(KEYS.alice), 'Gone'], KEYS.alice));
    await ok(s.create('x/Team', ['red', 'Red']));
    await ok(s.call('x/Team', 'red', 'setLead', [ref('Person', 'p-alice')], KEYS.alice));
    await ok(s.create('x/Task', ['t1', 'One', ref('Team', 'red')]));
    await ok(s.call('x/Task', 't1', 'assign', [ref('Person', 'p-alice')], KEYS.alice));
    await ok(s.call('x/Task', 't1', 'watch', [[ref('Person', 'p-alice'), ref('Person', 'p-bob'), ref('Person', 'p-gone')]], KEYS.alice));
    await ok(s.create('x/Task', ['t2', 'Two', ref('Team', 'red')]));
    await ok(s.call('x/Task', 't2', 'assign', [ref('Person', 'p-gone')], KEYS.alice));
    await ok(s.call('x/Person', 'p-gone', 'remove', [], KEYS.alice));
  });
  afterAll(() => s?.close());

  const get = (id: string, expand: string, key?: string) => s.get(`/v0/collections/x%2FTask/records/${id}?expand=${encodeURIComponent(expand)}`, { key });

  it('puts a readable record beside its reference, and leaves data as it was', async () => {
    const answer = await get('t1', 'assignee,team', KEYS.alice);
    expect(answer.status, answer.text).toBe(200);
    const plain = await s.record('x/Task', 't1', KEYS.alice);
    expect(answer.json.data).toEqual(plain.json.data);
    expect(answer.json.data.assignee).toEqual(ref('Person', 'p-alice'));
    expect(answer.json.expand).toEqual({ assignee: { data: alice }, team: { data: { id: 'red', name: 'Red', lead: ref('Person', 'p-alice') } } });
    // Without expand, the answer is as before: no expand key at all.
    expect(Object.keys(plain.json)).toEqual(['data', 'block']);
  });

  it('gives null, never an error, for a record the caller may not read and for one that does not exist', async () => {
    const asBob = await get('t1', 'assignee', KEYS.bob);
    expect(asBob.status).toBe(200);
    expect(asBob.json.expand).toEqual({ assignee: null });
    expect(asBob.json.data.assignee).toEqual(ref('Person', 'p-alice'));
    const unsigned = await get('t1', 'assignee');
    expect(unsigned.json.expand).toEqual({ assignee: null });
    // p-gone was deleted: the same null as an unreadable one, for its owner too.
    expect((await get('t2', 'assignee', KEYS.alice)).json.expand).toEqual({ assignee: null });
  });

  it('expands an array of references element by element, each checked', async () => {
    const answer = await get('t1', 'watchers', KEYS.alice);
    expect(answer.json.data.watchers).toHaveLength(3);
    expect(answer.json.expand).toEqual({ watchers: [{ data: alice }, null, null] });
    expect((await get('t1', 'watchers', KEYS.bob)).json.expand).toEqual({ watchers: [null, { data: bob }, null] });
    // An unset optional field is null too.
    expect((await get('t2', 'watchers', KEYS.alice)).json.expand).toEqual({ watchers: null });
  });

  it('expands two levels, checking the second as the first', async () => {
    const answer = await get('t1', 'team.lead', KEYS.alice);
    expect(answer.json.expand).toEqual({ team: { data: { id: 'red', name: 'Red', lead: ref('Person', 'p-alice') }, expand: { lead: { data: alice } } } });
    expect((await get('t1', 'team.lead,assignee', KEYS.bob)).json.expand).toEqual({
      team: { data: { id: 'red', name: 'Red', lead: ref('Person', 'p-alice') }, expand: { lead: null } },
      assignee: null,
    });
  });

  it('expands every record of a list page', async () => {
    const answer = await s.list('x/Task', { expand: 'assignee', sort: [['id', 'asc']] }, KEYS.alice);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.data.map((item: { data: { id: string }; expand: unknown }) => [item.data.id, item.expand])).toEqual([
      ['t1', { assignee: { data: alice } }],
      ['t2', { assignee: null }],
    ]);
    expect(answer.json.data[0].block).toBeDefined();
    expect(answer.json.cursor.after).toEqual(expect.any(String));
  });

  it('expands the records of a stream, at the start and on each change', async () => {
    const controller = new AbortController();
    const response = await fetch(`${s.url}/v0/collections/x%2FTask/records?stream=1&expand=assignee&where=${encodeURIComponent('{"id":"t1"}')}`, { signal: controller.signal });
    expect(response.status).toBe(200);
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    const nextPut = async () => {
      for (;;) {
        const match = /event: put\n(?:id: .*\n)?data: (.*)\n\n/.exec(buffer);
        if (match) {
          buffer = buffer.slice(match.index + match[0].length);
          return JSON.parse(match[1]!);
        }
        const { value, done } = await reader.read();
        if (done) throw new Error('the stream ended');
        buffer += value;
      }
    };
    try {
      // Unsigned: alice's person is not readable, so null.
      expect(await nextPut()).toEqual({ id: 't1', data: expect.objectContaining({ id: 't1' }), expand: { assignee: null } });
      await s.call('x/Task', 't1', 'assign', [ref('Person', 'p-bob')], KEYS.bob);
      const changed = await nextPut();
      expect(changed.data.assignee).toEqual(ref('Person', 'p-bob'));
      expect(changed.expand).toEqual({ assignee: null });
    } finally {
      controller.abort();
      await s.call('x/Task', 't1', 'assign', [ref('Person', 'p-alice')], KEYS.alice);
    }
    const signed = await get('t1', 'assignee', KEYS.alice);
    expect(signed.json.expand).toEqual({ assignee: { data: alice } });
  });

  it('is typed in vellum/client: getExpanded and listExpanded', async () => {
    const client = new Client({ baseURL: `${s.url}/v0`, namespace: 'x', signer: ethPersonalSigner(KEYS.alice) });
    const tasks = client.collection<TaskSchema>('Task', { signReads: true });
    const one = await tasks.record('t1').getExpanded(['assignee', 'team.lead']);
    expect(one.record.title).toBe('One');
    expect(one.expand.assignee?.data.name).toBe('Alice');
    expect(one.expand.team?.expand.lead?.data.name).toBe('Alice');
    const page = await tasks.listExpanded(['watchers'], { sort: [['id', 'asc']] });
    expect(page.records.map(({ record, expand }) => [record.id, expand.watchers?.map((entry) => entry?.data.name ?? null) ?? null])).toEqual([
      ['t1', ['Alice', null, null]],
      ['t2', null],
    ]);
  });

  it('refuses a bad path with a 400 naming it and the field, before reading anything', async () => {
    const cases: [string, string][] = [
      ['title', 'query parameter "expand": "title": field "title" of collection "x/Task" is a string, not a reference to a record (or an array of them)'],
      ['nope', 'query parameter "expand": "nope": collection "x/Task" has no field "nope"'],
      ['team.name', 'query parameter "expand": "team.name": field "name" of collection "x/Team" is a string, not a reference to a record (or an array of them)'],
      ['team.lead.owner', 'query parameter "expand": "team.lead.owner" has 3 levels; at most 2 (field.field) are expanded'],
      ['team,', 'query parameter "expand": "" is not a field path; expected field or field.field, separated by commas'],
    ];
    for (const [expand, message] of cases) {
      for (const answer of [await get('t1', expand, KEYS.alice), await s.list('x/Task', { expand }, KEYS.alice)]) {
        expect(answer.status, expand).toBe(400);
        expect(errorOf(answer)).toEqual({ code: 'invalid-argument', reason: 'request/invalid-query', message });
      }
    }
    const count = await s.list('x/Task', { expand: 'team', count: 'true' });
    expect(errorOf(count)?.message).toBe('query parameter "expand" does not apply to count=true, which answers with a number');
    const nft = await s.get('/v0/collections/x%2FTask/records/t1?expand=team&format=nft');
    expect(errorOf(nft)?.message).toBe('query parameter "expand" does not apply to format=nft, which answers with the bare record');
    // An unknown collection is still its 404.
    expect(errorOf(await s.get('/v0/collections/x%2FNope/records/t1?expand=team'))?.reason).toBe('collection/not-found');
  });
});
