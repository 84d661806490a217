// Test support: Debian's Chromium driven by playwright-core, with a fresh profile and the flags that keep it
// from reaching for the network (the test machine has none), and the explorer built into a temporary folder.
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { buildExplorer, type ExplorerBuild } from '../../explorer/build.ts';

const CHROMIUM = process.env.VELLUM_CHROMIUM ?? '/usr/bin/chromium';

export interface TestBrowser {
  context: BrowserContext;
  close(): Promise<void>;
}

export async function launchChromium(): Promise<TestBrowser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium is not at ${CHROMIUM}: install it (apt-get install -y chromium, as .ci/run does) or set VELLUM_CHROMIUM to its path`);
  }
  const profile = mkdtempSync(join(tmpdir(), 'vellum-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 860 },
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Builds the explorer into a new temporary folder. */
export async function buildIntoTemp(): Promise<ExplorerBuild & { remove(): void }> {
  const dir = mkdtempSync(join(tmpdir(), 'vellum-explorer-'));
  const build = await buildExplorer(dir);
  return { ...build, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
