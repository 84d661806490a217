// HTTP edges Node's server answered on its own or not at all (issue 13, item 4), over raw sockets: a request
// without Host, CONNECT, `Expect: 100-continue` over the body limit, and a body refused for its size while the
// client is still sending it. Each gets the JSON error envelope.

import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signRequest } from '../../src/auth/index.ts';
import { buildApp, DEFAULT_REQUEST_TIMEOUT_MS, RecordService } from '../../src/service/index.ts';
import { openSqliteStore } from '../../src/store/index.ts';
import { KEYS, startTestServer, type TestServer } from './support.ts';

const BODY_LIMIT = 64 * 1024;
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ bodyLimit: BODY_LIMIT });
});
afterAll(() => s.close());

interface RawResponse {
  readonly status: number;
  readonly head: string;
  readonly body: string;
}

/** A raw connection: bytes out, and the responses read back one by one (each with a Content-Length). */
class Connection {
  readonly socket: Socket;
  #received = '';
  closed = false;
  error: Error | undefined;
  readonly #waiters = new Set<() => void>();

  constructor(port = s.server.port) {
    this.socket = connect(port, '127.0.0.1');
    this.socket.setEncoding('latin1');
    this.socket.on('data', (chunk: string) => {
      this.#received += chunk;
      this.#wake();
    });
    this.socket.on('error', (error) => (this.error = error));
    this.socket.on('close', () => {
      this.closed = true;
      this.#wake();
    });
  }

  #wake(): void {
    for (const waiter of this.#waiters) waiter();
  }

  /** Resolves when `ready` holds (checked on every chunk), or with undefined when the connection closes first. */
  #until<T>(ready: () => T | undefined): Promise<T | undefined> {
    return new Promise((resolve) => {
      const check = () => {
        const value = ready();
        if (value !== undefined || this.closed) {
          this.#waiters.delete(check);
          resolve(value);
        }
      };
      this.#waiters.add(check);
      check();
    });
  }

  /** The next complete response; undefined when the connection closed before one came. */
  async response(): Promise<RawResponse | undefined> {
    return this.#until(() => {
      const end = this.#received.indexOf('\r\n\r\n');
      if (end === -1) return undefined;
      const head = this.#received.slice(0, end);
      const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? 0);
      if (this.#received.length < end + 4 + length) return undefined;
      const body = this.#received.slice(end + 4, end + 4 + length);
      this.#received = this.#received.slice(end + 4 + length);
      return { status: Number(head.split(' ')[1]), head, body };
    });
  }

  /** Whatever more arrives until the connection closes. */
  async rest(): Promise<string> {
    await this.#until(() => undefined);
    return this.#received;
  }

  /** Resolves when the socket takes more bytes, or is gone (a reset: the write error is kept in `error`). */
  #drained(): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.socket.off('drain', done);
        this.socket.off('close', done);
        resolve();
      };
      this.socket.on('drain', done);
      this.socket.on('close', done);
    });
  }

  /** Writes `total` bytes of body (chunked when asked), waiting for the socket to take them. */
  async sendBody(total: number, chunked: boolean): Promise<void> {
    const piece = Buffer.alloc(64 * 1024, 0x61);
    for (let sent = 0; sent < total && !this.socket.destroyed; sent += piece.length) {
      const bytes = chunked ? Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')]) : piece;
      if (!this.socket.write(bytes)) await this.#drained();
    }
    if (chunked) this.socket.write('0\r\n\r\n');
  }
}

const envelope = (response: RawResponse | undefined) => JSON.parse(response?.body ?? 'null') as { error: { code: string; reason: string; message: string } };

describe('requests Node answered on its own', () => {
  it('an HTTP/1.1 request without a Host header is 400 with the envelope; HTTP/1.0 may leave it out', async () => {
    const missing = new Connection();
    missing.socket.write('GET /v0/health HTTP/1.1\r\n\r\n');
    const answer = await missing.response();
    expect(answer?.status).toBe(400);
    expect(answer?.head).toMatch(/\r\ncontent-type: application\/json/i);
    expect(envelope(answer).error).toEqual({ code: 'invalid-argument', reason: 'request/invalid-http', message: 'an HTTP/1.1 request must have a Host header' });
    expect(await missing.rest()).toBe(''); // and the connection is closed

    const old = new Connection();
    old.socket.write('GET /v0/health HTTP/1.0\r\n\r\n');
    const fine = await old.response();
    expect(fine?.status).toBe(200);
    expect(JSON.parse(fine!.body)).toEqual({ status: 'OK' });
    old.socket.destroy();
  });

  it('a request with two Host headers is 400 with the envelope (Node kept the first and went on)', async () => {
    const twice = new Connection();
    twice.socket.write('GET /v0/health HTTP/1.1\r\nHost: test\r\nhost: other\r\n\r\n');
    const answer = await twice.response();
    expect(answer?.status).toBe(400);
    expect(envelope(answer).error).toEqual({ code: 'invalid-argument', reason: 'request/invalid-http', message: 'a request must have one Host header, not several' });
    expect(await twice.rest()).toBe('');
  });

  it('CONNECT is 405 with the envelope and the methods served, then the connection closes', async () => {
    const proxy = new Connection();
    proxy.socket.write('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    const answer = await proxy.response();
    expect(answer?.status).toBe(405);
    expect(answer?.head).toMatch(/\r\nAllow: GET, HEAD, POST, OPTIONS\r\n/);
    expect(envelope(answer).error).toMatchObject({ code: 'invalid-argument', reason: 'request/method-not-allowed', message: expect.stringMatching(/^CONNECT is not supported/) });
    expect(await proxy.rest()).toBe('');
    expect(proxy.error).toBeUndefined();
  });

  it('an Expect other than 100-continue is 417 with the envelope', async () => {
    const odd = new Connection();
    odd.socket.write('GET /v0/health HTTP/1.1\r\nHost: test\r\nExpect: teapot\r\n\r\n');
    const answer = await odd.response();
    expect(answer?.status).toBe(417);
    expect(envelope(answer).error).toEqual({ code: 'invalid-argument', reason: 'request/invalid-http', message: 'Expect: "teapot" is not supported (only 100-continue is)' });
    expect(await odd.rest()).toBe('');
  });
});

describe('a body refused for its size', () => {
  const post = (framing: string) => `POST /v0/collections/Collection/records HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n${framing}\r\n\r\n`;
  const refused = { code: 'payload-too-large', reason: 'request/body-too-large', message: 'request body is larger than the service accepts' };

  for (const chunked of [false, true]) {
    it(`sent whole (${chunked ? 'chunked' : 'with a Content-Length'}) before the client reads: 413 with the envelope, and the connection goes on`, async () => {
      const total = 8 * 1024 * 1024;
      const client = new Connection();
      // As a simple client does: send everything, then read. The server answered after 64 KiB and closed at once,
      // so the rest of the body met a reset, and the client got EPIPE and no answer.
      client.socket.pause();
      client.socket.write(post(chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${total}`));
      await client.sendBody(total, chunked);
      expect(client.error).toBeUndefined();
      client.socket.resume();
      const answer = await client.response();
      expect(answer?.status).toBe(413);
      expect(envelope(answer).error).toEqual(refused);
      // The body was read to its end, so the connection carries the next request.
      client.socket.write('GET /v0/health HTTP/1.1\r\nHost: test\r\n\r\n');
      expect((await client.response())?.status).toBe(200);
      client.socket.destroy();
    });
  }

  it('a client that stops sending after the 413 gets that answer only', async () => {
    const client = new Connection();
    client.socket.write(post('Content-Length: 1000000'));
    await client.sendBody(256 * 1024, false);
    const answer = await client.response();
    expect(answer?.status).toBe(413);
    client.socket.end(); // the rest of the declared body never comes
    expect(await client.rest()).toBe('');
  });

  it('with Expect: 100-continue, a Content-Length over the limit is 413 at once (no 100 Continue); one within it continues', async () => {
    const large = new Connection();
    large.socket.write(post(`Content-Length: ${BODY_LIMIT + 1}\r\nExpect: 100-continue`));
    const answer = await large.response();
    expect(answer?.status).toBe(413);
    expect(envelope(answer).error).toEqual(refused);
    expect(await large.rest()).toBe('');

    const small = new Connection();
    const body = JSON.stringify({ args: ['edges/Note', 'collection Note { id: string; constructor (id: string) { this.id = id; } }'] });
    const signature = `X-Polybase-Signature: ${signRequest(KEYS.admin, body, Date.now())}`;
    small.socket.write(post(`Content-Length: ${Buffer.byteLength(body)}\r\n${signature}\r\nExpect: 100-continue`));
    expect((await small.response())?.status).toBe(100);
    small.socket.write(body);
    const created = await small.response();
    expect(created?.status, created?.body).toBe(200);
    small.socket.destroy();
  });
});

describe("the service's own HTTP server (fastify's serverFactory, for the Host check)", () => {
  it('keeps the timeouts fastify sets on a server it makes itself', async () => {
    const app = buildApp({ service: new RecordService(openSqliteStore(':memory:')), explorer: false });
    try {
      expect(app.server.keepAliveTimeout).toBe(72_000); // fastify's default, not Node's 5 s
      expect(app.server.requestTimeout).toBe(DEFAULT_REQUEST_TIMEOUT_MS); // not fastify's 0, no limit
      expect(app.server.headersTimeout).toBeLessThanOrEqual(DEFAULT_REQUEST_TIMEOUT_MS);
      expect(app.server.timeout).toBe(0);
    } finally {
      await app.close();
    }
  });
});

describe('a GET whose client sends a body without Content-Length or Transfer-Encoding', () => {
  // To HTTP those bytes are the next request, which the parser refuses in the same read as the GET. The refusal
  // (a 400, then the connection destroyed) went out ahead of the GET's answer: the client read the 400 as it.
  const META = '/v0/collections/Collection/records/Collection';
  for (const [name, path] of [['the get fast path', META], ['a fastify route', '/v0/health']] as const) {
    for (const connection of ['', 'Connection: close\r\n']) {
      it(`gets its own answer alone, then the connection closes (${name}${connection ? ', Connection: close' : ''})`, async () => {
        const client = new Connection();
        client.socket.write(`GET ${path} HTTP/1.1\r\nHost: test\r\n${connection}\r\nhello`);
        const answer = await client.response();
        expect(answer?.status, answer?.body).toBe(200);
        expect(answer?.head).toMatch(/\r\nconnection: close(\r\n|$)/i);
        expect(await client.rest()).toBe('');
      });
    }
  }

  it('a GET with a chunked body is answered, its body ignored, and the connection goes on', async () => {
    const client = new Connection();
    client.socket.write('GET /v0/collections/Collection/records/Collection HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n');
    expect((await client.response())?.status).toBe(200);
    client.socket.write('GET /v0/health HTTP/1.1\r\nHost: test\r\n\r\n');
    expect((await client.response())?.status).toBe(200);
    client.socket.destroy();
  });

  it("with Node's http client (which writes a GET's body unframed): the client reads the answer", async () => {
    const answer = await new Promise<{ status?: number; body: string; error?: string }>((resolve) => {
      const outgoing = httpRequest({ host: '127.0.0.1', port: s.server.port, path: '/v0/collections/Collection/records/Collection', method: 'GET', agent: false }, (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
        response.on('end', () => resolve({ status: response.statusCode, body }));
      });
      outgoing.on('error', (error) => resolve({ body: '', error: error.message }));
      outgoing.write('hello');
      outgoing.end();
    });
    expect(answer.error).toBeUndefined();
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body).data.id).toBe('Collection');
  });

  it('a request whose own body is malformed (a bad chunk) still gets the 400 envelope at once', async () => {
    const client = new Connection();
    client.socket.write('POST /v0/collections/Collection/records HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n');
    const refused = await client.response();
    expect(refused?.status).toBe(400);
    expect(envelope(refused).error).toMatchObject({ reason: 'request/invalid-http' });
    expect(await client.rest()).toBe('');
  });

  it('bytes refused on an idle connection still get the 400 envelope', async () => {
    const client = new Connection();
    client.socket.write('GET /v0/health HTTP/1.1\r\nHost: test\r\n\r\n');
    expect((await client.response())?.status).toBe(200);
    client.socket.write('hello\r\n\r\n');
    const refused = await client.response();
    expect(refused?.status).toBe(400);
    expect(envelope(refused).error).toMatchObject({ reason: 'request/invalid-http' });
    expect(await client.rest()).toBe('');
  });
});

describe('a client that does not finish sending its request', () => {
  const TIMEOUT_MS = 300;
  let slow: TestServer;
  beforeAll(async () => {
    slow = await startTestServer({ requestTimeoutMs: TIMEOUT_MS });
    await slow.post('/v0/collections/Collection/records', {
      args: ['ns/Item', '@public collection Item { id: string; n: number; constructor (id: string) { this.id = id; this.n = 0; } }'],
    }, { key: KEYS.admin });
  });
  afterAll(() => slow.close());

  it('stopping short of its Content-Length gets 408 with the envelope, and the connection closes', async () => {
    // Before: fastify's default (no request timeout) held the connection open for ever.
    const connection = new Connection(slow.server.port);
    connection.socket.write(
      'POST /v0/collections/ns%2FItem/records HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 40\r\n\r\n{"args":',
    );
    const response = await connection.response();
    expect(response?.status).toBe(408);
    expect(envelope(response).error).toMatchObject({ code: 'invalid-argument', reason: 'request/timeout' });
    await connection.rest();
    expect(connection.closed).toBe(true);
    expect((await slow.get('/v0/collections/ns%2FItem/records')).json).toMatchObject({ data: [] });
  });

  it('headers sent slowly past the timeout get the same 408', async () => {
    const connection = new Connection(slow.server.port);
    connection.socket.write('GET /v0/health HTTP/1.1\r\nHost: x\r\n');
    const response = await connection.response();
    expect(response?.status).toBe(408);
    await connection.rest();
    expect(connection.closed).toBe(true);
  });

  it('waiting for the answer does not count: a long-poll longer than the timeout is answered', async () => {
    const first = await slow.get('/v0/collections/ns%2FItem/records');
    const since = first.headers.get('x-service-timestamp');
    const connection = new Connection(slow.server.port);
    connection.socket.write(`GET /v0/collections/ns%2FItem/records?since=${since}&waitFor=2s HTTP/1.1\r\nHost: x\r\n\r\n`);
    const response = await connection.response();
    expect(response?.status).toBe(304);
    connection.socket.destroy();
  });
});
