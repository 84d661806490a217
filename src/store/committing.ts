// The store's writing part: a commit is checked (validation.ts), planned (commit-plan.ts) and executed in one
// transaction; once it has committed, the layout versions it read and the records it replaced are cached.

import { executeCommit, planCommit, type CommitContext, type CommitOutcome, type CommitPlan } from './commit-plan.ts';
import { decodeU64 } from './encoding.ts';
import type { CollectionIndexes } from './index-entries.ts';
import type { KvStore } from './kv.ts';
import { LayoutCache, StaleLayout } from './layout-cache.ts';
import type { RecentRecords } from './recent-records.ts';
import { parseRecord } from './record-value.ts';
import { checkClaim, checkExpectations, checkStampExpectations, checkWrites } from './validation.ts';
import type { CheckedCommit, CommitRequest } from './writes.ts';

export class Committer {
  readonly #kv: KvStore;
  readonly #layouts: LayoutCache;
  readonly #recent: RecentRecords;
  readonly #context: CommitContext;

  constructor(kv: KvStore, layouts: LayoutCache, recent: RecentRecords) {
    this.#kv = kv;
    this.#layouts = layouts;
    this.#recent = recent;
    this.#context = {
      layout: (collectionId, version, bytes, read, versionPuts, timestamp) => layouts.committed(collectionId, version, bytes, read, versionPuts, timestamp),
      oldEntries: (collectionId, id, value, indexes) => this.#oldEntries(collectionId, id, value, indexes),
    };
  }

  /**
   * Commits the writes atomically with their index entries and a change-log entry. Throws ConflictError (and
   * writes nothing) when an expectation no longer holds, SignatureReplayError when the signature is already
   * claimed, and `collection/not-found` when a collection is not defined.
   */
  async commit(request: CommitRequest): Promise<{ timestamp: number }> {
    const writes = request.writes ?? [];
    const expectations = request.expect ?? [];
    const texts = checkWrites(writes);
    checkExpectations(expectations);
    const stampExpectations = request.expectStamps ?? [];
    checkStampExpectations(stampExpectations);
    const claim = request.claimSignature;
    if (claim) checkClaim(claim);
    const checked: CheckedCommit = { writes, expectations, stampExpectations, claim, texts };
    try {
      return await this.#commit(checked, false);
    } catch (error) {
      if (!(error instanceof StaleLayout)) throw error;
      return this.#commit(checked, true);
    }
  }

  /** A checked commit; `readLayouts`: read every collection's layout, not only its version (see LayoutCache.committed). */
  async #commit(checked: CheckedCommit, readLayouts: boolean): Promise<{ timestamp: number }> {
    const plan = planCommit(checked, readLayouts, (collectionId) => this.#layouts.hasVersion(collectionId));
    const { result: outcome, timestamp } = await this.#kv.transact(plan.reads, (current, timestamp) => {
      const { ops, outcome } = executeCommit(plan, current, timestamp, this.#context);
      return { ops, result: outcome };
    });
    this.#committed(plan, outcome, timestamp);
    return { timestamp };
  }

  /** Caches what a commit that has committed read and wrote. */
  #committed(plan: CommitPlan, outcome: CommitOutcome, timestamp: number): void {
    plan.collections.forEach(({ collectionId }, i) => {
      const { indexes, versionRead } = outcome.layouts[i]!;
      if (versionRead) this.#layouts.committedAt(collectionId, indexes, decodeU64(versionRead));
    });
    plan.writes.forEach(({ write, id, text }, i) => {
      // A record updated is likely to be updated again; one just created, less so, and keeping every new record
      // of a stream of creates only churns the cache (and the old generation of the heap: creates got slower).
      const { replaced, entries } = outcome.writes[i]!;
      if (write.kind === 'put' && replaced) this.#recent.committed(write.collectionId, id, text!, timestamp, entries);
      else this.#recent.deleted(write.collectionId, id);
    });
  }

  /**
   * The index entry keys (latin1) of the record stored as `value`, which a commit replacing or deleting it removes:
   * those this store committed with that very version under the same layout object (a version is its commit's
   * timestamp, unique in the database, so the record is the one they were computed from), else computed from the
   * stored record.
   */
  #oldEntries(collectionId: string, id: string, value: Buffer, indexes: CollectionIndexes): readonly string[] {
    const recent = this.#recent.get(collectionId, id);
    if (recent?.entries?.layout === indexes && recent.version === decodeU64(value)) return recent.entries.keys;
    return indexes.entriesOf(parseRecord(value)).map((entry) => entry.toString('latin1'));
  }
}
