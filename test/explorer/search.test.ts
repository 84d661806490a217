// The explorer's search box in Chromium against a live server: shown only for a collection with @search (read
// from its schema text), it lists the matches in relevance order with the conditions of the builder, pages them,
// and says that a search has no live updates; a collection without @search has no box.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchFieldsOf } from '../../explorer/src/search-fields.ts';
import { startTestServer, type TestServer } from '../service/support.ts';
import { buildIntoTemp, launchChromium, type TestBrowser } from './browser.ts';

const SCHEMA = `
// @search(nothing) in a comment is not a declaration
@public
collection Recipe {
  id: string;
  title: string;
  kind: string;
  @search(title);
  constructor (id: string, title: string, kind: string) { this.id = id; this.title = title; this.kind = kind; }
}

@public
collection Plain {
  id: string;
  title: string;
  constructor (id: string, title: string) { this.id = id; this.title = title; }
}`;

let build: Awaited<ReturnType<typeof buildIntoTemp>>;
let server: TestServer;
let browser: TestBrowser;
let page: Page;
const pageErrors: string[] = [];

beforeAll(async () => {
  build = await buildIntoTemp();
  // Test servers allow any signed key to create collections and have the admin key KEYS.admin.
  server = await startTestServer({ explorer: { dir: build.outDir } });
  await server.createCollection('app/Recipe', SCHEMA);
  await server.createCollection('app/Plain', SCHEMA);
  for (const [id, title, kind] of [['r1', 'Crème brûlée', 'dessert'], ['r2', 'Crêpes', 'dessert'], ['r3', 'Cream of crab soup', 'soup'], ['r4', 'Croque', 'snack']]) {
    expect((await server.create('app/Recipe', [id, title, kind])).status).toBe(200);
  }
  browser = await launchChromium();
  page = await browser.context.newPage();
  page.setDefaultTimeout(10_000);
  page.on('pageerror', (error) => pageErrors.push(error.message));
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  build?.remove();
});

const rowIds = () => page.locator('#records tbody tr').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-id') ?? ''));

describe('the explorer search box', () => {
  it('reads @search from the schema text, not from comments or other collections', () => {
    expect(searchFieldsOf(SCHEMA, 'Recipe')).toEqual(['title']);
    expect(searchFieldsOf(SCHEMA, 'Plain')).toEqual([]);
  });

  it('searches in relevance order, with the conditions, and pages', async () => {
    await page.goto(`${server.url}/explorer/#/c/app%2FRecipe`);
    await expect.poll(rowIds).toEqual(['r1', 'r2', 'r3', 'r4']);
    await page.fill('#query-search', 'CR');
    await page.click('#run-query');
    await expect.poll(rowIds).toEqual(['r2', 'r4', 'r1', 'r3']);
    await expect.poll(() => page.locator('#live-status').textContent()).toContain('no live updates');
    // With a condition from the builder's index: kind = dessert.
    await page.selectOption('#query-index', { label: 'kind' });
    await page.selectOption('select[data-field="kind"]', 'eq');
    await page.fill('input[data-field="kind"]', 'dessert');
    await page.click('#run-query');
    await expect.poll(rowIds).toEqual(['r2', 'r1']);
    // Paged: one a page.
    await page.fill('#query-limit', '1');
    await page.click('#run-query');
    await expect.poll(rowIds).toEqual(['r2']);
    await page.click('#next-page');
    await expect.poll(rowIds).toEqual(['r1']);
    expect(pageErrors).toEqual([]);
  });

  it('has no search box on a collection without @search', async () => {
    await page.goto(`${server.url}/explorer/#/c/app%2FPlain`);
    await expect.poll(() => page.locator('#run-query').count()).toBe(1);
    expect(await page.locator('#query-search').count()).toBe(0);
  });
});
