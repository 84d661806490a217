// The runtime's typed errors over HTTP: each comes back as its reason with the right status, and changes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, startTestServer, type TestServer } from './support.ts';

const SCHEMA = `
@public
collection Faulty {
  id: string;
  n: number;
  name?: string;

  constructor (id: string) {
    this.id = id;
    this.n = 0;
  }

  spin () {
    while (true) {
      this.n += 1;
    }
  }

  recurse (k: number) {
    this.recurse(k + 1);
  }

  infinite () {
    this.n = 1 / 0;
  }
}

@public
collection Incomplete {
  id: string;
  name: string;
  constructor (id: string) {
    this.id = id;
  }
}
`;

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
  await s.createCollection('rt/Faulty', SCHEMA);
  await s.createCollection('rt/Incomplete', SCHEMA);
  expect((await s.create('rt/Faulty', ['f1'])).status).toBe(200);
});
afterAll(() => s.close());

describe('runtime errors over HTTP', () => {
  it('an endless loop runs out of gas: 400 function/out-of-gas, the record unchanged', async () => {
    const answer = await s.call('rt/Faulty', 'f1', 'spin', []);
    expect(answer.status).toBe(400);
    expect(errorOf(answer)?.code).toBe('failed-precondition');
    expect(errorOf(answer)?.reason).toBe('function/out-of-gas');
    expect((await s.record('rt/Faulty', 'f1')).json.data).toEqual({ id: 'f1', n: 0 });
  });

  it('endless recursion is a limit error, not a crash', async () => {
    const answer = await s.call('rt/Faulty', 'f1', 'recurse', [0]);
    expect(answer.status).toBe(400);
    expect(errorOf(answer)?.code).toBe('failed-precondition');
    expect(errorOf(answer)?.reason).toMatch(/^function\//);
    expect((await s.get('/v0/health')).status).toBe(200);
  });

  it('a required field the constructor leaves unset: 400 record/missing-field', async () => {
    const answer = await s.create('rt/Incomplete', ['i1']);
    expect(answer.status).toBe(400);
    expect(errorOf(answer)).toEqual({ code: 'invalid-argument', reason: 'record/missing-field', message: 'record is missing field "name"' });
    expect((await s.record('rt/Incomplete', 'i1')).status).toBe(404);
  });

  it('a value that is not JSON (Infinity) in a number field is refused', async () => {
    const answer = await s.call('rt/Faulty', 'f1', 'infinite', []);
    expect(answer.status).toBe(400);
    expect(errorOf(answer)?.reason).toBe('record/invalid-field');
    expect((await s.record('rt/Faulty', 'f1')).json.data.n).toBe(0);
  });
});
