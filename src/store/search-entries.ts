// What a write does to a collection's full-text search index: a record put has its tokens put (unless the
// searched fields' tokens did not change), a record deleted is removed. Commits (commit-plan.ts), index builds and
// casts (defining.ts) all write through here, so the index always holds every record's current tokens.

import type { JsonObject } from './index-entries.ts';
import type { SearchOp } from './kv.ts';
import type { Layout } from './layout.ts';
import { parseRecord } from './record-value.ts';
import { searchTableId } from './search-layout.ts';
import { recordSearchTokens } from './search-tokens.ts';

/** The search index name of the layout's `@search` (undefined when it declares none). */
export function searchIndexOf(collectionId: string, layout: Layout): string | undefined {
  return layout.search && searchTableId(collectionId, layout.search);
}

/** The search op of a record written as `record` (or deleted: undefined) over the stored value `old` (if any). */
export function searchWrite(collectionId: string, layout: Layout, key: Buffer, id: string, old: Buffer | JsonObject | undefined, record: JsonObject | undefined): SearchOp | undefined {
  const search = layout.search;
  if (!search) return undefined;
  const index = searchTableId(collectionId, search);
  if (!record) return old ? { kind: 'searchDelete', index, id } : undefined;
  const tokens = recordSearchTokens(record, search.fields);
  if (old) {
    const before = recordSearchTokens(Buffer.isBuffer(old) ? parseRecord(old) : old, search.fields);
    if (sameTokens(before, tokens)) return undefined;
  }
  return { kind: 'searchPut', index, id, key, tokens };
}

function sameTokens(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((token, i) => token === b[i]);
}
