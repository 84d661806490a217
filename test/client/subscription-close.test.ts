// Closing a `vellum/client` subscription against a real server: the server's stream ends, and nothing the closed
// subscription leaves behind holds the server's shutdown. Node's fetch, once a streaming response is aborted, opens
// a new connection it never uses (nodejs/undici#5845); Node's server.close() does not close such a connection, so
// before the server closed unused connections itself, each closed subscription held close() for its grace period.
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { Client, type CollectionSchema, type StreamEvent, type Subscription } from '../../src/client/index.ts';
import { startTestServer, type TestServer } from '../service/support.ts';
import { memoryLogger } from '../support/log.ts';

interface ItemSchema extends CollectionSchema {
  name: 'Item';
  record: { id: string };
  constructorArgs: [id: string];
  functions: {};
  queryFields: { id: string };
}

const SCHEMA = '@public\ncollection Item {\n  id: string;\n  constructor (id: string) { this.id = id; }\n}\n';
const GRACE_LOG = 'requests still in flight';

/** A server whose log the test reads. */
async function server(options: { maxStreams?: number } = {}): Promise<{ s: TestServer; log: string[] }> {
  const log: string[] = [];
  // A grace period the test can afford to wait out when it fails, far past what a prompt close takes.
  const s = await startTestServer({ ...options, shutdownGraceMs: 5_000, logger: memoryLogger(log) });
  await s.createCollection('sub/Item', SCHEMA);
  return { s, log };
}

/** Subscribes to every Item and waits for `ready`. */
async function subscribed(s: TestServer): Promise<Subscription<ItemSchema['record']>> {
  const items = new Client({ baseURL: `${s.url}/v0`, namespace: 'sub' }).collection<ItemSchema>('Item');
  const events: StreamEvent<ItemSchema['record']>[] = [];
  const subscription = items.subscribe((event) => events.push(event));
  for (let tries = 0; !events.some((e) => e.type === 'ready'); tries++) {
    if (tries === 200) throw new Error('no ready event within 5 s');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return subscription;
}

/** The status of a new stream's answer (200, or 503 while the server's one stream slot is taken); its body is dropped. */
async function streamStatus(s: TestServer): Promise<number> {
  const response = await fetch(`${s.url}/v0/collections/sub%2FItem/records?stream=1`);
  await response.body?.cancel();
  return response.status;
}

describe('closing a subscription', () => {
  it("ends the server's stream: its only stream slot is free again", async () => {
    // One stream at a time: while one is open, the next is refused.
    const { s } = await server({ maxStreams: 1 });
    try {
      const subscription = await subscribed(s);
      expect(await streamStatus(s)).toBe(503);
      subscription.close();
      await subscription.done;
      expect(subscription.closed).toBe(true);
      // The server learns of it when the connection's socket closes, a moment after close().
      let status = await streamStatus(s);
      for (let tries = 0; status === 503 && tries < 40; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 25));
        status = await streamStatus(s);
      }
      expect(status).toBe(200);
    } finally {
      await s.close();
    }
  });

  it("leaves nothing that holds the server's close until its grace period ends", async () => {
    const { s, log } = await server();
    for (let round = 0; round < 2; round++) {
      const subscription = await subscribed(s);
      subscription.close();
      await subscription.done;
    }
    await s.close();
    // Before: "requests still in flight after 5000 ms: closing their connections", for connections that carried
    // no request at all.
    expect(log.filter((line) => line.includes(GRACE_LOG))).toEqual([]);
  });
});

describe("the server's close", () => {
  it('closes a connection on which no request has begun, and a kept-alive one between requests', async () => {
    const { s, log } = await server();
    // A kept-alive connection that has served a request (Node's own close handles it)...
    expect((await s.list('sub/Item')).status).toBe(200);
    // ...and one that has not sent a byte.
    const silent = connect(Number(new URL(s.url).port), '127.0.0.1');
    await new Promise((resolve, reject) => silent.once('connect', resolve).once('error', reject));
    const ended = new Promise((resolve) => silent.once('close', resolve));
    await s.close();
    await ended;
    expect(log.filter((line) => line.includes(GRACE_LOG))).toEqual([]);
  });
});
