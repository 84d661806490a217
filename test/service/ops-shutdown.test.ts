// `vellum serve` stopping: SIGTERM while it starts, a client that never finishes its request during the shutdown,
// a second SIGTERM. Each is a clean stop or one line and a non-zero exit; never a hang.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { json, post, spawnServe, stopServe, type ServeProcess } from './process.ts';
import { VELLUM } from '../support/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'vellum-serve-stop-'));
const running: ServeProcess[] = [];
afterAll(async () => {
  for (const server of running) await stopServe(server);
  rmSync(dir, { recursive: true, force: true });
});

const numberSchema = join(dir, 'entry.polylang');
writeFileSync(numberSchema, '@public\ncollection Entry {\n  id: string;\n  n: number;\n  constructor (id: string, n: number) { this.id = id; this.n = n; }\n}\n');

describe('signals', () => {
  it('SIGTERM while starting (a database that accepts the connection and never answers) stops it with one line', async () => {
    const silent = createServer(() => {}); // takes connections, says nothing
    const reached = new Promise<void>((resolve) => silent.once('connection', () => resolve()));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as { port: number }).port;
    const child = spawn(process.execPath, [...VELLUM, 'serve', '--port', '0', '--db', `postgres://u@127.0.0.1:${port}/db`], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
      const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)));
      await reached; // loaded, its signal handlers set, and waiting for the database
      expect(child.exitCode).toBe(null);
      child.kill('SIGTERM');
      expect(await exited).toBe(143);
      expect(out).toBe('vellum serve: SIGTERM while starting, stopping\n');
    } finally {
      child.kill('SIGKILL');
      silent.close();
    }
  }, 30_000);

  it('a request that never finishes holds the shutdown for the grace period only', async () => {
    const server = await spawnServe(['--data', join(dir, 'grace'), '--schema', numberSchema]);
    running.push(server);
    const url = new URL(server.url);
    const socket = connect(Number(url.port), url.hostname);
    socket.on('error', () => {});
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(`POST /v0/collections/app%2FEntry/records HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"args":`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const started = Date.now();
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    socket.destroy();
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(server.output()).toMatch(/requests still in flight after 10000 ms: closing their connections".*\n.*"msg":"stopped"/s);
  }, 30_000);

  it('logs every request answered before SIGTERM, the fast path\'s gets included, before its last line', async () => {
    const server = await spawnServe(['--data', join(dir, 'logged'), '--schema', numberSchema, '--log-format', 'json']);
    running.push(server);
    const created = await post(`${server.url}/v0/collections/app%2FEntry/records`, { args: ['e1', 1] });
    expect(created.status).toBe(200);
    const ids = [created.headers.get('x-request-id')!];
    // Gets of a found record: answered before fastify, their entries formatted only when the log is written.
    for (let i = 0; i < 20; i++) ids.push((await json(`${server.url}/v0/collections/app%2FEntry/records/e1`)).headers.get('x-request-id')!);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    const lines = server.output().trimEnd().split('\n');
    const requests = lines.filter((line) => line.includes('"msg":"request"')).map((line) => JSON.parse(line) as { reqId: string; route: string });
    expect(requests.map((entry) => entry.reqId)).toEqual(ids);
    expect(requests.slice(1).every((entry) => entry.route === '/v0/collections/:collection/records/:id')).toBe(true);
    expect(lines.at(-1)).toMatch(/"msg":"stopped"/);
  }, 30_000);

  it('a second SIGTERM during the shutdown ends the process at once', async () => {
    const server = await spawnServe(['--data', join(dir, 'twice'), '--schema', numberSchema, '--quiet']);
    running.push(server);
    const since = (await json(`${server.url}/v0/collections/app%2FEntry/records`)).headers.get('x-service-timestamp');
    // A request that never finishes sending its body keeps the shutdown waiting.
    const url = new URL(server.url);
    const socket = connect(Number(url.port), url.hostname);
    socket.on('error', () => {});
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(`POST /v0/collections/app%2FEntry/records HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"args":`);
    const poll = json(`${server.url}/v0/collections/app%2FEntry/records?since=${since}&waitFor=60s`).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 300));
    server.child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 500));
    server.child.kill('SIGTERM');
    const code = await server.exited;
    socket.destroy();
    await poll;
    expect(code).not.toBe(0);
    expect(server.output()).toMatch(/SIGTERM again, stopping now/);
    expect(server.output()).not.toMatch(/\n\s+at /);
  }, 30_000);
});
