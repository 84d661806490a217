// Validation of what a request carries besides its path: the JSON body of a write, and the query string of a
// list or get. Every problem is a 400 `invalid-argument` that names the parameter and what was expected.

import { createRequire } from 'node:module';
import type { z } from 'zod';
import { AGGREGATE_KINDS, MAX_OR_DEPTH, MAX_WAIT_MS as STORE_MAX_WAIT_MS, secondsToTimestamp, type AggregateKind, type AggregateRequest, type ListQuery } from '../store/index.ts';
import { invalidArgument } from './errors.ts';
import { parseExpand } from './expand.ts';

/** Longest a long-poll waits: `waitFor` defaults to this and is capped at it. */
export const MAX_WAIT_MS = Math.min(60_000, STORE_MAX_WAIT_MS);
/** Most arguments a function call may carry. */
export const MAX_ARGS = 1000;

// zod and the schemas below are made on first use, so a program that imports the library without serving does not load zod.
const load = createRequire(import.meta.url);
let schemas: { writeBody: ReturnType<typeof writeBodySchema>; listQuery: ReturnType<typeof listQuerySchema> } | undefined;
function requestSchemas(): NonNullable<typeof schemas> {
  if (schemas === undefined) {
    const zod = (load('zod') as { z: typeof z }).z;
    schemas = { writeBody: writeBodySchema(zod), listQuery: listQuerySchema(zod) };
  }
  return schemas;
}

function writeBodySchema(zod: typeof z) {
  return zod.object({
    args: zod.array(zod.unknown()).max(MAX_ARGS),
    /** Only for `Collection` `updateCode`: the fields whose stored values the schema change may lose. */
    acceptDataLoss: zod.array(zod.string().min(1).max(256)).max(1024).optional(),
  });
}

function describeIssues(error: z.ZodError, root: string): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${[root, ...issue.path.map(String)].join('.')}: ${issue.message}`)
    .join('; ');
}

/** A surrogate that is not half of a pair (in a `u` regular expression a pair is one code point). */
const LONE_SURROGATE = /\p{Surrogate}/u;

/**
 * Where the first string (or key) holding a lone surrogate is, and that surrogate; JSON's `\ud800` escapes are
 * the only way to send one. Such text has no UTF-8 form: the store would keep it as U+FFFD, so two different
 * record ids would be one key. Iterative, as arguments may nest as deep as the body allows.
 */
function loneSurrogate(args: unknown[]): { path: string; code: number } | undefined {
  type Entry = { value: unknown; key: string | number; parent: Entry | undefined };
  const pathOf = (entry: Entry | undefined): string => {
    const parts: string[] = [];
    for (let at = entry; at; at = at.parent) {
      parts.push(typeof at.key === 'number' ? `[${at.key}]` : /^[A-Za-z_$][\w$]*$/.test(at.key) ? `.${at.key}` : `[${JSON.stringify(at.key)}]`);
    }
    const path = `body.args${parts.reverse().join('')}`;
    return path.length > 200 ? `${path.slice(0, 100)}…${path.slice(-100)}` : path;
  };
  const found = (text: string, entry: Entry | undefined) => ({ path: pathOf(entry), code: text.charCodeAt(LONE_SURROGATE.exec(text)!.index) });
  const stack: Entry[] = args.map((value, key) => ({ value, key, parent: undefined }));
  while (stack.length > 0) {
    const entry = stack.pop()!;
    const { value } = entry;
    if (typeof value === 'string') {
      if (LONE_SURROGATE.test(value)) return found(value, entry);
    } else if (Array.isArray(value)) {
      value.forEach((child, key) => stack.push({ value: child, key, parent: entry }));
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, child] of Object.entries(value)) {
        const childEntry = { value: child, key, parent: entry };
        if (LONE_SURROGATE.test(key)) return found(key, childEntry);
        stack.push(childEntry);
      }
    }
  }
  return undefined;
}

/** The `{"args": [...]}` of a create or call, from the raw body text. */
export function parseWriteBody(raw: string | undefined): unknown[] {
  return parseWriteRequest(raw).args;
}

/** A write's body: `{"args": [...]}`, and for a schema change `"acceptDataLoss": ["field", ...]`. */
export function parseWriteRequest(raw: string | undefined): { args: unknown[]; acceptDataLoss?: string[] } {
  const expected = 'expected a JSON object {"args": [...]}';
  if (raw === undefined || raw.trim() === '') throw invalidArgument('request/invalid-body', `request body is empty; ${expected}`);
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (error) {
    throw invalidArgument('request/invalid-json', `request body is not valid JSON (${(error as Error).message}); ${expected}`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw invalidArgument('request/invalid-body', `request body must be an object, got ${json === null ? 'null' : Array.isArray(json) ? 'an array' : typeof json}; ${expected}`);
  }
  const parsed = requestSchemas().writeBody.safeParse(json);
  if (!parsed.success) throw invalidArgument('request/invalid-body', `invalid request body: ${describeIssues(parsed.error, 'body')}`);
  const lone = /\\u[dD][89a-fA-F]/.test(raw) ? loneSurrogate(parsed.data.args) : undefined;
  if (lone) {
    throw invalidArgument('request/invalid-body', `invalid request body: ${lone.path} holds a lone surrogate \\u${lone.code.toString(16)}; text must be well-formed Unicode`);
  }
  return parsed.data.acceptDataLoss === undefined ? { args: parsed.data.args } : { args: parsed.data.args, acceptDataLoss: parsed.data.acceptDataLoss };
}

function listQuerySchema(zod: typeof z) {
  const queryText = zod.string().max(64 * 1024).optional();
  return zod.object({
    where: queryText,
    sort: queryText,
    limit: queryText,
    before: queryText,
    after: queryText,
    since: queryText,
    waitFor: queryText,
    format: queryText,
    count: queryText,
    stream: queryText,
    expand: queryText,
    sum: queryText,
    avg: queryText,
    min: queryText,
    max: queryText,
    search: queryText,
  });
}
type ListQueryText = z.infer<ReturnType<typeof listQuerySchema>>;

export interface LongPoll {
  /** Store timestamp of `since`. */
  since: number;
  waitMs: number;
}

export interface ParsedListQuery {
  query: ListQuery;
  longPoll: LongPoll | undefined;
  /**
   * `count=true`, or any aggregate: answer with the number of readable records that match (and the aggregates
   * asked for), instead of a page.
   */
  count: boolean;
  /** `sum=price&avg=price,weight&min=…&max=…`: the number fields to aggregate, by kind (empty when none). */
  aggregates: AggregateRequest;
  /** `stream=1`: push the query's changes over Server-Sent Events (stream.ts); `longPoll.since` is where to resume. */
  stream: boolean;
  /** `expand=field,field.sub`: the reference paths to expand (expand.ts), unchecked against the schema. */
  expand: string[][] | undefined;
}

function readQuery(raw: unknown): ListQueryText {
  const parsed = requestSchemas().listQuery.safeParse(raw ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const name = String(issue.path[0] ?? 'query');
  const detail = issue.code === 'invalid_type' ? 'must be given once, as text' : issue.message;
  throw invalidArgument('request/invalid-query', `query parameter "${name}" ${detail}`);
}

/**
 * How deep `where` and `sort` may nest as JSON, refused here before any message quoting them could overflow the
 * stack. It is derived from the `$or` nesting the docs promise (MAX_OR_DEPTH, checked by the store with its own
 * message), so that it never cuts in first: the where object (1), two levels per `$or` (its array and an
 * alternative's object), then a field's filter at its deepest, `{"$in": [{…a PublicKey's JWK…}]}` (3); and one
 * `$or` level more than allowed still fits, so that a where nested one level too deep gets the store's
 * "$or nests more than 4 levels deep" rather than this limit's message. 14 levels is far from any stack limit.
 */
const MAX_QUERY_DEPTH = 1 + 2 * (MAX_OR_DEPTH + 1) + 3;

function nestedDeeperThan(value: unknown, depth: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (depth === 0) return true;
  return Object.values(value).some((child) => nestedDeeperThan(child, depth - 1));
}

function jsonParameter(name: string, text: string | undefined, expected: 'object' | 'array'): unknown {
  if (text === undefined || text === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw invalidArgument('request/invalid-query', `query parameter "${name}" is not valid JSON (${(error as Error).message})`);
  }
  const ok = expected === 'array' ? Array.isArray(value) : typeof value === 'object' && value !== null && !Array.isArray(value);
  if (!ok) throw invalidArgument('request/invalid-query', `query parameter "${name}" must be a JSON ${expected}`);
  if (!withinQueryDepth(value)) {
    throw invalidArgument('request/invalid-query', `query parameter "${name}" is nested more than ${MAX_QUERY_DEPTH} levels deep`);
  }
  return value;
}

/** Whether a where or sort value nests at most MAX_QUERY_DEPTH levels (also checked on a cursor's query). */
export function withinQueryDepth(value: unknown): boolean {
  return !nestedDeeperThan(value, MAX_QUERY_DEPTH);
}

function longPollOf(since: string | undefined, waitFor: string | undefined): LongPoll | undefined {
  if (since === undefined || since === '') {
    if (waitFor !== undefined) parseWaitFor(waitFor); // still report a malformed value
    return undefined;
  }
  const timestamp = secondsToTimestamp(since);
  if (timestamp === null) throw invalidArgument('request/invalid-query', `query parameter "since" must be a time in seconds, such as 1661981492.0362; got ${JSON.stringify(since.slice(0, 40))}`);
  return { since: timestamp, waitMs: waitFor === undefined ? MAX_WAIT_MS : parseWaitFor(waitFor) };
}

/** `waitFor`: `<seconds>s` as Polybase takes it (`10s`, `0.5s`), or `<n>ms`; at most 60 s. */
export function parseWaitFor(text: string): number {
  const match = /^(\d{1,9}(?:\.\d{1,6})?)(s|ms)$/.exec(text);
  if (!match) throw invalidArgument('request/invalid-query', `query parameter "waitFor" must be a duration such as "10s" or "500ms", got ${JSON.stringify(text.slice(0, 40))}`);
  const ms = match[2] === 's' ? Number(match[1]) * 1000 : Number(match[1]);
  return Math.min(Math.round(ms), MAX_WAIT_MS);
}

export function parseListQuery(raw: unknown): ParsedListQuery {
  const q = readQuery(raw);
  const query: ListQuery = {
    where: jsonParameter('where', q.where, 'object'),
    sort: jsonParameter('sort', q.sort, 'array'),
    limit: q.limit === undefined || q.limit === '' ? undefined : q.limit,
    // An empty cursor means none (the Polybase client may send `before=` on the first page).
    after: q.after === '' ? undefined : q.after,
    before: q.before === '' ? undefined : q.before,
    // `search=`: words to search for (docs/service.md, "Full-text search"); given but empty, the store refuses it.
    ...(q.search !== undefined ? { search: q.search } : {}),
  };
  const aggregates = parseAggregates(q);
  const named = Object.keys(aggregates);
  const count = parseCount(q.count) || named.length > 0;
  // How the refusals below name the request: `count=true`, or the first aggregate given.
  const asked = named.length === 0 || q.count === 'true' ? 'count=true' : `${named[0]}=`;
  if (count) {
    const paging = (['limit', 'after', 'before'] as const).find((name) => q[name] !== undefined && q[name] !== '');
    if (paging) throw invalidArgument('request/invalid-query', `query parameter "${paging}" does not apply to ${asked}, which counts every matching record`);
    // Refused rather than ignored: a count is the same in any order, so a sort says the caller expects something
    // else (a count of the first n, which is limit's, also refused).
    if (q.sort !== undefined && q.sort !== '') throw invalidArgument('request/invalid-query', `query parameter "sort" does not apply to ${asked}: a count does not depend on the order of the records; leave the sort out`);
  }
  const stream = parseStream(q);
  if (q.search !== undefined) {
    if (count) throw invalidArgument('request/invalid-query', `query parameter "search" does not apply to ${asked}; page through the search instead`);
    if (stream) throw invalidArgument('request/invalid-query', 'query parameter "search" does not apply to stream=1: a search is ordered by relevance, which a stream of changes cannot keep; list it (and long-poll with since)');
  }
  if (stream) {
    const other = (['count', 'after', 'before', 'waitFor', ...AGGREGATE_KINDS] as const).find((name) => q[name] !== undefined && q[name] !== '' && q[name] !== 'false');
    if (other) throw invalidArgument('request/invalid-query', `query parameter "${other}" does not apply to stream=1, which follows the matching records from the first (resume with Last-Event-ID or since)`);
  }
  const expand = parseExpand(q.expand);
  if (expand && count) throw invalidArgument('request/invalid-query', `query parameter "expand" does not apply to ${asked}, which answers with ${named.length > 0 ? 'numbers' : 'a number'}`);
  return { query, longPoll: longPollOf(q.since, q.waitFor), count, aggregates, stream, expand };
}

/**
 * `sum`, `avg`, `min`, `max`: each a comma-separated list of number field paths (`sum=price,weight`); the store
 * checks the fields against the schema (aggregates.ts).
 */
function parseAggregates(q: ListQueryText): AggregateRequest {
  const out: { [K in AggregateKind]?: string[] } = {};
  for (const kind of AGGREGATE_KINDS) {
    const text = q[kind];
    if (text === undefined) continue;
    const paths = text.split(',').map((path) => path.trim());
    if (paths.some((path) => path === '')) {
      throw invalidArgument('request/invalid-query', `query parameter "${kind}" must be a comma-separated list of number fields, such as ${kind}=price or ${kind}=price,weight; got ${JSON.stringify(text.slice(0, 40))}`);
    }
    out[kind] = [...new Set(paths)];
  }
  return out;
}

/** `stream=1` (or `true`): Server-Sent Events instead of one answer. */
function parseStream(q: ListQueryText): boolean {
  const text = q.stream;
  if (text === undefined || text === '' || text === '0' || text === 'false') return false;
  if (text === '1' || text === 'true') return true;
  throw invalidArgument('request/invalid-query', `query parameter "stream" must be 1 (or true) or 0 (or false), got ${JSON.stringify(text.slice(0, 40))}`);
}

/** The timestamp a push stream resumes after: the Last-Event-ID header when given, else `since`. */
export function streamResumePoint(lastEventId: unknown, longPoll: LongPoll | undefined): number | undefined {
  if (typeof lastEventId === 'string' && lastEventId !== '') {
    const timestamp = secondsToTimestamp(lastEventId);
    if (timestamp === null) throw invalidArgument('request/invalid-header', `header Last-Event-ID must be the id of an event of this stream (a time in seconds), got ${JSON.stringify(lastEventId.slice(0, 40))}`);
    return timestamp;
  }
  return longPoll?.since;
}

function parseCount(text: string | undefined): boolean {
  if (text === undefined || text === '' || text === 'false') return false;
  if (text === 'true') return true;
  throw invalidArgument('request/invalid-query', `query parameter "count" must be "true" or "false", got ${JSON.stringify(text.slice(0, 40))}`);
}

export interface ParsedGetQuery {
  longPoll: LongPoll | undefined;
  /** `format=nft`: answer with the bare record, without the envelope. */
  bare: boolean;
  /** `stream=1`: push the record's changes over Server-Sent Events. */
  stream: boolean;
  /** `expand=field,field.sub`: the reference paths to expand (expand.ts). */
  expand: string[][] | undefined;
}

export function parseGetQuery(raw: unknown): ParsedGetQuery {
  const q = readQuery(raw);
  const stream = parseStream(q);
  if (stream && q.waitFor !== undefined) throw invalidArgument('request/invalid-query', 'query parameter "waitFor" does not apply to stream=1 (resume with Last-Event-ID or since)');
  const bare = q.format === 'nft';
  const expand = parseExpand(q.expand);
  if (expand && bare) throw invalidArgument('request/invalid-query', 'query parameter "expand" does not apply to format=nft, which answers with the bare record');
  return { longPoll: longPollOf(q.since, q.waitFor), bare, stream, expand };
}
