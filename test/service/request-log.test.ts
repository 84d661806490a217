// The server's log: one line per request by default; with logRequests: false (`vellum serve --quiet`) no
// request lines, but an internal error is still reported with its details.
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support.ts';

let s: TestServer | undefined;
afterEach(() => s?.close());

async function serverLogging(logRequests: boolean | undefined): Promise<{ server: TestServer; lines: string[] }> {
  const lines: string[] = [];
  s = await startTestServer({ log: (line) => lines.push(line), ...(logRequests === undefined ? {} : { logRequests }) });
  // A failure that is no ServiceError or StoreError: an internal error, 500, logged with its stack.
  s.server.service.get = () => Promise.reject(new Error('the disk caught fire'));
  return { server: s, lines };
}

describe('request log', () => {
  it('logs one line per request by default, and the details of an internal error', async () => {
    const { server, lines } = await serverLogging(undefined);
    expect((await server.get('/v0/health')).status).toBe(200);
    expect((await server.record('Collection', 'x')).status).toBe(500);
    await expect.poll(() => lines.length).toBe(3);
    expect(lines[0]).toMatch(/^GET \/v0\/health 200 [\d.]+ms$/);
    expect(lines.find((line) => line.startsWith('internal error on GET /v0/collections/Collection/records/x: Error: the disk caught fire'))).toBeDefined();
    expect(lines.find((line) => /^GET \/v0\/collections\/Collection\/records\/x 500 [\d.]+ms$/.test(line))).toBeDefined();
  });

  it('with logRequests: false logs no request lines, only the internal error', async () => {
    const { server, lines } = await serverLogging(false);
    expect((await server.get('/v0/health')).status).toBe(200);
    expect((await server.record('Collection', 'x')).status).toBe(500);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^internal error on GET \/v0\/collections\/Collection\/records\/x: Error: the disk caught fire/);
  });
});

describe('request log of a get the fast path answers', () => {
  it('is the same line as any other by default, and none with logRequests: false', async () => {
    for (const logRequests of [undefined, false]) {
      const lines: string[] = [];
      s = await startTestServer({ log: (line) => lines.push(line), ...(logRequests === undefined ? {} : { logRequests }) });
      expect((await s.record('Collection', 'Collection')).status).toBe(200);
      if (logRequests === false) {
        expect(lines).toEqual([]);
      } else {
        await expect.poll(() => lines.length).toBe(1);
        expect(lines[0]).toMatch(/^GET \/v0\/collections\/Collection\/records\/Collection 200 [\d.]+ms$/);
      }
      await s.close();
      s = undefined;
    }
  });
});
