// Cursors: an opaque, URL-safe string holding a position in an index (the key of an entry, without the
// collection's prefix), and the index it belongs to. `after` continues past that position in the query's
// order, `before` goes back from it. Because every key ends with the record id, a position is unique, and
// paging neither skips nor repeats records, whatever the sort, filter or direction.

import { invalidCursor } from './errors.ts';

const VERSION = 1;
const INDEX_ID_BYTES = 8;
const MAX_CURSOR_LENGTH = 8192;
const BASE64URL = /^[A-Za-z0-9_-]*$/;

export function encodeCursor(indexId: string, position: Buffer): string {
  return Buffer.concat([Buffer.of(VERSION), Buffer.from(indexId, 'hex'), position]).toString('base64url');
}

/** The position the cursor holds, checked to belong to `indexId` (the index the query is planned on). */
export function decodeCursor(cursor: unknown, indexId: string): Buffer {
  if (typeof cursor !== 'string' || cursor.length === 0) throw invalidCursor('invalid cursor: expected a non-empty string');
  if (cursor.length > MAX_CURSOR_LENGTH || !BASE64URL.test(cursor)) throw invalidCursor('invalid cursor: not a cursor returned by this service');
  const bytes = Buffer.from(cursor, 'base64url');
  if (bytes.length < 1 + INDEX_ID_BYTES || bytes[0] !== VERSION) throw invalidCursor('invalid cursor: not a cursor returned by this service');
  if (bytes.subarray(1, 1 + INDEX_ID_BYTES).toString('hex') !== indexId) {
    throw invalidCursor('invalid cursor: it belongs to a query with a different where or sort');
  }
  return bytes.subarray(1 + INDEX_ID_BYTES);
}
