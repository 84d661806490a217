// The explorer on any screen, in Chromium against a live server: at desktop and phone sizes (1280, 390 and 360 px
// wide) no page is wider than the screen and every main control is on it and reachable by keyboard; on a phone
// the collection list folds under a button. Paging shows where it is ("rows 26–50 of 60") and its buttons stop at
// either end; a record created in the page shows without live updates; the `$or` builder; `starts with` and the
// sums of number fields; keys shown short with a copy button. docs/explorer-phone.png is taken here (VELLUM_UPDATE_SCREENSHOT=1 writes it again).
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publicKeyOf, signRequest } from '../../src/auth/index.ts';
import { startServer, type RunningServer } from '../../src/service/index.ts';
import { openSqliteStore } from '../../src/store/index.ts';
import { buildIntoTemp, launchChromium, type TestBrowser } from './browser.ts';

const TASK = `@public
collection Task {
  id: string;
  title: string;
  priority: number;
  owner: PublicKey;

  constructor (id: string, title: string, priority: number) {
    this.id = id;
    this.title = title;
    this.priority = priority;
    this.owner = ctx.publicKey;
  }

  @call(owner)
  rename (title: string) {
    this.title = title;
  }
}
`;

/** Notes on tasks: a reference field, which the records table can show expanded. */
const NOTE = `@public
collection Note {
  id: string;
  text: string;
  task: Task;

  constructor (id: string, text: string, task: Task) {
    this.id = id;
    this.text = text;
    this.task = task;
  }
}
`;

const KEY = `0x${'42'.repeat(32)}`;
/** The server's admin key, which creates app/Task (an unsigned request never changes a schema). */
const ADMIN_KEY = `0x${'ad'.repeat(32)}`;
const SIZES = [
  ['desktop', 1280, 860],
  ['phone', 390, 844],
  ['small phone', 360, 740],
] as const;

let build: Awaited<ReturnType<typeof buildIntoTemp>>;
let server: RunningServer;
let browser: TestBrowser;
const pageErrors: string[] = [];

async function post(path: string, args: unknown[], key?: string): Promise<void> {
  const body = JSON.stringify({ args });
  const response = await fetch(`${server.url}/v0/collections/${path}/records`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { 'x-polybase-signature': signRequest(key, body) } : {}) },
    body,
  });
  expect(response.status, await response.clone().text()).toBe(200);
}

beforeAll(async () => {
  build = await buildIntoTemp();
  server = await startServer({
    port: 0,
    store: openSqliteStore(':memory:'),
    explorer: { dir: build.outDir },
    schemaAccess: { adminKeys: [publicKeyOf(ADMIN_KEY)], createPolicy: 'admins' },
    rateLimits: false,
  });
  await post('Collection', ['app/Task', TASK], ADMIN_KEY);
  await post('Collection', ['app/Note', `${NOTE}\n${TASK}`], ADMIN_KEY);
  const titles = ['write the docs', 'plan the release', 'fix the login page', 'review the schema', 'ship it'];
  for (let i = 1; i <= 60; i++) await post('app%2FTask', [`task-${String(i).padStart(2, '0')}`, titles[i % titles.length]!, (i % 5) + 1], KEY);
  await post('app%2FNote', ['n1', 'first note', { collectionId: 'app/Task', id: 'task-01' }], KEY);
  await post('app%2FNote', ['n2', 'second note', { collectionId: 'app/Task', id: 'task-04' }], KEY);
  browser = await launchChromium();
  await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  build?.remove();
});

async function open(width: number, height: number, hash: string): Promise<Page> {
  const page = await browser.context.newPage();
  page.setDefaultTimeout(10_000);
  page.on('pageerror', (error) => pageErrors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource: the server responded with a status of 4')) pageErrors.push(message.text());
  });
  await page.setViewportSize({ width, height });
  await page.goto(`${server.url}/explorer/${hash}`);
  return page;
}

/** How much wider than the screen the page is (0 when it fits). */
function overflow(page: Page): Promise<number> {
  return page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth') as Promise<number>;
}

/** Whether the control, scrolled to, lies wholly inside the screen's width. */
async function onScreen(page: Page, selector: string): Promise<boolean> {
  const control = page.locator(selector);
  await control.scrollIntoViewIfNeeded();
  const box = await control.boundingBox();
  const width = page.viewportSize()!.width;
  return box !== null && box.x >= 0 && box.x + box.width <= width && box.width > 0;
}

/** The ids of the controls Tab reaches, in order, until `target` (or 150 presses). */
async function tabUntil(page: Page, target: string): Promise<string[]> {
  await page.evaluate('document.activeElement && document.activeElement.blur && document.activeElement.blur()');
  const reached: string[] = [];
  for (let i = 0; i < 150; i++) {
    await page.keyboard.press('Tab');
    const id = (await page.evaluate('document.activeElement ? document.activeElement.id : ""')) as string;
    reached.push(id);
    if (id === target) break;
  }
  return reached;
}

function rowIds(page: Page): Promise<string[]> {
  return page.locator('#records tbody tr').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-id') ?? ''));
}

describe.each(SIZES)('at %s size (%i × %i)', (name, width, height) => {
  it('no page is wider than the screen, and every main control is on it and reachable by keyboard', async () => {
    const page = await open(width, height, '#/c/app%2FTask');
    try {
      await page.locator('#records tbody tr').first().waitFor();
      expect(await overflow(page)).toBeLessThanOrEqual(0);
      for (const control of ['#key-menu-toggle', '#query-index', '#run-query', '#add-or', '#next-page', '#create-record', 'a[role="tab"]:has-text("Schema")']) {
        expect(await onScreen(page, control), `${control} at ${name}`).toBe(true);
      }
      expect(await tabUntil(page, 'run-query')).toContain('run-query');
      expect(await tabUntil(page, 'next-page')).toContain('next-page');
      expect(await tabUntil(page, 'create-record')).toContain('create-record');
      // A record opened, with its function forms: still no wider than the screen.
      await page.click('#records tr[data-id="task-01"]');
      await page.locator('form[data-function="rename"]').waitFor();
      expect(await overflow(page)).toBeLessThanOrEqual(0);
      // The key menu opens on the screen, and its controls are reachable.
      await page.click('#key-menu-toggle');
      for (const control of ['#generate-key', '#paste-key', '#import-key-file', '#remember-key']) expect(await onScreen(page, control), `${control} at ${name}`).toBe(true);
      expect(await overflow(page)).toBeLessThanOrEqual(0);
      await page.click('#key-menu-toggle');
      // The other pages.
      for (const hash of ['#/', '#/new', '#/c/app%2FTask/schema']) {
        await page.goto(`${server.url}/explorer/${hash}`);
        await page.locator('main > *').first().waitFor();
        await page.waitForTimeout(100);
        expect(await overflow(page), `${hash} at ${name}`).toBeLessThanOrEqual(0);
      }
      expect(await onScreen(page, '#edit-schema')).toBe(true);
      await page.goto(`${server.url}/explorer/#/new`);
      expect(await onScreen(page, '#create-collection')).toBe(true);
    } finally {
      await page.close();
    }
  });

  it(width < 760 ? 'folds the collection list under a button' : 'shows the collection list beside the page', async () => {
    const page = await open(width, height, '#/');
    try {
      await page.locator('#collections a[data-id="app/Task"]').waitFor({ state: 'attached' });
      if (width >= 760) {
        expect(await page.locator('#collections').isVisible()).toBe(true);
        expect(await page.locator('#collections-toggle').isVisible()).toBe(false);
        return;
      }
      expect(await page.locator('#collections').isVisible()).toBe(false);
      expect(await page.locator('#collections-toggle').getAttribute('aria-expanded')).toBe('false');
      await page.click('#collections-toggle');
      expect(await page.locator('#collections-toggle').getAttribute('aria-expanded')).toBe('true');
      await page.click('#collections a[data-id="app/Task"]');
      await page.waitForURL(/#\/c\/app%2FTask$/);
      // Chosen: the list folds away, and the button names the collection shown.
      expect(await page.locator('#collections').isVisible()).toBe(false);
      expect(await page.locator('#collections-toggle').textContent()).toContain('app/Task');
      await page.locator('#records tbody tr').first().waitFor();
      expect(await overflow(page)).toBeLessThanOrEqual(0);
      if (width === 390) {
        const shot = await page.screenshot({ path: join(build.outDir, 'explorer-phone.png'), fullPage: true });
        expect(shot.length).toBeGreaterThan(10_000);
        if (process.env.VELLUM_UPDATE_SCREENSHOT === '1') copyFileSync(join(build.outDir, 'explorer-phone.png'), join(import.meta.dirname, '../../docs/explorer-phone.png'));
      }
    } finally {
      await page.close();
    }
  });
});

describe('paging, creating, $or and keys', () => {
  let page: Page;
  beforeAll(async () => {
    page = await open(1280, 860, '#/c/app%2FTask');
    await page.locator('#records tbody tr').first().waitFor();
  });
  afterAll(async () => {
    await page?.close();
  });

  it('shows where the page is in the result, and its buttons stop at either end', async () => {
    await expect.poll(() => page.locator('#page-position').textContent()).toBe('rows 1–25 of 60');
    expect(await page.locator('#previous-page').isDisabled()).toBe(true);
    await page.click('#next-page');
    await expect.poll(() => page.locator('#page-position').textContent()).toBe('rows 26–50 of 60');
    expect((await rowIds(page))[0]).toBe('task-26');
    await page.click('#next-page');
    await expect.poll(() => page.locator('#page-position').textContent()).toBe('rows 51–60 of 60');
    expect(await rowIds(page)).toHaveLength(10);
    expect(await page.locator('#next-page').isDisabled()).toBe(true);
    await page.click('#previous-page');
    await expect.poll(() => page.locator('#page-position').textContent()).toBe('rows 26–50 of 60');
    await page.click('#previous-page');
    await expect.poll(() => page.locator('#page-position').textContent()).toBe('rows 1–25 of 60');
    expect(await page.locator('#previous-page').isDisabled()).toBe(true);
    // A page size the result fills exactly: the count says it is the last page.
    await page.fill('#query-limit', '60');
    await page.click('#run-query');
    await expect.poll(() => page.locator('#page-position').textContent()).toBe('rows 1–60 of 60');
    expect(await page.locator('#next-page').isDisabled()).toBe(true);
  });

  it('shows a record created in the page at once, with live updates off', async () => {
    await page.uncheck('#live');
    await expect.poll(() => page.locator('#live-status').textContent()).toBe('Live updates off');
    await page.click('#key-menu-toggle');
    await page.click('#generate-key');
    await page.fill('#create-id', 'task-00');
    await page.fill('#create-title', 'made here');
    await page.fill('#create-priority', '3');
    await page.click('#create-record');
    await expect.poll(() => page.locator('#create-result').textContent()).toBe('Created task-00');
    await expect.poll(async () => (await rowIds(page))[0]).toBe('task-00');
    await expect.poll(() => page.locator('#page-position').textContent()).toBe('rows 1–60 of 61');
    await page.check('#live');
  });

  it('shows keys short, with a button that copies the whole key', async () => {
    const full = (await page.getAttribute('#public-key', 'data-key'))!;
    expect(full).toMatch(/^0x[0-9a-f]{128}$/);
    expect(await page.locator('#public-key').textContent()).toBe(`${full.slice(0, 6)}…${full.slice(-4)}`);
    await page.click('#copy-key');
    await expect.poll(() => page.locator('#copy-key').textContent()).toBe('Copied');
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(full);
    // A PublicKey column too: short, the whole key in its tooltip.
    const cell = page.locator('#records tr[data-id="task-00"] td').nth(3);
    expect(await cell.textContent()).toBe(`${full.slice(0, 6)}…${full.slice(-4)}`);
    expect(await cell.getAttribute('title')).toBe(full);
  });

  it('builds an $or: any of several groups of conditions, each on an index', async () => {
    await page.fill('#query-limit', '25');
    await page.selectOption('#query-index', { label: 'priority' });
    await page.selectOption('select[data-field="priority"]', '$lt');
    await page.fill('input[data-field="priority"]', '5');
    await page.click('#add-or');
    await page.click('#add-or');
    // An alternative with no condition would match everything: refused in the page.
    await page.click('#run-query');
    await expect.poll(() => page.locator('.query-builder .form-problem').textContent()).toContain('alternative 1 of "any of": give at least one condition');
    const alternative = (n: number) => page.locator(`.or-group[data-alternative="${n}"]`);
    await alternative(1).locator('select.or-index').selectOption({ label: 'priority' });
    await alternative(1).locator('select[data-or-field="priority"]').selectOption('eq');
    await alternative(1).locator('input[data-or-field="priority"]').fill('1');
    await alternative(2).locator('select.or-index').selectOption({ label: 'priority' });
    await alternative(2).locator('select[data-or-field="priority"]').selectOption('$gte');
    await alternative(2).locator('input[data-or-field="priority"]').fill('4');
    // A field filtered both beside the $or and in it: the server's refusal, shown as it came.
    await page.click('#run-query');
    await expect.poll(() => page.locator('#records .error-box').textContent()).toContain('is filtered both inside and outside an $or');
    // priority = 1 or priority >= 4: twelve of each of 1, 4 and 5 in the 60 (task-00 has 3), in priority order.
    await page.selectOption('select[data-field="priority"]', '');
    await page.click('#run-query');
    await expect.poll(() => page.locator('#record-count').textContent()).toBe('36 matching records');
    await expect.poll(() => page.locator('#page-position').textContent()).toBe('rows 1–25 of 36');
    const priorities = await page.locator('#records tbody tr td.number').allTextContents();
    expect(priorities).toEqual([...Array(12).fill('1'), ...Array(12).fill('4'), '5']);
    // Removing an alternative: priority >= 4.
    await page.click('button[aria-label="remove alternative 1"]');
    await page.click('#run-query');
    await expect.poll(() => page.locator('#record-count').textContent()).toBe('24 matching records');
    expect(pageErrors).toEqual([]);
  });

  it('shows a reference field\'s records inline when asked to expand it, live updates too, on a phone too', async () => {
    for (const [width, height] of [[1280, 860], [360, 740]] as const) {
      const notes = await open(width, height, '#/c/app%2FNote');
      try {
        await notes.locator('#records tbody tr').first().waitFor();
        const cell = notes.locator('#records tr[data-id="n1"] td').nth(2);
        expect(await cell.textContent()).toBe('task-01');
        await notes.check('#expand-task');
        // task-01 is "plan the release" (titles[1 % 5]), task-04 "ship it".
        await expect.poll(() => cell.textContent()).toBe('task-01 → plan the release');
        expect(await notes.locator('#records tr[data-id="n2"] td').nth(2).textContent()).toBe('task-04 → ship it');
        expect(await overflow(notes)).toBeLessThanOrEqual(0);
        if (width === 1280) {
          // A note that arrives by a live update is shown expanded too (the page is read again with its expand).
          await post('app%2FNote', ['n3', 'third note', { collectionId: 'app/Task', id: 'task-02' }], KEY);
          await expect.poll(() => notes.locator('#records tr[data-id="n3"] td').nth(2).textContent(), { timeout: 15_000 }).toBe('task-02 → fix the login page');
        }
        await notes.uncheck('#expand-task');
        await expect.poll(() => cell.textContent()).toBe('task-01');
      } finally {
        await notes.close();
      }
    }
    expect(pageErrors).toEqual([]);
  });

  it('offers starts with on a string field (exists only on optional ones), and shows the sums of the number fields', async () => {
    await page.click('button[aria-label="remove alternative 1"]');
    await page.selectOption('#query-index', { label: 'title' });
    const offered = await page.locator('select[data-field="title"] option').evaluateAll((options) => options.map((o) => o.getAttribute('value') ?? ''));
    expect(offered).toContain('$startsWith');
    expect(offered).not.toContain('$exists'); // title is required
    await page.selectOption('select[data-field="title"]', '$startsWith');
    await page.fill('input[data-field="title"]', 'ship');
    await page.click('#run-query');
    // "ship it" is every fifth task (i % 5 = 4), each of priority 5.
    await expect.poll(() => page.locator('#record-count').textContent()).toBe('12 matching records');
    await expect.poll(() => page.locator('#record-sums').textContent()).toBe('priority sum 60 · avg 5 · min 5 · max 5');
    await page.fill('input[data-field="title"]', '');
    await page.selectOption('select[data-field="title"]', '');
    await page.click('#run-query');
    // All 61: twelve of each priority 1–5, and task-00 (3).
    await expect.poll(() => page.locator('#record-sums').textContent()).toBe('priority sum 183 · avg 3 · min 1 · max 5');
    expect(await overflow(page)).toBeLessThanOrEqual(0);
    expect(pageErrors).toEqual([]);
  });
});
