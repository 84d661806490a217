// The store's defining part: a collection's layout stored, its indexes built or dropped, its records cast to a
// changed schema in batches (resumable), the collection deleted, and its records read batch by batch.

import { decodeU64, encodeU64, keySuccessor } from './encoding.ts';
import { changeLogEntries, type Change } from './changes.ts';
import { collectionNotFound, ConflictError } from './errors.ts';
import { CollectionIndexes, type JsonObject, type StoredLayout } from './index-entries.ts';
import {
  collectionChangedKey,
  collectionIndexesPrefix,
  indexPrefix,
  layoutKey,
  layoutVersionKey,
  prefixRange,
  recordDeletedPrefix,
  recordKey,
  recordPrefix,
} from './keys.ts';
import type { KvOp, KvStore } from './kv.ts';
import type { Layout } from './layout.ts';
import type { LayoutCache } from './layout-cache.ts';
import { byteBudget, parseRecord, parseStoredLayout, recordValue, RECORD_JSON_START } from './record-value.ts';
import { checkCollectionId } from './validation.ts';
import { searchIndexOf, searchWrite } from './search-entries.ts';

export interface RebuildProgress {
  readonly collectionId: string;
  /** The ids of the indexes being built. */
  readonly indexes: readonly string[];
  readonly done: number;
  readonly total: number;
}

export interface DefineOptions {
  readonly onProgress?: (progress: RebuildProgress) => void;
  /** Records per rebuild transaction (default 500). */
  readonly batchSize?: number;
  /**
   * Record bytes per rebuild transaction (default BUILD_BATCH_BYTES): a batch ends at the record that reaches
   * them, so a collection of large records is not read 500 at a time. A batch holds at least one record.
   */
  readonly batchBytes?: number;
  /**
   * The record as the collection's new schema has it (null: it already conforms, or cannot be made to). When
   * given and the layout's fields changed, every record is passed through it in the same batches as an index
   * build, and each one it changes is rewritten like a commit (new version, index entries, change-log entry),
   * so long-polls see it. The pass is marked in the stored layout and resumes if interrupted.
   */
  readonly conform?: (record: JsonObject) => JsonObject | null;
  /**
   * With `conform`: the `conform` of one batch, made from the batch's records as scanned before its transaction
   * (the service's migration reads the records they reference here: a transaction reads nothing it did not name).
   * Throwing stops the pass as `conform` throwing does, before the batch is written.
   */
  readonly conformBatch?: (records: readonly JsonObject[]) => Promise<(record: JsonObject) => JsonObject | null>;
  /**
   * With `conform`: only records whose version is older than this timestamp are passed through it (the service
   * gives the commit of the schema record that the records are cast to: a record written since is already in its
   * form). Without it, every record is, so `conform` must then return null for a record already in the new form.
   */
  readonly conformBefore?: number;
  /** Called once the layout is stored (or found stored), before any index is built or record cast. */
  readonly onStored?: () => void;
  /**
   * A record that must still hold what the caller expects when the layout is stored (read in the same
   * transaction): the service's schema record, so that a layout made from a schema that a later update has
   * already replaced is never stored over the later one's. When it does not hold, nothing is written or built.
   */
  readonly onlyIf?: { readonly collectionId: string; readonly id: string; readonly holds: (record: JsonObject | null) => boolean };
}

/** The default `batchBytes` of an index build: 16 MiB of record JSON. */
export const BUILD_BATCH_BYTES = 16 * 1024 * 1024;

export interface DefineResult {
  /** Ids of the indexes added (built for the existing records). */
  readonly added: readonly string[];
  /** Ids of the indexes removed (their entries deleted). */
  readonly removed: readonly string[];
  /** How many records were indexed by the rebuild. */
  readonly rebuilt: number;
  /** True when `onlyIf` did not hold: nothing was stored (or, after it was, the build stopped). */
  readonly superseded?: true;
  /**
   * The timestamp of the transaction after which every index is built and every record cast (or that found
   * them so): a read at a later timestamp sees only records in the layout's form. 0 when superseded.
   */
  readonly finishedAt: number;
}

export class CollectionDefiner {
  readonly kv: KvStore;
  readonly #layouts: LayoutCache;

  constructor(kv: KvStore, layouts: LayoutCache) {
    this.kv = kv;
    this.#layouts = layouts;
  }

  /**
   * Stores the collection's layout. New or changed indexes are built for the existing records (in batches, with
   * progress reports) while writes go on: every commit already maintains them, and queries use them once they
   * are complete. Removed indexes are deleted. Running it again with the same layout does nothing, and after an
   * interruption it resumes the unfinished builds.
   */
  async defineCollection(collectionId: string, layout: Layout, options: DefineOptions = {}): Promise<DefineResult> {
    checkCollectionId(collectionId);
    const key = layoutKey(collectionId);
    const versionKey = layoutVersionKey(collectionId);
    const onlyIf = options.onlyIf;
    const keys = onlyIf ? [key, versionKey, recordKey(onlyIf.collectionId, onlyIf.id)] : [key, versionKey];
    const { result, timestamp } = await this.kv.transact(keys, ([current, version, required], timestamp) => {
      if (onlyIf && !onlyIf.holds(required ? parseRecord(required) : null)) return { ops: [], result: undefined };
      const old = current ? parseStoredLayout(current) : undefined;
      // A search index (`@search`) is built, resumed and dropped as an index is, under its own id.
      const oldIds = new Set([...(old?.layout.indexes.filter((i) => !i.primary).map((i) => i.id) ?? []), ...(old?.layout.search ? [old.layout.search.id] : [])]);
      const newIds = new Set([...layout.indexes.filter((i) => !i.primary).map((i) => i.id), ...(layout.search ? [layout.search.id] : [])]);
      const added = [...newIds].filter((id) => !oldIds.has(id));
      const removed = [...oldIds].filter((id) => !newIds.has(id));
      const building = [...new Set([...added, ...(old?.building ?? []).filter((id) => newIds.has(id))])];
      const fieldsChanged = old !== undefined && JSON.stringify(old.layout.fields) !== JSON.stringify(layout.fields);
      const conforming = old?.conforming === true || (options.conform !== undefined && fieldsChanged);
      const stored: StoredLayout = conforming ? { layout, building, conforming } : { layout, building };
      const bytes = Buffer.from(JSON.stringify(stored));
      const ops: KvOp[] = current?.equals(bytes) ? [] : [{ kind: 'put', key, value: bytes }];
      // A data folder written before layout versions gets its version here (see #committedLayout).
      if (ops.length > 0 || !version) ops.push({ kind: 'put', key: versionKey, value: encodeU64(timestamp) });
      for (const id of removed) {
        if (id === old?.layout.search?.id) ops.push({ kind: 'searchDrop', index: searchIndexOf(collectionId, old.layout)! });
        else ops.push({ kind: 'deleteRange', range: prefixRange(indexPrefix(collectionId, id)) });
      }
      if (layout.search && added.includes(layout.search.id)) ops.push({ kind: 'searchCreate', index: searchIndexOf(collectionId, layout)! });
      return { ops, result: { added, removed, building, conforming, bytes } };
    });
    if (!result) return { added: [], removed: [], rebuilt: 0, superseded: true, finishedAt: 0 };
    options.onStored?.();
    if (result.building.length === 0 && !(result.conforming && options.conform)) return { added: result.added, removed: result.removed, rebuilt: 0, finishedAt: timestamp };
    const built = await this.#build(collectionId, result.bytes, result.building, options);
    if (built.finishedAt === 0) return { added: result.added, removed: result.removed, rebuilt: built.done, superseded: true, finishedAt: 0 };
    return { added: result.added, removed: result.removed, rebuilt: built.done, finishedAt: built.finishedAt };
  }

  /**
   * Builds the indexes and casts the records; `finishedAt` is the timestamp of the transaction that stored the
   * finished layout or found it finished, or 0 when `onlyIf` stopped holding (a later schema's install takes over).
   */
  async #build(collectionId: string, layoutBytes: Buffer, building: readonly string[], options: DefineOptions): Promise<{ done: number; finishedAt: number }> {
    const key = layoutKey(collectionId);
    const stored = parseStoredLayout(layoutBytes);
    const indexes = new CollectionIndexes(collectionId, stored);
    const only = new Set(building);
    const buildSearch = stored.layout.search !== undefined && only.has(stored.layout.search.id);
    const batchSize = Math.max(1, Math.floor(options.batchSize ?? 500));
    const batchBytes = byteBudget(options.batchBytes ?? BUILD_BATCH_BYTES);
    // Records are cast when the layout says a cast is due and the caller says how; otherwise the mark stays.
    const passConform = stored.conforming ? options.conform : undefined;
    const left: StoredLayout = stored.conforming && !passConform ? { layout: stored.layout, building: [], conforming: true } : { layout: stored.layout, building: [] };
    const ready = Buffer.from(JSON.stringify(left));
    // Another process may run the same build at the same time: its finished layout is as good as ours.
    // Every batch is also fenced by `onlyIf`: once a later schema is committed, a pass casting records to this one
    // would write them in a form no longer current (even before the later one stores its layout).
    const onlyIf = options.onlyIf;
    const fence = onlyIf ? [recordKey(onlyIf.collectionId, onlyIf.id)] : [];
    const check = (current: Buffer | undefined, required: Buffer | undefined): 'building' | 'ready' | 'superseded' => {
      if (onlyIf && !onlyIf.holds(required ? parseRecord(required) : null)) return 'superseded';
      if (current?.equals(layoutBytes)) return 'building';
      if (current?.equals(ready)) return 'ready';
      throw layoutChanged(collectionId);
    };
    const records = prefixRange(recordPrefix(collectionId));
    const total = await this.kv.count(records);
    let done = 0;
    options.onProgress?.({ collectionId, indexes: building, done, total });
    let from = records.gte;
    for (;;) {
      // The next records' texts, up to the batch's count and bytes; a record's key follows from its id.
      const texts = await this.kv.scanText({ gte: from, lt: records.lt }, { limit: batchSize, maxBytes: batchBytes }, RECORD_JSON_START);
      if (texts.length === 0) break;
      const scanned = texts.map((text) => JSON.parse(text) as JsonObject);
      const keys = scanned.map((record) => recordKey(collectionId, String(record.id)));
      const conform = passConform && options.conformBatch ? await options.conformBatch(scanned) : passConform;
      // Re-read the records inside the transaction: one changed since the scan is indexed as it is now.
      const { result: state, timestamp: at } = await this.kv.transact([key, ...fence, ...keys], (read, timestamp) => {
        const [current, required] = read;
        const values = read.slice(1 + fence.length);
        const state = check(current, required);
        if (state !== 'building') return { ops: [], result: state };
        // The search index's writes in a run of their own, as a commit's (commit-plan.ts).
        const deletes: KvOp[] = [];
        const searches: KvOp[] = [];
        const puts: KvOp[] = [];
        const changes: Change[] = [];
        values.forEach((value, i) => {
          if (!value) return;
          const record = parseRecord(value);
          const cast = conform && (options.conformBefore === undefined || decodeU64(value) < options.conformBefore) ? conform(record) : null;
          if (!cast) {
            for (const entry of indexes.entriesOf(record, only)) puts.push({ kind: 'put', key: entry, value });
            if (buildSearch) searches.push(searchWrite(collectionId, stored.layout, keys[i]!, String(record.id), undefined, record)!);
            return;
          }
          // Rewritten as a commit rewrites a record: a new version, every entry holding the new value.
          const castValue = recordValue(encodeU64(timestamp), JSON.stringify(cast));
          const newEntries = indexes.entriesOf(cast);
          const newSet = new Set(newEntries.map((k) => k.toString('latin1')));
          for (const entry of indexes.entriesOf(record)) if (!newSet.has(entry.toString('latin1'))) deletes.push({ kind: 'delete', key: entry });
          for (const entry of newEntries) puts.push({ kind: 'put', key: entry, value: castValue });
          puts.push({ kind: 'put', key: keys[i]!, value: castValue });
          const search = searchWrite(collectionId, stored.layout, keys[i]!, String(cast.id), buildSearch ? undefined : record, cast);
          if (search) searches.push(search);
          changes.push({ collectionId, id: String(cast.id), kind: 'put' });
        });
        if (changes.length > 0) {
          puts.push({ kind: 'put', key: collectionChangedKey(collectionId), value: encodeU64(timestamp) });
          puts.push(...changeLogEntries(timestamp, changes));
        }
        return { ops: [...deletes, ...searches, ...puts], result: 'building' as const };
      });
      if (state === 'ready') return { done, finishedAt: at };
      if (state === 'superseded') return { done, finishedAt: 0 };
      done += texts.length;
      // Records created during the build can make `done` pass the count taken at the start.
      options.onProgress?.({ collectionId, indexes: building, done, total: Math.max(done, total) });
      from = keySuccessor(keys.at(-1)!);
    }
    const { result: state, timestamp: finishedAt } = await this.kv.transact([key, ...fence], ([current, required], timestamp) => {
      const state = check(current, required);
      return { ops: state === 'building' ? [{ kind: 'put', key, value: ready }, { kind: 'put', key: layoutVersionKey(collectionId), value: encodeU64(timestamp) }] : [], result: state };
    });
    return { done, finishedAt: state === 'superseded' ? 0 : finishedAt };
  }

  /** Deletes the collection: its layout, records, index entries and deletion stamps. */
  async deleteCollection(collectionId: string): Promise<void> {
    checkCollectionId(collectionId);
    await this.kv.transact([layoutKey(collectionId)], ([current], timestamp) => {
      if (!current) throw collectionNotFound(collectionId);
      const drop: Change[] = [{ collectionId, id: '', kind: 'drop' }];
      const search = searchIndexOf(collectionId, parseStoredLayout(current).layout);
      const ops: KvOp[] = [
        { kind: 'delete', key: layoutKey(collectionId) },
        { kind: 'delete', key: layoutVersionKey(collectionId) },
        { kind: 'deleteRange', range: prefixRange(recordPrefix(collectionId)) },
        { kind: 'deleteRange', range: prefixRange(collectionIndexesPrefix(collectionId)) },
        { kind: 'deleteRange', range: prefixRange(recordDeletedPrefix(collectionId)) },
        { kind: 'put', key: collectionChangedKey(collectionId), value: encodeU64(timestamp) },
        ...changeLogEntries(timestamp, drop),
        ...(search ? [{ kind: 'searchDrop' as const, index: search }] : []),
      ];
      return { ops, result: undefined };
    });
    this.#layouts.forget(collectionId);
  }

  /** The collection's layout, or null when it is not defined. */
  async getLayout(collectionId: string): Promise<Layout | null> {
    const bytes = await this.kv.get(layoutKey(collectionId));
    return bytes ? this.#layouts.indexes(collectionId, bytes).layout : null;
  }

  /** Ids of the collection's indexes that are still being built (empty when all are usable). */
  async buildingIndexes(collectionId: string): Promise<readonly string[]> {
    const bytes = await this.kv.get(layoutKey(collectionId));
    if (!bytes) throw collectionNotFound(collectionId);
    return [...this.#layouts.indexes(collectionId, bytes).building];
  }

  /** Whether the collection's records are still being cast to a changed schema (see `DefineOptions.conform`). */
  async conforming(collectionId: string): Promise<boolean> {
    const bytes = await this.kv.get(layoutKey(collectionId));
    if (!bytes) throw collectionNotFound(collectionId);
    return parseStoredLayout(bytes).conforming === true;
  }

  /**
   * Calls `visit` with the collection's records in key order, in batches of at most `batchSize` records or about
   * `batchBytes` of record JSON (as an index build reads them), so a large collection is never in memory at once.
   * Each batch is read on its own: records written meanwhile may or may not be seen.
   */
  async forEachRecordBatch(collectionId: string, visit: (records: JsonObject[]) => void | Promise<void>, options: Pick<DefineOptions, 'batchSize' | 'batchBytes'> = {}): Promise<void> {
    checkCollectionId(collectionId);
    const batchSize = Math.max(1, Math.floor(options.batchSize ?? 500));
    const batchBytes = byteBudget(options.batchBytes ?? BUILD_BATCH_BYTES);
    const records = prefixRange(recordPrefix(collectionId));
    let from = records.gte;
    for (;;) {
      const texts = await this.kv.scanText({ gte: from, lt: records.lt }, { limit: batchSize, maxBytes: batchBytes }, RECORD_JSON_START);
      if (texts.length === 0) return;
      const batch = texts.map((text) => JSON.parse(text) as JsonObject);
      await visit(batch);
      from = keySuccessor(recordKey(collectionId, String(batch.at(-1)!.id)));
    }
  }

}

function layoutChanged(collectionId: string): ConflictError {
  return new ConflictError(`the layout of collection "${collectionId}" changed while its indexes were being built`, collectionId, '');
}
