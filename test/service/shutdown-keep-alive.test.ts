// Shutting down with kept-alive connections: a request in flight when the server begins closing is answered with
// `Connection: close`, so its connection does not stay open (idle, waiting for a next request that would be
// refused) and hold the shutdown until its keep-alive timeout.
import { Agent, request, type IncomingHttpHeaders } from 'node:http';
import { describe, expect, it } from 'vitest';
import { startTestServer } from './support.ts';

const SCHEMA = '@public\ncollection Item {\n  id: string;\n  constructor (id: string) { this.id = id; }\n}\n';

function get(agent: Agent, url: string): Promise<{ status: number; headers: IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    request(url, { agent }, (response) => {
      response.resume();
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers }));
    })
      .on('error', reject)
      .end();
  });
}

describe('shutdown with kept-alive connections', () => {
  it('answers a request in flight with Connection: close, and close() does not wait for the connection', async () => {
    // A grace period far past the test's timeout: close() must finish because the connection closes, not because
    // the grace period ran out.
    const s = await startTestServer({ shutdownGraceMs: 60_000 });
    await s.createCollection('ka/Item', SCHEMA);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const first = await get(agent, `${s.url}/v0/collections/ka%2FItem/records`);
    expect(first.headers.connection).toBe('keep-alive');
    const since = first.headers['x-service-timestamp'] as string;
    // A long-poll on the same connection, waiting when the server begins closing: it ends at once with a 304.
    const poll = get(agent, `${s.url}/v0/collections/ka%2FItem/records?since=${since}&waitFor=30s`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await s.close();
    const answer = await poll;
    expect(answer.status).toBe(304);
    expect(answer.headers.connection).toBe('close');
    agent.destroy();
  });
});
