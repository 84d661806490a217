// Cancelling `vellum/client` requests against a real server, on SQLite and on PostgreSQL: an aborted long-poll
// rejects with the signal's reason and its connection closes at once (the server's socket sees the close, long
// before the 60 s the poll would wait); an aborted subscription ends and frees the server's stream; a request that
// gets no answer keeps the network's error as its `cause`.
import { createServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, VellumError, type CollectionSchema } from '../../src/client/index.ts';
import { startServer, type RunningServer } from '../../src/service/index.ts';
import { openSqliteStore } from '../../src/store/index.ts';
import { startTestPostgres, type TestPostgres } from '../support/postgres.ts';

interface ItemSchema extends CollectionSchema {
  name: 'Item';
  record: { id: string };
  constructorArgs: [id: string];
  functions: {};
  queryFields: { id: string };
}

const SCHEMA = '@public\ncollection Item {\n  id: string;\n  constructor (id: string) { this.id = id; }\n}\n';

/** A server whose sockets the test watches. */
interface Watched {
  server: RunningServer;
  sockets: Set<Socket>;
}

async function watched(options: { databaseUrl?: string; maxStreams?: number }): Promise<Watched> {
  const server = await startServer({
    port: 0,
    host: '127.0.0.1',
    explorer: false,
    logRequests: false,
    ...(options.databaseUrl ? { databaseUrl: options.databaseUrl } : { store: openSqliteStore(':memory:') }),
    ...(options.maxStreams ? { maxStreams: options.maxStreams } : {}),
  });
  const sockets = new Set<Socket>();
  server.app.server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  return { server, sockets };
}

/** Resolves with 'closed' when the socket closes, or 'open' after `ms`. */
function closedWithin(socket: Socket, ms: number): Promise<'closed' | 'open'> {
  return new Promise((resolve) => {
    if (socket.destroyed) return resolve('closed');
    const timer = setTimeout(() => resolve('open'), ms);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve('closed');
    });
  });
}

/** The server's socket that has received a request whose line holds `text`, once it has. */
async function socketCarrying(w: Watched, text: string, seen: Map<Socket, string>): Promise<Socket> {
  for (let tries = 0; tries < 200; tries++) {
    for (const socket of w.sockets) if (seen.get(socket)?.includes(text)) return socket;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`no request with ${text} reached the server within 5 s`);
}

/** Keeps what each socket of the server received, to find the one that carries a request. */
function recordRequests(w: Watched): Map<Socket, string> {
  const seen = new Map<Socket, string>();
  w.server.app.server.on('connection', (socket: Socket) => {
    socket.on('data', (chunk: Buffer) => seen.set(socket, (seen.get(socket) ?? '') + chunk.toString('latin1').slice(0, 2000)));
  });
  return seen;
}

const backends: [string, () => Promise<{ databaseUrl?: string }>][] = [
  ['SQLite', async () => ({})],
  ['PostgreSQL', async () => ({ databaseUrl: (pg ??= await startTestPostgres()).url })],
];
let pg: TestPostgres | undefined;
afterAll(async () => {
  await pg?.stop();
}, 60_000);

describe.each(backends)('cancelling on %s', (_name, backend) => {
  let w: Watched;
  let seen: Map<Socket, string>;
  beforeAll(async () => {
    w = await watched(await backend());
    seen = recordRequests(w);
    await w.server.service.installSchema('cancel/Item', SCHEMA);
  }, 120_000);
  afterAll(async () => {
    await w?.server.close();
  });

  it('an aborted long-poll rejects with the abort and closes its connection at once', async () => {
    const items = new Client({ baseURL: `${w.server.url}/v0`, namespace: 'cancel' }).collection<ItemSchema>('Item');
    const page = await items.list();
    const controller = new AbortController();
    const poll = items.waitForList(page.timestamp!, { waitFor: '60s', signal: controller.signal });
    const socket = await socketCarrying(w, 'waitFor=60s', seen);
    controller.abort();
    const error = await poll.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DOMException);
    expect((error as DOMException).name).toBe('AbortError');
    // The server's side of the connection closes now, not when the 60 s are over.
    expect(await closedWithin(socket, 5_000)).toBe('closed');
    // And the server goes on serving.
    await items.create('after-abort');
    expect((await items.list()).records.map((r) => r.id)).toEqual(['after-abort']);
  });

  it("an aborted record long-poll does the same, and an abort's own reason is what it rejects with", async () => {
    const items = new Client({ baseURL: `${w.server.url}/v0`, namespace: 'cancel' }).collection<ItemSchema>('Item');
    const page = await items.list();
    const controller = new AbortController();
    const poll = items.record('after-abort').waitForChange(page.timestamp!, '59s', { signal: controller.signal });
    const socket = await socketCarrying(w, 'waitFor=59s', seen);
    const reason = new Error('the user went elsewhere');
    controller.abort(reason);
    await expect(poll).rejects.toBe(reason);
    expect(await closedWithin(socket, 5_000)).toBe('closed');
  });

  it('a collection given a signal with `with` cancels its long-polls too', async () => {
    const controller = new AbortController();
    const items = new Client({ baseURL: `${w.server.url}/v0`, namespace: 'cancel' }).collection<ItemSchema>('Item').with({ signal: controller.signal });
    const page = await items.list();
    const poll = items.waitForList(page.timestamp!, { waitFor: '58s' });
    const socket = await socketCarrying(w, 'waitFor=58s', seen);
    controller.abort();
    await expect(poll).rejects.toMatchObject({ name: 'AbortError' });
    expect(await closedWithin(socket, 5_000)).toBe('closed');
    // Every later request of that collection is aborted before it is sent.
    await expect(items.create('never')).rejects.toMatchObject({ name: 'AbortError' });
  });
});

describe('cancelling a subscription', () => {
  it("ends it when its signal aborts, and frees the server's one stream slot", async () => {
    const w = await watched({ maxStreams: 1 });
    try {
      await w.server.service.installSchema('sub/Item', SCHEMA);
      const items = new Client({ baseURL: `${w.server.url}/v0`, namespace: 'sub' }).collection<ItemSchema>('Item');
      const controller = new AbortController();
      const events: string[] = [];
      const errors: unknown[] = [];
      const subscription = items.subscribe((event) => events.push(event.type), { signal: controller.signal, onError: (e) => errors.push(e) });
      for (let tries = 0; !events.includes('ready'); tries++) {
        if (tries === 200) throw new Error('no ready event within 5 s');
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      const streamStatus = async () => {
        const response = await fetch(`${w.server.url}/v0/collections/sub%2FItem/records?stream=1`);
        await response.body?.cancel();
        return response.status;
      };
      expect(await streamStatus()).toBe(503);
      controller.abort();
      await subscription.done;
      expect(subscription.closed).toBe(true);
      let status = await streamStatus();
      for (let tries = 0; status === 503 && tries < 40; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 25));
        status = await streamStatus();
      }
      expect(status).toBe(200);
      // An ended subscription is not an error.
      expect(errors).toEqual([]);
      // A signal already aborted: the subscription never starts.
      const never = items.subscribe(() => {}, { signal: AbortSignal.abort() });
      await never.done;
      expect(never.closed).toBe(true);
    } finally {
      await w.server.close();
    }
  });
});

describe('a request that gets no answer', () => {
  it("is VellumError request/failed with status 0, and the network's error as its cause", async () => {
    // A port that was free a moment ago: nothing listens there.
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as { port: number };
        probe.close(() => resolve(port));
      });
    });
    const items = new Client({ baseURL: `http://127.0.0.1:${port}/v0`, namespace: 'gone' }).collection<ItemSchema>('Item');
    const error = await items.get('a').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VellumError);
    expect(error).toMatchObject({ status: 0, code: 'unavailable', reason: 'request/failed' });
    const cause = (error as VellumError).cause;
    expect(cause).toBeInstanceOf(TypeError);
    expect(((cause as TypeError).cause as { code?: string }).code).toBe('ECONNREFUSED');
    expect((error as Error).message).toContain('ECONNREFUSED');
  });
});
