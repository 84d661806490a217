// What the two fast paths (fast-get.ts, fast-call.ts) share: their context, and writing an answer with the headers
// the route's answer gets from app.ts's hooks (CORS, `Connection: close` once the shutdown began) and the log
// line its onResponse hook writes.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { originHeaders } from './cors.ts';
import type { RecordService } from './records.ts';

export type Listener = (request: IncomingMessage, response: ServerResponse) => void;

export interface FastPathContext {
  service: RecordService;
  /** Aborted when the server shuts down. */
  shutdown: AbortSignal;
  /** True once fastify began closing (its preClose hook): fastify then answers 503, so it must see the request. */
  closing: () => boolean;
  /** The per-request log line, as app.ts's onResponse hook writes it; undefined when requests are not logged. */
  logRequest?: (line: string) => void;
  /** Where internal errors are reported (app.ts's `log`). */
  logError: (line: string) => void;
}

export interface FastAnswer {
  status: number;
  body: string;
  /** Headers before the content type, in the order the route sends them. */
  leading?: Record<string, string>;
}

/** Writes `answer` as the route would: its headers in the route's order, then the log line once it is sent. */
export function writeFastAnswer(request: IncomingMessage, response: ServerResponse, context: FastPathContext, answer: FastAnswer, started: number): void {
  const headers: Record<string, string | number> = { ...answer.leading, 'content-type': 'application/json; charset=utf-8' };
  const origin = request.headers.origin;
  if (typeof origin === 'string') for (const [name, value] of originHeaders(origin)) headers[name.toLowerCase()] = value;
  if (context.shutdown.aborted) headers.connection = 'close';
  headers['content-length'] = Buffer.byteLength(answer.body);
  const { logRequest } = context;
  // Written when the answer is handed to the system, as fastify's onResponse hook is (not at all for an answer
  // whose connection was destroyed before).
  if (logRequest) {
    response.once('finish', () => {
      const url = request.url!.length > 300 ? `${request.url!.slice(0, 300)}…` : request.url;
      logRequest(`${request.method} ${url} ${answer.status} ${(performance.now() - started).toFixed(1)}ms`);
    });
  }
  response.writeHead(answer.status, headers);
  response.end(answer.body);
}
