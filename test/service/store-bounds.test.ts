// Over real HTTP, the store's own checks as a client meets them: record ids a function builds that keys could
// not tell apart, query values JSON has no text for, and cursors or pages that do not fit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, startTestServer, type TestServer } from './support.ts';

describe('store checks over HTTP', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(async () => {
    await s.close();
  });

  it('refuses a record id with a lone surrogate that a constructor built, and changes nothing', async () => {
    await s.createCollection('lead/Lone', `@public collection Lone { id: string; constructor (id: string) { this.id = id; } }`);
    await s.createCollection('lead/Half', `@public collection Half { id: string; constructor () { this.id = "😀".slice(0, 1); } }`);
    expect((await s.create('lead/Lone', ['\ufffd'])).status).toBe(200);
    const half = await s.create('lead/Half', []);
    expect(half.status).toBe(400);
    expect(errorOf(half)).toMatchObject({ reason: 'record/invalid-id' });
    expect(errorOf(half)?.message).toContain('not well-formed UTF-16');
    expect((await s.list('lead/Half')).json.data).toEqual([]);
    expect((await s.record('lead/Lone', '\ufffd')).json.data).toEqual({ id: '\ufffd' });
  });

  it('quotes a query value of 1e309 as Infinity, not null', async () => {
    await s.createCollection('lead/Num', `@public collection Num { id: string; n: number; constructor (id: string, n: number) { this.id = id; this.n = n; } }`);
    const answer = await s.list('lead/Num', { where: '{"n":1e309}' });
    expect(answer.status).toBe(400);
    expect(errorOf(answer)).toEqual({
      code: 'invalid-argument',
      reason: 'indexer/invalid-query-value',
      message: 'value at field "n" does not match the schema type, expected type: number, got value: Infinity',
    });
  });
});
