// What the fast paths' differential tests (test/service/fast-get, fast-call, fast-call-edges) share: an app
// listening on a free port with its log lines kept and the requests that reached fastify counted, one request's
// answer read as the tests compare it, and a raw exchange of bytes over one connection.

import { request, type Agent, type ClientRequest, type OutgoingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { buildApp, type AppOptions } from '../../src/service/index.ts';
import { memoryLogger } from './log.ts';

export interface ListeningApp {
  app: FastifyInstance;
  port: number;
  lines: string[];
  /** Requests that reached fastify (its onRequest hook): those the fast path did not answer. */
  routed: { count: number };
}

/** `buildApp(options)` without the explorer, its log kept in `lines`, listening on a free local port. */
export async function listenCounting(options: Omit<AppOptions, 'logger' | 'explorer'>): Promise<ListeningApp> {
  const lines: string[] = [];
  const app = buildApp({ rateLimits: false, ...options, logger: memoryLogger(lines), explorer: false });
  const routed = { count: 0 };
  app.addHook('onRequest', (_request, _reply, done) => {
    routed.count++;
    done();
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, port: (app.server.address() as AddressInfo).port, lines, routed };
}

/** A log entry with its elapsed time and generated request id replaced, so that two servers' entries compare. */
export const withoutTime = (line: string) => withoutRequestId(line.replace(/"ms":[\d.]+/, '"ms":"<time>"').replace(/"time":\d+,/, ''));

/** Generated request ids (UUIDs) replaced, so that two servers' answers and log entries compare. */
export const withoutRequestId = (text: string) => text.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<id>');

/** An answer as the differential tests compare it: the status, the raw headers but Date (request ids replaced), the body. */
export interface Answer {
  status: number;
  headers: string[];
  body: string;
}

/**
 * Sends one request to the local `port` over `agent`, the path as written (not through URL, which would normalise
 * it), and reads its answer; `send` writes the body and ends the request. A client-side failure (Node's parser
 * refusing what came back, or no answer within 3 s) is an outcome to compare like any other: status -1, its code.
 */
export function answerTo(
  port: number,
  agent: Agent,
  head: { method: string; path: string; headers: OutgoingHttpHeaders },
  send: (outgoing: ClientRequest) => void,
): Promise<Answer> {
  return new Promise((resolve) => {
    const outgoing = request({ hostname: '127.0.0.1', port, agent, ...head }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const headers: string[] = [];
        for (let i = 0; i < response.rawHeaders.length; i += 2) {
          if (response.rawHeaders[i]!.toLowerCase() !== 'date') headers.push(`${response.rawHeaders[i]}: ${withoutRequestId(response.rawHeaders[i + 1]!)}`);
        }
        resolve({ status: response.statusCode!, headers, body: Buffer.concat(chunks).toString('utf8') });
      });
    });
    outgoing.setTimeout(3000, () => outgoing.destroy(Object.assign(new Error('no answer'), { code: 'NO_ANSWER' })));
    outgoing.on('error', (error: NodeJS.ErrnoException) => resolve({ status: -1, headers: [], body: String(error.code) }));
    send(outgoing);
  });
}

/** Writes `bytes` on one connection and reads everything until the server closes it, Date headers removed. */
export function exchange(port: number, bytes: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('error', () => {});
    socket.on('close', () => resolve(withoutRequestId(received.replace(/\r\nDate: [^\r]*/gi, ''))));
    socket.write(bytes);
  });
}
