// Push updates over Server-Sent Events (`stream=1` on a list or a get): the records of a query, or one record,
// as they enter, change and leave the caller's readable result, driven by the change feed.
//
// Events (each `data` is one line of JSON):
//   put     {"id", "data": record}   the record is in the result now (it entered it or changed)
//   remove  {"id"}                   the record left the result (deleted, changed to not match, or unreadable)
//   reset   {}                       forget every record: the puts that follow are the whole result
//   ready   {"timestamp"}            the result is up to date as of `timestamp` (also sent as the event id)
//   error   {"error": {code, reason, message}}   the stream ends
// The last event of a commit carries its timestamp as the SSE id. A client that reconnects sends it back as
// Last-Event-ID (or, the first time, the `since` of a list it made) and gets the changes after it; when they
// cannot be told exactly (too many, too old, or a record it may no longer read changed) it gets a reset and the
// whole result instead. The stream remembers the ids of the records in the result, at most MAX_STREAM_RECORDS:
// a `remove` is only ever sent for a record the caller was told about, so no event names a record it may not
// read. Output waits for the connection to drain, and nothing more is read meanwhile, so a slow client holds at
// most one commit's events.

import { timestampToSeconds, whereMatcher, type ListQuery, type RecordStore } from '../store/index.ts';
import { ServiceError, notFound, type ErrorBody } from './errors.ts';
import type { RecordService } from './records.ts';
import type { Caller } from './signature.ts';

/** The most records a stream follows (a query with more readable results is refused at the start). */
export const MAX_STREAM_RECORDS = 1000;
/**
 * The most streams one server keeps open at once (AppOptions.maxStreams). Each open stream reads the change log at
 * every commit and holds a connection and up to MAX_STREAM_RECORDS ids, so their number is bounded like any other
 * resource: a stream past it is refused with 503 before anything is read.
 */
export const DEFAULT_MAX_STREAMS = 1000;
/** A comment line keeps idle connections (and proxies) open. */
export const KEEP_ALIVE_MS = 15_000;
/** A resume replays at most this many commits of the change log... */
const REPLAY_COMMITS = 1000;
/** ...from at most this long ago (the log keeps 24 hours by default; this stays well inside it). */
const REPLAY_WINDOW_MS = 60 * 60 * 1000;
/** How many pages of its query the start of a stream may read (each page scans at most 5,000 entries). */
const SNAPSHOT_PAGES = 20;

export interface StreamTarget {
  readonly collectionId: string;
  /** A record stream follows this one record. */
  readonly id?: string;
}

export interface StreamRequest {
  readonly target: StreamTarget;
  /** The where and sort of a query stream. */
  readonly query: ListQuery;
  readonly caller: Caller;
  /** The timestamp to resume after (Last-Event-ID, or `since`); undefined starts with the whole result. */
  readonly resumeAfter: number | undefined;
}

/** Where the events go. */
export interface EventSink {
  /** Resolves once the connection can take more. */
  write(text: string): Promise<void>;
  /** Aborts when the client goes away or the server shuts down. */
  readonly signal: AbortSignal;
}

/** A stream whose query is checked and whose starting result is known, ready to send (see `prepareStream`). */
export interface PreparedStream {
  readonly request: StreamRequest;
  readonly matches: (record: unknown) => boolean;
  /** The ids of the readable records in the result at `timestamp`. */
  readonly members: readonly string[];
  readonly timestamp: number;
}

/**
 * Checks the query and reads the starting result, before any byte of the stream is sent, so that a bad query is
 * an ordinary error answer (400, 404).
 */
export async function prepareStream(service: RecordService, request: StreamRequest): Promise<PreparedStream> {
  const { collectionId, id } = request.target;
  if (id !== undefined) {
    const { text, timestamp } = await service.readJson(collectionId, id);
    const record = text === null ? null : (JSON.parse(text) as Record<string, unknown>);
    const members = record && (await service.mayRead(collectionId, record, request.caller)) ? [id] : [];
    return { request, matches: (r) => (r as { id?: unknown }).id === id, members, timestamp };
  }
  const layout = await service.store.getLayout(collectionId);
  if (!layout) throw notFound('collection/not-found', `collection "${collectionId}" not found`);
  const matches = whereMatcher(layout, request.query.where);
  const members: string[] = [];
  let timestamp: number | undefined;
  let after: string | undefined;
  for (let page = 0; ; page++) {
    if (page === SNAPSHOT_PAGES) throw tooLarge(`reads more than ${SNAPSHOT_PAGES * 5000} index entries to find its records`);
    const result = await service.list(collectionId, { where: request.query.where, sort: request.query.sort, limit: MAX_STREAM_RECORDS, after }, request.caller);
    timestamp ??= result.timestamp;
    for (const text of result.records) members.push(String((JSON.parse(text) as { id: unknown }).id));
    if (members.length > MAX_STREAM_RECORDS) throw tooLarge(`has more than ${MAX_STREAM_RECORDS} readable records`);
    if (result.cursor.after === null || result.cursor.after === (after ?? null)) break;
    after = result.cursor.after;
  }
  return { request, matches, members, timestamp: timestamp! };
}

/** The answer to a stream asked for while `max` are open. */
export function tooManyStreams(max: number): ServiceError {
  return new ServiceError('unavailable', 'stream/too-many-streams', `this server has ${max} streams open, its most; retry later or use a long-poll (since)`);
}

function tooLarge(what: string): ServiceError {
  return new ServiceError('invalid-argument', 'stream/too-many-records', `a stream follows at most ${MAX_STREAM_RECORDS} records, and this query ${what}; narrow the where`);
}

/** Sends the start of the stream, then every change, until the client goes away or the server shuts down. */
export async function runStream(service: RecordService, prepared: PreparedStream, sink: EventSink): Promise<void> {
  const stream = new Follower(service, prepared, sink);
  await stream.start();
  await stream.follow();
}

class Follower {
  readonly #store: RecordStore;
  readonly #known = new Set<string>();
  #cursor: number;

  constructor(
    readonly service: RecordService,
    readonly prepared: PreparedStream,
    readonly sink: EventSink,
  ) {
    this.#store = service.store;
    this.#cursor = prepared.timestamp;
  }

  get #target(): StreamTarget {
    return this.prepared.request.target;
  }

  async start(): Promise<void> {
    const { members, timestamp, request } = this.prepared;
    const replay = request.resumeAfter === undefined ? undefined : await this.#replay(request.resumeAfter, timestamp, new Set(members));
    if (replay) {
      // The caller's result is the one at `resumeAfter`: what it holds of `members` it keeps.
      for (const id of members) this.#known.add(id);
      for (const id of replay.changed) {
        if (this.#known.has(id)) await this.#update(id);
        else await this.#send('remove', { id });
      }
    } else {
      if (request.resumeAfter !== undefined) await this.#send('reset', {});
      for (const id of members) await this.#update(id);
    }
    await this.#send('ready', { timestamp: timestampToSeconds(timestamp) }, timestamp);
  }

  /**
   * The records changed after `since`, when the caller's result can be brought up to date with puts and
   * removes alone; undefined when it needs a reset (too many or too old changes, the collection dropped, or a
   * record that left the result and may not be named to this caller: deleted, or unreadable now).
   */
  async #replay(since: number, now: number, members: ReadonlySet<string>): Promise<{ changed: string[] } | undefined> {
    if (since < now - REPLAY_WINDOW_MS * 1000) return undefined;
    const commits = await this.#store.changesSince(since, REPLAY_COMMITS + 1);
    if (commits.length > REPLAY_COMMITS) return undefined;
    const changed = new Set<string>();
    for (const commit of commits) {
      for (const change of commit.changes) {
        if (change.collectionId !== this.#target.collectionId) continue;
        if (change.kind === 'drop') return undefined;
        if (this.#target.id === undefined || change.id === this.#target.id) changed.add(change.id);
      }
    }
    for (const id of changed) {
      if (members.has(id)) continue;
      const { record } = await this.#store.get(this.#target.collectionId, id);
      if (!record || !(await this.service.mayRead(this.#target.collectionId, record, this.prepared.request.caller))) return undefined;
    }
    return { changed: [...changed] };
  }

  async follow(): Promise<void> {
    const { signal } = this.sink;
    while (!signal.aborted) {
      const changed = await this.#store.waitForChange(this.#target, this.#cursor, KEEP_ALIVE_MS, signal);
      if (signal.aborted) return;
      if (changed === null) {
        await this.sink.write(': keep-alive\n\n');
        continue;
      }
      for (const commit of await this.#store.changesSince(this.#cursor, 100)) {
        const ids = new Set<string>();
        for (const change of commit.changes) {
          if (change.collectionId !== this.#target.collectionId) continue;
          if (change.kind === 'drop') {
            const deleted: ErrorBody = { error: { code: 'not-found', reason: 'collection/not-found', message: `collection "${change.collectionId}" was deleted` } };
            await this.#send('error', deleted);
            return;
          }
          if (this.#target.id === undefined || change.id === this.#target.id) ids.add(change.id);
        }
        const events: [string, unknown][] = [];
        for (const id of ids) {
          const event = await this.#evaluate(id);
          if (event) events.push(event);
        }
        for (const [i, [name, data]] of events.entries()) await this.#send(name, data, i === events.length - 1 ? commit.timestamp : undefined);
        this.#cursor = commit.timestamp;
        if (signal.aborted) return;
      }
    }
  }

  /** Sends the record's current state, if it is in the result now or was before. */
  async #update(id: string): Promise<void> {
    const event = await this.#evaluate(id);
    if (event) await this.#send(...event);
  }

  /** The event that brings the caller up to date on one record (and notes it), or undefined when there is none. */
  async #evaluate(id: string): Promise<[string, unknown] | undefined> {
    const { collectionId } = this.#target;
    // In the form of the schema current when it is read (a cast pass's own change events bring the new form).
    const { text } = await this.service.readJson(collectionId, id);
    const record = text === null ? null : (JSON.parse(text) as Record<string, unknown>);
    const member = record !== null && this.prepared.matches(record) && (await this.service.mayRead(collectionId, record, this.prepared.request.caller));
    if (member) {
      if (!this.#known.has(id) && this.#known.size >= MAX_STREAM_RECORDS) throw tooLarge(`now has more than ${MAX_STREAM_RECORDS} readable records`);
      this.#known.add(id);
      return ['put', { id, data: record }];
    }
    return this.#known.delete(id) ? ['remove', { id }] : undefined;
  }

  #send(name: string, data: unknown, id?: number): Promise<void> {
    const idLine = id === undefined ? '' : `id: ${timestampToSeconds(id)}\n`;
    return this.sink.write(`event: ${name}\n${idLine}data: ${JSON.stringify(data)}\n\n`);
  }
}
