// The web explorer's files (built by `npm run build:explorer`, explorer/build.ts) served under /explorer/, and
// the page that `GET /` gives a browser. The explorer is a client of the public /v0 API like any other: these
// routes only hand out static files, and give it no privilege.
//
// Only plain file names directly in the folder are served (letters, digits, `.`, `-`, `_`; no dot first; one of
// the known types), so no request can reach outside it. The script and style sheet carry a hash of their
// content in their names (`explorer-2OBBA2PE.js`): browsers may keep them for good. index.html is revalidated
// on every load (ETag), so a new build is picked up at once.
import { readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError } from './errors.ts';

/** Where `npm run build:explorer` writes, from this file: `<package>/dist/explorer` (as src/ or as dist/service/). */
export const DEFAULT_EXPLORER_DIR = fileURLToPath(new URL('../../dist/explorer/', import.meta.url));
export const EXPLORER_PATH = '/explorer/';

// A Map, not an object: a name ending in `.constructor` or `.__proto__` must find nothing.
const CONTENT_TYPES = new Map([
  ['.html', 'text/html; charset=utf-8'],
  ['.js', 'text/javascript; charset=utf-8'],
  ['.css', 'text/css; charset=utf-8'],
  ['.png', 'image/png'],
  ['.svg', 'image/svg+xml'],
  ['.ico', 'image/x-icon'],
]);
const FILE_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,200}$/;
// esbuild's `[name]-[hash]`: eight characters of base32.
const HASHED_NAME = /-[A-Z0-9]{8}\.[a-z]+$/;

// The page runs only its own script and style sheet and talks only to this server; it may not be framed.
const PAGE_SECURITY_HEADERS = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
};

export interface ExplorerOptions {
  /** The folder of the built explorer (default: DEFAULT_EXPLORER_DIR). */
  dir?: string;
}

export function registerExplorer(app: FastifyInstance, options: ExplorerOptions = {}): void {
  const dir = resolve(options.dir ?? DEFAULT_EXPLORER_DIR);
  // Relative asset names in index.html resolve against the folder only with the trailing slash.
  app.get('/explorer', async (_request, reply) => reply.redirect(EXPLORER_PATH, 308));
  app.get(EXPLORER_PATH, async (request, reply) => serveFile(dir, 'index.html', request, reply));
  app.get('/explorer/:file', async (request, reply) => serveFile(dir, (request.params as { file: string }).file, request, reply));
}

async function serveFile(dir: string, name: string, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const type = FILE_NAME.test(name) && name.includes('.') ? CONTENT_TYPES.get(name.slice(name.lastIndexOf('.'))) : undefined;
  if (!type) throw notFound(name);
  const path = join(dir, name);
  let info;
  try {
    info = await stat(path);
  } catch {
    info = undefined;
  }
  if (!info?.isFile()) {
    if (name === 'index.html') return notBuilt(reply);
    throw notFound(name);
  }
  const etag = `"${info.size.toString(36)}-${Math.floor(info.mtimeMs).toString(36)}"`;
  reply.header('Content-Type', type).header('ETag', etag).header('X-Content-Type-Options', 'nosniff');
  reply.header('Cache-Control', HASHED_NAME.test(name) ? 'public, max-age=31536000, immutable' : 'no-cache');
  if (type.startsWith('text/html')) reply.headers(PAGE_SECURITY_HEADERS);
  if (request.headers['if-none-match'] === etag) return reply.code(304).send();
  return reply.send(await readFile(path));
}

function notFound(name: string): ServiceError {
  return new ServiceError('not-found', 'route/not-found', `no explorer file ${JSON.stringify(name.slice(0, 200))}`, 404);
}

/** What a browser gets at /explorer/ when the package was not built: what to run, or how to turn it off. */
function notBuilt(reply: FastifyReply): FastifyReply {
  return reply
    .code(503)
    .headers({ ...PAGE_SECURITY_HEADERS, 'Cache-Control': 'no-store' })
    .type('text/html; charset=utf-8')
    .send(htmlPage('The explorer is not built', [
      // The folder is not named: any visitor sees this page, and the server's paths are none of theirs.
      '<p>The folder this server serves the Vellum Explorer from holds no <code>index.html</code>.</p>',
      '<p>Build it with <code>npm run build:explorer</code> (or give the folder with the <code>explorer.dir</code> option), then reload this page. ',
      'Start the server with <code>vellum serve --no-explorer</code> to serve the API alone.</p>',
      '<p>The record service itself is running: its API is under <a href="/v0/health">/v0</a>.</p>',
    ].join('')));
}

/** Whether a `GET /` comes from a browser (it asks for HTML) rather than from an API client (JSON, or anything). */
export function wantsHtml(request: FastifyRequest): boolean {
  const accept = request.headers.accept;
  return typeof accept === 'string' && /(^|,)\s*text\/html\s*(;|,|$)/i.test(accept);
}

/** The page `GET /` gives a browser: what this server is, and a link to the explorer. */
export function homePage(info: { server: string; version: string; compatible: string }): string {
  return htmlPage(`${info.server} ${info.version}`, [
    `<p>A ${escapeHtml(info.server)} record service (${escapeHtml(info.compatible)} compatible): its HTTP API is under <code>/v0</code>.</p>`,
    `<p><a href="${EXPLORER_PATH}">Open the Vellum Explorer</a> to browse collections and records, call functions and edit schemas.</p>`,
  ].join(''));
}

function htmlPage(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title><link rel="icon" href="data:,"></head><body><h1>${escapeHtml(title)}</h1>${body}</body></html>`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
