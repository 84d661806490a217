// `search=` on lists over HTTP, on SQLite and PostgreSQL: relevance order, paging both ways with cursors alone
// (they carry the search), equality filters, confined lists of a private collection, a schema update that adds
// @search to stored records, and every refusal in the error envelope.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPostgres, storeBackends, type TestPostgres } from '../support/postgres.ts';
import { KEYS, errorOf, hexOf, jwkOf, startTestServer, type Answer, type TestServer } from './support.ts';

const NOTE = (search: string) => `
collection Note {
  id: string;
  @read
  owner: PublicKey;
  title: string;
  body?: string;
  ${search}
  constructor (id: string, title: string, body: string) {
    this.id = id;
    this.owner = ctx.publicKey;
    this.title = title;
    this.body = body;
  }
}`;

const PLAIN = `
@public
collection Plain {
  id: string;
  title: string;
  constructor (id: string, title: string) { this.id = id; this.title = title; }
}`;

let postgres: TestPostgres;
beforeAll(async () => {
  postgres = await startTestPostgres();
}, 120_000);
afterAll(() => postgres?.stop());

const backends = storeBackends(() => postgres);

const ids = (answer: Answer) => {
  expect(answer.status, answer.text).toBe(200);
  return (answer.json.data as { data: { id: string } }[]).map((item) => item.data.id);
};

describe.each(backends)('search= on %s', (_name, openStore) => {
  let s: TestServer;
  const alice = { owner: jwkOf(KEYS.alice) };

  beforeAll(async () => {
    s = await startTestServer({ store: await openStore() });
    // Created without @search: the update below adds it, and the index is built for the stored records.
    await s.createCollection('x/Note', NOTE(''));
    await s.createCollection('x/Plain', PLAIN);
    const notes: [string, string, string, string][] = [
      ['n1', 'Crème brûlée', 'A dessert', KEYS.alice],
      ['n2', 'creme', '', KEYS.alice],
      ['n3', 'Café crème', 'with a long body of several words', KEYS.alice],
      ['n4', 'CRÈME fraîche', '', KEYS.bob],
      ['n5', 'Tarte', 'no cream here', KEYS.alice],
      ['n0', 'crémeux', '', KEYS.alice],
    ];
    for (const [id, title, body, key] of notes) {
      const answer = await s.create('x/Note', [id, title, body], key);
      expect(answer.status, answer.text).toBe(200);
    }
    const updated = await s.updateCode('x/Note', NOTE('@search(title, body);'));
    expect(updated.status, updated.text).toBe(200);
  });
  afterAll(() => s?.close());

  it('finds records by every word, the last as a prefix, fewest words first, then id', async () => {
    expect(ids(await s.list('x/Note', { search: 'CREME', where: alice }, KEYS.alice))).toEqual(['n0', 'n2', 'n1', 'n3']);
    expect(ids(await s.list('x/Note', { search: 'creme', where: alice }, KEYS.alice))).toEqual(['n0', 'n2', 'n1', 'n3']);
    expect(ids(await s.list('x/Note', { search: 'crème brû', where: alice }, KEYS.alice))).toEqual(['n1']);
    expect(ids(await s.list('x/Note', { search: 'dessert', where: alice }, KEYS.alice))).toEqual(['n1']);
    expect(ids(await s.list('x/Note', { search: 'cream', where: { owner: hexOf(KEYS.alice) } }, KEYS.alice))).toEqual(['n5']);
    expect(ids(await s.list('x/Note', { search: 'fraîche', where: { owner: jwkOf(KEYS.bob) } }, KEYS.bob))).toEqual(['n4']);
  });

  it('pages both ways with the cursor alone, which carries the search and the where', async () => {
    const first = await s.list('x/Note', { search: 'crem', where: alice, limit: '2' }, KEYS.alice);
    expect(ids(first)).toEqual(['n0', 'n2']);
    const second = await s.list('x/Note', { after: first.json.cursor.after }, KEYS.alice);
    expect(ids(second)).toEqual(['n1', 'n3']);
    const third = await s.list('x/Note', { after: second.json.cursor.after }, KEYS.alice);
    expect(ids(third)).toEqual([]);
    const back = await s.list('x/Note', { before: second.json.cursor.before }, KEYS.alice);
    expect(ids(back)).toEqual(['n0', 'n2']);
  });

  it('confines a search of a private collection as a list: the where must pin the caller', async () => {
    const answer = await s.list('x/Note', { search: 'creme' }, KEYS.alice);
    expect(answer.status).toBe(403);
    expect(errorOf(answer)?.reason).toBe('permission/unconfined-query');
    const other = await s.list('x/Note', { search: 'creme', where: { owner: jwkOf(KEYS.bob) } }, KEYS.alice);
    expect(other.status).toBe(403);
  });

  it('refuses bad searches with a 400 in the envelope', async () => {
    const refused = async (collection: string, query: Record<string, unknown>, reason: string, message: RegExp) => {
      const answer = await s.list(collection, query, KEYS.alice);
      expect(answer.status, answer.text).toBe(400);
      expect(errorOf(answer)).toMatchObject({ code: 'invalid-argument', reason });
      expect(errorOf(answer)!.message).toMatch(message);
    };
    await refused('x/Plain', { search: 'x' }, 'indexer/no-search-index', /collection "x\/Plain" declares no @search/);
    await refused('x/Note', { search: '', where: alice }, 'indexer/invalid-search', /no words/);
    await refused('x/Note', { search: '…', where: alice }, 'indexer/invalid-search', /no words/);
    await refused('x/Note', { search: 'w'.repeat(257), where: alice }, 'indexer/invalid-search', /257 characters; at most 256/);
    await refused('x/Note', { search: 'x', where: alice, sort: [['title', 'asc']] }, 'indexer/invalid-search', /ordered by relevance.*no sort/);
    await refused('x/Note', { search: 'x', where: { owner: jwkOf(KEYS.alice), title: { $gt: 'a' } } }, 'indexer/invalid-search', /equality filters/);
    await refused('x/Note', { search: 'x', where: alice, count: 'true' }, 'request/invalid-query', /"search" does not apply to count=true/);
    await refused('x/Note', { search: 'x', where: alice, stream: '1' }, 'request/invalid-query', /"search" does not apply to stream=1/);
  });
});
