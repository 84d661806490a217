// What the fast paths' differential tests (test/service/fast-get, fast-call, fast-call-edges) share: an app
// listening on a free port with its log lines kept and the requests that reached fastify counted, and a raw
// exchange of bytes over one connection.

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
