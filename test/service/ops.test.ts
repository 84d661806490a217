// `vellum serve` under bad operating conditions: bad or conflicting flags, a data folder that is not one, a
// damaged or locked SQLite file, schema files that cannot be read or that conflict, signals at awkward moments.
// Each must be one clear line on stderr (no stack trace) and a non-zero exit; never a hang. Signals: ops-shutdown.test.ts.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/service/index.ts';
import { json, spawnServe, stopServe, type ServeProcess } from './process.ts';
import { CLI_TIMEOUT_MS, VELLUM, asUnprivilegedUser } from '../support/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'vellum-serve-ops-'));
const running: ServeProcess[] = [];
afterAll(async () => {
  for (const server of running) await stopServe(server);
  rmSync(dir, { recursive: true, force: true });
});

const entry = (fieldType: string) => `@public
collection Entry {
  id: string;
  n: ${fieldType};
  constructor (id: string, n: ${fieldType}) { this.id = id; this.n = n; }
}
`;
const numberSchema = join(dir, 'entry-number.polylang');
const stringSchema = join(dir, 'entry-string.polylang');
const otherSchema = join(dir, 'other.polylang');
const brokenSchema = join(dir, 'broken.polylang');
writeFileSync(numberSchema, entry('number'));
writeFileSync(stringSchema, entry('string'));
writeFileSync(otherSchema, '@public\ncollection Other {\n  id: string;\n  constructor (id: string) { this.id = id; }\n}\n');
writeFileSync(brokenSchema, 'collection Broken {\n  id: nope[;\n}\n');
const binarySchema = join(dir, 'binary.polylang');
writeFileSync(binarySchema, Buffer.alloc(4096, 0xff));

/** Runs `vellum serve --port 0 <args>` to its end (it must end by itself: every case here is a refusal). */
function serveFails(args: string[]): { status: number | null; stderr: string; stdout: string } {
  const result = spawnSync(process.execPath, [...VELLUM, 'serve', '--port', '0', ...args], { encoding: 'utf8', timeout: CLI_TIMEOUT_MS });
  return { status: result.status, stderr: result.stderr, stdout: result.stdout };
}

/** One line on stderr, no stack trace. */
function oneLine(stderr: string): string {
  expect(stderr).not.toMatch(/\n\s+at /);
  expect(stderr.trimEnd().split('\n')).toHaveLength(1);
  return stderr.trimEnd();
}

describe('bad flags are refused with the flag named', () => {
  it('--db that is not a postgres:// URL is bad usage (exit 2), not a DNS lookup of part of it', () => {
    for (const url of ['notaurl', 'postgres://x:y@127.0.0.1:notaport/db']) {
      const run = serveFails(['--db', url]);
      expect(run.status, url).toBe(2);
      expect(run.stderr.split('\n')[0]).toMatch(/option '--db <url>' argument .* is invalid\. expected a postgres:\/\/ or postgresql:\/\/ URL/);
    }
  });

  it('--db with --data (which it would ignore) and a port out of range: the error and one hint line, exit 2', () => {
    const both = serveFails(['--db', 'postgres://u@127.0.0.1/db', '--data', join(dir, 'ignored')]);
    expect(both.status).toBe(2);
    expect(both.stderr).toBe("error: option '--db <url>' cannot be used with option '--data <dir>'\n(run 'vellum <command> --help' for the usage)\n");
    const port = spawnSync(process.execPath, [...VELLUM, 'serve', '--port', '99999'], { encoding: 'utf8', timeout: CLI_TIMEOUT_MS });
    expect(port.status).toBe(2);
    expect(port.stderr).toBe("error: option '--port <n>' argument '99999' is invalid. expected a port number from 0 to 65535\n(run 'vellum <command> --help' for the usage)\n");
  });

  it('--namespace that would make ids with an empty segment is bad usage (exit 2)', () => {
    for (const ns of ['', 'a//b']) {
      const run = serveFails(['--data', join(dir, 'ns'), '--schema', numberSchema, '--namespace', ns]);
      expect(run.status, ns).toBe(2);
      expect(run.stderr.split('\n')[0]).toMatch(/option '--namespace <ns>' argument .* is invalid\. expected/);
    }
  });
});

describe('the data folder', () => {
  it('a file where the folder should be', () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, 'x');
    const run = serveFails(['--data', file]);
    expect(run.status).toBe(1);
    expect(oneLine(run.stderr)).toBe(`vellum serve: cannot use ${file} as the data folder: it is a file`);
  });

  it.runIf(existsSync('/proc/self'))('a folder under one that takes no new folders (/proc): one line, exit 1, not an endless loop', () => {
    // Node 20's recursive mkdir looped for ever here: the server neither started nor stopped on SIGTERM.
    const run = serveFails(['--data', '/proc/vellum-test/data']);
    expect(run.status).toBe(1);
    expect(oneLine(run.stderr)).toBe('vellum serve: cannot use /proc/vellum-test/data as the data folder: the folder it would be in does not take new folders');
  });

  it('missing folders above the data folder are made', async () => {
    const nested = join(dir, 'made', 'on', 'the', 'way');
    const store = await openStore({ dataDir: nested });
    await store.close();
    expect(existsSync(join(nested, 'vellum.sqlite'))).toBe(true);
  });

  it('a SQLite file that is not a database, or a folder in its place', () => {
    const garbage = join(dir, 'garbage');
    mkdirSync(garbage);
    writeFileSync(join(garbage, 'vellum.sqlite'), Buffer.alloc(8192, 0x5a));
    const run = serveFails(['--data', garbage]);
    expect(run.status).toBe(1);
    expect(oneLine(run.stderr)).toBe(`vellum serve: cannot open the SQLite database ${join(garbage, 'vellum.sqlite')}: file is not a database`);

    const folder = join(dir, 'folder-db');
    mkdirSync(join(folder, 'vellum.sqlite'), { recursive: true });
    const again = serveFails(['--data', folder]);
    expect(again.status).toBe(1);
    expect(oneLine(again.stderr)).toMatch(`vellum serve: cannot open the SQLite database ${join(folder, 'vellum.sqlite')}: `);
  });

  it('a truncated SQLite file', async () => {
    const data = join(dir, 'full');
    const first = await spawnServe(['--data', data, '--schema', numberSchema, '--quiet']);
    for (let i = 0; i < 200; i++) {
      await fetch(`${first.url}/v0/collections/app%2FEntry/records`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ args: [`r${i}`, i] }) });
    }
    await stopServe(first);
    const whole = readFileSync(join(data, 'vellum.sqlite'));
    const cut = join(dir, 'cut');
    mkdirSync(cut);
    writeFileSync(join(cut, 'vellum.sqlite'), whole.subarray(0, whole.length >> 1));
    const run = serveFails(['--data', cut]);
    expect(run.status).toBe(1);
    expect(oneLine(run.stderr)).toBe(`vellum serve: cannot open the SQLite database ${join(cut, 'vellum.sqlite')}: database disk image is malformed`);
  }, 30_000);

  const unprivileged = asUnprivilegedUser();
  it.skipIf(!unprivileged.canRun)('a folder this user may not write', () => {
    const locked = join(dir, 'read-only');
    mkdirSync(locked, { mode: 0o555 });
    const result = spawnSync(process.execPath, [...VELLUM, 'serve', '--port', '0', '--data', join(locked, 'sub')], { encoding: 'utf8', timeout: CLI_TIMEOUT_MS, cwd: '/', ...unprivileged.options });
    expect(result.status).toBe(1);
    expect(oneLine(result.stderr)).toBe(`vellum serve: cannot use ${join(locked, 'sub')} as the data folder: permission denied`);
  }, 30_000);

  it('a SQLite file another process holds locked: refused after the busy wait, saying so', async () => {
    const data = join(dir, 'locked');
    const first = await spawnServe(['--data', data, '--quiet']);
    await stopServe(first);
    // Another process takes the database and keeps it (an exclusive lock, as a backup tool might).
    const holder = spawn(
      process.execPath,
      ['-e', `const D = require('better-sqlite3'); const db = new D(${JSON.stringify(join(data, 'vellum.sqlite'))}); db.pragma('locking_mode = EXCLUSIVE'); db.exec('BEGIN EXCLUSIVE'); console.log('held'); setInterval(() => {}, 1000);`],
      { stdio: ['ignore', 'pipe', 'inherit'], cwd: fileURLToPath(new URL('../..', import.meta.url)) },
    );
    try {
      await new Promise<void>((resolve) => holder.stdout!.once('data', () => resolve()));
      const run = serveFails(['--data', data]);
      expect(run.status).toBe(1);
      expect(oneLine(run.stderr)).toMatch(`vellum serve: cannot open the SQLite database ${join(data, 'vellum.sqlite')}: database is locked`);
    } finally {
      holder.kill('SIGKILL');
    }
  }, 30_000);
});

describe('a running server whose SQLite file another process holds', () => {
  it('answers a write 503 store/unavailable after the busy wait, and writes again once the lock is gone', async () => {
    const data = join(dir, 'held-while-running');
    const server = await spawnServe(['--data', data, '--schema', numberSchema, '--quiet']);
    running.push(server);
    const create = (id: string) =>
      fetch(`${server.url}/v0/collections/app%2FEntry/records`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ args: [id, 1] }) });
    expect((await create('before')).status).toBe(200);
    const holder = new Database(join(data, 'vellum.sqlite'));
    holder.exec('BEGIN IMMEDIATE'); // another process's write transaction, left open
    try {
      const answer = await create('during');
      expect(answer.status).toBe(503);
      const { error } = (await answer.json()) as { error: { code: string; reason: string; message: string } };
      expect(error).toMatchObject({ code: 'unavailable', reason: 'store/unavailable' });
      expect(error.message).toMatch(/^SQLite: the database is locked by another process/);
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
    expect((await fetch(`${server.url}/v0/collections/app%2FEntry/records/during`)).status).toBe(404);
    expect((await create('after')).status).toBe(200);
  }, 30_000);
});

describe('schema files', () => {
  it('a missing file, a folder, and a device that never ends are each one line naming the file', () => {
    const missing = join(dir, 'missing.polylang');
    const cases: [string, string][] = [
      [missing, `vellum serve: cannot read schema file ${missing}: no such file or directory`],
      [dir, `vellum serve: cannot read schema file ${dir}: is a directory`],
      ['/dev/zero', 'vellum serve: cannot read schema file /dev/zero: it is larger than'],
      [binarySchema, `vellum serve: cannot read schema file ${binarySchema}: it is not UTF-8 text`],
    ];
    for (const [file, message] of cases) {
      const run = serveFails(['--data', join(dir, 'schemas1'), '--schema', file]);
      expect(run.status, file).toBe(1);
      expect(oneLine(run.stderr)).toContain(message);
    }
  });

  it('two files defining the same collection are refused before anything is installed', async () => {
    const data = join(dir, 'schemas2');
    const run = serveFails(['--data', data, '--schema', otherSchema, numberSchema, stringSchema]);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(`vellum serve: collection app/Entry is defined in both ${numberSchema}:2:12 and ${stringSchema}:2:12`);
    // Nothing was installed: the next start creates both collections.
    const server = await spawnServe(['--data', data, '--schema', otherSchema, numberSchema]);
    running.push(server);
    expect(server.output()).toMatch(/app\/Other created/);
    expect(server.output()).toMatch(/app\/Entry created/);
    await stopServe(server);
  }, 30_000);

  it('a file with errors after a good one installs neither', async () => {
    const data = join(dir, 'schemas3');
    const run = serveFails(['--data', data, '--schema', otherSchema, brokenSchema]);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/broken\.polylang:2:\d+/);
    const server = await spawnServe(['--data', data, '--schema', otherSchema]);
    running.push(server);
    expect(server.output()).toMatch(/app\/Other created/);
    await stopServe(server);
  }, 30_000);

  it("a file changing an existing collection's field type to one its records cannot be cast to is refused and the data is kept", async () => {
    const data = join(dir, 'schemas4');
    const first = await spawnServe(['--data', data, '--schema', stringSchema, '--quiet']);
    running.push(first);
    await fetch(`${first.url}/v0/collections/app%2FEntry/records`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"args":["e","one"]}' });
    await stopServe(first);
    const run = serveFails(['--data', data, '--schema', numberSchema]);
    expect(run.status).toBe(1);
    const refusal = 'cannot update collection app/Entry without losing stored data: field "n" string → number: 1 record would lose its value (record "e": n = "one")';
    expect(run.stderr).toContain(`vellum serve: ${numberSchema}: collection app/Entry: ${refusal}`);
    // With a new collection in a file before it, the new one is not installed either.
    const withOther = serveFails(['--data', data, '--schema', otherSchema, numberSchema]);
    expect(withOther.status).toBe(1);
    expect(withOther.stderr).toContain(refusal);
    const again = await spawnServe(['--data', data, '--schema', otherSchema]);
    running.push(again);
    expect(again.output()).toMatch(/app\/Other created/);
    expect((await json(`${again.url}/v0/collections/app%2FEntry/records/e`)).body.data).toEqual({ id: 'e', n: 'one' });
    await stopServe(again);
  }, 30_000);
});

describe('listening', () => {
  it('a port in use, and a host that does not resolve', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const result = spawnSync(process.execPath, [...VELLUM, 'serve', '--port', String(port), '--data', join(dir, 'listen')], { encoding: 'utf8', timeout: CLI_TIMEOUT_MS });
      expect(result.status).toBe(1);
      expect(oneLine(result.stderr)).toBe(`vellum serve: cannot listen on 127.0.0.1:${port}: the port is already in use`);
    } finally {
      blocker.close();
    }
    const run = serveFails(['--data', join(dir, 'listen'), '--host', 'no-such-host.invalid']);
    expect(run.status).toBe(1);
    expect(oneLine(run.stderr)).toMatch(/^vellum serve: cannot listen on no-such-host\.invalid:0: /);
  }, 30_000);
});
