// What the `vellum migrate` tests share: the CLI run as a user runs it, and the two places it keeps records, each
// fresh per test: a data folder (SQLite, `--data`) and a database of its own on the test server (PostgreSQL, `--db`,
// where the CLI uses the default table).
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { openPostgresStore, openSqliteStore, type RecordStore } from '../../src/store/index.ts';
import { CLI_TIMEOUT_MS, VELLUM } from './cli.ts';
import type { TestPostgres } from './postgres.ts';

/** `vellum migrate <args…>`, waited for. */
export const vellumMigrate = (...args: string[]): SpawnSyncReturns<string> =>
  spawnSync(process.execPath, [...VELLUM, 'migrate', ...args], { encoding: 'utf8', timeout: CLI_TIMEOUT_MS });

export interface MigrateBackend {
  /** The CLI flags that name it. */
  where: string[];
  /** Opens the store the CLI writes (close it before the next CLI run on SQLite). */
  open: () => Promise<RecordStore>;
}

/** A database of its own on `server`, as a `postgres://` URL. */
export async function freshDatabase(server: TestPostgres, prefix: string): Promise<string> {
  const name = `${prefix}_${Math.random().toString(36).slice(2, 10)}`;
  const client = new pg.Client({ connectionString: server.url });
  await client.connect();
  await client.query(`CREATE DATABASE ${name}`);
  await client.end();
  return server.url.replace(/\/postgres$/, `/${name}`);
}

/** Both backends for `describe.each`; `server` is read when a test prepares one (after `beforeAll` started it). */
export function migrateBackends(dir: string, server: () => TestPostgres, prefix: string): [string, () => Promise<MigrateBackend>][] {
  return [
    [
      'SQLite (--data)',
      async () => {
        const data = mkdtempSync(join(dir, 'data-'));
        return { where: ['--data', data], open: async () => openSqliteStore(join(data, 'vellum.sqlite')) };
      },
    ],
    [
      'PostgreSQL (--db)',
      async () => {
        const url = await freshDatabase(server(), prefix);
        return { where: ['--db', url], open: () => openPostgresStore({ connectionString: url }) };
      },
    ],
  ];
}
