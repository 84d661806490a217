// Cursors: an opaque, URL-safe string holding a position in an index (the key of an entry, without the
// collection's prefix), and the index it belongs to. `after` continues past that position in the query's
// order, `before` goes back from it. Because every key ends with the record id, a position is unique, and
// paging neither skips nor repeats records, whatever the sort, filter or direction. A cursor is taken only when
// its position is exactly one whole key component per field of the index, the record id last: a cursor cut short
// or extended is refused like any other that the service did not hand out.

import { componentLength } from './encoding.ts';
import { invalidCursor } from './errors.ts';
import type { IndexDefinition } from './layout.ts';

const VERSION = 1;
const INDEX_ID_BYTES = 8;
const MAX_CURSOR_LENGTH = 8192;
const BASE64URL = /^[A-Za-z0-9_-]*$/;

export function encodeCursor(indexId: string, position: Buffer): string {
  return Buffer.concat([Buffer.of(VERSION), Buffer.from(indexId, 'hex'), position]).toString('base64url');
}

/** The position the cursor holds, checked to belong to `index` (the index the query is planned on). */
export function decodeCursor(cursor: unknown, index: IndexDefinition): Buffer {
  const foreign = () => invalidCursor('invalid cursor: not a cursor returned by this service');
  if (typeof cursor !== 'string' || cursor.length === 0) throw invalidCursor('invalid cursor: expected a non-empty string');
  if (cursor.length > MAX_CURSOR_LENGTH || !BASE64URL.test(cursor)) throw foreign();
  const bytes = Buffer.from(cursor, 'base64url');
  if (bytes.length < 1 + INDEX_ID_BYTES || bytes[0] !== VERSION) throw foreign();
  if (bytes.subarray(1, 1 + INDEX_ID_BYTES).toString('hex') !== index.id) {
    throw invalidCursor('invalid cursor: it belongs to a query with a different where or sort');
  }
  const position = bytes.subarray(1 + INDEX_ID_BYTES);
  if (!isPositionIn(index, position)) throw foreign();
  return position;
}

/** Whether `position` is one whole component per field of the index and nothing more (index-entries.ts, `entryKey`). */
function isPositionIn(index: IndexDefinition, position: Buffer): boolean {
  const last = index.fields.length - 1;
  let offset = 0;
  for (let i = 0; i < last; i++) {
    const field = index.fields[i]!;
    const length = componentLength(position, offset, field.type.kind, field.direction);
    if (length === 0) return false;
    offset += length;
  }
  // The record id ends every key: a whole string, never null or cut.
  const length = componentLength(position, offset, 'string', index.fields[last]!.direction, true);
  return length > 0 && offset + length === position.length;
}
