// The service's log: structured JSON lines through pino (fastify's own logger), one per request and one per
// stream or long-poll opening, or a short human-readable line per entry on a terminal.
//
// A request's entry: `reqId` (the request's X-Request-Id when it sends a usable one, else a generated UUID; the
// answer carries it back in X-Request-Id), `method`, `url`, `route` (the route's pattern), `status`, `ms` (from
// the request's arrival to its answer handed to the system), `client` (the peer address), `signer` (the
// public key of a signed request) and `reason` (the error envelope's reason of an answer that is an error).
// Requests answered before fastify (fast-get.ts, fast-call.ts) log the same entry. An answer of 503 is logged at
// level warn, any other of 500 or more at error, the rest at info.

import { randomUUID } from 'node:crypto';
import { writeSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { pino, type DestinationStream, type Logger, type LevelWithSilent } from 'pino';

export type { Logger };

export const LOG_LEVELS: readonly LevelWithSilent[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
export const LOG_FORMATS = ['auto', 'json', 'text'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export interface LoggerOptions {
  level?: LevelWithSilent;
  /** json: one JSON object per line; text: a short readable line; auto (default): text on a terminal, else json. */
  format?: LogFormat;
  /** Default: standard output. */
  destination?: NodeJS.WriteStream;
}

/**
 * The logger `vellum serve` writes with. JSON lines are gathered and written once per turn of the event loop
 * (`BatchedFile`): a write per line cost a get 3-4 µs of CPU, more than making the line.
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const destination = options.destination ?? process.stdout;
  const format = options.format === undefined || options.format === 'auto' ? (destination.isTTY ? 'text' : 'json') : options.format;
  const settings = { level: options.level ?? 'info', base: undefined, formatters: { level: (label: string) => ({ level: label }) } };
  if (format === 'text') return pino(settings, textStream(destination));
  const fd = (destination as NodeJS.WriteStream & { fd?: number }).fd;
  return pino(settings, fd === undefined ? destination : new BatchedFile(fd));
}

/** Something to wait on for 10 ms while a full pipe empties. */
const PAUSE = new Int32Array(new SharedArrayBuffer(4));

/** The most text gathered before it is written at once. */
const BATCH_CHARS = 64 * 1024;

/**
 * A pino destination writing to a file descriptor: lines are gathered and written together at the end of the
 * event loop's turn (setImmediate), or at once past BATCH_CHARS. The write is synchronous, as pino's default
 * destination's is: a reader that falls behind (a full pipe) slows the server rather than growing its memory,
 * and nothing is lost when the process exits (an exit handler writes what is left).
 */
export class BatchedFile implements DestinationStream {
  #pending = '';
  #scheduled = false;
  readonly #fd: number;

  constructor(fd: number) {
    this.#fd = fd;
    process.on('exit', () => this.flushSync());
  }

  write(line: string): void {
    this.#pending += line;
    if (this.#pending.length >= BATCH_CHARS) this.flushSync();
    else if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(() => this.flushSync());
    }
  }

  flushSync(): void {
    this.#scheduled = false;
    if (this.#pending === '') return;
    const text = this.#pending;
    this.#pending = '';
    const bytes = Buffer.from(text);
    for (let written = 0; written < bytes.length; ) {
      try {
        written += writeSync(this.#fd, bytes, written);
      } catch (error) {
        // A non-blocking pipe that is full: try again (as pino's sonic-boom does); any other error drops the text.
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') return;
        Atomics.wait(PAUSE, 0, 0, 10);
      }
    }
  }
}

/** The request id: the client's X-Request-Id when it is 1-200 visible ASCII characters, else a new UUID. */
export function requestIdOf(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && given.length <= 200 && /^[\x21-\x7e]+$/.test(given) ? given : randomUUID();
}

/** The URL as logged: at most 300 characters. */
export function loggedUrl(url: string): string {
  return url.length > 300 ? `${url.slice(0, 300)}…` : url;
}

/** One request's entry (see the file's comment). */
export interface RequestEntry {
  reqId: string;
  method: string;
  url: string;
  route: string | undefined;
  status: number;
  ms: number;
  client: string | undefined;
  signer?: string;
  reason?: string;
}

/**
 * Logs a request's entry: the JSON line pino would write (createLogger's format: the level by name, the time in
 * ms, undefined fields left out), made here and handed to the logger's destination, because pino's generic
 * serializer cost a get about as much again as the line itself (bench/README.md, "http-log").
 */
export function logRequest(logger: Logger, entry: RequestEntry): void {
  // 503 is the service saying it cannot serve now (not ready, draining, too many streams, the database away):
  // a warning; any other 5xx is an error.
  const level = entry.status === 503 ? 'warn' : entry.status >= 500 ? 'error' : 'info';
  if (!logger.isLevelEnabled(level)) return;
  let line = `{"level":"${level}","time":${Date.now()},"reqId":${JSON.stringify(entry.reqId)},"method":${JSON.stringify(entry.method)},"url":${JSON.stringify(entry.url)}`;
  if (entry.route !== undefined) line += `,"route":${JSON.stringify(entry.route)}`;
  line += `,"status":${entry.status},"ms":${Math.round(entry.ms * 100) / 100}`;
  if (entry.client !== undefined) line += `,"client":${JSON.stringify(entry.client)}`;
  if (entry.signer !== undefined) line += `,"signer":"${entry.signer}"`;
  if (entry.reason !== undefined) line += `,"reason":${JSON.stringify(entry.reason)}`;
  (logger as unknown as Record<symbol, DestinationStream>)[pino.symbols.streamSym]!.write(`${line},"msg":"request"}\n`);
}

/** Logs an internal error (a 500) with its stack. */
export function logInternalError(logger: Logger, request: { reqId: string; method: string; url: string }, error: unknown): void {
  logger.error({ reqId: request.reqId, method: request.method, url: loggedUrl(request.url), error: (error as Error)?.stack ?? String(error) }, 'internal error');
}

/** A logger that writes nothing (an app built without one). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}

/** The error reason of an envelope text (`{"error":{"code","reason",…}}`), for the log; undefined otherwise. */
export function reasonOfBody(body: string): string | undefined {
  const match = /^\{"error":\{"code":"[^"]*","reason":"([^"\\]*)"/.exec(body);
  return match?.[1];
}

const LEVEL_NAMES = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace']);
const SHOWN_FIRST = new Set(['time', 'level', 'msg']);
/** A request's fields shown at the head of its line. */
const REQUEST_HEAD = new Set(['method', 'url', 'status', 'ms']);

/** A readable line of a JSON entry: `23:01:02.345 INFO  GET /v0/... 200 1.2ms reqId=… client=…`. */
export function formatEntry(line: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line.trimEnd();
  }
  const time = typeof entry.time === 'number' ? new Date(entry.time).toISOString().slice(11, 23) : '';
  const level = typeof entry.level === 'string' && LEVEL_NAMES.has(entry.level) ? entry.level.toUpperCase() : String(entry.level);
  const head =
    entry.msg === 'request'
      ? `${String(entry.method)} ${String(entry.url)} ${String(entry.status)} ${String(entry.ms)}ms`
      : String(entry.msg ?? '');
  const rest = Object.entries(entry)
    .filter(([key, value]) => !SHOWN_FIRST.has(key) && !(entry.msg === 'request' && REQUEST_HEAD.has(key)) && value !== undefined && !(key === 'error' && typeof value === 'string' && value.includes('\n')))
    .map(([key, value]) => `${key}=${typeof value === 'string' && !/[\s"]/.test(value) ? value : JSON.stringify(value)}`);
  const text = [time, level.padEnd(5), head, ...rest].filter((part) => part !== '').join(' ');
  // A stack reads better on lines of its own.
  return typeof entry.error === 'string' && entry.error.includes('\n') ? `${text}\n${entry.error}` : text;
}

/** A pino destination that writes each entry as a readable line (for a terminal, where speed matters less). */
function textStream(destination: NodeJS.WritableStream): DestinationStream {
  return { write: (line: string) => void destination.write(`${formatEntry(line)}\n`) };
}
