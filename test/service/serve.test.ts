// `vellum serve` as a process: prints its address, installs --schema files, logs each request, stops cleanly on
// SIGTERM (an in-flight long-poll is answered, the store is closed), keeps data across restarts, refuses a bad
// schema file with file:line:col. Durability: SIGKILL in the middle of a write load loses no answered write.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { json, post, spawnServe, stopServe, type ServeProcess } from './process.ts';

const dir = mkdtempSync(join(tmpdir(), 'vellum-serve-'));
const running: ServeProcess[] = [];
afterAll(async () => {
  for (const server of running) await stopServe(server);
  rmSync(dir, { recursive: true, force: true });
});

const SCHEMA = `
@public
collection Entry {
  id: string;
  n: number;
  payload: string;
  constructor (id: string, n: number, payload: string) {
    this.id = id;
    this.n = n;
    this.payload = payload;
  }
  bump () {
    this.n += 1;
  }
}
`;

describe('vellum serve', () => {
  it('starts on SQLite in the data folder, installs schema files, logs requests, stops on SIGTERM', async () => {
    const schemaFile = join(dir, 'entry.polylang');
    writeFileSync(schemaFile, SCHEMA);
    const data = join(dir, 'data1');
    const server = await spawnServe(['--data', data, '--schema', schemaFile, '--namespace', 'demo']);
    running.push(server);
    expect(server.output()).toMatch(/demo\/Entry created/);
    const created = await post(`${server.url}/v0/collections/demo%2FEntry/records`, { args: ['e1', 1, 'x'] });
    expect(created.status).toBe(200);
    const since = (await json(`${server.url}/v0/collections/demo%2FEntry/records`)).headers.get('x-service-timestamp');
    const poll = json(`${server.url}/v0/collections/demo%2FEntry/records?since=${since}&waitFor=60s`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const started = Date.now();
    server.child.kill('SIGTERM');
    expect((await poll).status).toBe(304);
    expect(await server.exited).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(server.output()).toMatch(/"method":"POST","url":"\/v0\/collections\/demo%2FEntry\/records","route":"\/v0\/collections\/:collection\/records","status":200,"ms":[\d.]+/);
    expect(server.output()).toMatch(/stopped/);

    const again = await spawnServe(['--data', data, '--schema', schemaFile, '--namespace', 'demo']);
    running.push(again);
    expect(again.output()).toMatch(/demo\/Entry unchanged/);
    expect((await json(`${again.url}/v0/collections/demo%2FEntry/records/e1`)).body.data).toEqual({ id: 'e1', n: 1, payload: 'x' });
    await stopServe(again);
  }, 60_000);

  it('confines lists of private collections, unless --private-lists filtered', async () => {
    const schemaFile = join(dir, 'note.polylang');
    writeFileSync(schemaFile, 'collection Note { id: string; @read owner: PublicKey; constructor (id: string) { this.id = id; this.owner = ctx.publicKey; } }');
    for (const [flags, status] of [[[], 403], [['--private-lists', 'filtered'], 200]] as const) {
      const server = await spawnServe(['--data', join(dir, `data-private-${status}`), '--schema', schemaFile, '--namespace', 'demo', '--quiet', ...flags]);
      running.push(server);
      const list = await json(`${server.url}/v0/collections/demo%2FNote/records`);
      expect(list.status).toBe(status);
      if (status === 200) expect(list.body.data).toEqual([]);
      else expect(list.body.error.reason).toBe('permission/unconfined-query');
      await stopServe(server);
    }
    await expect(spawnServe(['--data', join(dir, 'data-private-bad'), '--private-lists', 'open'])).rejects.toThrow(/--private-lists.*(confined|filtered)/s);
  }, 60_000);

  it('refuses a schema file with errors, with file:line:col', async () => {
    const bad = join(dir, 'bad.polylang');
    writeFileSync(bad, 'collection Bad {\n  id: string;\n  n: nope[;\n}\n');
    await expect(spawnServe(['--data', join(dir, 'data2'), '--schema', bad])).rejects.toThrow(/bad\.polylang:3:\d+/);
  }, 30_000);

  it('loses no answered write when killed with SIGKILL mid-load, and no record is half-written', async () => {
    const data = join(dir, 'data3');
    const schemaFile = join(dir, 'entry.polylang');
    const first = await spawnServe(['--data', data, '--schema', schemaFile, '--namespace', 'demo', '--quiet']);
    running.push(first);
    await post(`${first.url}/v0/collections/demo%2FEntry/records`, { args: ['counter', 0, ''] });
    const answered = new Set<string>();
    let bumps = 0;
    let sent = 0;
    let stop = false;
    const worker = async (w: number) => {
      for (let i = 0; !stop; i++) {
        const id = `w${w}-${i}`;
        sent++;
        try {
          const created = await post(`${first.url}/v0/collections/demo%2FEntry/records`, { args: [id, i, 'p'.repeat(1000 + i)] });
          if (created.status === 200) answered.add(id);
          const bumped = await post(`${first.url}/v0/collections/demo%2FEntry/records/counter/call/bump`, { args: [] });
          if (bumped.status === 200) bumps++;
        } catch {
          return; // the connection died with the process
        }
      }
    };
    const workers = Array.from({ length: 8 }, (_, w) => worker(w));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    first.child.kill('SIGKILL');
    stop = true;
    await Promise.all(workers);
    expect(await first.exited).toBe('SIGKILL');
    expect(answered.size).toBeGreaterThan(10);

    const second = await spawnServe(['--data', data, '--quiet']);
    running.push(second);
    const records: any[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await json(`${second.url}/v0/collections/demo%2FEntry/records?limit=1000${after ? `&after=${encodeURIComponent(after)}` : ''}`);
      expect(page.status).toBe(200);
      if (page.body.data.length === 0) break;
      records.push(...page.body.data.map((r: any) => r.data));
      after = page.body.cursor.after;
    }
    const ids = new Set(records.map((r) => r.id));
    for (const id of answered) expect(ids.has(id), id).toBe(true);
    for (const record of records) {
      if (record.id === 'counter') continue;
      const i = Number(record.id.split('-')[1]);
      expect(record).toEqual({ id: record.id, n: i, payload: 'p'.repeat(1000 + i) });
    }
    const counter = records.find((r) => r.id === 'counter');
    expect(counter.n).toBeGreaterThanOrEqual(bumps);
    expect(counter.n).toBeLessThanOrEqual(sent);
    await stopServe(second);
  }, 90_000);
});
