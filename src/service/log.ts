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
import { createRequire } from 'node:module';
import type { pino as Pino, DestinationStream, Logger, LevelWithSilent } from 'pino';

// pino is loaded by the first logger made, so a program that imports the library without serving does not load it.
const load = createRequire(import.meta.url);
let pinoFunction: typeof Pino | undefined;
function pino(): typeof Pino {
  return (pinoFunction ??= (load('pino') as { pino: typeof Pino }).pino);
}

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
 * The logger `vellum serve` writes with. JSON lines are gathered and written at most every FLUSH_MS (`BatchedFile`):
 * a write per line cost a get 3-4 µs of CPU, more than making the line.
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const destination = options.destination ?? process.stdout;
  const format = options.format === undefined || options.format === 'auto' ? (destination.isTTY ? 'text' : 'json') : options.format;
  const settings = { level: options.level ?? 'info', base: undefined, formatters: { level: (label: string) => ({ level: label }) } };
  if (format === 'text') return pino()(settings, textStream(destination));
  const fd = (destination as NodeJS.WriteStream & { fd?: number }).fd;
  return pino()(settings, fd === undefined ? destination : new BatchedFile(fd));
}

/** Something to wait on for 10 ms while a full pipe empties. */
const PAUSE = new Int32Array(new SharedArrayBuffer(4));

/** The most bytes of lines gathered before they are written at once. */
export const BATCH_BYTES = 64 * 1024;
/** The longest a line waits to be written. */
export const FLUSH_MS = 100;

/**
 * A pino destination writing to a file descriptor: each line is encoded into one reused buffer as it comes, and
 * the buffer is written FLUSH_MS after its first line, or at once when the next line might not fit (BATCH_BYTES).
 * Written once per event loop's turn instead, a get's line cost it a write to the pipe every few requests
 * (bench/README.md, "http-log"). Encoded at once, the line is garbage before the next young collection: gathered
 * as one string until the write instead, every pending line was copied by the collections it lived through and
 * read back from memory out of cache when the string was flattened, 2-3 µs a get in the server.
 * The write is synchronous, as pino's default destination's is: a reader that falls behind (a full pipe) slows the
 * server rather than growing its memory, and nothing is lost when the process exits (an exit handler writes what
 * is left; a process killed with SIGKILL loses at most its last FLUSH_MS of lines).
 */
export class BatchedFile implements DestinationStream {
  readonly #buffer = Buffer.allocUnsafe(BATCH_BYTES);
  /** How many bytes of #buffer hold gathered lines. */
  #length = 0;
  #scheduled = false;
  readonly #fd: number;

  constructor(fd: number) {
    this.#fd = fd;
    process.on('exit', () => this.flushSync());
  }

  write(line: string): void {
    // A UTF-16 code unit takes at most 3 bytes of UTF-8: a line of `line.length * 3` bytes surely fits.
    if (this.#length + line.length * 3 > BATCH_BYTES) {
      this.flushSync();
      // A line that may not fit even the empty buffer (an internal error's stack, say) is written alone.
      if (line.length * 3 > BATCH_BYTES) {
        this.#writeAll(Buffer.from(line));
        return;
      }
    }
    this.#length += this.#buffer.write(line, this.#length);
    if (!this.#scheduled) {
      this.#scheduled = true;
      // Unreferenced: a process with nothing else to do exits, and its exit handler writes the lines.
      setTimeout(() => this.flushSync(), FLUSH_MS).unref();
    }
  }

  /** pino's `logger.flush(callback)`: writes what is gathered, then calls back. */
  flush(callback: (error?: Error) => void): void {
    this.flushSync();
    callback();
  }

  flushSync(): void {
    this.#scheduled = false;
    if (this.#length === 0) return;
    const length = this.#length;
    this.#length = 0;
    this.#writeAll(this.#buffer.subarray(0, length));
  }

  #writeAll(bytes: Buffer): void {
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
  if (logger.levelVal > LEVEL_VALUES[level]) return;
  let line = `{"level":"${level}","time":${timeText(Date.now())},"reqId":"${jsonInner(entry.reqId)}","method":"${recurringJsonInner(entry.method)}","url":"${jsonInner(entry.url)}"`;
  if (entry.route !== undefined) line += `,"route":"${recurringJsonInner(entry.route)}"`;
  line += `,"status":${entry.status},"ms":${hundredthsText(entry.ms)}`;
  if (entry.client !== undefined) line += `,"client":"${recurringJsonInner(entry.client)}"`;
  if (entry.signer !== undefined) line += `,"signer":"${jsonInner(entry.signer)}"`;
  if (entry.reason !== undefined) line += `,"reason":"${recurringJsonInner(entry.reason)}"`;
  destinationOf(logger).write(`${line},"msg":"request"}\n`);
}

let lastTime = Number.NaN;
let lastTimeText = '';

/** `String(time)`, made once per millisecond: lines in the same millisecond share it. */
function timeText(time: number): string {
  if (time !== lastTime) {
    lastTime = time;
    lastTimeText = integerText(time);
  }
  return lastTimeText;
}

/**
 * `String(n)`, made without formatting a double for an integer 1e6 <= n < 1e15 such as a time in ms (past 2^31,
 * String runs V8's shortest-digits search, about 0.5 µs): from its millions and the rest, small integers whose
 * text is quick. (Under 1e15 the millions are under 2^30, so the division's rounding never reaches the next one.)
 */
export function integerText(n: number): string {
  if (!(n >= 1e6 && n < 1e15 && n % 1 === 0)) return String(n);
  const high = Math.floor(n / 1e6);
  return `${high}${String(n - high * 1e6).padStart(6, '0')}`;
}

/** The text after the whole part of i / 100 for i in 0-99, as JavaScript writes the number: '', '.01', ..., '.1', ..., '.99'. */
const FRACTIONS = Array.from({ length: 100 }, (_, i) => (i === 0 ? '' : String(i / 100).slice(1)));

/**
 * `String(Math.round(ms * 100) / 100)` (a duration to 0.01 ms), made from the whole part, a small integer whose
 * text V8 caches, and a fraction's text from FRACTIONS, rather than by formatting a double (about 950 instructions a
 * line under callgrind). The shortest digits that read back as the double are these as long as doubles lie closer
 * together than 0.01, far beyond 2^31 hundredths; past that (over 5 hours) it is String's own.
 */
export function hundredthsText(ms: number): string {
  const hundredths = Math.round(ms * 100);
  if (!(hundredths >= 0 && hundredths < 2 ** 31)) return String(hundredths / 100);
  const whole = Math.floor(hundredths / 100);
  return `${whole}${FRACTIONS[hundredths - whole * 100]}`;
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

/** Printable ASCII but `"` and `\`: the characters a JSON string holds as they are. */
const PLAIN_JSON = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/**
 * `text` as a JSON string, the same as JSON.stringify(text): a plain text (PLAIN_JSON, which every URL, route, id
 * and address of an ordinary request is) is quoted as it is, which costs a third of JSON.stringify; any other goes
 * through JSON.stringify.
 */
export function jsonString(text: string): string {
  return `"${jsonInner(text)}"`;
}

/** What goes between a JSON string's quotes for `text` (jsonString): a plain text itself, without a new string. */
function jsonInner(text: string): string {
  return PLAIN_JSON.test(text) ? text : JSON.stringify(text).slice(1, -1);
}

/** The longest text recurringJsonInner remembers: an IPv6 address with its zone fits, and so does every route. */
const RECURRING_MAX_LENGTH = 100;
/** The most texts recurringJsonInner remembers at once. */
export const RECURRING_MEMO_SIZE = 256;
const recurringInners = new Map<string, string>();

/**
 * jsonInner of a text that recurs from request to request (the method, the route's pattern, the client's address,
 * an error's reason), remembered: a Map lookup of a string whose hash V8 keeps costs less than the PLAIN_JSON test.
 * At most RECURRING_MEMO_SIZE texts of at most RECURRING_MAX_LENGTH characters are kept: when full, the memo is
 * emptied and starts again, so a flood of distinct addresses costs each the test, as without the memo, and holds
 * little memory. A longer text is tested each time.
 */
export function recurringJsonInner(text: string): string {
  if (text.length > RECURRING_MAX_LENGTH) return jsonInner(text);
  let inner = recurringInners.get(text);
  if (inner === undefined) {
    inner = jsonInner(text);
    if (recurringInners.size >= RECURRING_MEMO_SIZE) recurringInners.clear();
    recurringInners.set(text, inner);
  }
  return inner;
}

/** Logs an internal error (a 500) with its stack. */
export function logInternalError(logger: Logger, request: { reqId: string; method: string; url: string }, error: unknown): void {
  logger.error({ reqId: request.reqId, method: request.method, url: loggedUrl(request.url), error: (error as Error)?.stack ?? String(error) }, 'internal error');
}

/** A logger that writes nothing (an app built without one). */
export function silentLogger(): Logger {
  return pino()({ level: 'silent' });
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
