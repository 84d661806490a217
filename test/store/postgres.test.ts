// The conformance suite on a real PostgreSQL: a temporary cluster started here (test/support/postgres.ts), or
// the server named by VELLUM_TEST_PG_URL. Each test works in its own table; all are dropped at the end.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgres, RecordStore, type PostgresKv } from '../../src/store/index.ts';
import { itemLayout } from './schemas.ts';
import { dropTablesAndStop, startTestPostgres, uniqueTableName, type TestPostgres } from '../support/postgres.ts';
import { conformance } from './conformance.ts';
import { unionConformance } from './union-conformance.ts';
import { changeFeedConformance } from './change-feed-conformance.ts';

let server: TestPostgres;
const tables: string[] = [];

beforeAll(async () => {
  server = await startTestPostgres();
});

afterAll(() => dropTablesAndStop(server, tables));

async function open(table: string): Promise<PostgresKv> {
  return openPostgres({ connectionString: server.url, table, pool: { max: 8 } });
}

const postgres = {
  name: 'postgres',
  fresh: async () => {
    const table = uniqueTableName();
    tables.push(table);
    return { kv: await open(table), peer: () => open(table) };
  },
};
conformance(postgres);
unionConformance(postgres);
changeFeedConformance(postgres);

describe('PostgreSQL backend', () => {
  it('creates its table idempotently when several processes start at once', async () => {
    const table = uniqueTableName();
    tables.push(table);
    const stores = await Promise.all([open(table), open(table), open(table)]);
    expect(await stores[0]!.count({ gte: Buffer.alloc(0), lt: Buffer.of(0xff) })).toBe(1); // the clock row
    await Promise.all(stores.map((s) => s.close()));
  });

  it('can learn of other processes\' commits by reading the change log, for engines without LISTEN/NOTIFY', async () => {
    const table = uniqueTableName();
    tables.push(table);
    const writer = new RecordStore(await openPostgres({ connectionString: server.url, table, notifications: { pollMs: 50 } }));
    const reader = new RecordStore(await openPostgres({ connectionString: server.url, table, notifications: { pollMs: 50 } }));
    await writer.defineCollection('ns/Item', itemLayout);
    const since = await reader.timestamp();
    const wait = reader.waitForChange({ collectionId: 'ns/Item' }, since, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 30));
    const { timestamp } = await writer.commit({ writes: [{ kind: 'put', collectionId: 'ns/Item', record: { id: 'a', group: 'g' } }] });
    expect(await wait).toBe(timestamp);
    await Promise.all([writer.close(), reader.close()]);
  });

  it('refuses a table name that is not a plain identifier', async () => {
    await expect(openPostgres({ connectionString: server.url, table: 'x; DROP TABLE y' })).rejects.toThrow('invalid table name');
  });
});
