// The cursors of a list answer carry the query that made them, so that a request giving only a cursor goes on
// with that query. The Polybase client pages this way: QueryResponse.next() and previous() send `after` or
// `before` alone, without the where, sort and limit of the query they continue.
//
// A cursor is the store's cursor (base64url, position in an index), then, when the query had a where, sort or
// limit, a dot and base64url of the JSON `[where, sort, limit]` (null for each one not given; a search's words
// are a fourth element).

import type { ListQuery, RawListResult } from '../store/index.ts';
import { invalidArgument } from './errors.ts';
import { withinQueryDepth } from './request.ts';

interface CarriedQuery {
  readonly where: unknown;
  readonly sort: unknown;
  readonly limit: unknown;
  /** A search's words (a fourth element, only when the query searched). */
  readonly search?: string;
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;

function invalidCursor(detail: string) {
  return invalidArgument('indexer/invalid-cursor', `invalid cursor: ${detail}`);
}

function isObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The query part of a cursor; a malformed one is 400 indexer/invalid-cursor. */
function decodeQuery(text: string): CarriedQuery {
  if (!BASE64URL.test(text)) throw invalidCursor('not a cursor returned by this service');
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor('not a cursor returned by this service');
  }
  if (!Array.isArray(value) || (value.length !== 3 && value.length !== 4)) throw invalidCursor('not a cursor returned by this service');
  const [where, sort, limit, search] = value as unknown[];
  const fits =
    (where === null || (isObject(where) && withinQueryDepth(where))) &&
    (sort === null || (Array.isArray(sort) && withinQueryDepth(sort))) &&
    (limit === null || typeof limit === 'string' || typeof limit === 'number') &&
    (value.length === 3 || typeof search === 'string');
  if (!fits) throw invalidCursor('not a cursor returned by this service');
  return { where: where ?? undefined, sort: sort ?? undefined, limit: limit ?? undefined, ...(typeof search === 'string' ? { search } : {}) };
}

function split(cursor: unknown): { position: unknown; carried: CarriedQuery | undefined } {
  if (typeof cursor !== 'string') return { position: cursor, carried: undefined };
  const dot = cursor.indexOf('.');
  if (dot === -1) return { position: cursor, carried: undefined };
  if (dot === 0) throw invalidCursor('not a cursor returned by this service');
  return { position: cursor.slice(0, dot), carried: decodeQuery(cursor.slice(dot + 1)) };
}

/**
 * The query to run: what the request gives, and from the cursor's query what it leaves out (where and sort
 * together, when it gives neither; limit, when it gives none). The cursors handed to the store are positions only.
 */
export function resumeQuery(query: ListQuery): ListQuery {
  const after = split(query.after);
  const before = split(query.before);
  const carried = after.carried ?? before.carried;
  const own = query.where !== undefined || query.sort !== undefined || query.search !== undefined;
  const search = own ? query.search : carried?.search;
  return {
    ...(search !== undefined ? { search } : {}),
    where: own ? query.where : carried?.where,
    sort: own ? query.sort : carried?.sort,
    limit: query.limit ?? carried?.limit,
    after: after.position,
    before: before.position,
  };
}

function encodeQuery(query: ListQuery): string | undefined {
  if (query.where === undefined && query.sort === undefined && query.limit === undefined && query.search === undefined) return undefined;
  const carried = [query.where ?? null, query.sort ?? null, query.limit ?? null, ...(query.search !== undefined ? [query.search] : [])];
  return Buffer.from(JSON.stringify(carried)).toString('base64url');
}

/** The answer's cursors, each followed by the query that was run. */
export function withQuery(result: RawListResult, query: ListQuery): RawListResult {
  const suffix = encodeQuery(query);
  if (suffix === undefined) return result;
  const carry = (position: string | null) => (position === null ? null : `${position}.${suffix}`);
  return { ...result, cursor: { before: carry(result.cursor.before), after: carry(result.cursor.after) } };
}
