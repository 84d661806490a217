// A schema update that casts stored records, seen by requests that arrive while the cast is running.
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { startTestServer, type TestServer } from './support.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

it('requests arriving during the cast wait for the one pass running, rather than each casting the whole collection again', async () => {
  const before = '@public collection P { id: string; constructor (id: string) { this.id = id; } }';
  const after = '@public collection P { id: string; n: number; constructor (id: string) { this.id = id; this.n = 1; } }';
  await s.createCollection('t/P', before);
  for (const id of ['a', 'b', 'c']) expect((await s.create('t/P', [id])).status).toBe(200);

  const store = s.server.service.store;
  const define = store.defineCollection.bind(store);
  let started!: () => void;
  const passStarted = new Promise<void>((resolve) => (started = resolve));
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  // The update's own pass is held until the reads below have found the new schema.
  const spy = vi.spyOn(store, 'defineCollection').mockImplementation(async (...args) => {
    started();
    await gate;
    return define(...args);
  });
  try {
    const update = s.call('Collection', 't/P', 'updateCode', [after]);
    await passStarted;
    const reads = ['a', 'b', 'c', 'a', 'b'].map((id) => s.record('t/P', id));
    await new Promise((resolve) => setTimeout(resolve, 100));
    release();
    expect((await update).status).toBe(200);
    for (const read of await Promise.all(reads)) expect(read.status).toBe(200);
    expect(spy).toHaveBeenCalledTimes(1);
    for (const id of ['a', 'b', 'c']) expect((await s.record('t/P', id)).json.data).toEqual({ id, n: 0 });
  } finally {
    spy.mockRestore();
  }
});

it('a call whose write conflicts with the cast runs again under the new schema, so it cannot undo the cast', async () => {
  const before = '@public collection Q { id: string; s: string; constructor (id: string) { this.id = id; this.s = ""; } function set(s: string) { this.s = s; } }';
  const after = '@public collection Q { id: string; s: string; n: number; constructor (id: string) { this.id = id; this.s = ""; this.n = 1; } function set(s: string) { this.s = s; } }';
  await s.createCollection('t/Q', before);
  expect((await s.create('t/Q', ['r'])).status).toBe(200);

  const store = s.server.service.store;
  const commit = store.commit.bind(store);
  let held!: () => void;
  const callHeld = new Promise<void>((resolve) => (held = resolve));
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let first = true;
  // The call's first commit (read under the old schema) is held until the update has cast the record.
  const spy = vi.spyOn(store, 'commit').mockImplementation(async (request) => {
    if (first && request.writes?.some((write) => write.collectionId === 't/Q')) {
      first = false;
      held();
      await gate;
    }
    return commit(request);
  });
  try {
    const call = s.call('t/Q', 'r', 'set', ['y']);
    await callHeld;
    expect((await s.call('Collection', 't/Q', 'updateCode', [after])).status).toBe(200);
    expect((await s.record('t/Q', 'r')).json.data).toEqual({ id: 'r', s: '', n: 0 });
    release();
    const answer = await call;
    expect(answer.status, answer.text).toBe(200);
    expect((await s.record('t/Q', 'r')).json.data).toEqual({ id: 'r', s: 'y', n: 0 });
  } finally {
    spy.mockRestore();
  }
});

it('an update whose install runs after a later update has been installed does not put its older layout back', async () => {
  const schema = (fields: string) => `@public collection R { id: string; ${fields} constructor (id: string) { this.id = id; } }`;
  const setY = 'function setY(y: string) { this.y = y; }';
  await s.createCollection('t/R', schema(`y?: string; ${setY}`));
  expect((await s.create('t/R', ['a'])).status).toBe(200);

  const store = s.server.service.store;
  const define = store.defineCollection.bind(store);
  let started!: () => void;
  const firstInstall = new Promise<void>((resolve) => (started = resolve));
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let calls = 0;
  // The first update's install is held until a second update has been installed and used.
  const spy = vi.spyOn(store, 'defineCollection').mockImplementation(async (...args) => {
    if (calls++ === 0) {
      started();
      await gate;
    }
    return define(...args);
  });
  try {
    // The first update drops y; the second brings it back, and a call sets it.
    const first = s.call('Collection', 't/R', 'updateCode', [schema('x?: number;')]);
    await firstInstall;
    expect((await s.call('Collection', 't/R', 'updateCode', [schema(`y?: string; x?: number; z: boolean; ${setY}`)])).status).toBe(200);
    expect((await s.call('t/R', 'a', 'setY', ['kept'])).status).toBe(200);
    release();
    expect((await first).status).toBe(200);
  } finally {
    spy.mockRestore();
  }
  expect(Object.keys((await store.getLayout('t/R'))!.fields)).toEqual(['id', 'y', 'x', 'z']);
  expect((await store.get('t/R', 'a')).record).toEqual({ id: 'a', y: 'kept', z: false });
});
