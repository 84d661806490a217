// Push updates of a query or a record over Server-Sent Events (`stream=1`), read with fetch's streaming body so
// it runs in Node 20 and in browsers alike (no EventSource: it cannot sign requests, nor be given headers). The
// subscription keeps the result the events describe, and when the connection drops it reconnects with the last
// event id as `Last-Event-ID`, so the service sends only what changed meanwhile. docs/codegen.md has the events.
import type { Client, RequestOptions, ServiceRequest } from './client.ts';
import { errorOfEnvelope, unexpectedAnswer, VellumError } from './errors.ts';

/**
 * One change of a subscription's result, as the service's stream sends it. A commit's changes come as several
 * events; the last of them has the commit's `timestamp`: the result is whole again as of that time (a console that
 * shows a page of the result reads it again then, rather than once per event).
 */
export type StreamEvent<R, X = Record<string, unknown>> =
  /** The record is in the result now: it entered it, or changed. */
  | {
      type: 'put';
      id: string;
      record: R;
      timestamp?: string;
      /**
       * With `expand` in the options: the records the record's references point to (docs/service.md), typed by the
       * paths asked for when the schema declares its `references` (generated clients do), untyped otherwise.
       */
      expand?: X;
    }
  /** A record sent before left the result: deleted, changed to not match, or no longer readable. */
  | { type: 'remove'; id: string; timestamp?: string }
  /** Forget every record: the puts up to the next `ready` are the whole result. */
  | { type: 'reset'; timestamp?: string }
  /** The result is up to date as of `timestamp` (the service's time, as a page's). */
  | { type: 'ready'; timestamp: string };

export interface SubscribeOptions extends RequestOptions {
  /**
   * Called once when the stream ends for good: the service refused it (a bad query, a missing index, a result of
   * more than 1,000 records) or ended it with an error event. Dropped connections are not errors: they reconnect.
   */
  onError?: (error: VellumError) => void;
  /**
   * Start after this time (a page's `timestamp`): the changes since then instead of the whole result (the request's
   * `since`; a reconnection's `Last-Event-ID` takes its place).
   */
  since?: string;
  /** The first wait before reconnecting, in ms (default 1000); it doubles on each failure, up to 30 s. */
  retryDelay?: number;
  /** Reference fields whose records each `put` carries beside the record (`['team', 'team.lead']`; `expand=`). */
  expand?: readonly string[];
  /**
   * Called when the connection ended and is tried again after `delay` ms: `cause` is why (a VellumError:
   * `request/failed` for a dropped connection, a 5xx of the service), or undefined when the service ended the
   * stream (it is shutting down). Events resume after the last one seen; a console shows "reconnecting" meanwhile.
   */
  onRetry?: (delay: number, cause: unknown) => void;
}

const MAX_RETRY_DELAY = 30_000;
/** The longest event a subscription buffers: more is a broken or hostile answer, not a record of the service. */
const MAX_EVENT_CHARS = 64 * 1024 * 1024;

export class Subscription<R> {
  /** The records of the result as the events so far describe it, by id. */
  readonly records = new Map<string, R>();
  /** The id of the last event that had one: where a reconnection resumes. */
  lastEventId: string | undefined;
  /** Settles when the subscription has ended: closed, or ended by an error. */
  readonly done: Promise<void>;
  readonly #abort = new AbortController();

  constructor(
    client: Client,
    request: ServiceRequest,
    readonly onEvent: (event: StreamEvent<R>) => void,
    readonly options: SubscribeOptions = {},
  ) {
    // Aborting the signal is close(): the connection closes, and `done` settles without an error.
    options.signal?.addEventListener('abort', () => this.close(), { once: true, signal: this.#abort.signal });
    if (options.signal?.aborted) this.close();
    this.done = this.#run(client, request);
  }

  /** Ends the subscription: the connection is closed and no more events arrive. */
  close(): void {
    this.#abort.abort();
  }

  get closed(): boolean {
    return this.#abort.signal.aborted;
  }

  async #run(client: Client, request: ServiceRequest): Promise<void> {
    const signal = this.#abort.signal;
    const firstDelay = this.options.retryDelay ?? 1000;
    let delay = firstDelay;
    while (!signal.aborted) {
      let cause: unknown;
      try {
        const headers: Record<string, string> = this.lastEventId === undefined ? {} : { 'Last-Event-ID': this.lastEventId };
        const response = await client.open(request, headers, signal);
        await this.#read(response, () => (delay = firstDelay));
      } catch (error) {
        if (signal.aborted) break;
        // The service's answer, or its error event: the stream is over. A dropped connection (status 0) or a
        // server error may pass, so those retry.
        if (error instanceof VellumError && error.status !== 0 && error.status < 500) {
          this.#abort.abort();
          this.options.onError?.(error);
          break;
        }
        cause = error;
      }
      if (signal.aborted) break;
      const retry = this.options.onRetry;
      if (retry) reportOutside(() => retry(delay, cause));
      await sleep(delay, signal);
      delay = Math.min(delay * 2, MAX_RETRY_DELAY);
    }
  }

  /** Reads events until the connection ends; `onReady` when the result is up to date (the connection works). */
  async #read(response: Response, onReady: () => void): Promise<void> {
    if (!response.body) throw unexpectedAnswer(response.status, 'no body for a stream');
    if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
      await response.body.cancel();
      throw unexpectedAnswer(response.status, `${response.headers.get('content-type') ?? 'no content type'} instead of text/event-stream`);
    }
    const parser = new EventParser((event) => {
      if (event.id !== undefined) this.lastEventId = event.id;
      // An id alone (no data) only moves the resume point.
      if (!event.hasData) return;
      const parsed = this.#apply(event.type, event.data, event.id);
      if (parsed?.type === 'ready') onReady();
    });
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    // Closing ends the read at once, whether or not the fetch in use ends its body on abort.
    const stop = () => void reader.cancel().catch(() => {});
    this.#abort.signal.addEventListener('abort', stop, { once: true });
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        parser.push(value);
      }
    } finally {
      this.#abort.signal.removeEventListener('abort', stop);
      stop();
    }
  }

  /** Applies one event to the records and hands it on; an error event throws the service's error. */
  #apply(type: string, data: string, id: string | undefined): StreamEvent<R> | undefined {
    if (this.#abort.signal.aborted) return undefined;
    let body: unknown;
    try {
      body = JSON.parse(data);
    } catch {
      throw unexpectedAnswer(200, `a ${type} event whose data is not JSON: ${JSON.stringify(data.slice(0, 200))}`);
    }
    const event = eventOf<R>(type, body, id);
    if (event === undefined) return undefined;
    if (event.type === 'put') this.records.set(event.id, event.record);
    else if (event.type === 'remove') this.records.delete(event.id);
    else if (event.type === 'reset') this.records.clear();
    reportOutside(() => this.onEvent(event));
    return event;
  }
}

/**
 * Runs a listener; its own failure is reported as an EventSource listener's is (thrown outside the stream, on a
 * later task) while the stream goes on. Caught by the stream, it would read as a dropped connection.
 */
function reportOutside(listener: () => void): void {
  try {
    listener();
  } catch (error) {
    setTimeout(() => {
      throw error;
    });
  }
}

function eventOf<R>(type: string, body: unknown, id: string | undefined): StreamEvent<R> | undefined {
  const object = isObject(body) ? body : {};
  const malformed = () => unexpectedAnswer(200, `a ${type} event of an unexpected shape: ${JSON.stringify(body).slice(0, 200)}`);
  // The event id of the last event of a commit: the commit's time.
  const timestamp = id === undefined ? {} : { timestamp: id };
  switch (type) {
    case 'put':
      if (typeof object.id !== 'string' || !isObject(object.data)) throw malformed();
      return { type, id: object.id, record: object.data as R, ...timestamp, ...(isObject(object.expand) ? { expand: object.expand } : {}) };
    case 'remove':
      if (typeof object.id !== 'string') throw malformed();
      return { type, id: object.id, ...timestamp };
    case 'reset':
      return { type, ...timestamp };
    case 'ready':
      if (typeof object.timestamp !== 'string') throw malformed();
      return { type, timestamp: object.timestamp };
    case 'error':
      // The stream's own status: the service had answered 200 before it ended the stream with this error.
      throw errorOfEnvelope(200, body) ?? malformed();
    default:
      // An event of a later service: not for this client.
      return undefined;
  }
}

interface RawEvent {
  type: string;
  data: string;
  /** Whether a data line came: an event with only an id moves the resume point and nothing else. */
  hasData: boolean;
  id: string | undefined;
}

/** The text/event-stream format (the HTML standard's parsing rules), fed one chunk of text at a time. */
class EventParser {
  #buffer = '';
  #type = '';
  #data: string[] = [];
  #dataChars = 0;
  #id: string | undefined;

  constructor(readonly dispatch: (event: RawEvent) => void) {}

  push(chunk: string): void {
    this.#buffer += chunk;
    let start = 0;
    for (;;) {
      const end = lineEnd(this.#buffer, start);
      if (end === -1) break;
      this.#line(this.#buffer.slice(start, end));
      start = end + (this.#buffer[end] === '\r' && this.#buffer[end + 1] === '\n' ? 2 : 1);
    }
    this.#buffer = this.#buffer.slice(start);
    if (this.#buffer.length + this.#dataChars > MAX_EVENT_CHARS) throw unexpectedAnswer(200, `an event longer than ${MAX_EVENT_CHARS} characters`);
  }

  #line(line: string): void {
    if (line === '') return this.#dispatch();
    if (line.startsWith(':')) return; // a comment: the service's keep-alive
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.#type = value;
    else if (field === 'data') {
      this.#data.push(value);
      this.#dataChars += value.length;
    } else if (field === 'id' && !value.includes('\0')) this.#id = value;
  }

  #dispatch(): void {
    const hasData = this.#data.length > 0;
    const event = { type: this.#type || 'message', data: this.#data.join('\n'), hasData, id: this.#id };
    this.#type = '';
    this.#data = [];
    this.#dataChars = 0;
    this.#id = undefined;
    if (hasData || event.id !== undefined) this.dispatch(event);
  }
}

/** Where the line starting at `start` ends (a CR, LF or CRLF), or -1 when it has not ended yet. */
function lineEnd(text: string, start: number): number {
  const lf = text.indexOf('\n', start);
  const cr = text.indexOf('\r', start);
  if (cr === -1 || (lf !== -1 && lf < cr)) return lf;
  // A CR at the very end may be the first half of a CRLF: wait for the next chunk.
  return cr + 1 < text.length ? cr : -1;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
