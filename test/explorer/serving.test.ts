// The explorer's files over HTTP: types, caching, the page a browser gets at `/`, the page shown when the
// explorer is not built, `explorer: false`, and requests that try to reach outside the folder.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/service/index.ts';
import { openSqliteStore } from '../../src/store/index.ts';
import { spawnServe, stopServe } from '../service/process.ts';
import { buildExplorer } from '../../explorer/build.ts';
import { buildIntoTemp } from './browser.ts';

let build: Awaited<ReturnType<typeof buildIntoTemp>>;
let server: RunningServer;
let emptyDir: string;

beforeAll(async () => {
  build = await buildIntoTemp();
  server = await startServer({ port: 0, store: openSqliteStore(':memory:'), explorer: { dir: build.outDir } });
  emptyDir = mkdtempSync(join(tmpdir(), 'vellum-explorer-empty-'));
});

afterAll(async () => {
  await server?.close();
  build?.remove();
  rmSync(emptyDir, { recursive: true, force: true });
});

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

/** A GET with the path sent exactly as given (fetch would resolve `..` and `%2e%2e` before sending). */
function rawGet(path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const url = new URL(server.url);
    const call = request({ host: url.hostname, port: url.port, path, method: 'GET' }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    call.on('error', reject);
    call.end();
  });
}

async function withServer(options: Parameters<typeof startServer>[0], run: (url: string) => Promise<void>): Promise<void> {
  const other = await startServer({ port: 0, store: openSqliteStore(':memory:'), ...options });
  try {
    await run(other.url);
  } finally {
    await other.close();
  }
}

describe('GET /', () => {
  it('answers API clients with JSON and browsers with a page that links to the explorer', async () => {
    for (const accept of [undefined, '*/*', 'application/json']) {
      const response = await fetch(`${server.url}/`, { headers: accept ? { accept } : {} });
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await response.json()).toEqual({ server: 'Vellum', version: expect.any(String), compatible: 'Polybase 0.6' });
      expect(response.headers.get('vary')).toMatch(/Accept/);
    }
    const page = await fetch(`${server.url}/`, { headers: { accept: BROWSER_ACCEPT } });
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await page.text()).toContain('<a href="/explorer/">Open the Vellum Explorer</a>');
  });

  it('stays JSON for browsers too when the explorer is off, and /explorer/ is then not served', async () => {
    await withServer({ explorer: false }, async (url) => {
      const response = await fetch(`${url}/`, { headers: { accept: BROWSER_ACCEPT } });
      expect(await response.json()).toMatchObject({ server: 'Vellum' });
      const explorer = await fetch(`${url}/explorer/`);
      expect(explorer.status).toBe(404);
      expect(await explorer.json()).toMatchObject({ error: { code: 'not-found', reason: 'route/not-found' } });
    });
  });
});

describe('/explorer/', () => {
  it('redirects /explorer to /explorer/ so that the page\'s relative links resolve', async () => {
    const response = await fetch(`${server.url}/explorer`, { redirect: 'manual' });
    expect(response.status).toBe(308);
    expect(response.headers.get('location')).toBe('/explorer/');
  });

  it('serves index.html revalidated on every load, with a content security policy', async () => {
    const response = await fetch(`${server.url}/explorer/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(response.headers.get('content-security-policy')).toContain("connect-src 'self'");
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    const html = await response.text();
    const script = build.files.find((file) => file.name.endsWith('.js'))!.name;
    expect(html).toContain(`src="${script}"`);
    const etag = response.headers.get('etag')!;
    const again = await fetch(`${server.url}/explorer/`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
  });

  it('serves the hashed script and style sheet with their types, cacheable for good', async () => {
    for (const file of build.files.filter((f) => f.name !== 'index.html')) {
      const response = await fetch(`${server.url}/explorer/${file.name}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe(file.name.endsWith('.js') ? 'text/javascript; charset=utf-8' : 'text/css; charset=utf-8');
      expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect((await response.arrayBuffer()).byteLength).toBe(file.bytes);
    }
  });

  it('serves nothing outside the folder, nothing hidden and no unknown type: 404 with the envelope', async () => {
    const attempts = [
      '..%2Fpackage.json',
      '%2e%2e%2Fpackage.json',
      '%2e%2e',
      '..%5Cpackage.json',
      '.hidden.js',
      'index.html%00.js',
      'missing-AAAAAAAA.js',
      'build.ts',
      'x.txt',
      '%2Fetc%2Fpasswd',
      'x.constructor',
      'x.__proto__',
      'toString',
      `${'a'.repeat(300)}.js`,
    ];
    for (const attempt of [...attempts.map((name) => `/explorer/${name}`), '/explorer/../package.json', '/explorer/a/../../package.json']) {
      const response = await rawGet(attempt);
      expect(response.status, attempt).toBe(404);
      expect(JSON.parse(response.body), attempt).toMatchObject({ error: { code: 'not-found', reason: 'route/not-found' } });
    }
  });

  it('answers with a page saying what to run when the explorer is not built', async () => {
    await withServer({ explorer: { dir: emptyDir } }, async (url) => {
      const response = await fetch(`${url}/explorer/`);
      expect(response.status).toBe(503);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      const html = await response.text();
      expect(html).toContain('The explorer is not built');
      expect(html).toContain('npm run build:explorer');
      expect(html).toContain('--no-explorer');
      expect(html).not.toContain(emptyDir);
      const api = await fetch(`${url}/v0/health`);
      expect(await api.json()).toEqual({ status: 'OK' });
    });
  });
});

describe('vellum serve', () => {
  it('says where the explorer is, and serves none with --no-explorer', async () => {
    const data = mkdtempSync(join(tmpdir(), 'vellum-explorer-serve-'));
    let served: Awaited<ReturnType<typeof spawnServe>> | undefined;
    try {
      served = await spawnServe(['--data', join(data, 'on')]);
      await expect.poll(() => served!.output()).toContain(`explorer at ${served.url}/explorer/`);
      await stopServe(served);
      served = await spawnServe(['--data', join(data, 'off'), '--no-explorer']);
      expect(served.output()).not.toContain('explorer at');
      expect((await fetch(`${served.url}/explorer/`)).status).toBe(404);
      const root = await fetch(`${served.url}/`, { headers: { accept: BROWSER_ACCEPT } });
      expect(await root.json()).toMatchObject({ server: 'Vellum' });
    } finally {
      await stopServe(served);
      rmSync(data, { recursive: true, force: true });
    }
  });
});

describe('buildExplorer', () => {
  it('replaces its own earlier files in the folder and leaves everything else there alone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vellum-explorer-build-'));
    try {
      writeFileSync(join(dir, 'notes.txt'), 'mine');
      writeFileSync(join(dir, 'explorer-OLDBUILD.js'), 'an earlier build');
      const { files } = await buildExplorer(dir);
      expect(readdirSync(dir).sort()).toEqual([...files.map((file) => file.name), 'notes.txt'].sort());
      expect(files.map((file) => file.name.replace(/-[A-Z0-9]{8}\./, '-HASH.')).sort()).toEqual(['explorer-HASH.css', 'explorer-HASH.js', 'index.html']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
