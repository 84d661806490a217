// The call fast path (src/service/fast-call.ts) against the fastify route on the edges of HTTP and of the body that
// the generated corpus in fast-call.test.ts does not reach: bytes written to the socket as they are (split across
// many writes, a Content-Length shorter or longer than the body, duplicate headers), bodies at and over the limit,
// odd JSON (a BOM, `__proto__` keys, deep nesting, huge numbers), the Collection meta collection, function names
// that are Object.prototype's, many calls at once on one record, preflights, and the server closing mid-call. Two
// apps over two stores holding the same records, one with the fast path and one without, must answer the same
// bytes (but Date), log the same lines (but the elapsed time) and end with the same records.
import { connect, type AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, RecordService } from '../../src/service/index.ts';
import { openSqliteStore } from '../../src/store/index.ts';
import { listenCounting, withoutRequestId, withoutTime } from '../support/fast-path.ts';
import { memoryLogger } from '../support/log.ts';

const COUNTER = `@public
collection Counter {
  id: string;
  n: number;
  tags?: map<string, string>;
  constructor (id: string, n: number) { this.id = id; this.n = n; }
  increment () { this.n = this.n + 1; }
  add (k: number) { this.n = this.n + k; }
  tag (tags: map<string, string>) { this.tags = tags; }
  del () { selfdestruct(); }
}
`;
const BODY_LIMIT = 256;

interface Served {
  app: FastifyInstance;
  service: RecordService;
  port: number;
  lines: string[];
  routed: { count: number };
}

async function serve(fastCall: boolean): Promise<Served> {
  const service = new RecordService(openSqliteStore(':memory:'));
  await service.initialise();
  await service.installSchema('edge/Counter', COUNTER);
  for (const id of ['a', 'b', 'gone', 'many']) await service.create('edge/Counter', [id, 0], {});
  return { ...(await listenCounting({ service, fastCall, bodyLimit: BODY_LIMIT })), service };
}

const served: Served[] = [];
beforeAll(async () => {
  served.push(await serve(true), await serve(false));
});
afterAll(async () => {
  for (const { app, service } of served) {
    await app.close();
    await service.store.close();
  }
});

/**
 * How long to wait for the first byte of an answer: a server on a loaded machine can take far longer than `idleMs`
 * to answer at all (a test that expects no answer waits this long once).
 */
const FIRST_BYTE_MS = 3_000;

/**
 * Writes each of `parts` to one connection (a pause between them), then reads until the server closes it or
 * `idleMs` pass without a byte (FIRST_BYTE_MS before the first); the answer with Date headers removed, and whether
 * the server closed the connection.
 */
function exchange(port: number, parts: (string | Buffer)[], idleMs = 300, halfClose = false): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    let timer: NodeJS.Timeout | undefined;
    const finish = (closed: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ text: withoutRequestId(received.replace(/\r\nDate: [^\r]*/gi, '')), closed });
    };
    const idle = () => {
      clearTimeout(timer);
      timer = setTimeout(() => finish(false), received === '' ? Math.max(idleMs, FIRST_BYTE_MS) : idleMs);
    };
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      received += chunk;
      idle();
    });
    socket.on('error', () => {});
    socket.on('close', () => finish(true));
    socket.on('connect', async () => {
      for (const part of parts) {
        socket.write(part);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      if (halfClose) socket.end();
      idle();
    });
  });
}

const PATH = '/v0/collections/edge%2FCounter/records';
const post = (path: string, body: string | Buffer, headers = 'Content-Type: application/json\r\n') =>
  Buffer.concat([Buffer.from(`POST ${path} HTTP/1.1\r\nHost: test\r\n${headers}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n`), Buffer.from(body)]);

/** Sends the same bytes to both apps; expects the same answers, log lines and, at the end of the file, records. */
async function same(parts: (string | Buffer)[], idleMs?: number, halfClose?: boolean): Promise<{ text: string; closed: boolean; routed: number }> {
  const [fast, route] = served;
  const logged = [fast!.lines.length, route!.lines.length];
  const routedBefore = fast!.routed.count;
  const viaFast = await exchange(fast!.port, parts, idleMs, halfClose);
  const viaRoute = await exchange(route!.port, parts, idleMs, halfClose);
  expect(viaFast).toEqual(viaRoute);
  await expect.poll(() => fast!.lines.length - logged[0]!).toBe(route!.lines.length - logged[1]!);
  expect(fast!.lines.slice(logged[0]).map(withoutTime)).toEqual(route!.lines.slice(logged[1]).map(withoutTime));
  return { ...viaFast, routed: fast!.routed.count - routedBefore };
}

const statuses = (text: string) => text.match(/HTTP\/1\.1 \d{3}/g) ?? [];

describe('the call fast path on the edges of HTTP', () => {
  it('reads a request split across many writes, one byte each', async () => {
    const bytes = post(`${PATH}/a/call/add`, '{"args":[2]}', 'Content-Type: application/json\r\nConnection: close\r\n');
    const parts = [...bytes].map((byte) => Buffer.from([byte]));
    const { text, routed } = await same(parts);
    expect(statuses(text)).toEqual(['HTTP/1.1 200']);
    expect(routed).toBe(0);
  });

  it('reads the bytes after a short Content-Length as the next request', async () => {
    const body = '{"args":[]}';
    const head = `POST ${PATH}/a/call/increment HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nContent-Length: 5\r\n\r\n`;
    const { text } = await same([head + body + post(`${PATH}/a/call/increment`, '{"args":[]}', 'Content-Type: application/json\r\nConnection: close\r\n').toString()]);
    expect(statuses(text)[0]).toBe('HTTP/1.1 400');
  });

  it('waits for the rest of a body shorter than its Content-Length, as the route does, and runs nothing', async () => {
    const head = `POST ${PATH}/b/call/increment HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nContent-Length: 40\r\n\r\n{"args":[]}`;
    const { text, closed } = await same([head], 400);
    expect(text).toBe('');
    expect(closed).toBe(false);
  });

  it('takes a body exactly at the limit, and gives one byte over to the route for its 413', async () => {
    const padded = (size: number) => `{"args":[${' '.repeat(size - 11)}]}`;
    expect(padded(BODY_LIMIT).length).toBe(BODY_LIMIT);
    const at = await same([post(`${PATH}/a/call/increment`, padded(BODY_LIMIT), 'Content-Type: application/json\r\nConnection: close\r\n')]);
    expect(statuses(at.text)).toEqual(['HTTP/1.1 200']);
    expect(at.routed).toBe(0);
    const over = await same([post(`${PATH}/a/call/increment`, padded(BODY_LIMIT + 1)), post(`${PATH}/a/call/increment`, '{"args":[]}', 'Content-Type: application/json\r\nConnection: close\r\n')]);
    // The route reads and drops the refused body (http-edges.ts' drainRefusedBody): the next request is answered.
    expect(statuses(over.text)).toEqual(['HTTP/1.1 413', 'HTTP/1.1 200']);
  });

  it('answers duplicate and unusual Content-Type and Content-Length headers as the route does', async () => {
    const body = '{"args":[]}';
    const call = `POST ${PATH}/a/call/increment HTTP/1.1\r\nHost: test\r\n`;
    for (const headers of [
      'Content-Type: application/json\r\nContent-Type: text/plain\r\n',
      'Content-Type: text/plain\r\nContent-Type: application/json\r\n',
      'Content-Type: APPLICATION/JSON; CHARSET=UTF-8\r\n',
      'Content-Type: application/json; charset=latin1\r\n',
      'Content-Type: application/json; charset=utf-8; x=y\r\n',
      'Content-Type: application/json ; charset=utf-8\r\n',
      'Content-Type: application/json\r\nContent-Length: 11\r\n',
      'Content-Type: application/json\r\nContent-Length: 12\r\n',
      'Content-Type: application/json\r\nTransfer-Encoding: identity\r\n',
    ]) {
      await same([`${call}${headers}Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`]);
    }
    for (const length of ['011', '+11', '11 ', '0x0b']) {
      await same([`${call}Content-Type: application/json\r\nContent-Length: ${length}\r\nConnection: close\r\n\r\n${body}`]);
    }
  });

  it('answers odd bodies as the route does', async () => {
    const deep = (depth: number) => `{"args":[${'['.repeat(depth)}${']'.repeat(depth)}]}`;
    for (const [fn, body] of [
      ['increment', '\ufeff{"args":[]}'],
      ['increment', '{"args":[],"__proto__":{"args":[1]}}'],
      ['increment', '{"__proto__":[],"args":[]}'],
      ['add', '{"args":[1e400]}'],
      ['add', '{"args":[123456789012345678901234567890]}'],
      ['add', '{"args":[-0]}'],
      ['add', '{"args":"1"}'],
      ['add', '{"args":{"0":1,"length":1}}'],
      ['add', '{"args":[1],"args":[2]}'],
      ['tag', '{"args":[{"__proto__":"x","constructor":"y"}]}'],
      ['tag', '{"args":[{"x":"\\u0000"}]}'],
      ['add', deep(100)],
      ['add', deep(110)],
    ] as const) {
      const { text, routed } = await same([post(`${PATH}/a/call/${fn}`, body, 'Content-Type: application/json\r\nConnection: close\r\n')]);
      expect(routed, body).toBe(0);
      expect(statuses(text)).toHaveLength(1);
    }
  });

  it('answers calls on the Collection meta collection and Object.prototype names as the route does', async () => {
    const paths = [
      '/v0/collections/Collection/records/x/call/constructor',
      '/v0/collections/Collection/records/edge%2FCounter/call/constructor',
      '/v0/collections/Collection/records/edge%2FCounter/call/updateCode',
      ...['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__', 'prototype'].map((fn) => `${PATH}/a/call/${fn}`),
      `${PATH}/__proto__/call/increment`,
      `${PATH}/constructor/call/increment`,
      '/v0/collections/__proto__/records/a/call/increment',
      '/v0/collections/constructor/records/a/call/increment',
    ];
    for (const path of paths) {
      const { text, routed } = await same([post(path, '{"args":["x", 1]}', 'Content-Type: application/json\r\nConnection: close\r\n')]);
      expect(routed, path).toBe(0);
      expect(statuses(text), path).toHaveLength(1);
      expect(statuses(text)[0], path).not.toBe('HTTP/1.1 200');
    }
  });

  it('answers a call whose function selfdestructs, and the calls after it, as the route does', async () => {
    for (const fn of ['del', 'increment', 'del']) {
      await same([post(`${PATH}/gone/call/${fn}`, '{"args":[]}', 'Content-Type: application/json\r\nConnection: close\r\n')]);
    }
  });

  it('leaves preflights and HEADs of the call path to the route', async () => {
    for (const request of [
      `OPTIONS ${PATH}/a/call/increment HTTP/1.1\r\nHost: test\r\nOrigin: https://app.example\r\nAccess-Control-Request-Method: POST\r\nAccess-Control-Request-Headers: content-type\r\nConnection: close\r\n\r\n`,
      `HEAD ${PATH}/a/call/increment HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n`,
      `GET ${PATH}/a/call/increment HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n`,
    ]) {
      const { routed } = await same([request]);
      expect(routed).toBe(1);
    }
  });

  it('runs many calls at once on one record, each once', async () => {
    const [fast, route] = served;
    const calls = 40;
    for (const server of [fast!, route!]) {
      const answers = await Promise.all(Array.from({ length: calls }, () => exchange(server.port, [post(`${PATH}/many/call/increment`, '{"args":[]}', 'Content-Type: application/json\r\nConnection: close\r\n')])));
      expect(answers.map(({ text }) => statuses(text)[0])).toEqual(Array(calls).fill('HTTP/1.1 200'));
      expect(JSON.parse((await server.service.get('edge/Counter', 'many', {})).json).n).toBe(calls);
    }
  });

  it('answers a call followed on its connection by bytes that are not HTTP, then closes, as the route does', async () => {
    const { text, closed } = await same([Buffer.concat([post(`${PATH}/a/call/increment`, '{"args":[]}'), Buffer.from('NOT HTTP AT ALL\r\n\r\n')])]);
    expect(statuses(text)).toEqual(['HTTP/1.1 200']);
    expect(closed).toBe(true);
  });

  it('answers a client that half-closes its side after the request, as the route does', async () => {
    const { text, closed } = await same([post(`${PATH}/a/call/increment`, '{"args":[]}'), post(`${PATH}/a/call/add`, '{"args":[1]}')], 300, true);
    expect(statuses(text)).toEqual(['HTTP/1.1 200', 'HTTP/1.1 200']);
    expect(closed).toBe(true);
  });

  it('answers HTTP/1.0, absolute-form targets and unusual path segments as the route does', async () => {
    const body = '{"args":[]}';
    const head = (target: string, version = '1.1', extra = 'Connection: close\r\n') =>
      `POST ${target} HTTP/${version}\r\nHost: test\r\nContent-Type: application/json\r\n${extra}Content-Length: ${body.length}\r\n\r\n${body}`;
    await same([head(`${PATH}/a/call/increment`, '1.0', '')]);
    await same([head(`${PATH}/a/call/increment`, '1.0', 'Connection: keep-alive\r\n') + head(`${PATH}/a/call/increment`, '1.0', '')]);
    await same([head(`http://test${PATH}/a/call/increment`)]);
    for (const segment of ['.', '..', '%2e%2e', '%3B', '%3F', '%23', '%25', '%2525', '%00', '%20', '%2B', '+', '%C0%AF', '%EF%BB%BF', "!$&'()*+,=:@", '~a']) {
      for (const path of [`${PATH}/${segment}/call/increment`, `${PATH}/a/call/${segment}`, `/v0/collections/${segment}/records/a/call/increment`]) {
        await same([head(path)]);
      }
    }
  });

  it('ends with the same records through both', async () => {
    const all = async ({ service }: Served) => (await service.list('edge/Counter', {}, {})).records;
    expect(await all(served[0]!)).toEqual(await all(served[1]!));
  });
});

/** An app over `base` whose calls take `delayMs` first (as over a network to PostgreSQL); `began` once one starts. */
async function slowApp(base: RecordService, fastCall: boolean, options: { shutdown?: AbortSignal; logRequests?: boolean; delayMs?: number } = {}) {
  let began!: () => void;
  const beginning = new Promise<void>((resolve) => (began = resolve));
  const slow = Object.create(base) as RecordService;
  slow.call = (...args) => {
    began();
    return new Promise((resolve) => setTimeout(resolve, options.delayMs ?? 100)).then(() => base.call(...args));
  };
  const lines: string[] = [];
  const app = buildApp({ service: slow, fastCall, bodyLimit: BODY_LIMIT, logger: memoryLogger(lines), logRequests: options.logRequests, shutdown: options.shutdown, explorer: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, port: (app.server.address() as AddressInfo).port, lines, beginning };
}

describe('the call fast path while the server closes', () => {
  for (const how of ['the shutdown signal, then close()', 'close() alone'] as const) {
    it(`answers a call running when the server closes (${how}) as the route does`, async () => {
      const outcomes = [];
      for (const fastCall of [true, false]) {
        const base = served[fastCall ? 0 : 1]!.service;
        const shutdown = new AbortController();
        const { app, port, lines, beginning } = await slowApp(base, fastCall, { shutdown: shutdown.signal });
        const answer = exchange(port, [post(`${PATH}/b/call/increment`, '{"args":[]}')], 500);
        await beginning;
        if (how !== 'close() alone') shutdown.abort();
        const closed = app.close();
        const { text, closed: connectionClosed } = await answer;
        await closed;
        outcomes.push({ text, connectionClosed, lines: lines.map(withoutTime) });
      }
      expect(outcomes[0]).toEqual(outcomes[1]);
      expect(statuses(outcomes[0]!.text)).toEqual(['HTTP/1.1 200']);
      if (how !== 'close() alone') expect(outcomes[0]!.connectionClosed).toBe(true);
    });
  }
});

describe('the call fast path without request logging', () => {
  it('logs nothing for a call, its failures or an internal error, as the route', async () => {
    const outcomes = [];
    for (const fastCall of [true, false]) {
      const { app, port, lines } = await slowApp(served[fastCall ? 0 : 1]!.service, fastCall, { logRequests: false, delayMs: 0 });
      try {
        const answers = await exchange(port, [post(`${PATH}/b/call/increment`, '{"args":[]}') , post(`${PATH}/b/call/nothing`, '{"args":[]}'), post(`${PATH}/b/call/add`, '{', 'Content-Type: application/json\r\nConnection: close\r\n')]);
        outcomes.push({ text: answers.text, lines });
      } finally {
        await app.close();
      }
    }
    expect(outcomes[0]).toEqual(outcomes[1]);
    expect(statuses(outcomes[0]!.text), outcomes[0]!.text).toEqual(['HTTP/1.1 200', 'HTTP/1.1 404', 'HTTP/1.1 400']);
    expect(outcomes[0]!.lines).toEqual([]);
  });
});

describe('the call fast path while the schema changes', () => {
  it('answers a call running while its function is removed as the route does', async () => {
    const outcomes = [];
    for (const fastCall of [true, false]) {
      const base = served[fastCall ? 0 : 1]!.service;
      await base.installSchema('edge/Changing', COUNTER.replace('collection Counter', 'collection Changing'));
      await base.create('edge/Changing', ['r', 0], {});
      const { app, port, lines, beginning } = await slowApp(base, fastCall, { delayMs: 50 });
      try {
        const answer = exchange(port, [post('/v0/collections/edge%2FChanging/records/r/call/add', '{"args":[3]}', 'Content-Type: application/json\r\nConnection: close\r\n')]);
        await beginning;
        await base.installSchema('edge/Changing', COUNTER.replace('collection Counter', 'collection Changing').replace(/  add .*\n/, ''));
        const { text } = await answer;
        outcomes.push({ text, lines: lines.map(withoutTime), record: (await base.get('edge/Changing', 'r', {})).json });
      } finally {
        await app.close();
      }
    }
    expect(outcomes[0]).toEqual(outcomes[1]);
  });
});
