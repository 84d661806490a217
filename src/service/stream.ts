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
// cannot be told exactly (too many, too old, or a record that was there before left the result) it gets a reset
// and the whole result instead. The stream remembers the ids of the records in the result, at most MAX_STREAM_RECORDS:
// a `remove` is only ever sent for a record the caller was told about, so no event names a record it may not
// read. Output waits for the connection to drain, and nothing more is read meanwhile, so a slow client holds at
// most one commit's events.

import { timestampToSeconds, whereMatcher, type JsonObject, type ListQuery, type RecordStore } from '../store/index.ts';
import { ServiceError, notFound, type ErrorBody } from './errors.ts';
import { Expander, type ExpandNode } from './expand.ts';
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
  /** The references each `put` expands (expand.ts), checked against the schemas. */
  readonly expand?: readonly ExpandNode[];
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
  /** The ids of the readable records in the result at `timestamp` (in the query's order, for a window). */
  readonly members: readonly string[];
  readonly timestamp: number;
  /** A windowed stream (`limit`) follows only the first `window` records of the query's order. */
  readonly window?: number;
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
  if (request.query.limit !== undefined) {
    const { ids, timestamp, limit } = await readWindow(service, request);
    return { request, matches, members: ids, timestamp, window: limit };
  }
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

/**
 * The first `limit` readable records of the query's order (a windowed stream's result), as a list reads them:
 * further pages when one ends early at the store's scan bound, at most SNAPSHOT_PAGES. The first page checks
 * `limit` as a list does (a positive integer, at most 1000).
 */
async function readWindow(service: RecordService, request: StreamRequest): Promise<{ ids: string[]; records: Map<string, unknown>; timestamp: number; limit: number }> {
  const { collectionId } = request.target;
  const { where, sort } = request.query;
  const ids: string[] = [];
  const records = new Map<string, unknown>();
  let timestamp: number | undefined;
  let limit: number | undefined;
  let after: string | undefined;
  for (let page = 0; ; page++) {
    if (page === SNAPSHOT_PAGES) throw tooLarge(`reads more than ${SNAPSHOT_PAGES * 5000} index entries to find the records of its window`);
    const result = await service.list(collectionId, { where, sort, limit: limit === undefined ? request.query.limit : limit - ids.length, after }, request.caller);
    // The list accepted the limit: decimal digits, capped at the list's most.
    limit ??= Math.min(Number(request.query.limit), MAX_STREAM_RECORDS);
    timestamp ??= result.timestamp;
    for (const text of result.records) {
      const record = JSON.parse(text) as { id: unknown };
      ids.push(String(record.id));
      records.set(String(record.id), record);
    }
    if (ids.length >= limit || result.cursor.after === null || result.cursor.after === (after ?? null)) break;
    after = result.cursor.after;
  }
  return { ids: ids.slice(0, limit), records, timestamp: timestamp!, limit };
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
      // The caller's result is the one at `resumeAfter`: what it holds of `members` it keeps, and every record
      // changed since that is not in the result now did not exist then, so it holds none of those.
      // (A member created since is left out of what it holds: should it leave the result before its put, no
      // remove names it.)
      for (const id of members) if (!replay.created.has(id)) this.#known.add(id);
      for (const id of replay.changed) await this.#update(id);
    } else {
      if (request.resumeAfter !== undefined) await this.#send('reset', {});
      for (const id of members) await this.#update(id);
    }
    await this.#send('ready', { timestamp: timestampToSeconds(timestamp) }, timestamp);
  }

  /**
   * The records changed after `since` that are in the result now, when the caller's result can be brought up to
   * date with puts alone; undefined when it needs a reset: too many or too old changes, the collection dropped,
   * or a record that existed at `since`, changed, and is not in the result now. Whether the caller holds such a
   * record cannot be told (the log keeps no older values), so a `remove` for it could name a record the stream
   * never sent, and for a deleted or unreadable one would name a record the caller may not read. A record
   * created after `since` and not in the result now needs nothing: the caller cannot hold it.
   */
  async #replay(since: number, now: number, members: ReadonlySet<string>): Promise<{ changed: string[]; created: ReadonlySet<string> } | undefined> {
    if (since < now - REPLAY_WINDOW_MS * 1000) return undefined;
    const commits = await this.#store.changesSince(since, REPLAY_COMMITS + 1);
    if (commits.length > REPLAY_COMMITS) return undefined;
    /** Each record changed since, and whether it did not exist at `since` (its first change created it). */
    const changed = new Map<string, boolean>();
    for (const commit of commits) {
      if (commit.timestamp > now) break; // after the starting result: follow() sends those
      for (const change of commit.changes) {
        if (change.collectionId !== this.#target.collectionId) continue;
        if (change.kind === 'drop') return undefined;
        if (this.#target.id !== undefined && change.id !== this.#target.id) continue;
        if (!changed.has(change.id)) changed.set(change.id, change.created === true);
      }
    }
    // A window moves when any record enters or leaves the result before its end, changed or not (a record pushed
    // out, or let in): only an unchanged collection needs nothing.
    if (this.prepared.window !== undefined && changed.size > 0) return undefined;
    for (const [id, createdSince] of changed) if (!members.has(id) && !createdSince) return undefined;
    const created = new Set([...changed].filter(([, createdSince]) => createdSince).map(([id]) => id));
    return { changed: [...changed.keys()].filter((id) => members.has(id)), created };
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
        const events: [string, unknown][] = this.prepared.window === undefined ? [] : await this.#moveWindow(ids);
        if (this.prepared.window === undefined) {
          for (const id of ids) {
            const event = await this.#evaluate(id);
            if (event) events.push(event);
          }
        }
        for (const [i, [name, data]] of events.entries()) await this.#send(name, data, i === events.length - 1 ? commit.timestamp : undefined);
        this.#cursor = commit.timestamp;
        if (signal.aborted) return;
      }
    }
  }

  /**
   * A windowed stream's events for a commit that changed `changed`: when one of them is in the window, or matches
   * the where now (it may enter), the window is read again; then a `remove` for each record that left it (pushed
   * out past its end, or gone) and a `put` for each that entered it or changed in it. Removes come first, so the
   * caller never holds more than the window.
   */
  async #moveWindow(changed: ReadonlySet<string>): Promise<[string, unknown][]> {
    let moved = false;
    for (const id of changed) {
      if (this.#known.has(id)) moved = true;
      else {
        // In the schema's form, as the window is read (a cast pass may not have reached the record yet).
        const { text } = await this.service.readJson(this.#target.collectionId, id);
        moved = text !== null && this.prepared.matches(JSON.parse(text));
      }
      if (moved) break;
    }
    if (!moved) return [];
    const { ids, records } = await readWindow(this.service, this.prepared.request);
    const now = new Set(ids);
    const events: [string, unknown][] = [];
    for (const id of this.#known) if (!now.has(id)) events.push(['remove', { id }]);
    for (const id of ids) if (!this.#known.has(id) || changed.has(id)) events.push(await this.#put(id, records.get(id) as JsonObject));
    this.#known.clear();
    for (const id of ids) this.#known.add(id);
    return events;
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
      return this.#put(id, record);
    }
    return this.#known.delete(id) ? ['remove', { id }] : undefined;
  }

  /** A `put` of the record, with the records its references point to when the stream expands them (expand.ts). */
  async #put(id: string, record: JsonObject): Promise<[string, unknown]> {
    const { expand, caller } = this.prepared.request;
    if (!expand) return ['put', { id, data: record }];
    // Checked afresh for each event: a permission may have changed since the last.
    return ['put', { id, data: record, expand: await new Expander(this.service, caller).expand(record, expand) }];
  }

  #send(name: string, data: unknown, id?: number): Promise<void> {
    const idLine = id === undefined ? '' : `id: ${timestampToSeconds(id)}\n`;
    return this.sink.write(`event: ${name}\n${idLine}data: ${JSON.stringify(data)}\n\n`);
  }
}
