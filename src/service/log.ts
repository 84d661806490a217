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
import { WriteStream } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { createRequire } from 'node:module';
import type { pino as Pino, DestinationStream, Logger, LevelWithSilent } from 'pino';
import { BatchedFile } from './batched-file.ts';
import { requestLevel, requestLine, type RequestEntry } from './request-line.ts';

// pino is loaded by the first logger made, so a program that imports the library without serving does not load it.
const load = createRequire(import.meta.url);
let pinoFunction: typeof Pino | undefined;
function pino(): typeof Pino {
  return (pinoFunction ??= (load('pino') as { pino: typeof Pino }).pino);
}

export type { Logger };
export type { RequestEntry };

export const LOG_LEVELS: readonly LevelWithSilent[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
export const LOG_FORMATS = ['auto', 'json', 'text'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export interface LoggerOptions {
  level?: LevelWithSilent;
  /** json: one JSON object per line; text: a short readable line; auto (default): text on a terminal, else json. */
  format?: LogFormat;
  /** Default: standard output. A stream with a file descriptor (not a file stream) is written to it directly. */
  destination?: NodeJS.WritableStream & { isTTY?: boolean; fd?: number };
}

/**
 * The logger `vellum serve` writes with. JSON lines are gathered and written at most every FLUSH_MS (`BatchedFile`):
 * a write per line cost a get 3-4 µs of CPU, more than making the line.
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const destination = options.destination ?? process.stdout;
  const format = options.format === undefined || options.format === 'auto' ? (destination.isTTY ? 'text' : 'json') : options.format;
  const settings = { level: options.level ?? 'info', base: undefined, formatters: { level: (label: string) => ({ level: label }) } };
  if (format === 'text') return pino()(settings, textStream(destination));
  // A file stream (fs.createWriteStream) has no descriptor until its file is open and closes it when it ends: its
  // lines go through its own write, or they were lost (written to no descriptor, or to a closed one).
  const fd = destination instanceof WriteStream ? undefined : destination.fd;
  return pino()(settings, typeof fd === 'number' ? new BatchedFile(fd) : destination);
}

/**
 * Writes what the logger has gathered and, for createLogger's JSON destination (BatchedFile), stops listening for
 * the process's exit: a program that makes loggers and drops them closes each. The logger's destination stays open.
 */
export function closeLogger(logger: Logger): void {
  const destination = destinationOf(logger);
  if (destination instanceof BatchedFile) destination.close();
  else logger.flush();
}

/**
 * The request id: the client's X-Request-Id when it is 1-200 visible ASCII characters, else a new one in UUID form:
 * the first 24 characters of a random (version 4) UUID drawn once per process, then a counter in 12 hex digits.
 * Unique within the process by the counter and across processes by the random part, and about a tenth of a
 * randomUUID() call (a counter and a padStart).
 */
export function requestIdOf(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && given.length <= 200 && VISIBLE_ASCII.test(given) ? given : newRequestId();
}

const VISIBLE_ASCII = /^[\x21-\x7e]+$/;
/** 16^12: the counter's range; at its end a new random part is drawn. */
const COUNTER_END = 2 ** 48;
let idPrefix = randomUUID().slice(0, 24);
let idCounter = 0;

/** A new request id (see requestIdOf). */
export function newRequestId(): string {
  if (++idCounter === COUNTER_END) {
    idPrefix = randomUUID().slice(0, 24);
    idCounter = 1;
  }
  return idPrefix + idCounter.toString(16).padStart(12, '0');
}

/** The longest URL logged whole. */
export const LOGGED_URL_LENGTH = 300;

/**
 * The URL as logged: at most LOGGED_URL_LENGTH characters, then `…`. The cut is a copy: V8 makes a slice a view
 * of its parent, which would keep the whole URL (up to Node's 16 KiB of headers) alive while the entry waits to be
 * formatted (batched-file.ts).
 */
export function loggedUrl(url: string): string {
  if (url.length <= LOGGED_URL_LENGTH) return url;
  const cut = Buffer.from(url.slice(0, LOGGED_URL_LENGTH), 'utf16le').toString('utf16le');
  return `${cut}…`;
}

/**
 * Logs a request's entry: the JSON line pino would write (createLogger's format: the level by name, the time in
 * ms, undefined fields left out; request-line.ts), handed to the logger's destination. A BatchedFile (the JSON log
 * of `vellum serve`) takes the entry itself and makes its line later, with others (batched-file.ts): an entry
 * must not be changed once logged.
 */
export function logRequest(logger: Logger, entry: RequestEntry): void {
  if (logger.levelVal > LEVEL_VALUES[requestLevel(entry.status)]) return;
  const destination = destinationOf(logger);
  if (destination instanceof BatchedFile) destination.writeRequest(entry, Date.now());
  else destination.write(requestLine(entry, Date.now()));
}

/** pino's numbers of the levels a request's entry is written at. */
const LEVEL_VALUES = { info: 30, warn: 40, error: 50 } as const;

const destinations = new WeakMap<Logger, DestinationStream>();

/** The logger's destination (pino's stream), looked up once per logger. */
function destinationOf(logger: Logger): DestinationStream {
  let destination = destinations.get(logger);
  if (destination === undefined) {
    destination = (logger as unknown as Record<symbol, DestinationStream>)[pino().symbols.streamSym]!;
    destinations.set(logger, destination);
  }
  return destination;
}

/** Logs an internal error (a 500) with its stack. */
export function logInternalError(logger: Logger, request: { reqId: string; method: string; url: string }, error: unknown): void {
  logger.error({ reqId: request.reqId, method: request.method, url: loggedUrl(request.url), error: (error as Error)?.stack ?? String(error) }, 'internal error');
}

/** A logger that writes nothing (an app built without one). */
export function silentLogger(): Logger {
  return pino()({ level: 'silent' });
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
