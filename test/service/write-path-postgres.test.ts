// The write path's first attempts on cached state (records.ts #callOnRecent, #createWithCached) with two servers
// on one PostgreSQL database, over HTTP: each server keeps the records it updated and its schemas, the other
// changes them, and PostgreSQL answers commits on several connections (so possibly out of order). Every
// acknowledged add is counted once, every signed call commits its claim once, and indexes match records.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { signRequest } from '../../src/auth/index.ts';
import { startServer, type RunningServer } from '../../src/service/index.ts';
import { expectIndexesMatchRecords } from '../store/conformance.ts';
import { startTestPostgres, type TestPostgres } from '../support/postgres.ts';
import { KEYS } from './support.ts';

const SCHEMA = (step: number) => `
@public
collection Counter {
  id: string;
  n: number;
  parity: number;
  @index(parity, n);
  constructor (id: string) { this.id = id; this.n = 0; this.parity = 0; }
  add (k: number) { this.n = this.n + k; this.parity = (this.n + ${step}) % 2; }
}`;

let pg: TestPostgres;
let servers: RunningServer[] = [];
beforeAll(async () => {
  pg = await startTestPostgres();
  for (let i = 0; i < 2; i++) servers.push(await startServer({ databaseUrl: pg.url, port: 0, host: '127.0.0.1', logRequests: false, explorer: false }));
  await servers[0]!.service.installSchema('pg/Counter', SCHEMA(0));
}, 120_000);
afterAll(async () => {
  for (const server of servers) await server.close();
  servers = [];
  await pg?.stop();
}, 60_000);

async function post(server: RunningServer, path: string, args: unknown[], signed = false): Promise<{ status: number; body: { data?: { n?: number }; error?: { reason?: string } } }> {
  const body = JSON.stringify({ args });
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (signed) headers['x-polybase-signature'] = signRequest(KEYS.alice, body);
  const response = await fetch(`${server.url}/v0/collections/pg%2FCounter/records${path}`, { method: 'POST', body, headers });
  return { status: response.status, body: (await response.json()) as { data?: { n?: number } } };
}

it('two servers adding to the same counters, some signed, with a schema update midway', async () => {
  const ids = ['p', 'q', 'r'];
  for (const id of ids) expect((await post(servers[0]!, '', [id])).status).toBe(200);
  // Each server updates each counter once first, so both start from records they keep.
  for (const server of servers) for (const id of ids) expect((await post(server, `/${id}/call/add`, [0])).status).toBe(200);
  const acknowledged = new Map(ids.map((id) => [id, 0]));
  for (let round = 0; round < 6; round++) {
    const requests = [];
    for (let i = 0; i < 12; i++) {
      const server = (round + i) % 2;
      const id = ids[i % ids.length]!;
      const k = round * 100 + i + 1; // a distinct body for every signed request
      const signed = i % 4 === 0;
      requests.push(
        post(servers[server]!, `/${id}/call/add`, [k], signed).then((answer) => {
          expect(answer.status, JSON.stringify(answer.body)).toBe(200);
          acknowledged.set(id, acknowledged.get(id)! + k);
        }),
      );
    }
    if (round === 3) requests.push(servers[1]!.service.installSchema('pg/Counter', SCHEMA(1)).then(() => undefined));
    await Promise.all(requests);
  }
  for (const id of ids) {
    for (const server of servers) {
      const read = await fetch(`${server.url}/v0/collections/pg%2FCounter/records/${id}`);
      expect(((await read.json()) as { data: { n: number } }).data.n).toBe(acknowledged.get(id));
    }
  }
  // A signed call accepted is refused as a replay by both servers, and changes nothing.
  const body = JSON.stringify({ args: [1] });
  const header = signRequest(KEYS.alice, body);
  const send = (server: RunningServer) =>
    fetch(`${server.url}/v0/collections/pg%2FCounter/records/p/call/add`, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-polybase-signature': header } });
  expect((await send(servers[0]!)).status).toBe(200);
  for (const server of servers) expect((await send(server)).status).toBe(400);
  for (const server of servers) await expectIndexesMatchRecords(server.service.store, 'pg/Counter');
}, 120_000);
