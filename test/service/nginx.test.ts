// `vellum serve` behind a real reverse proxy: Debian's nginx (/usr/sbin/nginx; .ci/run installs it) terminating
// TLS with a certificate made here (openssl), in front of the service with buffering off, as docs/deploying.md
// configures it. Gets, signed writes, a long-poll and a push stream go through it; the request id nginx makes
// reaches the service's log and comes back; the client's address reaches the log through --trust-proxy; a graceful reload (`nginx -s reload`) keeps an open stream flowing
// and loses none of the requests running meanwhile. nginx runs as its own master process in the foreground
// (`daemon off`) with its prefix, pid file, logs and temp folders in a temp folder, on a port found free.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publicKeyOf, signRequest } from '../../src/auth/index.ts';
import { spawnServe, stopServe, type ServeProcess } from './process.ts';

const NGINX = process.env.VELLUM_NGINX ?? '/usr/sbin/nginx';
const KEY = `0x${'51'.repeat(32)}`;
const SCHEMA = '@public collection Note { id: string; text: string; constructor (id: string, text: string) { this.id = id; this.text = text; } }';

let dir: string;
let vellum: ServeProcess | undefined;
let nginx: ChildProcess | undefined;
let base: string;
let ca: string;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The nginx configuration of docs/deploying.md, with this test's folders and ports. */
export function nginxConfig(prefix: string, listen: number, upstream: number): string {
  return `daemon off;
worker_processes 1;
pid ${prefix}/nginx.pid;
error_log ${prefix}/error.log notice;
${process.getuid?.() === 0 ? 'user root root;' : ''}
events { worker_connections 512; }
http {
  access_log ${prefix}/access.log;
  client_body_temp_path ${prefix}/client_body;
  proxy_temp_path ${prefix}/proxy;
  fastcgi_temp_path ${prefix}/fastcgi;
  uwsgi_temp_path ${prefix}/uwsgi;
  scgi_temp_path ${prefix}/scgi;

  upstream vellum {
    server 127.0.0.1:${upstream};
    keepalive 16;
  }

  server {
    listen 127.0.0.1:${listen} ssl;
    ssl_certificate ${prefix}/cert.pem;
    ssl_certificate_key ${prefix}/key.pem;
    client_max_body_size 1m;

    location / {
      proxy_pass http://vellum;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_set_header X-Request-Id $request_id;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto $scheme;
      # Long-polls wait up to 60 s and streams send a comment every 15 s: both outlast nginx's default 60 s.
      proxy_read_timeout 120s;
      # Push streams and long-polls must reach the client as they are written.
      proxy_buffering off;
    }

    # Metrics are for the monitoring network, not the public (or serve them on --metrics-port).
    location = /metrics { return 404; }
  }
}
`;
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/**
 * One request on a connection of its own (`agent: false`). Node 20's global agent keeps connections alive, and a
 * request sent on one that nginx's old worker is closing at a reload meets "socket hang up" (CI, session 15): a race
 * of the client's connection reuse that every keep-alive client has with a reloading proxy, not a lost request.
 */
function send(method: string, path: string, body?: string, headers: Record<string, string> = {}, localAddress?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = httpsRequest(`${base}${path}`, { method, ca, localAddress, agent: false, headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers } }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, text }));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(body);
  });
}

function signedPost(path: string, args: unknown[]): Promise<Answer> {
  const body = JSON.stringify({ args });
  return send('POST', path, body, { 'x-polybase-signature': signRequest(KEY, body, Date.now()) });
}

/** A push stream read as it arrives: the events so far, and a way to wait for one. */
function openStream(path: string): Promise<{ events: () => string; close: () => void; status: number }> {
  return new Promise((resolve, reject) => {
    let text = '';
    const request = httpsRequest(`${base}${path}`, { ca, headers: { accept: 'text/event-stream' } }, (response) => {
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('error', () => {});
      resolve({ events: () => text, close: () => request.destroy(), status: response.statusCode! });
    });
    request.on('error', (error) => (text === '' ? reject(error) : undefined));
    request.end();
  });
}

function nginxCommand(args: string[]): void {
  const result = spawnSync(NGINX, ['-p', dir, '-c', join(dir, 'nginx.conf'), ...args], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`nginx ${args.join(' ')} failed: ${result.stderr}`);
}

beforeAll(async () => {
  if (!existsSync(NGINX)) throw new Error(`nginx is not at ${NGINX}: install it (apt-get install -y nginx, as .ci/run does) or set VELLUM_NGINX`);
  dir = mkdtempSync(join(tmpdir(), 'vellum-nginx-'));
  const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1'], { encoding: 'utf8' });
  if (made.status !== 0) throw new Error(`openssl could not make a certificate: ${made.stderr}`);
  ca = readFileSync(join(dir, 'cert.pem'), 'utf8');
  vellum = await spawnServe(['--data', join(dir, 'data'), '--no-explorer', '--admin-key', publicKeyOf(KEY).toHex(), '--trust-proxy', '127.0.0.1']);
  const port = await freePort();
  writeFileSync(join(dir, 'nginx.conf'), nginxConfig(dir, port, Number(new URL(vellum.url).port)));
  nginxCommand(['-t', '-q']);
  nginx = spawn(NGINX, ['-p', dir, '-c', join(dir, 'nginx.conf')], { stdio: ['ignore', 'ignore', 'pipe'] });
  base = `https://localhost:${port}`;
  for (const started = Date.now(); (await send('GET', '/v0/health').catch(() => undefined))?.status !== 200; ) {
    if (Date.now() - started > 20_000) throw new Error(`nginx did not start: ${readFileSync(join(dir, 'error.log'), 'utf8')}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}, 90_000);

afterAll(async () => {
  if (nginx && nginx.exitCode === null) {
    const exited = new Promise((resolve) => nginx!.once('exit', resolve));
    nginx.kill('SIGTERM'); // a fast stop: a worker still holding a stream would hold a graceful one
    await exited;
  }
  await stopServe(vellum);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('behind nginx with TLS', () => {
  it('serves gets and signed writes, with the request id nginx made in the service log and the answer', async () => {
    const created = await signedPost('/v0/collections/Collection/records', ['proxy/Note', SCHEMA]);
    expect(created.status).toBe(200);
    const note = await signedPost('/v0/collections/proxy%2FNote/records', ['n1', 'through nginx']);
    expect(note.status).toBe(200);
    const got = await send('GET', '/v0/collections/proxy%2FNote/records/n1');
    expect(got.status).toBe(200);
    expect(JSON.parse(got.text).data).toEqual({ id: 'n1', text: 'through nginx' });
    const id = got.headers['x-request-id'] as string;
    expect(id).toMatch(/^[0-9a-f]{32}$/); // nginx's $request_id
    await expect.poll(() => vellum!.output()).toContain(`"reqId":"${id}","method":"GET","url":"/v0/collections/proxy%2FNote/records/n1"`);
    expect((await send('GET', '/metrics')).status).toBe(404);
  });

  it('logs the client address nginx saw, through --trust-proxy, not one the client claims', async () => {
    // Linux routes all of 127.0.0.0/8 to the loopback: the client connects to nginx from 127.0.0.2, nginx to
    // the service from 127.0.0.1, the one trusted proxy.
    const answer = await send('GET', '/v0/health', undefined, { 'x-forwarded-for': '6.6.6.6' }, '127.0.0.2');
    expect(answer.status).toBe(200);
    const id = answer.headers['x-request-id'] as string;
    await expect.poll(() => vellum!.output()).toContain(`"reqId":"${id}"`);
    const entry = vellum!.output().split('\n').find((line) => line.includes(`"reqId":"${id}"`))!;
    expect(JSON.parse(entry)).toMatchObject({ url: '/v0/health', status: 200, client: '127.0.0.2' });
  });

  it('answers a long-poll when a change arrives', async () => {
    const since = (Date.now() / 1000).toFixed(6);
    const waiting = send('GET', `/v0/collections/proxy%2FNote/records?since=${since}&waitFor=30s`);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await signedPost('/v0/collections/proxy%2FNote/records', ['n2', 'wakes the poll'])).status).toBe(200);
    const answer = await waiting;
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text).data.map((record: { data: { id: string } }) => record.data.id)).toContain('n2');
  });

  it('streams push updates as they happen, and keeps an open stream and running requests through a graceful reload', async () => {
    const stream = await openStream('/v0/collections/proxy%2FNote/records?stream=1');
    expect(stream.status).toBe(200);
    await expect.poll(stream.events).toMatch(/event: ready/);
    expect((await signedPost('/v0/collections/proxy%2FNote/records', ['n3', 'pushed'])).status).toBe(200);
    await expect.poll(stream.events, { timeout: 5000 }).toMatch(/event: put\nid: [\d.]+\ndata: \{"id":"n3"/);

    const running = Array.from({ length: 40 }, (_, i) => send('GET', i % 2 === 0 ? '/v0/collections/proxy%2FNote/records/n1' : '/v0/health'));
    nginxCommand(['-s', 'reload']);
    const answers = await Promise.all(running);
    expect(answers.map((answer) => answer.status)).toEqual(Array(40).fill(200));
    // The old worker keeps the stream's connection until it ends; the new one takes new requests.
    expect((await signedPost('/v0/collections/proxy%2FNote/records', ['n4', 'after the reload'])).status).toBe(200);
    await expect.poll(stream.events, { timeout: 5000 }).toMatch(/event: put\nid: [\d.]+\ndata: \{"id":"n4"/);
    expect((await send('GET', '/v0/collections/proxy%2FNote/records/n4')).status).toBe(200);
    stream.close();
  }, 60_000);
});
