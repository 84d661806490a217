// Push updates over Server-Sent Events (stream=1): a query's and a record's events as records enter, change and
// leave the caller's readable result; permissions on every event; resuming from Last-Event-ID; the 400s of bad
// stream requests; and the stream ending when the server shuts down.
import { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { signRequest } from '../../src/auth/index.ts';
import { openSqliteStore } from '../../src/store/index.ts';
import { KEYS, errorOf, jwkOf, startTestServer, type TestServer } from './support.ts';

const SCHEMA = `
@public
collection Task {
  id: string;
  owner: string;
  done: boolean;
  @index(owner, done);
  constructor (id: string, owner: string) {
    this.id = id;
    this.owner = owner;
    this.done = false;
  }
  finish () {
    this.done = true;
  }
  remove () {
    selfdestruct();
  }
}

collection Note {
  id: string;
  @read
  reader: PublicKey;
  text: string;
  constructor (id: string, reader: PublicKey, text: string) {
    this.id = id;
    this.reader = reader;
    this.text = text;
  }
  @call(reader)
  edit (text: string) {
    this.text = text;
  }
  @call(reader)
  give (to: PublicKey) {
    this.reader = to;
  }
}
`;

interface StreamEvent {
  event: string;
  id?: string;
  data: any;
}

/** An open event stream: its events in order, read as they arrive. */
class EventReader {
  readonly #events: StreamEvent[] = [];
  readonly #waiting: (() => void)[] = [];
  ended = false;

  constructor(
    readonly response: Response,
    readonly controller: AbortController,
  ) {
    void this.#read();
  }

  async #read(): Promise<void> {
    const reader = this.response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const fields = new Map(block.split('\n').filter((line) => !line.startsWith(':')).map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2)] as const));
          if (!fields.has('event')) continue; // a keep-alive comment
          this.#events.push({ event: fields.get('event')!, ...(fields.has('id') ? { id: fields.get('id') } : {}), data: JSON.parse(fields.get('data')!) });
          this.#waiting.splice(0).forEach((wake) => wake());
        }
      }
    } catch {
      // aborted by the test
    }
    this.ended = true;
    this.#waiting.splice(0).forEach((wake) => wake());
  }

  /** The next event (within 5 s). */
  async next(): Promise<StreamEvent> {
    const deadline = Date.now() + 5000;
    while (this.#events.length === 0) {
      if (this.ended) throw new Error('the stream ended');
      if (Date.now() > deadline) throw new Error('no event within 5 s');
      await new Promise<void>((resolve) => {
        this.#waiting.push(resolve);
        setTimeout(resolve, 200);
      });
    }
    return this.#events.shift()!;
  }

  /** Events up to and including the next `ready`. */
  async untilReady(): Promise<StreamEvent[]> {
    const events: StreamEvent[] = [];
    for (;;) {
      const event = await this.next();
      events.push(event);
      if (event.event === 'ready') return events;
    }
  }

  close(): void {
    this.controller.abort();
  }
}

let s: TestServer;
const open: EventReader[] = [];

async function stream(path: string, options: { key?: string; lastEventId?: string } = {}): Promise<EventReader> {
  const headers: Record<string, string> = {};
  if (options.key) headers['x-polybase-signature'] = signRequest(options.key, '', Date.now());
  if (options.lastEventId) headers['last-event-id'] = options.lastEventId;
  const controller = new AbortController();
  const response = await fetch(s.url + path, { headers, signal: controller.signal });
  expect(response.status, await (response.status === 200 ? Promise.resolve('') : response.clone().text())).toBe(200);
  expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
  const reader = new EventReader(response, controller);
  open.push(reader);
  return reader;
}

const summary = (events: StreamEvent[]) => events.map((e) => (e.event === 'put' ? `put ${e.data.id}` : e.event === 'remove' ? `remove ${e.data.id}` : e.event));
const queryPath = (collection: string, where: unknown) => `/v0/collections/${encodeURIComponent(collection)}/records?stream=1&where=${encodeURIComponent(JSON.stringify(where))}`;

beforeAll(async () => {
  s = await startTestServer();
  await s.createCollection('sse/Task', SCHEMA);
  await s.createCollection('sse/Note', SCHEMA);
  for (const [id, owner] of [['t1', 'ann'], ['t2', 'bob'], ['t3', 'ann']]) expect((await s.create('sse/Task', [id, owner])).status).toBe(200);
});
afterAll(async () => {
  for (const reader of open) reader.close();
  await s.close();
});

describe('a query stream', () => {
  it('starts with the result, then sends what enters, changes and leaves it', async () => {
    const events = await stream(queryPath('sse/Task', { owner: 'ann', done: false }));
    const start = await events.untilReady();
    expect(summary(start)).toEqual(['put t1', 'put t3', 'ready']);
    expect(start[0]!.data.data).toEqual({ id: 't1', owner: 'ann', done: false });
    expect(start.at(-1)!.id).toBe(start.at(-1)!.data.timestamp);

    await s.create('sse/Task', ['t4', 'bob']); // not in the result: no event
    await s.create('sse/Task', ['t5', 'ann']);
    const entered = await events.next();
    expect(summary([entered])).toEqual(['put t5']);
    expect(entered.id).toMatch(/^\d+\.\d{6}$/);
    await s.call('sse/Task', 't1', 'finish', []);
    expect(summary([await events.next()])).toEqual(['remove t1']);
    await s.call('sse/Task', 't3', 'remove', []);
    expect(summary([await events.next()])).toEqual(['remove t3']);
    await s.call('sse/Task', 't4', 'remove', []); // never in the result
    await s.create('sse/Task', ['t6', 'ann']);
    expect(summary([await events.next()])).toEqual(['put t6']);
  });

  it('applies read permissions to every event, and never names a record the caller may not read', async () => {
    await s.create('sse/Note', ['n1', jwkOf(KEYS.alice), 'a']);
    await s.create('sse/Note', ['n2', jwkOf(KEYS.bob), 'b']);
    // The where limits the stream to alice's records, as a list of a private collection must be (docs/service.md
    // "Private records in lists"); each event is still checked against her read permission.
    const alice = await stream(queryPath('sse/Note', { reader: jwkOf(KEYS.alice) }), { key: KEYS.alice });
    expect(summary(await alice.untilReady())).toEqual(['put n1', 'ready']);
    await s.call('sse/Note', 'n2', 'edit', ['b2'], KEYS.bob); // bob's: nothing for alice
    await s.call('sse/Note', 'n1', 'edit', ['a2'], KEYS.alice);
    const changed = await alice.next();
    expect(summary([changed])).toEqual(['put n1']);
    expect(changed.data.data.text).toBe('a2');
    await s.call('sse/Note', 'n1', 'give', [jwkOf(KEYS.bob)], KEYS.alice); // alice may no longer read it
    expect(summary([await alice.next()])).toEqual(['remove n1']);
    await s.call('sse/Note', 'n2', 'give', [jwkOf(KEYS.alice)], KEYS.bob);
    expect(summary([await alice.next()])).toEqual(['put n2']);
  });

  it('resumes from Last-Event-ID with the changes after it, or with a reset when it cannot name them', async () => {
    const first = await stream(queryPath('sse/Task', { owner: 'cid' }));
    await s.create('sse/Task', ['c1', 'cid']);
    await s.create('sse/Task', ['c2', 'cid']);
    expect(summary(await first.untilReady())).toEqual(['ready']);
    expect(summary([await first.next()])).toEqual(['put c1']);
    const lastEvent = await first.next();
    expect(summary([lastEvent])).toEqual(['put c2']);
    const lastId = lastEvent.id!;
    first.close();

    // While away: c1 finishes (still in the result), c3 is created; readable records are named exactly.
    await s.call('sse/Task', 'c1', 'finish', []);
    await s.create('sse/Task', ['c3', 'cid']);
    const resumed = await stream(queryPath('sse/Task', { owner: 'cid' }), { lastEventId: lastId });
    const replay = await resumed.untilReady();
    expect(summary(replay).sort()).toEqual(['put c1', 'put c3', 'ready'].sort());
    const readyId = replay.at(-1)!.id!;
    resumed.close();

    // A record deleted while away cannot be checked any more: the stream starts over.
    await s.call('sse/Task', 'c2', 'remove', []);
    const reset = await stream(queryPath('sse/Task', { owner: 'cid' }), { lastEventId: readyId });
    expect(summary(await reset.untilReady())).toEqual(['reset', 'put c1', 'put c3', 'ready']);
    reset.close();

    // `since` (the timestamp of a list) resumes the same way, on a first connection.
    const list = await s.list('sse/Task', { where: { owner: 'cid' } });
    await s.create('sse/Task', ['c4', 'cid']);
    const since = await stream(`${queryPath('sse/Task', { owner: 'cid' })}&since=${list.headers.get('x-service-timestamp')}`);
    expect(summary(await since.untilReady())).toEqual(['put c4', 'ready']);
  });
});

describe('a stream with a limit', () => {
  it('follows a window of the first records: one entering a full window pushes the last out, one leaving lets the next in', async () => {
    for (const id of ['w3', 'w5', 'w7']) await s.create('sse/Task', [id, 'win']);
    const path = `${queryPath('sse/Task', { owner: 'win' })}&sort=${encodeURIComponent('[["id","asc"]]')}&limit=2`;
    const events = await stream(path);
    expect(summary(await events.untilReady())).toEqual(['put w3', 'put w5', 'ready']);
    await s.create('sse/Task', ['w9', 'win']); // after the window: nothing
    await s.create('sse/Task', ['w4', 'win']); // enters before w5, which is pushed out
    expect(summary([await events.next(), await events.next()])).toEqual(['remove w5', 'put w4']);
    await s.call('sse/Task', 'w4', 'finish', []); // changes inside the window
    const changed = await events.next();
    expect(summary([changed])).toEqual(['put w4']);
    expect(changed.data.data.done).toBe(true);
    await s.call('sse/Task', 'w3', 'remove', []); // leaves: w5 comes back in
    const moved = [await events.next(), await events.next()];
    expect(summary(moved)).toEqual(['remove w3', 'put w5']);
    expect(moved[1]!.id).toMatch(/^\d+\.\d{6}$/); // the commit's last event carries its id
    await s.call('sse/Task', 'w7', 'finish', []); // outside the window: nothing, the next event is the sentinel's
    await s.create('sse/Task', ['w0', 'win']);
    expect(summary([await events.next(), await events.next()])).toEqual(['remove w5', 'put w0']);

    // Resuming: nothing changed since, nothing to send; a change since, a reset (the window may have moved).
    const lastId = moved[1]!.id!;
    events.close();
    const reset = await stream(path, { lastEventId: lastId });
    const again = await reset.untilReady();
    expect(summary(again)).toEqual(['reset', 'put w0', 'put w4', 'ready']);
    reset.close();
    const quiet = await stream(path, { lastEventId: again.at(-1)!.id! });
    expect(summary(await quiet.untilReady())).toEqual(['ready']);
  });
});

describe('resuming', () => {
  it('names no record the caller never had: nothing for one created meanwhile outside the result, a reset for one that changed outside it', async () => {
    const first = await stream(queryPath('sse/Task', { owner: 'eve' }));
    expect(summary(await first.untilReady())).toEqual(['ready']);
    await s.create('sse/Task', ['e1', 'eve']);
    const lastEvent = await first.next();
    expect(summary([lastEvent])).toEqual(['put e1']);
    first.close();

    // Before, a record created while away outside the result was sent as `remove x1`, though never sent.
    await s.create('sse/Task', ['x1', 'zed']);
    await s.create('sse/Task', ['e2', 'eve']);
    const resumed = await stream(queryPath('sse/Task', { owner: 'eve' }), { lastEventId: lastEvent.id! });
    const replay = await resumed.untilReady();
    expect(summary(replay)).toEqual(['put e2', 'ready']);
    resumed.close();

    // x1 existed at this id and changes outside the result: whether the caller had it cannot be told (the log
    // keeps no older values), so rather than a remove that may name a record it never had, the stream starts over.
    await s.call('sse/Task', 'x1', 'finish', []);
    const reset = await stream(queryPath('sse/Task', { owner: 'eve' }), { lastEventId: replay.at(-1)!.id! });
    expect(summary(await reset.untilReady())).toEqual(['reset', 'put e1', 'put e2', 'ready']);
  });
});

describe('a record stream', () => {
  it('sends the record, its changes, and its removal', async () => {
    await s.create('sse/Task', ['r1', 'dee']);
    const events = await stream('/v0/collections/sse%2FTask/records/r1?stream=1');
    expect(summary(await events.untilReady())).toEqual(['put r1', 'ready']);
    await s.call('sse/Task', 'r2-none', 'finish', []); // another record (404): nothing
    await s.create('sse/Task', ['r2', 'dee']);
    await s.call('sse/Task', 'r1', 'finish', []);
    const changed = await events.next();
    expect(summary([changed])).toEqual(['put r1']);
    expect(changed.data.data.done).toBe(true);
    await s.call('sse/Task', 'r1', 'remove', []);
    expect(summary([await events.next()])).toEqual(['remove r1']);
  });

  it('of a record the caller may not read sends nothing about it', async () => {
    await s.create('sse/Note', ['p1', jwkOf(KEYS.bob), 'secret']);
    const carol = await stream('/v0/collections/sse%2FNote/records/p1?stream=1', { key: KEYS.carol });
    expect(summary(await carol.untilReady())).toEqual(['ready']);
    await s.call('sse/Note', 'p1', 'edit', ['still secret'], KEYS.bob);
    await s.call('sse/Note', 'p1', 'give', [jwkOf(KEYS.carol)], KEYS.bob);
    const shared = await carol.next();
    expect(summary([shared])).toEqual(['put p1']);
    expect(shared.data.data.text).toBe('still secret');
  });
});

describe('bad stream requests', () => {
  it('are ordinary error answers, before any event', async () => {
    const cases: [string, Record<string, string>, number, string][] = [
      ['/v0/collections/sse%2FTask/records?stream=2', {}, 400, 'request/invalid-query'],
      ['/v0/collections/sse%2FTask/records?stream=1&after=x', {}, 400, 'request/invalid-query'],
      ['/v0/collections/sse%2FTask/records?stream=1&limit=0', {}, 400, 'indexer/invalid-query'],
      ['/v0/collections/sse%2FTask/records?stream=1&limit=x', {}, 400, 'indexer/invalid-query'],
      ['/v0/collections/sse%2FTask/records?stream=1&count=true', {}, 400, 'request/invalid-query'],
      [queryPath('sse/Task', { owner: { $nope: 1 } }), {}, 400, 'indexer/invalid-query'],
      [`${queryPath('sse/Task', { done: true })}&sort=${encodeURIComponent('[["owner","desc"]]')}`, {}, 400, 'indexer/missing-index'],
      ['/v0/collections/sse%2FTask/records?stream=1', { 'last-event-id': 'yesterday' }, 400, 'request/invalid-header'],
      // Before, a time past 2^53 microseconds went on to the change log's keys: an internal-error event.
      ['/v0/collections/sse%2FTask/records?stream=1', { 'last-event-id': '99999999999999999999' }, 400, 'request/invalid-header'],
      ['/v0/collections/sse%2FTask/records/t1?stream=1&since=9007199254.740993', {}, 400, 'request/invalid-query'],
      ['/v0/collections/sse%2FNope/records?stream=1', {}, 404, 'collection/not-found'],
      ['/v0/collections/sse%2FNope/records/x?stream=1', {}, 404, 'collection/not-found'],
    ];
    for (const [path, headers, status, reason] of cases) {
      const answer = await s.get(path, { headers });
      expect(answer.status, path).toBe(status);
      expect(errorOf(answer)?.reason, path).toBe(reason);
    }
  });
});

describe('shutdown', () => {
  it('ends open streams at once', async () => {
    const server = await startTestServer();
    await server.createCollection('sse/Task', SCHEMA);
    const controller = new AbortController();
    const response = await fetch(`${server.url}/v0/collections/sse%2FTask/records?stream=1`, { signal: controller.signal });
    const reader = new EventReader(response, controller);
    expect(summary(await reader.untilReady())).toEqual(['ready']);
    const started = Date.now();
    await server.close();
    expect(Date.now() - started).toBeLessThan(3000);
    await expect(reader.next()).rejects.toThrow('the stream ended');
  });
});

describe('a client that leaves while the starting result is read', () => {
  it('has its stream ended, not left waiting to write to the closed connection', async () => {
    const store = openSqliteStore(':memory:');
    const server = await startTestServer({ store });
    await server.createCollection('sse/Task', SCHEMA);
    // The start of the stream (reading the collection's layout) waits until the client has gone.
    let arrived!: () => void;
    const streamArrived = new Promise<void>((resolve) => (arrived = resolve));
    let release!: () => void;
    const clientGone = new Promise<void>((resolve) => (release = resolve));
    const getLayout = store.getLayout.bind(store);
    store.getLayout = async (collectionId) => {
      arrived();
      await clientGone;
      return getLayout(collectionId);
    };
    const ends = vi.spyOn(ServerResponse.prototype, 'end');
    try {
      const controller = new AbortController();
      const response = fetch(`${server.url}/v0/collections/sse%2FTask/records?stream=1`, { signal: controller.signal }).catch(() => undefined);
      await streamArrived;
      controller.abort();
      await response;
      await new Promise((resolve) => setTimeout(resolve, 100)); // the server sees the connection close
      release();
      // Before, the 'close' it had missed never came again: the stream waited for 'drain' until shutdown.
      await vi.waitFor(() => expect(ends).toHaveBeenCalled(), { timeout: 3000 });
    } finally {
      ends.mockRestore();
      await server.close();
    }
  });
});

describe('how many streams a server keeps open', () => {
  it('refuses one past maxStreams with 503 stream/too-many-streams, and takes one again when another ends', async () => {
    const server = await startTestServer({ maxStreams: 2 });
    await server.createCollection('sse/Task', SCHEMA);
    const path = `${server.url}/v0/collections/sse%2FTask/records?stream=1`;
    const controllers: AbortController[] = [];
    const openOne = async () => {
      const controller = new AbortController();
      controllers.push(controller);
      return fetch(path, { signal: controller.signal });
    };
    try {
      expect((await openOne()).status).toBe(200);
      expect((await openOne()).status).toBe(200);
      const refused = await openOne();
      expect(refused.status).toBe(503);
      expect(((await refused.json()) as { error: unknown }).error).toEqual({
        code: 'unavailable',
        reason: 'stream/too-many-streams',
        message: 'this server has 2 streams open, its most; retry later or use a long-poll (since)',
      });
      // Long-polls and lists are not streams: still answered.
      expect((await fetch(`${server.url}/v0/collections/sse%2FTask/records`)).status).toBe(200);
      controllers[0]!.abort();
      await vi.waitFor(async () => {
        const again = await openOne();
        expect(again.status).toBe(200);
      }, { timeout: 3000 });
    } finally {
      for (const controller of controllers) controller.abort();
      await server.close();
    }
  });
});
