// The explorer in a real browser (Chromium through playwright-core) against a live server that lets any signed
// key create collections (policy anyone, as the other test servers): asked to sign in when creating a collection
// unsigned, generate a key, create a collection from the editor (after seeing a broken one refused at line:col),
// create a signed record, call a function, see a refused call's error envelope, filter (with $in, $nin, $ne too) and page a list and see how many
// match, with where the page is and the paging buttons off at either end, watch a change made through the API
// arrive live over the push stream, list a private collection through the key in use (its sign-in state without a
// key; the list read again when the key changes; the refusal of a list of all), and edit the schema (refused to a
// key that does not own it, saved by the admin key pasted in). A screenshot is taken on the
// way (docs/explorer.png is one; set VELLUM_UPDATE_SCREENSHOT=1 to write it there again).
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PublicKey, publicKeyOf, signRequest } from '../../src/auth/index.ts';
import { startServer, type RunningServer } from '../../src/service/index.ts';
import { openSqliteStore, type RecordStore } from '../../src/store/index.ts';
import { buildIntoTemp, launchChromium, type TestBrowser } from './browser.ts';

const BROKEN = `@public
collection Task {
  id: string;
  title: string;
  priority: number = 1;
}
`;

const TASK = `@public
collection Task {
  id: string;
  title: string;
  done: boolean;
  priority: number;
  owner: PublicKey;

  @index(done, priority);

  constructor (id: string, title: string, priority: number) {
    this.id = id;
    this.title = title;
    this.priority = priority;
    this.done = false;
    this.owner = ctx.publicKey;
  }

  @call(owner)
  complete () {
    this.done = true;
  }

  @call(owner)
  rename (title: string) {
    this.title = title;
  }
}
`;

const API_KEY = `0x${'42'.repeat(32)}`;
/** The server's admin key: it may change any schema (docs/service.md "Securing a deployment"). */
const ADMIN_KEY = `0x${'ad'.repeat(32)}`;

let build: Awaited<ReturnType<typeof buildIntoTemp>>;
let server: RunningServer;
let store: RecordStore;
let browser: TestBrowser;
let page: Page;
/** The private key of the first key the page generated, which owns app/Task and task-1. */
let ownerPrivateKey = '';
const pageErrors: string[] = [];

beforeAll(async () => {
  build = await buildIntoTemp();
  store = openSqliteStore(':memory:');
  server = await startServer({
    port: 0,
    store,
    explorer: { dir: build.outDir },
    schemaAccess: { adminKeys: [publicKeyOf(ADMIN_KEY)], createPolicy: 'anyone' },
    rateLimits: false,
  });
  browser = await launchChromium();
  page = await browser.context.newPage();
  // A step that cannot happen fails in seconds, naming what it waited for, instead of at the test's timeout.
  page.setDefaultTimeout(10_000);
  page.on('pageerror', (error) => pageErrors.push(error.message));
  // Chromium logs every answer of 4xx as a console error (the tests make several on purpose); anything else,
  // such as a Content-Security-Policy violation, is a fault of the page.
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource: the server responded with a status of 4')) pageErrors.push(message.text());
  });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  build?.remove();
});

async function apiCreate(args: unknown[]): Promise<void> {
  const body = JSON.stringify({ args });
  const response = await fetch(`${server.url}/v0/collections/app%2FTask/records`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-polybase-signature': signRequest(API_KEY, body) },
    body,
  });
  expect(response.status, await response.clone().text()).toBe(200);
}

/** Creates the collection `id` through the API, signed by the admin key (an unsigned request never may). */
async function apiCreateCollection(id: string, code: string): Promise<void> {
  const body = JSON.stringify({ args: [id, code] });
  const response = await fetch(`${server.url}/v0/collections/Collection/records`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-polybase-signature': signRequest(ADMIN_KEY, body) },
    body,
  });
  expect(response.status, await response.clone().text()).toBe(200);
}

async function apiRecord(id: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${server.url}/v0/collections/app%2FTask/records/${id}`);
  return ((await response.json()) as { data: Record<string, unknown> }).data;
}

/** The public key the page signs as (shown short; the whole of it in data-key). */
function signingKeyHex(): Promise<string | null> {
  return page.getAttribute('#public-key', 'data-key');
}

/** Opens the key menu (generate, paste, import, show, remember) unless it is open. */
async function openKeyMenu(): Promise<void> {
  if (!(await page.locator('#key-menu').evaluate((menu) => (menu as unknown as { open: boolean }).open))) await page.click('#key-menu-toggle');
}

function rowIds(): Promise<string[]> {
  return page.locator('#records tbody tr').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-id') ?? ''));
}

describe('the explorer in Chromium', () => {
  it('asks to sign in to create a collection unsigned, and signs in with a generated key', async () => {
    await page.goto(`${server.url}/`);
    await page.click('text=Open the Vellum Explorer');
    await page.waitForURL(/\/explorer\/$/);
    await page.click('#new-collection');
    await page.fill('#new-collection-id', 'app/Task');
    await page.fill('.editor-input', TASK);
    await page.click('#create-collection');
    // The server's 403 (an unsigned request never changes a schema), said as what to do, the answer a click away.
    const needed = page.locator('#new-collection-result .sign-in-needed');
    await expect.poll(() => needed.locator('h3').textContent()).toBe('Sign in with a key to create collections');
    expect(await needed.locator('.error-box').textContent()).toContain('permission/create-collection');
    expect(await needed.locator('.error-box').isVisible()).toBe(false);
    expect((await fetch(`${server.url}/v0/collections/Collection/records/app%2FTask`)).status).toBe(404);
    // "Sign in" opens the key menu; the key generated there owns what it creates.
    await needed.locator('button.sign-in').click();
    await page.click('#generate-key');
    expect(await signingKeyHex()).toMatch(/^0x[0-9a-f]{128}$/);
  });

  it('creates a collection from the editor, after showing a broken one\'s error at line and column', async () => {
    await page.fill('.editor-input', BROKEN);
    await page.click('#create-collection');
    const diagnostic = page.locator('.diagnostic').first();
    await expect.poll(() => diagnostic.count()).toBe(1);
    // `priority: number = 1;` on line 5: the error names the place.
    expect(await diagnostic.locator('.where').textContent()).toMatch(/^5:\d+$/);
    expect(await page.locator('.gutter .error-line').textContent()).toBe('5');
    expect(await page.locator('#new-collection-result .error-box').textContent()).toContain('collection/invalid-schema');
    // Clicking the error puts the caret on that line.
    await diagnostic.click();
    const caretLine = await page.locator('.editor-input').evaluate((element) => {
      // The test's tsconfig has no DOM types: the textarea's two members, as this callback runs in the page.
      const area = element as unknown as { value: string; selectionStart: number };
      return area.value.slice(0, area.selectionStart).split('\n').length;
    });
    expect(caretLine).toBe(5);

    await page.fill('.editor-input', TASK);
    await page.click('#create-collection');
    await page.waitForURL(/#\/c\/app%2FTask\/schema$/);
    expect(await page.locator('#schema-code .tok-keyword').first().textContent()).toBe('collection');
    expect(await page.locator('#schema-code .tok-decorator').first().textContent()).toBe('@public');
    expect(await page.locator('#collections a[data-id="app/Task"]').count()).toBe(1);
    const stored = await fetch(`${server.url}/v0/collections/Collection/records/app%2FTask`);
    const created = ((await stored.json()) as { data: { code: string; publicKey: unknown } }).data;
    expect(created.code).toBe(TASK);
    // Signed by the page's key, which now owns the collection.
    expect(PublicKey.fromJwk(created.publicKey).toHex()).toBe(await signingKeyHex());
  });

  it('creates a record signed with the generated key', async () => {
    const publicKey = await signingKeyHex();
    expect(publicKey).toMatch(/^0x[0-9a-f]{128}$/);

    await page.click('a[role="tab"]:has-text("Records")');
    await page.fill('#create-id', 'task-1');
    await page.fill('#create-title', 'write the docs');
    await page.fill('#create-priority', '3');
    await page.click('#create-record');
    await expect.poll(() => page.locator('#create-result').textContent()).toBe('Created task-1');
    // The constructor stored ctx.publicKey: the server recovered the page's key from its signature.
    const record = await apiRecord('task-1');
    expect(PublicKey.fromJwk(record.owner).toHex()).toBe(publicKey);
    expect(record).toMatchObject({ id: 'task-1', title: 'write the docs', priority: 3, done: false });
    // The list, live, shows the new record.
    await expect.poll(rowIds).toEqual(['task-1']);
  });

  it('calls a function with the key, and shows the error envelope when another key calls it', async () => {
    await page.click('#records tr[data-id="task-1"]');
    const complete = page.locator('form[data-function="complete"]');
    await complete.locator('button[type="submit"]').click();
    await expect.poll(() => complete.locator('.result').textContent()).toBe('complete done');
    expect(await apiRecord('task-1')).toMatchObject({ done: true });
    expect(await page.locator('#record-detail .json').textContent()).toContain('"done": true');

    const rename = page.locator('form[data-function="rename"]');
    await rename.locator('input[name="title"]').fill('written by someone else');
    const ownerKey = await signingKeyHex();
    await openKeyMenu();
    await page.click('#show-private-key');
    ownerPrivateKey = /0x[0-9a-f]{64}/.exec((await page.locator('#key-message').textContent()) ?? '')?.[0] ?? '';
    await page.click('#key-menu-toggle');
    expect(publicKeyOf(ownerPrivateKey).toHex()).toBe(ownerKey);
    await openKeyMenu();
    await page.click('#generate-key');
    expect(await signingKeyHex()).not.toBe(ownerKey);
    await rename.locator('button[type="submit"]').click();
    const error = rename.locator('.error-box');
    await expect.poll(() => error.count()).toBe(1);
    expect(await error.textContent()).toContain('403 permission-denied');
    expect(await error.textContent()).toContain('unauthorized');
    expect(await apiRecord('task-1')).toMatchObject({ title: 'write the docs' });
  });

  it('filters with a where and sort built from an index, and pages both ways', async () => {
    for (const [id, title, priority] of [['task-2', 'plan', 1], ['task-3', 'build', 5], ['task-4', 'test', 2], ['task-5', 'ship', 4]] as const) {
      await apiCreate([id, title, priority]);
    }
    await expect.poll(rowIds).toEqual(['task-1', 'task-2', 'task-3', 'task-4', 'task-5']);

    // The (done, priority) index: done = false and priority ≥ 2, in priority order.
    await page.selectOption('#query-index', { label: 'done, priority' });
    await page.selectOption('select[data-field="done"]', 'eq');
    await page.fill('input[data-field="done"]', 'false');
    await page.selectOption('select[data-field="priority"]', '$gte');
    await page.fill('input[data-field="priority"]', '2');
    await page.click('#run-query');
    await expect.poll(rowIds).toEqual(['task-4', 'task-5', 'task-3']);
    await expect.poll(() => page.locator('#record-count').textContent()).toBe('3 matching records');

    await page.selectOption('#query-order', 'reversed');
    await page.fill('#query-limit', '2');
    await page.click('#run-query');
    await expect.poll(rowIds).toEqual(['task-3', 'task-5']);
    // Where the page is in the result, and the buttons at its ends: no Previous on the first page...
    await expect.poll(() => page.locator('#page-position').textContent()).toBe('rows 1–2 of 3');
    expect(await page.locator('#previous-page').isDisabled()).toBe(true);
    await page.click('#next-page');
    await expect.poll(rowIds).toEqual(['task-4']);
    // ...and no Next on the last.
    await expect.poll(() => page.locator('#page-position').textContent()).toBe('rows 3–3 of 3');
    expect(await page.locator('#next-page').isDisabled()).toBe(true);
    expect(await page.locator('#previous-page').isDisabled()).toBe(false);
    await page.click('#previous-page');
    await expect.poll(rowIds).toEqual(['task-3', 'task-5']);
    await expect.poll(() => page.locator('#page-position').textContent()).toBe('rows 1–2 of 3');
    expect(await page.locator('#previous-page').isDisabled()).toBe(true);
    // Paging does not change how many match.
    expect(await page.locator('#record-count').textContent()).toBe('3 matching records');

    // `in` on the priority index: priority $in [1, 3, 5], one point range per value, and its count.
    await page.selectOption('#query-order', 'index');
    await page.fill('#query-limit', '25');
    await page.selectOption('#query-index', { label: 'priority' });
    await page.selectOption('select[data-field="priority"]', '$in');
    await page.fill('input[data-field="priority"]', '1, 3, 5');
    await page.click('#run-query');
    await expect.poll(rowIds).toEqual(['task-2', 'task-1', 'task-3']);
    await expect.poll(() => page.locator('#record-count').textContent()).toBe('3 matching records');
    // `not in` and `≠` too; a list value that is not a number is refused in the page.
    await page.selectOption('select[data-field="priority"]', '$nin');
    await page.click('#run-query');
    await expect.poll(rowIds).toEqual(['task-4', 'task-5']);
    await expect.poll(() => page.locator('#record-count').textContent()).toBe('2 matching records');
    await page.selectOption('select[data-field="priority"]', '$ne');
    await page.fill('input[data-field="priority"]', '5');
    await page.click('#run-query');
    await expect.poll(rowIds).toEqual(['task-2', 'task-4', 'task-1', 'task-5']);
    await expect.poll(() => page.locator('#record-count').textContent()).toBe('4 matching records');
    await page.selectOption('select[data-field="priority"]', '$in');
    await page.fill('input[data-field="priority"]', '1, high');
    await page.click('#run-query');
    await expect.poll(() => page.locator('.query-builder .form-problem').textContent()).toBe('priority: expected a number, got "high"');

    await page.selectOption('#query-index', { label: 'done, priority' });
    await page.selectOption('select[data-field="done"]', 'eq');
    await page.fill('input[data-field="done"]', 'false');
    await page.selectOption('select[data-field="priority"]', '$gte');
    await page.fill('input[data-field="priority"]', '2');

    // Two range fields are served (the second filtered during the scan): done > false and priority ≥ 2, no error.
    await page.selectOption('#query-order', 'index');
    await page.fill('#query-limit', '25');
    await page.selectOption('select[data-field="done"]', '$gt');
    await page.click('#run-query');
    await expect.poll(() => page.locator('#record-count').textContent()).toMatch(/^\d+ matching records?$/);
    expect(await page.locator('#records .error-box').count()).toBe(0);
    // A query no index serves is the server's error, shown as it came: an alternative on title in the order
    // (done, priority) needs @index(title, done, priority).
    await page.click('#add-or');
    const alternative = page.locator('.or-group[data-alternative="1"]');
    await alternative.locator('select.or-index').selectOption({ label: 'title' });
    await alternative.locator('select[data-or-field="title"]').selectOption('eq');
    await alternative.locator('input[data-or-field="title"]').fill('plan');
    await page.click('#run-query');
    await expect.poll(() => page.locator('#records .error-box').count()).toBe(1);
    expect(await page.locator('#records .error-box').textContent()).toMatch(/indexer\//);
    expect(await page.locator('#record-count').textContent()).toBe('');
    await page.click('button[aria-label="remove alternative 1"]');
  });

  it('shows a change made through the API arrive live in the filtered list', async () => {
    await page.selectOption('select[data-field="done"]', 'eq');
    await page.click('#run-query');
    await expect.poll(rowIds).toEqual(['task-4', 'task-5', 'task-3']);
    await expect.poll(() => page.locator('#live-status').textContent()).toBe('Live: waiting for changes');
    await expect.poll(() => page.locator('#record-count').textContent()).toBe('3 matching records');
    // Followed by the query's push stream, not long-polls.
    expect(await page.locator('#live-status').getAttribute('data-mode')).toBe('stream');
    await page.click('#records tr[data-id="task-5"]');

    await apiCreate(['task-6', 'celebrate', 3]);
    await expect.poll(rowIds, { timeout: 15_000 }).toEqual(['task-4', 'task-6', 'task-5', 'task-3']);
    expect(await page.locator('#records tr[data-id="task-6"]').getAttribute('class')).toContain('changed');
    expect(await page.locator('#live-status').textContent()).toMatch(/^Live: updated at /);
    await expect.poll(() => page.locator('#record-count').textContent()).toBe('4 matching records');

    const shot = await page.screenshot({ path: join(build.outDir, 'explorer.png') });
    expect(shot.length).toBeGreaterThan(10_000);
    if (process.env.VELLUM_UPDATE_SCREENSHOT === '1') copyFileSync(join(build.outDir, 'explorer.png'), join(import.meta.dirname, '../../docs/explorer.png'));
  });

  it('edits the schema: refused to a key that does not own it, then as the admin key an error marked at its line, then a good change saved', async () => {
    await page.click('a[role="tab"]:has-text("Schema")');
    // It was created by the first generated key; the page now signs as the second.
    expect(await page.locator('.schema-view').textContent()).toContain('only that key and admin keys may update it');
    await page.click('#edit-schema');
    await page.fill('.editor-input', TASK.replace('rename (title: string)', 'retitle (title: string)'));
    await page.click('#save-schema');
    await expect.poll(() => page.locator('#schema-result .error-box').count()).toBe(1);
    expect(await page.locator('#schema-result .error-box').textContent()).toContain('permission/change-schema');
    expect(await page.locator('#schema-result .error-box').textContent()).toContain(`its owner ${publicKeyOf(ownerPrivateKey).toHex()} and admin keys`);

    // The operator pastes the admin key, which may change any schema.
    await openKeyMenu();
    await page.fill('#paste-key', ADMIN_KEY);
    await page.click('#paste-key + button');
    expect(await signingKeyHex()).toBe(publicKeyOf(ADMIN_KEY).toHex());
    const broken = TASK.replace('this.done = true;', 'this.done = 1;');
    await page.fill('.editor-input', broken);
    await page.click('#save-schema');
    const diagnostic = page.locator('.diagnostic').first();
    await expect.poll(() => diagnostic.count()).toBeGreaterThan(0);
    const line = broken.split('\n').findIndex((text) => text.includes('this.done = 1;')) + 1;
    expect(await diagnostic.locator('.where').textContent()).toMatch(new RegExp(`^${line}:\\d+$`));
    expect(await page.locator('#schema-result .error-box').textContent()).toContain('collection/invalid-schema');

    await page.fill('.editor-input', TASK.replace('rename (title: string)', 'retitle (title: string)'));
    await page.click('#save-schema');
    // The plan first: a function renamed changes no stored value; nothing is written until it is confirmed.
    await expect.poll(() => page.locator('#schema-plan').count()).toBe(1);
    expect(await page.locator('#schema-plan').textContent()).toContain('No field is added, removed or retyped.');
    await page.click('#confirm-schema');
    await page.waitForURL(/#\/c\/app%2FTask$/);
    await page.click('#records tr[data-id="task-1"]');
    expect(await page.locator('form[data-function="retitle"]').count()).toBe(1);
    expect(await page.locator('form[data-function="rename"]').count()).toBe(0);
  });

  it('signs as a pasted key: the owner\'s key pasted back may call the owner\'s function', async () => {
    await openKeyMenu();
    await page.fill('#paste-key', ownerPrivateKey);
    await page.click('#paste-key + button');
    expect(await signingKeyHex()).toBe(publicKeyOf(ownerPrivateKey).toHex());
    const retitle = page.locator('form[data-function="retitle"]');
    await retitle.locator('input[name="title"]').fill('docs written');
    await retitle.locator('button[type="submit"]').click();
    await expect.poll(() => retitle.locator('.result').textContent()).toBe('retitle done');
    expect(await apiRecord('task-1')).toMatchObject({ title: 'docs written' });

    await openKeyMenu();
    await page.fill('#paste-key', '0x1234');
    await page.click('#paste-key + button');
    expect(await page.locator('#key-message').textContent()).toContain('Not a key: a private key is 64 hex digits');
    expect(await signingKeyHex()).toBe(publicKeyOf(ownerPrivateKey).toHex());
  });

  it('imports a key file, and keeps the key over a reload only while "remember" is ticked', async () => {
    await page.setInputFiles('#import-key', { name: 'key.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify({ privateKey: API_KEY })) });
    await expect.poll(() => signingKeyHex()).toBe(publicKeyOf(API_KEY).toHex());

    await openKeyMenu();
    await page.check('#remember-key');
    expect(await page.evaluate("localStorage.getItem('vellum-explorer:private-key')")).toBe(API_KEY);
    await page.reload();
    expect(await signingKeyHex()).toBe(publicKeyOf(API_KEY).toHex());
    await openKeyMenu();
    await page.uncheck('#remember-key');
    expect(await page.evaluate('localStorage.length')).toBe(0);
    await page.reload();
    expect(await page.locator('.key-status').textContent()).toContain('Not signed in');
    await page.waitForURL(/#\/c\/app%2FTask$/);
    await page.locator('#records tr[data-id="task-1"]').waitFor();
  });

  it('opens a record by its id, and shows the envelope for an id that does not exist', async () => {
    await page.fill('#open-id', 'task-6');
    await page.click('#open-id + button');
    await expect.poll(() => page.locator('#record-detail .json').textContent()).toContain('"title": "celebrate"');
    await page.fill('#open-id', 'nope');
    await page.click('#open-id + button');
    await expect.poll(() => page.locator('#record-detail .error-box').textContent()).toContain('404 not-found');
    expect(await page.locator('#record-detail .error-box').textContent()).toContain('record/not-found');
  });
  it('filters an array field with contains through its @index, and counts the matches', async () => {
    const tagged = '@public collection Tagged { id: string; tags: string[]; rank: number; @index(tags, rank); constructor (id: string, tags: string[], rank: number) { this.id = id; this.tags = tags; this.rank = rank; } }';
    const body = (args: unknown[]) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ args }) });
    await apiCreateCollection('app/Tagged', tagged);
    for (const [id, tags, rank] of [['a', ['red', 'blue'], 3], ['b', ['blue'], 1], ['c', ['green'], 2], ['d', ['blue', 'blue'], 2]] as const) {
      expect((await fetch(`${server.url}/v0/collections/app%2FTagged/records`, body([id, tags, rank]))).status).toBe(200);
    }
    await page.goto(`${server.url}/explorer/#/c/app%2FTagged`);
    await page.selectOption('#query-index', { label: 'tags, rank' });
    // An array field offers only `contains`; the order is the other fields'.
    expect(await page.locator('select[data-field="tags"] option').evaluateAll((options) => options.map((o) => o.getAttribute('value')))).toEqual(['$contains']);
    await page.fill('input[data-field="tags"]', 'blue');
    await page.click('#run-query');
    await expect.poll(rowIds).toEqual(['b', 'd', 'a']);
    await expect.poll(() => page.locator('#record-count').textContent()).toBe('3 matching records');
    await page.selectOption('select[data-field="rank"]', '$in');
    await page.fill('input[data-field="rank"]', '[2, 3]');
    await page.click('#run-query');
    await expect.poll(rowIds).toEqual(['d', 'a']);
    await expect.poll(() => page.locator('#record-count').textContent()).toBe('2 matching records');
    await page.goto(`${server.url}/explorer/#/c/app%2FTask`);
    await page.locator('#records tr[data-id="task-1"]').waitFor();
  });

  it("lists a private collection's records of the key in use, and shows the server's 403 for a list of all", async () => {
    const notes = 'collection Note { id: string; @read owner: PublicKey; text: string; constructor (id: string, text: string) { this.id = id; this.owner = ctx.publicKey; this.text = text; } }';
    const post = (path: string, args: unknown[], key?: string) => {
      const body = JSON.stringify({ args });
      return fetch(`${server.url}/v0/collections/${path}/records`, { method: 'POST', headers: { 'content-type': 'application/json', ...(key ? { 'x-polybase-signature': signRequest(key, body) } : {}) }, body });
    };
    await apiCreateCollection('app/Note', notes);
    expect((await post('app%2FNote', ['n1', 'mine'], API_KEY)).status).toBe(200);
    expect((await post('app%2FNote', ['n2', 'not mine'], `0x${'55'.repeat(32)}`)).status).toBe(200);
    await page.goto(`${server.url}/explorer/#/c/app%2FNote`);
    // No key in use: a way to sign in rather than a bare 403; the server's answer (which says to sign) is a click away.
    await expect.poll(() => page.locator('#private-state h3').textContent()).toBe('Sign in to see your records');
    expect(await page.locator('#private-state').textContent()).toContain('app/Note is private');
    expect(await page.locator('#records .error-box').textContent()).toContain('an unsigned request may read none');
    expect(await page.locator('#records .error-box').isVisible()).toBe(false);
    // "Sign in" opens the key menu; a key given there re-runs the query as it, with no Run pressed.
    await page.click('#sign-in');
    expect(await page.locator('#generate-key').isVisible()).toBe(true);
    await page.fill('#paste-key', API_KEY);
    await page.click('#paste-key + button');
    expect(await page.inputValue('#query-mine')).toBe('owner');
    await expect.poll(rowIds).toEqual(['n1']);
    await expect.poll(() => page.locator('#record-count').textContent()).toBe('1 matching record');
    await expect.poll(() => page.locator('#live-status').getAttribute('data-mode')).toBe('stream');
    await page.selectOption('#query-mine', '');
    await page.click('#run-query');
    await expect.poll(() => page.locator('#private-state h3').textContent()).toBe('Only your records can be listed');
    expect(await page.locator('#records .error-box').textContent()).toContain('list of "app/Note" must be limited to records you may read: add a where on "owner" equal to your public key');
    await page.click('#show-mine');
    await expect.poll(rowIds).toEqual(['n1']);
    // Another key: the list is read again as it, and shows that key's records (none).
    const other = `0x${'55'.repeat(32)}`;
    await openKeyMenu();
    await page.fill('#paste-key', other);
    await page.click('#paste-key + button');
    await expect.poll(rowIds).toEqual(['n2']);
    await expect.poll(() => page.locator('#record-count').textContent()).toBe('1 matching record');
    // And no key at all: the sign-in state again.
    await openKeyMenu();
    await page.click('#forget-key');
    await expect.poll(() => page.locator('#private-state h3').textContent()).toBe('Sign in to see your records');
    await page.goto(`${server.url}/explorer/#/c/app%2FTask`);
    await page.locator('#records tr[data-id="task-1"]').waitFor();
  });

  it('checks a form before sending it: a number parameter given text is refused in the page', async () => {
    await page.fill('#create-id', 'task-x');
    await page.fill('#create-title', 'x');
    await page.fill('#create-priority', 'high');
    await page.click('#create-record');
    await expect.poll(() => page.locator('#create-result').textContent()).toContain('priority: expected a number, got "high"');
    expect((await fetch(`${server.url}/v0/collections/app%2FTask/records/task-x`)).status).toBe(404);
    expect(pageErrors).toEqual([]);
  });

  it('shows a schema change\'s plan before making it, and makes a lossy one only once the fields losing values are named', async () => {
    await openKeyMenu();
    await page.fill('#paste-key', ADMIN_KEY);
    await page.click('#paste-key + button');
    const before = await apiRecord('task-1');
    expect(typeof before.title).toBe('string');
    // `title` removed (its values lost), `priority` number → string (cast), the (done, priority) index rebuilt.
    const next = TASK.replace('  title: string;\n', '')
      .replace('priority: number;', 'priority: string;')
      .replace('constructor (id: string, title: string, priority: number) {', 'constructor (id: string, priority: string) {')
      .replace('    this.title = title;\n', '')
      .replace(/\n  @call\(owner\)\n  rename \(title: string\) \{\n    this.title = title;\n  \}\n/, '\n');
    expect(next).not.toContain('title');
    await page.click('a[role="tab"]:has-text("Schema")');
    await page.click('#edit-schema');
    await page.fill('.editor-input', next);
    await page.click('#save-schema');
    await expect.poll(() => page.locator('#schema-plan, #schema-result > .error-box').count()).toBe(1);
    expect(await page.locator('#schema-plan').count(), (await page.locator('#schema-result').textContent()) ?? '').toBe(1);
    const title = page.locator('#schema-plan tr[data-field="title"]');
    expect(await title.getAttribute('data-change')).toBe('lossy');
    expect(await title.textContent()).toMatch(/\d+ values? lost/);
    expect(await title.textContent()).toMatch(/record "task-[^"]+": title = "/);
    const priority = page.locator('#schema-plan tr[data-field="priority"]');
    expect(await priority.getAttribute('data-change')).toBe('cast');
    expect(await priority.textContent()).toMatch(/number → string.*\d+ values? cast/);
    expect(await page.locator('#schema-plan .plan-indexes').textContent()).toContain('Index built: (done, priority)');
    expect(await page.locator('#plan-data-loss').textContent()).toContain('loses stored values in 1 field: title');
    // Not applied until the fields are named; nothing written meanwhile.
    expect(await page.locator('#confirm-schema').isDisabled()).toBe(true);
    await page.fill('#accept-data-loss', 'priority');
    expect(await page.locator('#confirm-schema').isDisabled()).toBe(true);
    expect(await apiRecord('task-1')).toEqual(before);
    await page.fill('#accept-data-loss', 'title');
    expect(await page.locator('#confirm-schema').isDisabled()).toBe(false);
    await page.click('#confirm-schema');
    await page.waitForURL(/#\/c\/app%2FTask$/);
    await expect.poll(() => apiRecord('task-1')).toEqual({ id: 'task-1', done: before.done, priority: String(before.priority), owner: before.owner });
    expect(pageErrors).toEqual([]);
  });

  it('shows how far a schema change has got through the stored records while it is made', async () => {
    const PERSON = '@public\ncollection Person {\n  id: string;\n  age?: string;\n\n  constructor (id: string) {\n    this.id = id;\n  }\n}\n';
    await apiCreateCollection('app/Person', PERSON);
    const N = 30_000;
    for (let start = 0; start < N; start += 5_000) {
      const writes = [];
      for (let i = start; i < start + 5_000; i++) writes.push({ kind: 'put' as const, collectionId: 'app/Person', record: { id: `p${String(i).padStart(5, '0')}`, age: String(i % 90) } });
      await store.commit({ writes });
    }
    await page.goto(`${server.url}/explorer/#/c/app%2FPerson`);
    await page.click('a[role="tab"]:has-text("Schema")');
    await page.click('#edit-schema');
    await page.fill('.editor-input', PERSON.replace('age?: string;', 'age?: number;'));
    await page.click('#save-schema');
    await expect.poll(() => page.locator('#schema-plan').count()).toBe(1);
    // Every text the progress line shows, kept as the page changes it (the change may be quick).
    await page.evaluate(`{
      const seen = (window.progressSeen = []);
      new MutationObserver(() => {
        const line = document.getElementById('migration-progress');
        if (line?.textContent && seen.at(-1) !== line.textContent) seen.push(line.textContent);
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    }`);
    await page.click('#confirm-schema');
    await page.waitForURL(/#\/c\/app%2FPerson$/, { timeout: 60_000 });
    const seen = (await page.evaluate('window.progressSeen')) as string[];
    expect(seen.some((text) => /Updating stored records: [\d,]+ of 30,000/.test(text)), JSON.stringify(seen)).toBe(true);
    const response = await fetch(`${server.url}/v0/collections/app%2FPerson/records/p00007`);
    expect(((await response.json()) as { data: { age: unknown } }).data.age).toBe(7);
    expect(pageErrors).toEqual([]);
  }, 120_000);
});
