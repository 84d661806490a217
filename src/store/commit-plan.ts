// A commit as a plan the transaction executes. `planCommit` names every key the transaction reads, each once,
// and what each part of the request does with its value; `executeCommit` runs inside the transaction (under the
// commit lock, possibly more than once: see kv.ts) and turns the values read into the writes, or throws to
// abort. The store (committing.ts) caches what the outcome says only after the commit has committed.

import { ConflictError, SignatureReplayError } from './errors.ts';
import { changeLogEntries, type Change } from './changes.ts';
import { decodeU64, encodeU64 } from './encoding.ts';
import type { CollectionIndexes } from './index-entries.ts';
import { collectionChangedKey, layoutKey, layoutVersionKey, recordDeletedKey, recordKey, signatureExpiryKey, signatureKey } from './keys.ts';
import type { KvOp } from './kv.ts';
import type { RecentEntries } from './recent-records.ts';
import { recordValue } from './record-value.ts';
import { searchWrite } from './search-entries.ts';
import type { CheckedCommit, Expectation, SignatureClaim, StampExpectation, Write } from './writes.ts';

/** A planned read's place among the transaction's reads. */
type Slot = number;

export interface CommitPlan {
  /** The keys the transaction reads, each once; the parts below refer to them by slot. */
  readonly reads: readonly Buffer[];
  /** Each collection written: its layout version, and its layout itself unless a version is cached (-1). */
  readonly collections: readonly { readonly collectionId: string; readonly version: Slot; readonly layout: Slot }[];
  /** Each write, with its record's key and (for a put) its JSON text. */
  readonly writes: readonly { readonly write: Write; readonly id: string; readonly record: Slot; readonly text: string | undefined }[];
  readonly expectations: readonly { readonly expectation: Expectation; readonly record: Slot }[];
  readonly stampExpectations: readonly { readonly expectation: StampExpectation; readonly stamp: Slot }[];
  readonly claim: { readonly claim: SignatureClaim; readonly signature: Slot } | undefined;
}

/**
 * The plan of a checked commit. `layoutCached(collectionId)`: whether a layout version is cached, so that only
 * the version need be read; `readLayouts` reads every layout anyway (the second try after a StaleLayout).
 */
export function planCommit(checked: CheckedCommit, readLayouts: boolean, layoutCached: (collectionId: string) => boolean): CommitPlan {
  const reads: Buffer[] = [];
  const slots = new Map<string, number>();
  const slot = (key: Buffer): Slot => {
    const text = key.toString('latin1');
    let at = slots.get(text);
    if (at === undefined) {
      at = reads.push(key) - 1;
      slots.set(text, at);
    }
    return at;
  };
  const collections = [...new Set(checked.writes.map((w) => w.collectionId))].map((collectionId) => ({
    collectionId,
    version: slot(layoutVersionKey(collectionId)),
    layout: readLayouts || !layoutCached(collectionId) ? slot(layoutKey(collectionId)) : -1,
  }));
  const writes = checked.writes.map((write, i) => {
    const id = write.kind === 'put' ? String(write.record.id) : write.id;
    return { write, id, record: slot(recordKey(write.collectionId, id)), text: checked.texts[i] };
  });
  const expectations = checked.expectations.map((expectation) => ({ expectation, record: slot(recordKey(expectation.collectionId, expectation.id)) }));
  const claim = checked.claim ? { claim: checked.claim, signature: slot(signatureKey(checked.claim.signature)) } : undefined;
  const stampExpectations = checked.stampExpectations.map((expectation) => ({ expectation, stamp: slot(collectionChangedKey(expectation.collectionId)) }));
  return { reads, collections, writes, expectations, stampExpectations, claim };
}

/** What the store needs from its caches while a commit's transaction runs. */
export interface CommitContext {
  /** The layout the commit writes under, from its version and (when read) its bytes (LayoutCache.committed). */
  layout(collectionId: string, version: Buffer | undefined, bytes: Buffer | undefined, read: boolean, versionPuts: KvOp[], timestamp: number): CollectionIndexes;
  /** The index entry keys (latin1) of the record stored as `value`, which replacing or deleting it removes. */
  oldEntries(collectionId: string, id: string, value: Buffer, indexes: CollectionIndexes): readonly string[];
}

/** What an executed plan did, for the caches once it has committed. */
export interface CommitOutcome {
  /** Each collection's layout as the commit used it, and the version it was read at (when its layout was read). */
  readonly layouts: readonly { readonly indexes: CollectionIndexes; readonly versionRead: Buffer | undefined }[];
  /** Per write: whether a stored record was replaced, and (for such a put) its new index entry keys. */
  readonly writes: readonly { readonly replaced: boolean; readonly entries: RecentEntries | undefined }[];
}

const NO_ENTRIES: readonly string[] = [];

/**
 * Executes the plan on the values its reads found (`current`, in the plan's order) at commit `timestamp`: checks
 * the claim, stamps and versions (throwing a SignatureReplayError or ConflictError, so that nothing is written),
 * then gives the writes: the records, their index entries, the deletion stamps, the collections' change stamps
 * and the change log.
 */
export function executeCommit(plan: CommitPlan, current: readonly (Buffer | undefined)[], timestamp: number, context: CommitContext): { ops: KvOp[]; outcome: CommitOutcome } {
  // The deletes go first, then the search index's writes, then the puts: no key is put and then deleted by one
  // commit (each record appears once, and its keys are its own), and the search index is a table of its own, so
  // the order changes nothing; kept apart, each group is a run that PostgreSQL writes with few statements
  // (interleaved with the puts, a commit of 2,000 searchable records sent 4,000 statements).
  const deletes: KvOp[] = [];
  const searches: KvOp[] = [];
  const puts: KvOp[] = [];
  const indexes = new Map<string, CollectionIndexes>();
  const layouts = plan.collections.map(({ collectionId, version: versionSlot, layout: layoutSlot }) => {
    const read = layoutSlot !== -1;
    const version = current[versionSlot];
    const layout = context.layout(collectionId, version, read ? current[layoutSlot] : undefined, read, puts, timestamp);
    indexes.set(collectionId, layout);
    return { indexes: layout, versionRead: read ? version : undefined };
  });
  // The claim is checked before the expectations: a replayed create finds its own record already there, and must
  // be reported as the replay it is, not as a taken id.
  if (plan.claim) {
    const { claim, signature } = plan.claim;
    const existing = current[signature];
    const now = claim.now ?? Date.now();
    if (existing && decodeU64(existing) > now) throw new SignatureReplayError();
    if (existing) deletes.push({ kind: 'delete', key: signatureExpiryKey(decodeU64(existing), claim.signature) });
    puts.push({ kind: 'put', key: signatureKey(claim.signature), value: encodeU64(claim.expiresAt) });
    puts.push({ kind: 'put', key: signatureExpiryKey(claim.expiresAt, claim.signature), value: Buffer.from(claim.signature) });
  }
  for (const { expectation: e, stamp: slot } of plan.stampExpectations) {
    const value = current[slot];
    const stamp = value ? decodeU64(value) : 0;
    if (stamp !== e.stamp) {
      throw new ConflictError(`collection "${e.collectionId}" changed since it was read (expected its stamp ${e.stamp}, found ${stamp})`, e.collectionId, '');
    }
  }
  for (const { expectation: e, record } of plan.expectations) {
    const value = current[record];
    const version = value ? decodeU64(value) : null;
    if (version !== e.version) {
      throw new ConflictError(
        `record "${e.id}" in collection "${e.collectionId}" changed since it was read (expected version ${e.version}, found ${version})`,
        e.collectionId,
        e.id,
      );
    }
  }

  const changes: Change[] = [];
  const stamp = encodeU64(timestamp);
  const writes = plan.writes.map(({ write, id, record: slot, text }) => {
    const collectionIndexes = indexes.get(write.collectionId)!;
    const oldValue = current[slot];
    const key = plan.reads[slot]!;
    const oldEntries = oldValue ? context.oldEntries(write.collectionId, id, oldValue, collectionIndexes) : NO_ENTRIES;
    if (write.kind === 'delete') {
      if (oldValue) {
        for (const entry of oldEntries) deletes.push({ kind: 'delete', key: Buffer.from(entry, 'latin1') });
        deletes.push({ kind: 'delete', key });
        const search = searchWrite(write.collectionId, collectionIndexes.layout, key, id, oldValue, undefined);
        if (search) searches.push(search);
        puts.push({ kind: 'put', key: recordDeletedKey(write.collectionId, id), value: stamp });
        changes.push({ collectionId: write.collectionId, id, kind: 'delete' });
      }
      return { replaced: oldValue !== undefined, entries: undefined };
    }
    const value = recordValue(stamp, text!);
    const newEntries = collectionIndexes.entriesOf(write.record);
    let entries: RecentEntries | undefined;
    if (oldValue) {
      const newKeys = newEntries.map((entry) => entry.toString('latin1'));
      entries = { layout: collectionIndexes, keys: newKeys };
      for (const entry of removedKeys(oldEntries, newKeys)) deletes.push({ kind: 'delete', key: Buffer.from(entry, 'latin1') });
    }
    // Every entry holds the record's current value, so all of them are written.
    for (const entry of newEntries) puts.push({ kind: 'put', key: entry, value });
    puts.push({ kind: 'put', key, value });
    const search = searchWrite(write.collectionId, collectionIndexes.layout, key, id, oldValue, write.record);
    if (search) searches.push(search);
    changes.push(oldValue ? { collectionId: write.collectionId, id, kind: 'put' } : { collectionId: write.collectionId, id, kind: 'put', created: true });
    return { replaced: oldValue !== undefined, entries };
  });
  if (changes.length > 0) {
    for (const c of new Set(changes.map((change) => change.collectionId))) puts.push({ kind: 'put', key: collectionChangedKey(c), value: stamp });
    for (const entry of changeLogEntries(timestamp, changes)) puts.push(entry);
  }
  return { ops: [...deletes, ...searches, ...puts], outcome: { layouts, writes } };
}

/**
 * The old keys that are not among the new ones. A record's keys come index by index in the layout's order, so an
 * entry that did not change is usually at the same place: checked there first, and a search of the new keys
 * (a Set only for records with many keys, from array fields) only for the others.
 */
function removedKeys(oldKeys: readonly string[], newKeys: readonly string[]): string[] {
  const removed: string[] = [];
  if (oldKeys.length === 0) return removed;
  const many = newKeys.length > 16 ? new Set(newKeys) : undefined;
  oldKeys.forEach((key, i) => {
    if (newKeys[i] === key) return;
    if (many ? !many.has(key) : !newKeys.includes(key)) removed.push(key);
  });
  return removed;
}
