// Two `vellum serve` processes sharing one PostgreSQL database: a write through one is read through the other
// and wakes a long-poll waiting on the other; a signed write accepted by one is refused as a replay by the other;
// a schema updated through one is in force on the other at its next request (it caches compiled schemas); a push
// stream on one sends the writes made through the other.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signRequest } from '../../src/auth/index.ts';
import { startTestPostgres, type TestPostgres } from '../support/postgres.ts';
import { KEYS, hexOf } from './support.ts';
import { json, post, spawnServe, stopServe, type ServeProcess } from './process.ts';

const SCHEMA = `
@public
collection Counter {
  id: string;
  value: number;
  constructor (id: string) {
    this.id = id;
    this.value = 0;
  }
  increment () {
    this.value += 1;
  }
}
`;

/** A schema change is an admin's (an unsigned request never changes a schema). */
// The 300 signed increments of one key below test concurrency, not limits: a key's write budget is shared by the
// two servers on PostgreSQL (docs/service.md, "Securing a deployment"), and the default (100 per second, a burst of
// 200) would refuse a third of them.
const ADMIN = ['--admin-key', hexOf(KEYS.admin), '--writes-per-key', '1000'];
const asAdmin = (url: string, body: unknown) => post(url, body, { 'x-polybase-signature': signRequest(KEYS.admin, JSON.stringify(body), Date.now()) });

let pg: TestPostgres;
let a: ServeProcess;
let b: ServeProcess;
beforeAll(async () => {
  pg = await startTestPostgres();
  a = await spawnServe(['--db', pg.url, '--quiet', ...ADMIN]);
  b = await spawnServe(['--db', pg.url, '--quiet', ...ADMIN]);
  const created = await asAdmin(`${a.url}/v0/collections/Collection/records`, { args: ['scale/Counter', SCHEMA] });
  expect(created.status).toBe(200);
}, 120_000);
afterAll(async () => {
  await stopServe(a);
  await stopServe(b);
  await pg?.stop();
}, 60_000);

const path = '/v0/collections/scale%2FCounter/records';

describe('two servers, one PostgreSQL', () => {
  it('a collection and a record written through one are read through the other', async () => {
    expect((await post(`${a.url}${path}`, { args: ['c1'] })).status).toBe(200);
    const read = await json(`${b.url}${path}/c1`);
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual({ id: 'c1', value: 0 });
  });

  it('a write through one wakes a long-poll waiting on the other', async () => {
    const since = (await json(`${b.url}${path}/c1`)).headers.get('x-service-timestamp');
    const poll = json(`${b.url}${path}/c1?since=${since}&waitFor=20s`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const started = Date.now();
    expect((await post(`${a.url}${path}/c1/call/increment`, { args: [] })).status).toBe(200);
    const answer = await poll;
    expect(answer.status).toBe(200);
    expect(answer.body.data.value).toBe(1);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('a signed write accepted by one is refused as a replay by the other', async () => {
    const body = JSON.stringify({ args: [] });
    const header = signRequest(KEYS.alice, body);
    const first = await post(`${a.url}${path}/c1/call/increment`, body, { 'x-polybase-signature': header });
    expect(first.status).toBe(200);
    const replay = await post(`${b.url}${path}/c1/call/increment`, body, { 'x-polybase-signature': header });
    expect(replay.status).toBe(400);
    expect(replay.body.error.reason).toBe('auth/invalid-signature');
    expect((await json(`${b.url}${path}/c1`)).body.data.value).toBe(first.body.data.value);
  });

  it('a schema updated through one is in force on the other at once, though the other has it cached', async () => {
    const publicNote = '@public collection Note { id: string; text: string; constructor (id: string, text: string) { this.id = id; this.text = text; } }';
    const privateNote =
      'collection Note { id: string; text: string; @read reader?: PublicKey; constructor (id: string, text: string) { this.id = id; this.text = text; } }';
    const notes = '/v0/collections/scale%2FNote/records';
    const updateCode = (code: string) => asAdmin(`${a.url}/v0/collections/Collection/records/scale%2FNote/call/updateCode`, { args: [code] });
    expect((await asAdmin(`${a.url}/v0/collections/Collection/records`, { args: ['scale/Note', publicNote] })).status).toBe(200);
    expect((await post(`${a.url}${notes}`, { args: ['n1', 'hello'] })).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await json(`${b.url}${notes}/n1`)).body.data).toEqual({ id: 'n1', text: 'hello' });

    expect((await updateCode(privateNote)).status).toBe(200);
    const refused = await json(`${b.url}${notes}/n1`);
    expect(refused.status).toBe(403);
    expect(refused.body.error.reason).toBe('unauthorized');

    expect((await updateCode(publicNote)).status).toBe(200);
    expect((await json(`${b.url}${notes}/n1`)).status).toBe(200);
  });

  // Issue 13: adding a required field used to leave the stored records without it.
  it('a schema update through one casts the stored records, and the other serves them cast; one they cannot follow is refused', async () => {
    const v1 = '@public collection Doc { id: string; n: number; constructor (id: string, n: number) { this.id = id; this.n = n; } }';
    const v2 = '@public collection Doc { id: string; n: string; tags: string[]; constructor (id: string) { this.id = id; this.n = ""; this.tags = []; } }';
    const v3 = '@public collection Doc { id: string; n: number; tags: string[]; constructor (id: string) { this.id = id; this.n = 0; this.tags = []; } }';
    const docs = '/v0/collections/scale%2FDoc/records';
    const updateCode = (code: string) => asAdmin(`${a.url}/v0/collections/Collection/records/scale%2FDoc/call/updateCode`, { args: [code] });
    expect((await asAdmin(`${a.url}/v0/collections/Collection/records`, { args: ['scale/Doc', v1] })).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await post(`${b.url}${docs}`, { args: [`d${i}`, i] })).status).toBe(200);

    expect((await updateCode(v2)).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await json(`${b.url}${docs}/d${i}`)).body.data).toEqual({ id: `d${i}`, n: String(i), tags: [] });
    expect((await post(`${b.url}${docs}`, { args: ['word'] })).status).toBe(200);

    // Back to numbers: "0" … "4" would cast, the new record's "" would be lost.
    const refused = await updateCode(v3);
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toMatch(/^cannot update collection scale\/Doc without losing stored data: field "n" string → number: 1 record would lose its value \(record "word": n = ""\)/);
    expect((await json(`${b.url}${docs}/d3`)).body.data).toEqual({ id: 'd3', n: '3', tags: [] });
  });

  it('a push stream on one server sends a write through the other; count and $in answer on PostgreSQL', async () => {
    expect((await post(`${a.url}${path}`, { args: ['s1'] })).status).toBe(200);
    const where = encodeURIComponent(JSON.stringify({ id: { $in: ['s1', 's2'] } }));
    const controller = new AbortController();
    const response = await fetch(`${b.url}${path}?stream=1&where=${where}`, { signal: controller.signal });
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    const until = async (needle: string) => {
      while (!text.includes(needle)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`the stream ended before ${needle}`);
        text += value;
      }
    };
    await until('event: ready');
    expect(text).toContain('"id":"s1"');
    expect((await post(`${a.url}${path}`, { args: ['s2'] })).status).toBe(200);
    await until('"id":"s2"');
    expect(text).toMatch(/event: put\nid: \d+\.\d{6}\ndata: \{"id":"s2","data":\{"id":"s2","value":0\}\}/);
    controller.abort();
    expect((await json(`${a.url}${path}?count=true&where=${where}`)).body).toEqual({ count: 2 });
  });

  it('concurrent increments through both servers all count', async () => {
    const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => post(`${(i % 2 ? a : b).url}${path}/c1/call/increment`, { args: [] })));
    for (const answer of answers) expect(answer.status).toBe(200);
    const before = Math.min(...answers.map((x) => x.body.data.value)) - 1;
    expect((await json(`${a.url}${path}/c1`)).body.data.value).toBe(before + 60);
  }, 60_000);

  // Issue 13: 300 signed increments at once through both servers, 4 of 9 runs lost 7-26 of them (409
  // record/conflict after 100 attempts) and a run took 18-25 s; calls on one record now queue in each process.
  it('300 concurrent signed increments of one record through both servers all succeed, in bounded time', async () => {
    expect((await post(`${a.url}${path}`, { args: ['hot'] })).status).toBe(200);
    const body = JSON.stringify({ args: [] });
    const now = Date.now();
    // Distinct times give distinct signatures: each is a new request, none a replay.
    const headers = Array.from({ length: 300 }, (_, i) => signRequest(KEYS.alice, body, now + i));
    const started = Date.now();
    const answers = await Promise.all(
      headers.map((header, i) => post(`${(i % 2 ? a : b).url}${path}/hot/call/increment`, body, { 'x-polybase-signature': header })),
    );
    const seconds = (Date.now() - started) / 1000;
    const failed = answers.filter((answer) => answer.status !== 200);
    expect(failed.map((answer) => answer.body)).toEqual([]);
    // Each answer is the record after its own increment: every value from 1 to 300 exactly once.
    expect(answers.map((answer) => answer.body.data.value).sort((x, y) => x - y)).toEqual(Array.from({ length: 300 }, (_, i) => i + 1));
    expect((await json(`${b.url}${path}/hot`)).body.data.value).toBe(300);
    // A bound on waiting, not a speed measurement (bench/contended.ts measures): about 5-10 s here on a loaded
    // 2-core machine (two servers, signature recovery and PostgreSQL sharing it); before the fix 18-38 s.
    expect(seconds).toBeLessThan(30);
  }, 120_000);
});
