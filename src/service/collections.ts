// The collections the service knows: the built-in `Collection` meta collection and every user collection,
// whose schema is a record of it. A schema is checked and compiled once per version of its code and kept in a
// cache. A request reads the meta collection's change stamp (one 8-byte point read), which every commit that
// changes a schema record writes, so a schema updated through another process sharing the database takes effect
// here on the next request; a list reads it with its clock and layout instead (`lastFound`, then the page's
// `stamp`, records.ts), and a get skips even that read when the store's clock, which it reads anyway and which
// every commit by any process advances, has not moved since the schema was last found current. Writes skip it
// too: a call or create first runs with the cached schema (`lastFound`) and its commit expects the stamp at which
// that schema was found current, so a changed schema fails the commit and the write runs again; a call's later
// attempts read the stamp in the same statement as their record (`cachedWithStamp`), and a create's expect the
// stamp `resolveWithStamp` read before the schema.
// The cache is bounded: a compiled schema holds far more heap than its code (an 840 KB schema keeps about 91 MB),
// so the least recently used entries are evicted once the cached schemas' code exceeds a budget of characters.

import {
  castDropping,
  compileCollection,
  migrateRecord,
  migrationOf,
  readableByEveryone,
  referencesToLoad,
  type CompiledCollection,
  type Migration,
  type ReferencedRecords,
} from '../runtime/index.ts';
import type { Collection } from '../lang/index.ts';
import { checkCollectionId, type JsonObject, type Layout, type RebuildProgress, type RecordStore } from '../store/index.ts';
import { ServiceError, notFound } from './errors.ts';
import { META_COLLECTION_ID, checkCollectionSchema, metaCollection, type CheckedCollection } from './meta-collection.ts';
import { MigrationStatus } from './migration-status.ts';
import { loadReferenced } from './read-in-form.ts';
import { latestVersion } from './schema-history.ts';

export interface UserCollection {
  kind: 'user';
  collectionId: string;
  node: Collection;
  compiled: CompiledCollection;
  checked: CheckedCollection;
  /** Whether anyone may read every record (`@public` or `@read`): lists then skip the read filter. */
  publicRead: boolean;
  /**
   * The switch: the timestamp of the commit that stored this schema's record. A record written before it may
   * still be in an earlier schema's form until the cast pass has reached it; one written since is in this form
   * (every write of the collection expects the meta collection's stamp, so it ran under this schema).
   */
  switchedAt: number;
  /**
   * Until when a read must cast what it reads: the timestamp after which every stored record is in this form
   * (the pass that casts them finished, here or in another process; 0 when none was due), Infinity while that is
   * not known. A read at an earlier timestamp passes each record through `conform` (see `inForm`).
   */
  castUntil: number;
  /**
   * A stored record as this schema has it, or null when it already has that form: cast, or migrated when the change
   * that installed this schema ran its migration (`@migrate`). The function the layout pass runs over every record,
   * and reads run over a record the pass has not reached yet.
   */
  conform: (record: JsonObject, referenced?: ReferencedRecords) => JsonObject | null;
  /**
   * Set when that migration loads the records its stored records reference (`(old: { owner: User; }, owner:
   * User)`): reads them, each in its collection's current form, for `conform` over these records (read-in-form.ts
   * `conformRead`).
   */
  loadReferenced?: (records: readonly JsonObject[]) => Promise<ReferencedRecords>;
}

export interface MetaCollection {
  kind: 'meta';
  collectionId: typeof META_COLLECTION_ID;
  node: Collection;
  publicRead: boolean;
}

export type ResolvedCollection = UserCollection | MetaCollection;

/** How many characters of schema code the registry keeps compiled (about 4 MiB). */
export const DEFAULT_SCHEMA_CACHE_CHARS = 4 * 1024 * 1024;

export interface CollectionRegistryOptions {
  /** The cache's budget: the total length of the cached schemas' code (default `DEFAULT_SCHEMA_CACHE_CHARS`). */
  cacheChars?: number;
}

interface CacheEntry {
  code: string;
  stamp: number;
  checkedAt: number | undefined;
  collection: UserCollection;
}

/** A user collection's schema code, and the collection compiled from it. */
interface Schema {
  compiled: CompiledCollection;
  code: string;
  /** The records' cast (or migration) to this schema (`schemaConform`). */
  conform: (record: JsonObject, referenced?: ReferencedRecords) => JsonObject | null;
  /** What the migration loads for a batch of records (UserCollection.loadReferenced). */
  loadReferenced?: (records: readonly JsonObject[]) => Promise<ReferencedRecords>;
  /** The commit of the schema record (UserCollection.switchedAt): only records written before it are cast. */
  switchedAt?: number;
  /** Told after each batch of the layout pass (index builds, the records' cast) this call runs. */
  onProgress?: (progress: RebuildProgress) => void;
}

let meta: MetaCollection | undefined;
const META = (): MetaCollection => (meta ??= { kind: 'meta', collectionId: META_COLLECTION_ID, node: metaCollection().node, publicRead: true });

export class CollectionRegistry {
  readonly #store: RecordStore;
  /**
   * `stamp`: the meta collection's change stamp when the entry was last found current; `checkedAt`: the store's
   * clock read before that stamp was last found unchanged (see `cachedAt`). In order of use, least recent first.
   */
  readonly #cache = new Map<string, CacheEntry>();
  /** The entry last in `#cache`'s order, when known (`#touch`). */
  #newest: CacheEntry | undefined;
  readonly #cacheBudget: number;
  #cachedChars = 0;
  /**
   * The layout pass (index builds, record casts) running in this process for each collection, by its layout:
   * `stored` settles once the layout is stored, `done` with the pass's `finishedAt` (DefineResult).
   */
  readonly #ensuring = new Map<string, { layout: string; stored: Promise<void>; done: Promise<number> }>();
  /** The layout passes that change stored records (a schema change's cast) running in this process. */
  readonly migrations = new MigrationStatus();

  constructor(store: RecordStore, options: CollectionRegistryOptions = {}) {
    this.#store = store;
    this.#cacheBudget = options.cacheChars ?? DEFAULT_SCHEMA_CACHE_CHARS;
  }

  /** The total length of the cached schemas' code. */
  get cachedChars(): number {
    return this.#cachedChars;
  }

  /** Defines the meta collection's layout in the store (idempotent; several processes may do it). */
  async initialise(): Promise<void> {
    await this.#ensureLayout(META_COLLECTION_ID, metaCollection().layout).done;
  }

  /**
   * The cached collection, without any read, when nothing at all was committed since it was last found current:
   * `clock` is the store's clock as just read (every commit, by any process, advances it). Otherwise undefined.
   */
  cachedAt(collectionId: string, clock: number): ResolvedCollection | undefined {
    if (collectionId === META_COLLECTION_ID) return META();
    const cached = this.#cache.get(collectionId);
    if (cached === undefined || cached.checkedAt !== clock) return undefined;
    this.#touch(collectionId, cached);
    return cached.collection;
  }

  /**
   * The cached collection, without any read, when the meta collection's change stamp is still the one it was last
   * found current at: `stamp` was read by the caller (with the record a write changes, `RecordStore.getWithStamp`),
   * and `clock` with it. Otherwise undefined (the caller then resolves it).
   */
  cachedWithStamp(collectionId: string, stamp: number, clock: number): ResolvedCollection | undefined {
    if (collectionId === META_COLLECTION_ID) return META();
    const cached = this.#cache.get(collectionId);
    if (cached === undefined || cached.stamp !== stamp) return undefined;
    cached.checkedAt = clock;
    this.#touch(collectionId, cached);
    return cached.collection;
  }

  /**
   * The cached collection and the meta collection's change stamp at which it was last found current, without
   * any read (it may be out of date: a write using it expects that stamp in its commit); undefined when not cached.
   */
  lastFound(collectionId: string): { collection: UserCollection; stamp: number } | undefined {
    const cached = this.#cache.get(collectionId);
    return cached && { collection: cached.collection, stamp: cached.stamp };
  }

  /**
   * The collection, or 404 `collection/not-found` (400 `collection/invalid-id` for an id too long for the store).
   * `clock`, when given, is the store's clock read just before.
   */
  async resolve(collectionId: string, clock?: number): Promise<ResolvedCollection> {
    if (collectionId === META_COLLECTION_ID) return META();
    return (await this.resolveWithStamp(collectionId, clock)).collection;
  }

  /**
   * `resolve`, with the meta collection's change stamp read before the schema (so no later than the schema's own
   * change): a write whose commit expects that stamp is committed only while the schema it ran with is current.
   */
  async resolveWithStamp(collectionId: string, clock?: number): Promise<{ collection: ResolvedCollection; stamp: number }> {
    if (collectionId === META_COLLECTION_ID) return { collection: META(), stamp: await this.#store.changes.lastChange({ collectionId: META_COLLECTION_ID }) };
    // Checked first: an id the store refuses (too long) would otherwise be looked up as a record id of the meta
    // collection, whose own limit is larger, and reported as not found or as an invalid record id.
    checkCollectionId(collectionId);
    const cached = this.#cache.get(collectionId);
    // While the stamp is unchanged, no schema record changed, and the schema record itself (its code and AST are
    // the largest value in the store) need not be read. The stamp is read first: a schema committed between the
    // two reads leaves an older stamp in the cache, so the next request looks again.
    const stamp = await this.#store.changes.lastChange({ collectionId: META_COLLECTION_ID });
    if (cached && cached.stamp === stamp) {
      // Found current at `clock` only when no schema changed after it (the stamp read now is not newer): a read
      // at that clock must get the schema of that time (inForm).
      cached.checkedAt = clock !== undefined && stamp <= clock ? clock : undefined;
      this.#touch(collectionId, cached);
      return { collection: cached.collection, stamp };
    }
    const { record, version } = await this.#store.get(META_COLLECTION_ID, collectionId);
    const code = record?.code;
    if (typeof code !== 'string' || version === null) throw notFound('collection/not-found', `collection "${collectionId}" not found`);
    const collection = cached && cached.code === code ? cached.collection : await this.#load(collectionId, code, version);
    this.#remember(collectionId, { code, stamp, checkedAt: clock !== undefined && stamp <= clock ? clock : undefined, collection });
    return { collection, stamp };
  }

  /** The collection, or null when it does not exist (for the permission walk over references). */
  async find(collectionId: string): Promise<ResolvedCollection | null> {
    try {
      return await this.resolve(collectionId);
    } catch {
      return null;
    }
  }

  /** Makes a just-written schema usable: its layout is stored and its indexes built. */
  async install(checked: CheckedCollection, onProgress?: (progress: RebuildProgress) => void): Promise<void> {
    const compiled = compileChecked(checked);
    // The switch is the schema record's commit: records written since are in the new form and are not cast again.
    const { record, version } = await this.#store.get(META_COLLECTION_ID, checked.collectionId);
    const switchedAt = record?.code === checked.code && version !== null ? { switchedAt: version } : {};
    const running = await this.#runningMigration(checked.collectionId, { compiled, code: checked.code });
    const forms = this.#forms(compiled, running);
    await this.#ensureLayout(checked.collectionId, checked.layout, { compiled, code: checked.code, ...forms, ...switchedAt, ...(onProgress ? { onProgress } : {}) }).done;
    this.#forget(checked.collectionId);
  }

  /**
   * Marks the entry as the most recently used (a Map iterates in insertion order). Already the last one (a run of
   * requests to one collection, the common case), it stays: a Map's delete and set leave a hole that a rehash
   * (an allocation) later clears, on every get.
   */
  #touch(collectionId: string, entry: CacheEntry): void {
    if (entry === this.#newest) return;
    this.#cache.delete(collectionId);
    this.#cache.set(collectionId, entry);
    this.#newest = entry;
  }

  /** Caches the entry, then evicts the least recently used others while over budget (the new one always stays). */
  #remember(collectionId: string, entry: CacheEntry): void {
    this.#forget(collectionId);
    this.#cache.set(collectionId, entry);
    this.#newest = entry;
    this.#cachedChars += entry.code.length;
    for (const [oldest] of this.#cache) {
      if (this.#cachedChars <= this.#cacheBudget || oldest === collectionId) break;
      this.#forget(oldest);
    }
  }

  #forget(collectionId: string): void {
    const entry = this.#cache.get(collectionId);
    if (entry === undefined) return;
    this.#cache.delete(collectionId);
    if (entry === this.#newest) this.#newest = undefined;
    this.#cachedChars -= entry.code.length;
  }

  async #load(collectionId: string, code: string, switchedAt: number): Promise<UserCollection> {
    const checked = checkCollectionSchema(collectionId, code);
    const compiled = compileChecked(checked);
    const forms = this.#forms(compiled, await this.#runningMigration(collectionId, { compiled, code }));
    const publicRead = readableByEveryone(checked.node);
    const collection: UserCollection = { kind: 'user', collectionId, node: checked.node, compiled, checked, publicRead, switchedAt, castUntil: Infinity, ...forms };
    // The layout is stored before the schema is used (queries plan on it); the cast pass and index builds go on
    // meanwhile: reads cast what the pass has not reached yet (inForm), and every server that loads the schema
    // runs (or joins) the pass, so each learns when it is over. A crash between writing the schema record and
    // building its indexes (or casting its records) is repaired here.
    const pass = this.#ensureLayout(collectionId, checked.layout, { compiled, code, ...forms, switchedAt });
    pass.done.then(
      (finishedAt) => {
        collection.castUntil = finishedAt;
      },
      () => {
        // A failed pass: the next request loads the schema again, and so runs the pass again.
        if (this.#cache.get(collectionId)?.collection === collection) this.#forget(collectionId);
      },
    );
    await pass.stored;
    return collection;
  }

  /**
   * Stores the layout, builds new indexes and casts the records to the schema when its fields changed (each
   * record as `castStoredRecord` makes it; see records.ts for the check that refuses an update some record
   * cannot follow), or finishes what an interrupted update left.
   */
  /**
   * Starts the layout pass, or joins the one running here for the same layout: every request that finds the new
   * schema while its records are still being cast or indexed shares it instead of starting its own over the whole
   * collection. `done` settles with the timestamp from which every record is in the layout's form (0: none was
   * due; Infinity: superseded by a later schema).
   */
  #ensureLayout(collectionId: string, layout: Layout, schema?: Schema): { stored: Promise<void>; done: Promise<number> } {
    const wanted = JSON.stringify(layout);
    const running = this.#ensuring.get(collectionId);
    if (running?.layout === wanted) return running;
    let stored!: () => void;
    const storedPromise = new Promise<void>((resolve) => (stored = resolve));
    const done = this.#defineLayout(collectionId, layout, stored, schema);
    const entry = { layout: wanted, stored: Promise.race([storedPromise, done.then(() => undefined)]), done };
    entry.stored.catch(() => {
      // Reported through `done` (and to whoever awaits `stored`).
    });
    this.#ensuring.set(collectionId, entry);
    const leave = () => {
      if (this.#ensuring.get(collectionId) === entry) this.#ensuring.delete(collectionId);
    };
    done.then(leave, leave);
    return entry;
  }

  async #defineLayout(collectionId: string, layout: Layout, onStored: () => void, schema?: Schema): Promise<number> {
    const current = await this.#store.getLayout(collectionId);
    if (current && JSON.stringify(current) === JSON.stringify(layout)) {
      if ((await this.#store.buildingIndexes(collectionId)).length === 0 && !(await this.#store.conforming(collectionId))) return 0;
    }
    if (!schema) return (await this.#store.defineCollection(collectionId, layout, { onStored })).finishedAt;
    // A pass that rewrites stored records (fields changed, or an interrupted cast) is reported as a migration
    // (MigrationStatus), and its switch (until the layout is stored, which requests wait for) as not ready.
    const castsRecords = current !== null && (JSON.stringify(current.fields) !== JSON.stringify(layout.fields) || (await this.#store.conforming(collectionId)));
    if (!castsRecords) return this.#defineWithSchema(collectionId, layout, schema, onStored);
    let switched!: () => void;
    const stored = new Promise<void>((resolve) => (switched = resolve));
    const report = schema.onProgress;
    const reporting: Schema = {
      ...schema,
      onProgress: (progress) => {
        this.migrations.report(collectionId, progress.done, progress.total);
        report?.(progress);
      },
    };
    const pass = this.#defineWithSchema(collectionId, layout, reporting, () => {
      switched();
      onStored();
    });
    return this.migrations.track(collectionId, pass, stored);
  }

  /**
   * The migration this schema's pass runs: the schema's `@migrate` function when the history's latest version is
   * this code and its plan says the migration runs with it (schema-plan.ts: not when the previous schema declared
   * the same one). A pass resumed after a crash finds the same answer, so it goes on migrating the records left;
   * reads during the pass pass records through the same function (`inForm`).
   */
  async #runningMigration(collectionId: string, schema: { compiled: CompiledCollection; code: string }): Promise<Migration | undefined> {
    const migration = migrationOf(schema.compiled);
    if (!migration) return undefined;
    const latest = await latestVersion(this.#store, collectionId);
    return latest?.code === schema.code && latest.plan.migration?.runs === true ? migration : undefined;
  }

  /**
   * The schema's `conform` (its migration's when its change ran one, the cast otherwise), and, when that migration
   * loads referenced records, how it reads them: through `readInForm`, as a call's record arguments are read.
   */
  #forms(compiled: CompiledCollection, migration: Migration | undefined): Pick<UserCollection, 'conform' | 'loadReferenced'> {
    const conform = schemaConform(compiled, migration);
    if (!migration || migration.loads.length === 0) return { conform };
    const loading = migration;
    return {
      conform,
      loadReferenced: (records) => loadReferenced(this, this.#store, records.flatMap((record) => referencesToLoad(compiled, loading, record))),
    };
  }

  async #defineWithSchema(collectionId: string, layout: Layout, schema: Schema, onStored: () => void): Promise<number> {
    const { code } = schema;
    // Stored only while the schema record still holds this code: a request that read a schema just before an
    // update replaced it (or an update whose install ran late) would otherwise put the older layout back and cast
    // every record to the older schema, dropping the newer fields' values. The newer schema's install, or the
    // next request that loads it, stores its own layout. Every batch of the cast is fenced the same way.
    const result = await this.#store.defineCollection(collectionId, layout, {
      ...(schema.onProgress ? { onProgress: schema.onProgress } : {}),
      ...(schema.switchedAt !== undefined ? { conformBefore: schema.switchedAt } : {}),
      conform: schema.conform,
      // A batch's referenced records are read before its transaction; one that does not exist fails the batch's
      // `conform` (naming the record and the field), which stops the pass before the batch is written.
      ...(schema.loadReferenced ? { conformBatch: forBatch(schema.conform, schema.loadReferenced) } : {}),
      onStored,
      onlyIf: { collectionId: META_COLLECTION_ID, id: collectionId, holds: (record) => record?.code === code },
    });
    // Superseded: a later schema is current, and this one is cast to no longer (its reads keep casting).
    return result.superseded ? Infinity : result.finishedAt;
  }
}

export function compileChecked(checked: CheckedCollection): CompiledCollection {
  return compileCollection(checked.checked, checked.name, { collectionId: checked.collectionId, source: checked.source });
}

/** The layout pass's `conform` for the schema: its migration's when its change ran one, the cast otherwise. */
export function schemaConform(compiled: CompiledCollection, migration: Migration | undefined): UserCollection['conform'] {
  return migration ? (record, referenced) => migrated(compiled, migration, record, referenced) : (record) => conformed(compiled, record);
}

/** The layout pass's `conformBatch`: the batch's referenced records read first, then `conform` with them. */
function forBatch(conform: UserCollection['conform'], load: NonNullable<UserCollection['loadReferenced']>) {
  return async (records: readonly JsonObject[]) => {
    const referenced = await load(records);
    return (record: JsonObject) => conform(record, referenced);
  };
}

/**
 * The record cast to the schema, or null when it already conforms. A value that cannot be cast is dropped (a
 * required field then takes its type's default): the update's plan counted every such value against the stored
 * records and was refused unless the request accepted losing it, and its commit expected the collection's stamp
 * as the plan read it, so no record the plan did not see reaches this pass in the old form. One that cannot follow
 * at all (a new required field without a default) is left as it is; the plan refused such an update.
 */
function conformed(compiled: CompiledCollection, record: JsonObject): JsonObject | null {
  const cast = castDropping(compiled, record);
  return cast.ok && cast.changed ? (cast.record as JsonObject) : null;
}

/**
 * The record migrated to the schema (migrate-record.ts), or null when it already has the schema's form (migrated
 * before a crash, or written under the new schema since). The update's plan ran the migration over every stored
 * record and was refused if it failed over any; one that fails here all the same (only a record the plan never
 * saw could) stops the pass, which stays marked in the layout: the collection keeps its other records as they
 * are, and the next process to load it runs the pass again from the start, skipping the records already migrated.
 */
function migrated(compiled: CompiledCollection, migration: Migration, record: JsonObject, referenced?: ReferencedRecords): JsonObject | null {
  const outcome = migrateRecord(compiled, migration, record, undefined, referenced);
  if (outcome.kind === 'fits') return null;
  if (outcome.kind === 'failed') {
    // 503 to a read of the record (it has no form of the current schema to answer in until the cause is fixed).
    throw new ServiceError('unavailable', 'collection/migrating', `migration "${migration.name}" of ${compiled.collectionId} failed on record ${JSON.stringify(record.id)}: ${outcome.message}`);
  }
  return outcome.record as JsonObject;
}
