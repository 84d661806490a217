// A schema update that casts stored records, seen by requests that arrive while the cast is running.
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import type { RecordStore } from '../../src/store/index.ts';
import { startTestServer, type TestServer } from './support.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

/**
 * Holds calls of the store's `method` that `when` picks (each one, or only the first) until `release()`;
 * `held` settles when the first arrives. `calls` counts every call of the method.
 */
function hold<M extends 'defineCollection' | 'commit'>(method: M, options: { when?: (...args: Parameters<RecordStore[M]>) => boolean; once?: boolean } = {}) {
  const store = s.server.service.store;
  const original = (store[method] as (...args: unknown[]) => unknown).bind(store);
  let arrived!: () => void;
  const held = new Promise<void>((resolve) => (arrived = resolve));
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let holding = true;
  const spy = vi.spyOn(store, method as 'commit').mockImplementation((async (...args: Parameters<RecordStore[M]>) => {
    if (holding && (options.when?.(...args) ?? true)) {
      if (options.once) holding = false;
      arrived();
      await gate;
    }
    return original(...args);
  }) as never);
  return { held, release, spy };
}

it('requests arriving during the switch wait for the layout of the one pass running, rather than each starting a pass over the whole collection', async () => {
  const before = '@public collection P { id: string; constructor (id: string) { this.id = id; } }';
  const after = '@public collection P { id: string; n: number; constructor (id: string) { this.id = id; this.n = 1; } }';
  await s.createCollection('t/P', before);
  for (const id of ['a', 'b', 'c']) expect((await s.create('t/P', [id])).status).toBe(200);

  // The update's own pass is held (before its layout is stored) until the reads below have found the new schema.
  const { held, release, spy } = hold('defineCollection');
  try {
    const update = s.updateCode('t/P', after);
    await held;
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

  // The call's first commit (read under the old schema) is held until the update has cast the record.
  const { held, release, spy } = hold('commit', { once: true, when: (request) => request.writes?.some((write) => write.collectionId === 't/Q') === true });
  try {
    const call = s.call('t/Q', 'r', 'set', ['y']);
    await held;
    expect((await s.updateCode('t/Q', after)).status).toBe(200);
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
  // The first update's install is held until a second update has been installed and used.
  const { held, release, spy } = hold('defineCollection', { once: true });
  try {
    // The first update drops y; the second brings it back, and a call sets it.
    const first = s.updateCode('t/R', schema('x?: number;'));
    await held;
    expect((await s.updateCode('t/R', schema(`y?: string; x?: number; z: boolean; ${setY}`))).status).toBe(200);
    expect((await s.call('t/R', 'a', 'setY', ['kept'])).status).toBe(200);
    release();
    expect((await first).status).toBe(200);
  } finally {
    spy.mockRestore();
  }
  expect(Object.keys((await store.getLayout('t/R'))!.fields)).toEqual(['id', 'y', 'x', 'z']);
  expect((await store.get('t/R', 'a')).record).toEqual({ id: 'a', y: 'kept', z: false });
});
