// Many records stored at once, for a test that needs a collection of some size (a migration's pass over thousands
// of records): straight into the store, a thousand a commit, none through the service.
import type { JsonObject, RecordStore } from '../../src/store/index.ts';

/** Stores `count` records of `collectionId`, `recordOf(i)` for i from 0 to count - 1, a thousand a commit. */
export async function putRecords(store: RecordStore, collectionId: string, count: number, recordOf: (i: number) => JsonObject): Promise<void> {
  for (let start = 0; start < count; start += 1000) {
    const writes = [];
    for (let i = start; i < Math.min(start + 1000, count); i++) writes.push({ kind: 'put' as const, collectionId, record: recordOf(i) });
    await store.commit({ writes });
  }
}
