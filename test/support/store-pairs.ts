// Two stores on one database (one SQLite file, one PostgreSQL table), as two processes would have them, on each
// backend: for tests of what one process sees of another's commits.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { openPostgresStore, openSqliteStore, type RecordStore } from '../../src/store/index.ts';
import { startTestPostgres, uniqueTableName, type TestPostgres } from './postgres.ts';

export type OpenPair = () => Promise<[RecordStore, RecordStore]>;

/**
 * `[backend name, open a pair]` for SQLite and PostgreSQL, for `describe.each`. Registers the suite's hooks that make
 * a temporary folder and start a PostgreSQL cluster, and remove and stop them after.
 */
export function storePairBackends(folderPrefix: string): [string, OpenPair][] {
  let pg: TestPostgres | undefined;
  let dir: string;
  let sqliteFiles = 0;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), folderPrefix));
    pg = await startTestPostgres();
  }, 120_000);
  afterAll(async () => {
    await pg?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);
  return [
    [
      'SQLite',
      async () => {
        const file = join(dir, `db-${++sqliteFiles}.sqlite`);
        return [openSqliteStore(file), openSqliteStore(file)];
      },
    ],
    [
      'PostgreSQL',
      async () => {
        const table = uniqueTableName();
        const open = () => openPostgresStore({ connectionString: pg!.url, table, pool: { max: 4 } });
        const first = await open();
        return [first, await open()];
      },
    ],
  ];
}
