// Paging a query through its cursors, for the conformance suites' properties (conformance.ts, union-conformance.ts):
// forward page by page, and back from a page's cursors.

import { expect } from 'vitest';
import type { ListOptions, ListQuery, ReadFilter, RecordStore } from '../../src/store/index.ts';

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
export async function expectPagingBack(store: RecordStore, collectionId: string, query: ListQuery, limit: number, page: PageSeen, expected: readonly unknown[]): Promise<void> {
  for (const [from, record] of [
    [page.after, page.last],
    [page.before, page.first],
  ] as const) {
    const back: unknown[] = [];
    let before = from;
    for (let guard = 0; guard < 200; guard++) {
      const result = await store.list(collectionId, { ...query, limit, before });
      back.unshift(...result.records.map((r) => r.id));
      if (result.cursor.before === before) break;
      before = result.cursor.before;
    }
    expect(back).toEqual(expected.slice(0, expected.indexOf(record)));
  }
}
