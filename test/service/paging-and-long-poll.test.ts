// Cursors over HTTP in both directions under several sorts, and long-polls with and without changes.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, startTestServer, type TestServer } from './support.ts';

const SCHEMA = `
@public
collection Item {
  id: string;
  n: number;
  tag: string;
  @index(tag, n);
  constructor (id: string, n: number, tag: string) {
    this.id = id;
    this.n = n;
    this.tag = tag;
  }
  set (n: number) {
    this.n = n;
  }
}
`;

let s: TestServer;
const items: { id: string; n: number; tag: string }[] = [];
beforeAll(async () => {
  s = await startTestServer();
  await s.createCollection('page/Item', SCHEMA);
  for (let i = 0; i < 23; i++) {
    const item = { id: `i${String(i).padStart(2, '0')}`, n: ((i * 7) % 11) - 5, tag: i % 3 === 0 ? 'a' : 'b' };
    items.push(item);
    expect((await s.create('page/Item', [item.id, item.n, item.tag])).status).toBe(200);
  }
});
afterAll(() => s.close());

const ids = (answer: { json: any }) => answer.json.data.map((r: any) => r.data.id as string);

function expected(query: { where?: any; sort?: [string, 'asc' | 'desc'][] }): string[] {
  let rows = items.filter((item) => (query.where?.tag === undefined ? true : item.tag === query.where.tag));
  const [field, direction] = query.sort?.[0] ?? ['id', 'asc'];
  rows = [...rows].sort((a, b) => {
    const x = (a as any)[field];
    const y = (b as any)[field];
    const primary = x < y ? -1 : x > y ? 1 : 0;
    const byId = a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
    // Ties break by id ascending; reading an index backwards reverses the tie order too.
    if (primary !== 0) return direction === 'asc' ? primary : -primary;
    return direction === 'asc' ? byId : -byId;
  });
  return rows.map((r) => r.id);
}

describe('cursors', () => {
  const queries: { where?: any; sort?: [string, 'asc' | 'desc'][] }[] = [
    {},
    { sort: [['id', 'desc']] },
    { sort: [['n', 'asc']] },
    { sort: [['n', 'desc']] },
    { where: { tag: 'b' }, sort: [['n', 'asc']] },
    { where: { tag: 'b' }, sort: [['n', 'desc']] },
  ];

  it('paging forward with `after` visits every record once, in order, under any sort (negatives included)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...queries), fc.integer({ min: 1, max: 8 }), async (query, limit) => {
        const seen: string[] = [];
        let after: string | undefined;
        for (let page = 0; page < 30; page++) {
          const answer = await s.list('page/Item', { ...query, limit, after });
          expect(answer.status, answer.text).toBe(200);
          if (answer.json.data.length === 0) break;
          seen.push(...ids(answer));
          after = answer.json.cursor.after;
        }
        expect(seen).toEqual(expected(query));
      }),
      { numRuns: 20 },
    );
  });

  it('paging backward with `before` from the end visits every record once, each page in order', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...queries), fc.integer({ min: 1, max: 8 }), async (query, limit) => {
        const all = await s.list('page/Item', { ...query, limit: 1000 });
        let before: string = all.json.cursor.after;
        const pages: string[][] = [];
        const last = ids(all).at(-1)!;
        for (let page = 0; page < 30; page++) {
          const answer = await s.list('page/Item', { ...query, limit, before });
          expect(answer.status, answer.text).toBe(200);
          if (answer.json.data.length === 0) break;
          pages.unshift(ids(answer));
          before = answer.json.cursor.before;
        }
        expect([...pages.flat(), last]).toEqual(expected(query));
      }),
      { numRuns: 20 },
    );
  });

  it('a cursor from the last page, polled with `after`, keeps its place and then sees new records', async () => {
    const all = await s.list('page/Item', { limit: 1000 });
    const end = all.json.cursor.after;
    const empty = await s.list('page/Item', { after: end });
    expect(empty.json).toEqual({ data: [], cursor: { before: end, after: end } });
    await s.create('page/Item', ['i99', 0, 'c']);
    expect(ids(await s.list('page/Item', { after: end }))).toEqual(['i99']);
    items.push({ id: 'i99', n: 0, tag: 'c' });
  });

  it('limit is capped at 1000 and 0 or negative limits are refused', async () => {
    expect((await s.list('page/Item', { limit: 5000 })).json.data.length).toBe(items.length);
    for (const limit of ['0', '-1', '1.5']) {
      const answer = await s.list('page/Item', { limit });
      expect(answer.status).toBe(400);
      expect(errorOf(answer)?.code).toBe('invalid-argument');
    }
  });
});

describe('long-poll', () => {
  it('answers 304 with no body when nothing changed within waitFor', async () => {
    const first = await s.list('page/Item');
    const since = first.headers.get('x-service-timestamp')!;
    const started = Date.now();
    const answer = await s.list('page/Item', { since, waitFor: '1s' });
    expect(answer.status).toBe(304);
    expect(answer.text).toBe('');
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });

  it('answers at once when something changed after since', async () => {
    const first = await s.list('page/Item');
    const since = first.headers.get('x-service-timestamp')!;
    await s.call('page/Item', 'i01', 'set', [100]);
    const started = Date.now();
    const answer = await s.list('page/Item', { since, waitFor: '30s' });
    expect(answer.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(Number(answer.headers.get('x-service-timestamp'))).toBeGreaterThan(Number(since));
  });

  it('wakes a waiting list when a record of the collection changes', async () => {
    const since = (await s.list('page/Item')).headers.get('x-service-timestamp')!;
    const waiting = s.list('page/Item', { since, waitFor: '30s' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const started = Date.now();
    await s.call('page/Item', 'i02', 'set', [7]);
    const answer = await waiting;
    expect(answer.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(answer.json.data.find((r: any) => r.data.id === 'i02').data.n).toBe(7);
  });

  it('a get long-poll wakes on a change of that record, not of another', async () => {
    const got = await s.record('page/Item', 'i03');
    const since = got.headers.get('x-service-timestamp')!;
    const waiting = s.get(`/v0/collections/page%2FItem/records/i03?since=${since}&waitFor=3s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await s.call('page/Item', 'i04', 'set', [1]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await s.call('page/Item', 'i03', 'set', [42]);
    const answer = await waiting;
    expect(answer.status).toBe(200);
    expect(answer.json.data.n).toBe(42);
    const quiet = await s.get(`/v0/collections/page%2FItem/records/i03?since=${answer.headers.get('x-service-timestamp')}&waitFor=500ms`);
    expect(quiet.status).toBe(304);
  });

  it('waitFor=0s answers at once', async () => {
    const since = (await s.list('page/Item')).headers.get('x-service-timestamp')!;
    const answer = await s.list('page/Item', { since, waitFor: '0s' });
    expect(answer.status).toBe(304);
  });

  it('a long-poll on an unknown collection is 404 at once', async () => {
    const answer = await s.list('page/Nope', { since: '1', waitFor: '30s' });
    expect(answer.status).toBe(404);
  });
});
