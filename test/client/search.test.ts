// vellum/client's search, against a live server: `Collection.search` and `Query.search` (typed: only on a schema
// with `searchFields`, as `vellum generate client` emits for a collection with @search), paging with the cursor
// alone, and the refusals of a search's count and stream.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, VellumError, type CollectionSchema } from '../../src/client/index.ts';
import { generateClient } from '../../src/codegen/index.ts';
import { startTestServer, type TestServer } from '../service/support.ts';

const SCHEMA = `
@public
collection Recipe {
  id: string;
  title: string;
  notes?: string;
  kind: string;
  @search(title, notes);
  constructor (id: string, title: string, kind: string) { this.id = id; this.title = title; this.kind = kind; }
}

@public
collection Plain {
  id: string;
  title: string;
  constructor (id: string, title: string) { this.id = id; this.title = title; }
}`;

interface RecipeSchema extends CollectionSchema {
  name: 'Recipe';
  record: { id: string; title: string; notes?: string; kind: string };
  constructorArgs: [id: string, title: string, kind: string];
  functions: {};
  queryFields: { id: string; title: string; kind: string };
  searchFields: 'title' | 'notes';
}
interface PlainSchema extends CollectionSchema {
  name: 'Plain';
  record: { id: string; title: string };
  constructorArgs: [id: string, title: string];
  functions: {};
  queryFields: { id: string; title: string };
}

describe('vellum/client search', () => {
  let s: TestServer;
  let client: Client;
  beforeAll(async () => {
    s = await startTestServer();
    await s.createCollection('x/Recipe', SCHEMA);
    await s.createCollection('x/Plain', SCHEMA);
    client = new Client({ baseURL: `${s.url}/v0`, namespace: 'x' });
    const recipes = client.collection<RecipeSchema>('Recipe');
    for (const [id, title, kind] of [['r1', 'Crème brûlée', 'dessert'], ['r2', 'Crêpes', 'dessert'], ['r3', 'Cream of crab soup', 'soup'], ['r4', 'Croque', 'snack']] as const) {
      await recipes.create(id, title, kind);
    }
  });
  afterAll(() => s?.close());

  it('searches, with equality filters and paging by the cursor alone', async () => {
    const recipes = client.collection<RecipeSchema>('Recipe');
    expect((await recipes.search('CR')).records.map((r) => r.id)).toEqual(['r2', 'r4', 'r1', 'r3']);
    expect((await recipes.search('cre', { where: { kind: 'dessert' } })).records.map((r) => r.id)).toEqual(['r2', 'r1']);
    const first = await recipes.query().search('cr').limit(3).get();
    expect(first.records.map((r) => r.id)).toEqual(['r2', 'r4', 'r1']);
    const next = await recipes.list({ after: first.cursor.after! });
    expect(next.records.map((r) => r.id)).toEqual(['r3']);
  });

  it('refuses a search of a collection without @search (typed, and by the service) and a search count', async () => {
    const plain = client.collection<PlainSchema>('Plain');
    // @ts-expect-error: Plain declares no @search, so its search takes no words.
    const refused = await plain.search('x').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(VellumError);
    expect(refused).toMatchObject({ reason: 'indexer/no-search-index' });
    const recipes = client.collection<RecipeSchema>('Recipe');
    expect(() => recipes.query().search('cr').count()).toThrow(/a search has no count/);
  });

  it('vellum generate client emits searchFields for a collection with @search', () => {
    const { code: generated, errors } = generateClient([{ file: 'recipes.polylang', text: SCHEMA }]);
    expect(errors).toEqual([]);
    const code = generated!;
    const recipe = code.slice(code.indexOf('export interface RecipeSchema'), code.indexOf('export type RecipeCollection'));
    expect(recipe).toContain("searchFields: 'title' | 'notes';");
    const plain = code.slice(code.indexOf('export interface PlainSchema'), code.indexOf('export type PlainCollection'));
    expect(plain).not.toContain('searchFields');
  });
});
