// A record's stored value: its version (the timestamp of the commit that wrote it, a u64), then its JSON text.

import type { JsonObject, StoredLayout } from './index-entries.ts';

/** The byte at which a record value's JSON starts. */
export const RECORD_JSON_START = 8;

export function recordValue(version: Buffer, json: string): Buffer {
  const value = Buffer.allocUnsafe(RECORD_JSON_START + Buffer.byteLength(json, 'utf8'));
  version.copy(value, 0);
  value.write(json, RECORD_JSON_START, 'utf8');
  return value;
}

export function recordText(value: Buffer): string {
  return value.toString('utf8', RECORD_JSON_START);
}

export function parseRecord(value: Buffer): JsonObject {
  return JSON.parse(recordText(value)) as JsonObject;
}

export function parseStoredLayout(bytes: Buffer): StoredLayout {
  return JSON.parse(bytes.toString('utf8')) as StoredLayout;
}

/** A byte budget (a list page's, a batch's): at least 1 (NaN too), so that it always holds a record when there is one. */
export function byteBudget(bytes: number): number {
  return bytes >= 1 ? bytes : 1;
}
