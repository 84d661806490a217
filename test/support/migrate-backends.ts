// What the `vellum migrate` tests share: the CLI run as a user runs it (to its end, or killed half-way through a
// migration's pass), the two places it keeps records, each fresh per test: a data folder (SQLite, `--data`) and a
// database of its own on the test server (PostgreSQL, `--db`, where the CLI uses the default table), and what a
// test reads of them between runs.
import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { expect } from 'vitest';
import { openPostgresStore, openSqliteStore, type JsonObject, type RecordStore } from '../../src/store/index.ts';
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

/** Opens the store, runs `use` on it and closes it again (as it must be before the next CLI run on SQLite). */
export async function withStore<T>(open: () => Promise<RecordStore>, use: (store: RecordStore) => Promise<T>): Promise<T> {
  const store = await open();
  try {
    return await use(store);
  } finally {
    await store.close();
  }
}

/** What the store holds of `collection` between CLI runs: whether it is still marked as conforming (a migration's
 *  pass under way or left unfinished) and its records, in key order. */
export function storedCollection(open: () => Promise<RecordStore>, collection: string): Promise<{ conforming: boolean; records: JsonObject[] }> {
  return withStore(open, async (store) => {
    const conforming = await store.conforming(collection);
    const records: JsonObject[] = [];
    await store.forEachRecordBatch(collection, (batch) => void records.push(...batch));
    return { conforming, records };
  });
}

/** Runs `vellum migrate apply <file>` and SIGKILLs it once `collection`'s pass is under way (the stored layout marks
 *  it), and expects that it was killed before it said the collection was updated. */
export async function applyKilledHalfWay(file: string, where: string[], open: () => Promise<RecordStore>, collection: string): Promise<void> {
  const child = spawn(process.execPath, [...VELLUM, 'migrate', 'apply', file, ...where], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => void (output += chunk.toString()));
  let exited = false;
  child.on('exit', () => void (exited = true));
  await withStore(open, async (watcher) => {
    while (!exited && !(await watcher.conforming(collection).catch(() => false))) await new Promise((resolve) => setTimeout(resolve, 10));
  });
  child.kill('SIGKILL');
  await new Promise((resolve) => child.on('close', resolve));
  expect(output).not.toContain(`${collection} updated`);
}
