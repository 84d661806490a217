// A PostgreSQL server for tests: a throw-away cluster (initdb + pg_ctl) in a temporary folder, on a free port
// of 127.0.0.1, stopped and deleted afterwards (and when the process exits). PostgreSQL refuses to run as root,
// so as root the cluster belongs to `nobody` and every command runs through `runuser -u nobody`.
//
// Set VELLUM_TEST_PG_URL (e.g. postgres://user:pass@host:5432/db) to use an existing server instead; each
// suite then works in its own tables and drops them afterwards.

import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openPostgresStore, openSqliteStore, type RecordStore } from '../../src/store/index.ts';

export interface TestPostgres {
  /** A connection URL for the server. */
  readonly url: string;
  /** Stops the cluster this helper started (nothing for an existing server). */
  stop(): Promise<void>;
  /** Stops the server, keeping its data, as an outage does; `resume` starts it again (undefined for an existing server). */
  pause?(): void;
  resume?(): void;
}

export async function startTestPostgres(): Promise<TestPostgres> {
  const existing = process.env.VELLUM_TEST_PG_URL;
  if (existing) return { url: existing, stop: async () => {} };

  const dir = mkdtempSync(join(tmpdir(), 'vellum-pg-'));
  const data = join(dir, 'data');
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'nobody']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'nobody']).toString().trim());
    chownSync(dir, uid, gid);
  }
  const run = (command: string, args: string[]): void => {
    const [file, argv] = asRoot ? ['runuser', ['-u', 'nobody', '--', command, ...args]] : [command, args];
    const result = spawnSync(file, argv, { cwd: dir, encoding: 'utf8' });
    if (result.status !== 0) {
      throw new Error(`${command} failed (${result.status ?? result.signal}): ${result.stderr || result.stdout || String(result.error)}`);
    }
  };

  let port: number;
  try {
    run('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
    port = await freePort();
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const settings = [
    `-p ${port}`,
    '-c listen_addresses=127.0.0.1',
    `-c unix_socket_directories=${dir}`,
    '-c fsync=off',
    '-c synchronous_commit=off',
    '-c full_page_writes=off',
    '-c max_connections=200',
  ].join(' ');
  try {
    run('pg_ctl', ['-D', data, '-o', settings, '-l', join(dir, 'log'), '-w', '-t', '60', 'start']);
  } catch (error) {
    spawnSync(asRoot ? 'runuser' : 'pg_ctl', asRoot ? ['-u', 'nobody', '--', 'pg_ctl', '-D', data, '-m', 'immediate', 'stop'] : ['-D', data, '-m', 'immediate', 'stop']);
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }

  let stopped = false;
  const stopNow = (): void => {
    if (stopped) return;
    stopped = true;
    process.off('exit', stopNow);
    try {
      run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  process.on('exit', stopNow);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop: async () => stopNow(),
    pause: () => run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']),
    resume: () => run('pg_ctl', ['-D', data, '-o', settings, '-l', join(dir, 'log'), '-w', '-t', '60', 'start']),
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** A fresh table name for one test (letters, digits, underscores). */
export function uniqueTableName(prefix = 'vellum_test'): string {
  return `${prefix}_${process.pid}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
}

/**
 * The two stores for `describe.each`: SQLite in memory, and a table of its own on `server()` (read when a test opens
 * it, after the suite's `beforeAll` started the server).
 */
export function storeBackends(server: () => TestPostgres): [string, () => Promise<RecordStore>][] {
  return [
    ['SQLite', async () => openSqliteStore(':memory:')],
    ['PostgreSQL', () => openPostgresStore({ connectionString: server().url, table: uniqueTableName(), pool: { max: 4 } })],
  ];
}

/** Drops a suite's tables (IF EXISTS: a test may have failed before making one), then stops the server. */
export async function dropTablesAndStop(server: TestPostgres | undefined, tables: readonly string[]): Promise<void> {
  if (!server) return;
  if (tables.length > 0) {
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    for (const table of tables) await client.query(`DROP TABLE IF EXISTS ${table}, ${table}_buckets`);
    await client.end();
  }
  await server.stop();
}
