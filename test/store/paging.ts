// Paging a query through its cursors, for the conformance suites' properties (conformance.ts, union-conformance.ts):
// forward page by page, and back from a page's cursors.

import { expect } from 'vitest';
import type { JsonObject, ListOptions, ListQuery, ReadFilter, RecordStore } from '../../src/store/index.ts';

// Value order for the properties, written independently of the key encoding.

/** Two values of one type: strings by UTF-8 bytes, numbers numerically, booleans false first. */
export function compareSameType(a: unknown, b: unknown): number {
  if (typeof a === 'string') return Buffer.compare(Buffer.from(a), Buffer.from(b as string));
  if (typeof a === 'number') return a < (b as number) ? -1 : a > (b as number) ? 1 : 0;
  return Number(a) - Number(b);
}

/** Two field values as an index orders them: missing first, then strings, numbers, booleans. */
export function compareField(a: unknown, b: unknown): number {
  const rank = (v: unknown) => (v === undefined || v === null ? 0 : typeof v === 'string' ? 1 : typeof v === 'number' ? 2 : 3);
  if (rank(a) !== rank(b)) return rank(a) - rank(b);
  return rank(a) === 0 ? 0 : compareSameType(a, b);
}

/** The records in the order of an index's fields, reversed when the query reads it backwards. */
export function inFieldOrder(
  records: readonly JsonObject[],
  fields: readonly { readonly path: string; readonly direction: 'asc' | 'desc' }[],
  reverse: boolean,
): JsonObject[] {
  const ordered = [...records].sort((a, b) => {
    for (const field of fields) {
      const c = compareField(a[field.path], b[field.path]);
      if (c !== 0) return field.direction === 'asc' ? c : -c;
    }
    return 0;
  });
  return reverse ? ordered.reverse() : ordered;
}

/** One page's first and last record ids, and its cursors. */
export interface PageSeen {
  readonly first: unknown;
  readonly last: unknown;
  readonly before: string | null;
  readonly after: string | null;
}

/** Every record id of the query, paged forward `limit` at a time until the cursor stops moving; and the pages. */
export async function pageForward(
  store: RecordStore,
  collectionId: string,
  query: ListQuery,
  limit: number,
  readFilter?: ReadFilter,
  options?: ListOptions,
): Promise<{ ids: unknown[]; pages: PageSeen[] }> {
  const ids: unknown[] = [];
  const pages: PageSeen[] = [];
  let after: string | null = null;
  for (let guard = 0; guard < 200; guard++) {
    const page = await store.list(collectionId, { ...query, limit, ...(after ? { after } : {}) }, readFilter, options);
    ids.push(...page.records.map((r) => r.id));
    if (page.records.length > 0) pages.push({ first: page.records[0]!.id, last: page.records.at(-1)!.id, ...page.cursor });
    if (page.cursor.after === after) break;
    after = page.cursor.after;
  }
  return { ids, pages };
}

/** Paging back from each of `page`'s cursors gives exactly the ids of `expected` before the record it is at. */
export async function expectPagingBack(
  store: RecordStore,
  collectionId: string,
  query: ListQuery,
  limit: number,
  page: PageSeen,
  expected: readonly unknown[],
  readFilter?: ReadFilter,
): Promise<void> {
  for (const [from, record] of [
    [page.after, page.last],
    [page.before, page.first],
  ] as const) {
    const back: unknown[] = [];
    let before = from;
    for (let guard = 0; guard < 200; guard++) {
      const result = await store.list(collectionId, { ...query, limit, before }, readFilter);
      back.unshift(...result.records.map((r) => r.id));
      if (result.cursor.before === before) break;
      before = result.cursor.before;
    }
    expect(back).toEqual(expected.slice(0, expected.indexOf(record)));
  }
}
