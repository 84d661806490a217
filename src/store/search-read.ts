// A list with `search`: the records whose searched fields hold every term of the query (the last one as a prefix,
// search-tokens.ts), read from the collection's search index (SQLite FTS5 or a PostgreSQL tsvector, kv.ts's
// `search`) in relevance order: fewest tokens in the searched fields first (the match is the larger part of a
// shorter text), then record id. Both are stored with the index, so the order, the pages and the cursors are the
// same on both backends.
//
// A search combines with equality filters (checked on each record read, like the read filter), is confined as a
// list with the same where would be (the caller's `confine`), pages with `after`/`before` in both directions, and
// is bounded by the scan limit and the page's bytes as a list is (reading.ts): a cursor is a position (tokens, id)
// in the same form as an index cursor, sealed when a read filter ran.

import { SCAN_CURSOR_SIZES, decodeCursor, encodeCursor, encodeScanCursor } from './cursor.ts';
import { encodeValue } from './encoding.ts';
import { invalidCursor, StoreError } from './errors.ts';
import type { CollectionIndexes, JsonObject } from './index-entries.ts';
import type { KvStore, SearchPosition } from './kv.ts';
import type { IndexDefinition } from './layout.ts';
import { searchTableId } from './search-layout.ts';
import { searchTerms } from './search-tokens.ts';
import { whereMatcher } from './where.ts';

export interface SearchRequest<T> {
  readonly search: unknown;
  readonly where: unknown;
  readonly sort: unknown;
  readonly limit: number;
  readonly backward: boolean;
  /** The request's cursor (`after`, or `before` when backward). */
  readonly cursor: string | undefined;
  readonly readFilter: ((record: JsonObject) => boolean | Promise<boolean>) | undefined;
  readonly scanLimit: number;
  readonly pageBytes: number;
  /** The key of sealed cursors (needed when there is a read filter or the request's cursor is sealed). */
  readonly sealKey: Buffer | undefined;
  /** Refuses a where that a confined list could not serve (reading.ts plans it, and calls the caller's check). */
  readonly confine: (where: unknown) => Promise<void>;
  readonly output: (text: string, parsed: JsonObject) => T;
}

export interface SearchPage<T> {
  readonly records: T[];
  readonly cursor: { readonly before: string | null; readonly after: string | null };
}

/** The most hits one read of the search index asks for. */
const MAX_BATCH = 1000;

export async function readSearchPage<T>(kv: KvStore, indexes: CollectionIndexes, request: SearchRequest<T>): Promise<SearchPage<T>> {
  const terms = checkSearch(indexes, request);
  const matches = whereMatcher(indexes.layout, request.where ?? {});
  await request.confine(request.where);
  const search = indexes.layout.search!;
  const index = searchTableId(indexes.collectionId, search);
  const cursorIndex = cursorIndexOf(search.id);
  let from = request.cursor === undefined ? undefined : positionOf(decodeCursor(request.cursor, cursorIndex, request.sealKey));

  const records: T[] = [];
  let firstRead: SearchPosition | undefined;
  let lastRead: SearchPosition | undefined;
  let firstReturned: SearchPosition | undefined;
  let lastReturned: SearchPosition | undefined;
  let scanned = 0;
  let bytes = 0;
  let cutShort = false;
  reading: for (;;) {
    const want = Math.min(MAX_BATCH, Math.max(request.limit - records.length + 1, 16), request.scanLimit - scanned);
    if (want <= 0) {
      cutShort = true;
      break;
    }
    const hits = await kv.search(index, { whole: terms.whole, prefix: terms.prefix, reverse: request.backward, limit: want, ...(from ? { from } : {}) });
    for (const hit of hits) {
      scanned++;
      const position = { tokens: hit.tokens, id: hit.id };
      firstRead ??= position;
      lastRead = position;
      const record = JSON.parse(hit.text) as JsonObject;
      if (!matches(record) || (request.readFilter && !(await request.readFilter(record)))) continue;
      records.push(request.output(hit.text, record));
      firstReturned ??= position;
      lastReturned = position;
      bytes += Buffer.byteLength(hit.text);
      if (records.length >= request.limit || bytes >= request.pageBytes) break reading;
    }
    if (hits.length < want) break;
    from = lastRead;
  }
  if (request.backward) records.reverse();

  const at = (position: SearchPosition | undefined, seal?: Buffer) => (position === undefined ? (request.cursor ?? null) : encodeCursor(search.id, positionBytes(position), seal));
  let start: string | null;
  let end: string | null;
  if (!request.readFilter) {
    start = at(firstRead);
    end = at(lastRead);
  } else {
    // As a filtered list's (docs/store.md): only records returned place the cursors, except that a read stopped
    // by its scan bound goes on from the last entry read, sealed at a fixed length that tells nothing of it.
    start = at(firstReturned, request.sealKey);
    end = cutShort && lastRead ? (encodeScanCursor(search.id, positionBytes(lastRead), request.sealKey!, SCAN_CURSOR_SIZES.small) ?? at(lastRead, request.sealKey)) : at(lastReturned, request.sealKey);
  }
  return { records, cursor: request.backward ? { before: end, after: start } : { before: start, after: end } };
}

/** The query's terms, after checking that this collection can be searched so (every refusal is an `invalid-argument` error). */
function checkSearch(indexes: CollectionIndexes, request: SearchRequest<unknown>): ReturnType<typeof searchOrThrow> {
  const search = indexes.layout.search;
  if (!search) throw noSearchIndex(`collection "${indexes.collectionId}" declares no @search; add @search(field, ...) naming its string fields to search it`);
  if (indexes.building.has(search.id)) throw noSearchIndex(`the search index of collection "${indexes.collectionId}" is still being built; try again when the build is done`);
  const sort = request.sort;
  if (sort !== undefined && sort !== null && !(Array.isArray(sort) && sort.length === 0)) {
    throw invalidSearch('a search is ordered by relevance (fewest words in the searched fields first), then by id; it takes no sort');
  }
  const where = request.where;
  if (where !== undefined && where !== null) {
    if (typeof where !== 'object' || Array.isArray(where)) throw invalidSearch('the where of a search must be an object of equality filters (field: value)');
    for (const [field, value] of Object.entries(where)) {
      const operators = typeof value === 'object' && value !== null && !Array.isArray(value) ? Object.keys(value).filter((key) => key.startsWith('$')) : [];
      if (field.startsWith('$') || operators.some((operator) => operator !== '$eq')) {
        const what = field.startsWith('$') ? `"${field}"` : `"${operators.find((operator) => operator !== '$eq')}" on "${field}"`;
        throw invalidSearch(`a search combines only with equality filters (field: value or {"$eq": value}); ${what} is not one`);
      }
    }
  }
  return searchOrThrow(request.search);
}

function searchOrThrow(search: unknown): Exclude<ReturnType<typeof searchTerms>, string> {
  if (typeof search !== 'string') throw invalidSearch('search must be a string: the words to search for');
  const terms = searchTerms(search);
  if (typeof terms === 'string') throw invalidSearch(terms);
  return terms;
}

/** The cursors of a search are positions in this (virtual) index: the token count, then the record id. */
function cursorIndexOf(id: string): IndexDefinition {
  return {
    id,
    fields: [
      { path: '$tokens', direction: 'asc', type: { kind: 'number' } },
      { path: 'id', direction: 'asc', type: { kind: 'string' } },
    ],
    primary: false,
  };
}

function positionBytes(position: SearchPosition): Buffer {
  return Buffer.concat([encodeValue({ kind: 'number', value: position.tokens }), encodeValue({ kind: 'string', value: position.id }, 'asc', false)]);
}

/** The position a cursor holds (decodeCursor checked it is a number component, then a whole string component). */
function positionOf(bytes: Buffer): SearchPosition {
  const number = Buffer.from(bytes.subarray(1, 9));
  if (number[0]! & 0x80) number[0]! ^= 0x80;
  else for (let i = 0; i < 8; i++) number[i]! ^= 0xff;
  const tokens = number.readDoubleBE(0);
  // The string body: UTF-8 with 0x00 written 0x00 0xFF, ended by 0x00 0x01.
  const body: number[] = [];
  for (let i = 10; i < bytes.length; i++) {
    if (bytes[i] === 0x00) {
      if (bytes[i + 1] === 0xff) {
        body.push(0x00);
        i++;
        continue;
      }
      break;
    }
    body.push(bytes[i]!);
  }
  if (!Number.isSafeInteger(tokens) || tokens < 0) throw invalidCursor('invalid cursor: not a cursor returned by this service');
  return { tokens, id: Buffer.from(body).toString('utf8') };
}

function invalidSearch(message: string): StoreError {
  return new StoreError('invalid-argument', 'indexer/invalid-search', message);
}

function noSearchIndex(message: string): StoreError {
  return new StoreError('invalid-argument', 'indexer/no-search-index', message);
}
