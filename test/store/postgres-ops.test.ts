// Running the record service on PostgreSQL when the database misbehaves: connections killed, the server
// restarted, a statement blocked behind a lock, a table of the wrong shape. The service must stay up, answer
// each request with an error envelope within a bound (never hang), and recover by itself afterwards.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/service/index.ts';
import { openPostgres, openPostgresStore } from '../../src/store/index.ts';
import { startTestPostgres, uniqueTableName, type TestPostgres } from '../support/postgres.ts';
import { VELLUM } from '../support/cli.ts';

let cluster: TestPostgres;
let admin: pg.Client;
const tables: string[] = [];
const servers: RunningServer[] = [];

beforeAll(async () => {
  cluster = await startTestPostgres();
  admin = new pg.Client({ connectionString: cluster.url });
  await admin.connect();
}, 60_000);

afterAll(async () => {
  for (const server of servers) await server.close().catch(() => {});
  if (admin) {
    for (const table of tables) await admin.query(`DROP TABLE IF EXISTS ${table}`).catch(() => {});
    await admin.end().catch(() => {});
  }
  await cluster?.stop();
});

const SCHEMA = `@public
collection Entry {
  id: string;
  n: number;
  constructor (id: string, n: number) { this.id = id; this.n = n; }
}
`;

/** A server on its own table, with the given pool settings (short timeouts keep the tests short). */
async function serve(table: string, pool: pg.PoolConfig = {}): Promise<RunningServer> {
  const store = await openPostgresStore({ connectionString: cluster.url, table, pool: { max: 4, ...pool } });
  const server = await startServer({ port: 0, store });
  servers.push(server);
  await server.service.installSchema('app/Entry', SCHEMA);
  return server;
}

function records(server: RunningServer): string {
  return `${server.url}/v0/collections/app%2FEntry/records`;
}

async function call(url: string, init?: RequestInit): Promise<{ status: number; body: any; headers: Headers; ms: number }> {
  const started = Date.now();
  const response = await fetch(url, { ...init, signal: AbortSignal.timeout(20_000) });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers, ms: Date.now() - started };
}

const create = (server: RunningServer, id: string, n: number) =>
  call(records(server), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ args: [id, n] }) });

/** Ends every connection of the test database but the admin's (as a failover or an operator would). */
async function terminateConnections(): Promise<number> {
  const result = await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND backend_type = 'client backend'`);
  return result.rowCount ?? 0;
}

describe('connections lost', () => {
  it('after pg_terminate_backend of every connection the server stays up, and long-polls wake when LISTEN is back', async () => {
    const table = uniqueTableName('ops');
    tables.push(table);
    const server = await serve(table);
    const peer = await serve(table); // another server on the same table: its commits reach `server` only by NOTIFY
    expect((await create(server, 'a', 1)).status).toBe(200);
    expect(await terminateConnections()).toBeGreaterThanOrEqual(2);
    // Pooled connections are replaced on their next use; a request may see the lost one once.
    let after = await call(`${records(server)}/a`);
    if (after.status !== 200) after = await call(`${records(server)}/a`);
    expect(after.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1500)); // the LISTEN connection reconnects after 1 s
    const since = (await call(records(server))).headers.get('x-service-timestamp');
    const poll = call(`${records(server)}?since=${since}&waitFor=10s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    let created = await create(peer, 'b', 2);
    if (created.status !== 200) created = await create(peer, 'b', 2);
    expect(created.status).toBe(200);
    const woken = await poll;
    expect(woken.status).toBe(200);
    expect(woken.ms).toBeLessThan(5000);
    expect(woken.body.data.map((r: any) => r.data.id)).toContain('b');
  }, 30_000);
});

describe('connections killed under a write load', () => {
  it('every request is answered (200 or an error envelope), none hangs, and the server stays up', async () => {
    const table = uniqueTableName('ops');
    tables.push(table);
    const server = await serve(table);
    let stop = false;
    const statuses: number[] = [];
    const worker = async (w: number) => {
      for (let i = 0; !stop; i++) {
        const answer = await create(server, `w${w}-${i}`, i);
        statuses.push(answer.status);
        if (answer.status !== 200) expect(answer.body.error.message).toMatch(/PostgreSQL|database/);
      }
    };
    const workers = Array.from({ length: 6 }, (_, w) => worker(w));
    // An 'error' event that reaches no listener ends the process (vitest reports it as an uncaught exception).
    for (let round = 0; round < 10; round++) {
      await new Promise((resolve) => setTimeout(resolve, 150));
      await terminateConnections();
    }
    stop = true;
    await Promise.all(workers);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThan(10);
    expect(statuses.every((s) => s === 200 || s >= 500)).toBe(true);
    let read = await call(`${records(server)}?limit=1`);
    if (read.status !== 200) read = await call(`${records(server)}?limit=1`);
    expect(read.status).toBe(200);
  }, 30_000);
});

describe('a wrong password', () => {
  it('vellum serve says the password was refused, for which database, without printing the password', async () => {
    if (process.env.VELLUM_TEST_PG_URL) return; // the server's authentication is not ours to change
    await admin.query(`CREATE ROLE ops_pw LOGIN PASSWORD 'right-password'`);
    const hbaFile = (await admin.query('SHOW hba_file')).rows[0].hba_file as string;
    const hba = readFileSync(hbaFile, 'utf8');
    writeFileSync(hbaFile, `host all ops_pw 127.0.0.1/32 scram-sha-256\n${hba}`);
    await admin.query('SELECT pg_reload_conf()');
    try {
      const url = cluster.url.replace('postgres@', 'ops_pw:wrong-password@');
      const result = spawnSync(process.execPath, [...VELLUM, 'serve', '--port', '0', '--db', url], { encoding: 'utf8', timeout: 20_000 });
      expect(result.status).toBe(1);
      expect(result.stderr).toBe(`vellum serve: cannot open the PostgreSQL database ${url.replace('wrong-password', '***')}: password authentication failed for user "ops_pw"\n`);
      expect(result.stderr + result.stdout).not.toContain('wrong-password');
    } finally {
      writeFileSync(hbaFile, hba);
      await admin.query('SELECT pg_reload_conf()');
      await admin.query('DROP ROLE ops_pw');
    }
  }, 30_000);
});

describe('a statement that cannot finish', () => {
  it('a request blocked behind a lock another session holds gets an error envelope after the statement timeout, not a hang', async () => {
    const table = uniqueTableName('ops');
    tables.push(table);
    const server = await serve(table, { statement_timeout: 1000 });
    expect((await create(server, 'a', 1)).status).toBe(200);
    await admin.query('BEGIN');
    try {
      await admin.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
      const read = await call(`${records(server)}/a`);
      expect(read.status).toBe(503);
      expect(read.body.error).toMatchObject({ code: 'unavailable', reason: 'store/unavailable' });
      expect(read.body.error.message).toMatch(/statement timeout|canceling statement/);
      expect(read.ms).toBeLessThan(5000);
      const write = await create(server, 'b', 2);
      expect(write.status).toBeGreaterThanOrEqual(500);
      expect(write.body.error).toBeDefined();
    } finally {
      await admin.query('ROLLBACK');
    }
    expect((await call(`${records(server)}/a`)).status).toBe(200);
    expect((await create(server, 'b', 2)).status).toBe(200);
  }, 30_000);

  it('the defaults bound every statement and every connection attempt', async () => {
    const table = uniqueTableName('ops');
    tables.push(table);
    const kv = await openPostgres({ connectionString: cluster.url, table });
    try {
      const options = kv.pool.options as pg.PoolConfig;
      expect(options.statement_timeout).toBeGreaterThan(0);
      expect(options.connectionTimeoutMillis).toBeGreaterThan(0);
      expect(options.query_timeout).toBeGreaterThan(options.statement_timeout as number);
    } finally {
      await kv.close();
    }
  });
});

describe('the database restarting', () => {
  it('requests while it is down get an error envelope at once; when it is back the server recovers and long-polls wake on other servers\' commits again', async () => {
    if (process.env.VELLUM_TEST_PG_URL) return; // an existing server is not ours to restart
    const table = uniqueTableName('ops');
    tables.push(table);
    const server = await serve(table);
    const peer = await serve(table);
    expect((await create(server, 'a', 1)).status).toBe(200);
    const dataDir = (await admin.query('SHOW data_directory')).rows[0].data_directory as string;
    await admin.end();
    const pgCtl = (args: string[]) => {
      const asRoot = process.getuid?.() === 0;
      const result = spawnSync(asRoot ? 'runuser' : 'pg_ctl', asRoot ? ['-u', 'nobody', '--', 'pg_ctl', ...args] : args, { encoding: 'utf8', cwd: '/' });
      expect(result.status, result.stderr).toBe(0);
    };
    const options = spawnSync('cat', [`${dataDir}/postmaster.opts`], { encoding: 'utf8' }).stdout;
    pgCtl(['-D', dataDir, '-m', 'fast', '-w', 'stop']);
    try {
      const read = await call(`${records(server)}/a`);
      expect(read.status).toBe(503);
      expect(read.body.error).toMatchObject({ code: 'unavailable', reason: 'store/unavailable' });
      expect(read.body.error.message).toMatch(/database|PostgreSQL/i);
      expect(read.ms).toBeLessThan(5000);
      await new Promise((resolve) => setTimeout(resolve, 2500)); // down long enough for a LISTEN reconnect to fail
    } finally {
      // Started again with the settings it ran with (postmaster.opts: the port, the socket folder).
      const args = [...options.matchAll(/"([^"]*)"/g)].map((m) => m[1]!).filter((a, i, all) => a !== '-D' && all[i - 1] !== '-D');
      pgCtl(['-D', dataDir, '-o', args.join(' '), '-l', `${dataDir}/../log-restart`, '-w', 'start']);
      admin = new pg.Client({ connectionString: cluster.url });
      await admin.connect();
    }
    let read = await call(`${records(server)}/a`);
    for (let i = 0; i < 5 && read.status !== 200; i++) read = await call(`${records(server)}/a`);
    expect(read.status).toBe(200);
    expect((await create(server, 'b', 2)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1500)); // the LISTEN connection's next attempt
    const since = (await call(records(server))).headers.get('x-service-timestamp');
    const poll = call(`${records(server)}?since=${since}&waitFor=8s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    let created = await create(peer, 'c', 3);
    if (created.status !== 200) created = await create(peer, 'c', 3);
    expect(created.status).toBe(200);
    const woken = await poll;
    expect(woken.status).toBe(200);
    expect(woken.ms).toBeLessThan(4000);
  }, 60_000);
});

describe('a table that is not a Vellum store', () => {
  it('is refused at open with what was expected and what was found, and left as it was', async () => {
    const table = uniqueTableName('ops');
    tables.push(table);
    await admin.query(`CREATE TABLE ${table} (key TEXT PRIMARY KEY, value TEXT NOT NULL)`);
    await admin.query(`INSERT INTO ${table} VALUES ('k', 'v')`);
    await expect(openPostgres({ connectionString: cluster.url, table })).rejects.toThrow(
      `table "${table}" exists but is not a Vellum store: expected the columns key bytea, value bytea; found key text, value text`,
    );
    expect((await admin.query(`SELECT key, value FROM ${table}`)).rows).toEqual([{ key: 'k', value: 'v' }]);
  });
});
