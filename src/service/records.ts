// The four record operations, independent of HTTP: get, list, create (the constructor) and call. Writes are
// optimistic: the function runs over the record as read, and the commit checks that every record it read (the
// record itself, its record arguments, the records its permission check walked through, each found missing
// included: read-set.ts) and the schema it ran (the meta collection's stamp) are still as it saw them; when one
// changed meanwhile, the whole operation runs again over the new state after a random pause. So concurrent writes
// serialise exactly as if they had run one after the other. Calls on one record from this process also wait for each other (record-queue.ts), so conflicts come
// only from other processes, and running out of attempts means overload, not contention.

import type { PublicKey } from '../auth/index.ts';
import { fieldsOf } from '../lang/index.ts';
import type { WriteMetrics } from './metrics.ts';
import { Readiness } from './readiness.ts';
import {
  DEFAULT_LIMITS,
  callableByEveryone,
  canCall,
  canRead,
  execute,
  isMigration,
  type ExecuteResult,
  recordArguments,
  type ExecutionLimits,
  type WireRecord,
} from '../runtime/index.ts';
import { ConflictError, isStoreError, type AggregateRequest, type AggregateResult, type CountOptions, type CountResult, type RebuildProgress, type Expectation, type JsonObject, type ListQuery, type RawListResult, type RecordStore, type StampExpectation, type Write } from '../store/index.ts';
import { checkPlan, planSchemaChange, type MigrationReferences, type SchemaPlan } from './schema-plan.ts';
import { defineHistory, latestVersion, nextVersionWrite, schemaHistory, type SchemaVersion } from './schema-history.ts';
import { CollectionRegistry, compileChecked, type ResolvedCollection, type UserCollection } from './collections.ts';
import type { MigrationProgress } from './migration-status.ts';
import { confinementOf, type Confinement } from './confinement.ts';
import { resumeQuery, withQuery } from './cursor.ts';
import { ServiceError, fromRuntimeError, invalidArgument, notFound, unauthorized } from './errors.ts';
import { MAX_REQUEST_DELEGATE_LOADS, RequestLoader, type OverBudget } from './permission-loader.ts';
import { ReadSet } from './read-set.ts';
import { MAX_SCHEMA_RACES, castRead, inForm, isUnknownCollection, loadReferenced, readInForm, textInForm, type FormRead } from './read-in-form.ts';
import {
  META_COLLECTION_ID,
  metaCollection,
  checkCollectionSchema,
  constructorArgs,
  type CheckedCollection,
  newCollectionRecord,
  splitCollectionId,
  updateCodeArgs,
  updatedCollectionRecord,
} from './meta-collection.ts';
import { RecordQueue } from './record-queue.ts';
import { SchemaAccess, type SchemaAccessOptions } from './schema-access.ts';
import type { Caller } from './signature.ts';

export interface RecordServiceOptions {
  limits?: Partial<ExecutionLimits>;
  /** How many times a write is run again after a concurrent change to what it read (default 100). */
  maxAttempts?: number;
  /** The schema cache's budget in characters of schema code (default `DEFAULT_SCHEMA_CACHE_CHARS`, 4 MiB). */
  schemaCacheChars?: number;
  /** How many records one request's permission checks may load (default `MAX_REQUEST_DELEGATE_LOADS`, 10,000). */
  delegateLoadsPerRequest?: number;
  /**
   * Lists (and counts, and list streams) of a collection not readable by everyone: 'confined' (the default)
   * refuses one whose where does not limit it to records the caller may read (confinement.ts); 'filtered' serves
   * any, leaving out the records the caller may not read, as Polybase 0.6 did, which leaks what docs/service.md
   * "Private records in lists" says.
   */
  privateLists?: PrivateLists;
  /** Told of each commit, conflict, retry and run's gas (metrics.ts). */
  metrics?: WriteMetrics;
  /**
   * Who may create collections and change schemas over HTTP (schema-access.ts): admin keys, the
   * collection-creation policy, reserved namespaces. Default: admin keys only (none), and each key in its own
   * `pk/<key>/` namespace; an unsigned request never changes a schema.
   */
  schemaAccess?: SchemaAccessOptions | SchemaAccess;
  /** Where the lines functions log with `log(...)` go (the debug log), as `log ns/C.f: line`; dropped without it. */
  functionLog?: (line: string) => void;
}

/** Options of a call beyond its arguments. */
export interface CallOptions {
  /** For `Collection` `updateCode`: the fields whose stored values the schema change may lose (schema-plan.ts). */
  readonly acceptDataLoss?: readonly string[];
}

export type PrivateLists = 'confined' | 'filtered';

export interface GetAnswer {
  /** The record as JSON text, as stored (so the answer need not parse and serialise it again). */
  json: string;
  timestamp: number;
}

/**
 * A record service over `store`, ready to serve: the `Collection` meta collection's layout is defined in the store
 * (idempotent; several processes sharing a database may each do it). This is the way to make one.
 */
export async function createRecordService(store: RecordStore, options: RecordServiceOptions = {}): Promise<RecordService> {
  const service = new RecordService(store, options);
  await service.initialise();
  return service;
}

/** What a service made with `new` and used before `initialise()` throws (a mistake in the embedding code). */
export class ServiceNotReadyError extends Error {
  /** `by`: what was given the service (`RecordService.get`, `buildApp`). */
  constructor(by: string) {
    super(`${by}: the RecordService is not initialised; make it with \`await createRecordService(store, options)\` (or await service.initialise() before using one made with \`new\`)`);
    this.name = 'ServiceNotReadyError';
  }
}

export class RecordService {
  readonly store: RecordStore;
  /** Whether this server should get traffic (`GET /v0/ready`); a migration marks it not ready while it switches. */
  readonly readiness = new Readiness();
  readonly collections: CollectionRegistry;
  readonly #limits: Partial<ExecutionLimits>;
  readonly #maxAttempts: number;
  readonly #metrics: WriteMetrics | undefined;
  readonly #delegateLoadsPerRequest: number;
  readonly #privateLists: PrivateLists;
  readonly #queue = new RecordQueue();
  // Not a #private field: tests wrap a service with Object.create, whose reads of it must reach the service.
  private initialised = false;
  readonly schemaAccess: SchemaAccess;
  readonly #functionLog: ((line: string) => void) | undefined;

  /** Not ready until `initialise()` resolves: use `createRecordService`, which does both. */
  constructor(store: RecordStore, options: RecordServiceOptions = {}) {
    this.store = store;
    this.schemaAccess = options.schemaAccess instanceof SchemaAccess ? options.schemaAccess : new SchemaAccess(options.schemaAccess);
    this.collections = new CollectionRegistry(store, options.schemaCacheChars === undefined ? {} : { cacheChars: options.schemaCacheChars });
    this.#limits = options.limits ?? DEFAULT_LIMITS;
    this.#maxAttempts = options.maxAttempts ?? 100;
    this.#functionLog = options.functionLog;
    this.#metrics = options.metrics;
    this.#delegateLoadsPerRequest = options.delegateLoadsPerRequest ?? MAX_REQUEST_DELEGATE_LOADS;
    this.#privateLists = options.privateLists ?? 'confined';
    this.#reportSwitches();
    if (this.#privateLists !== 'confined' && this.#privateLists !== 'filtered') {
      throw new TypeError(`privateLists must be 'confined' or 'filtered', got ${JSON.stringify(options.privateLists)}`);
    }
  }

  /**
   * Not ready while a migration switches a collection to its new schema here (its new layout is being stored:
   * requests of the collection wait for it). The cast pass that follows leaves the server ready: reads are
   * answered in the new form during it (docs/store.md, "Reads during a cast pass").
   */
  #reportSwitches(): void {
    const released = new Map<string, () => void>();
    this.collections.migrations.onChange(({ collectionId, switching }) => {
      if (switching && !released.has(collectionId)) {
        released.set(collectionId, this.readiness.notReady(`migration switching: collection "${collectionId}" is storing its new schema's layout`));
      } else if (!switching) {
        released.get(collectionId)?.();
        released.delete(collectionId);
      }
    });
  }

  /** Defines the meta collection's layout in the store; every operation before it resolves throws ServiceNotReadyError. */
  async initialise(): Promise<void> {
    await this.collections.initialise();
    await defineHistory(this.store);
    this.initialised = true;
  }

  /** Whether `initialise()` has resolved (a service from `createRecordService` always is). */
  get ready(): boolean {
    return this.initialised;
  }

  #assertReady(operation: string): void {
    if (!this.initialised) throw new ServiceNotReadyError(`RecordService.${operation}`);
  }

  // -------------------------------------------------------------------------------------------------------
  // Reading

  async get(collectionId: string, id: string, caller: Caller): Promise<GetAnswer> {
    this.#assertReady('get');
    if (collectionId === META_COLLECTION_ID && id === META_COLLECTION_ID) {
      return { json: JSON.stringify(metaCollection().record), timestamp: await this.store.timestamp() };
    }
    const { collection, text, timestamp } = await this.readJson(collectionId, id);
    if (text === null) throw notFound('record/not-found', `record "${id}" was not found in collection "${collectionId}"`);
    if (!collection.publicRead && !(await this.#canRead(collection, JSON.parse(text) as JsonObject, caller, this.#requestLoader('fail')))) {
      throw unauthorized('unauthorized read');
    }
    return { json: text, timestamp };
  }

  /** The record in the form of the schema current when it was read, without a permission check (read-in-form.ts). */
  readJson(collectionId: string, id: string): Promise<FormRead> {
    return readInForm(this.collections, this.store, collectionId, id);
  }

  /**
   * A page of the records the caller may read, each as its stored JSON text (see `RecordStore.listJson`). Its
   * cursors carry the query, which a request giving only a cursor goes on with (see cursor.ts). On a private
   * collection the query must be confined to records the caller may read (confinement.ts), unless the service
   * filters private lists instead; the read filter stays either way, as a second line.
   */
  async list(collectionId: string, query: ListQuery, caller: Caller): Promise<RawListResult> {
    this.#assertReady('list');
    const resumed = resumeQuery(query);
    for (let attempt = 1; ; attempt++) {
      // The schema cached here, without a read: the list reads the meta collection's stamp with its clock, and the
      // page is kept only if that stamp is the one the schema was last found current at. Otherwise (not cached, or
      // the stamp moved) the schema is resolved, reading the stamp first, and the list runs again.
      const cached = attempt === 1 ? this.collections.lastFound(collectionId) : undefined;
      const { collection, stamp } = cached ?? (await this.collections.resolveWithStamp(collectionId));
      // Past the request's budget of delegate loads, the records that need more are left out of the page.
      const loader = this.#requestLoader('absent');
      const confinement = this.#confinement(collection, caller, loader, 'list');
      const confine = confinement ? { confine: confinement.check } : {};
      if (collection.kind !== 'user') return withQuery(await this.store.listJson(collectionId, resumed, this.#readFilter(collection, caller, loader, confinement), confine), resumed);
      // Whether the records may need the cast: once the pass is known finished (castUntil set from its last
      // transaction, before this list reads its clock), every record the list reads is in the schema's form.
      const casting = collection.castUntil === Infinity;
      // Selected or ordered by values, the page would be chosen by the old form's index entries (or search tokens)
      // of the records the pass has not reached: refused until the pass is over, as a count with a where is.
      if (casting && selectsByValues(resumed)) {
        throw migratingRead(collectionId, 'list', 'a where, a sort other than by id, or a search', this.collections.migrations.progress(collectionId));
      }
      // The filter judges each record in the form it is answered in.
      const filter = this.#readFilter(collection, caller, loader, confinement, casting ? (record) => castRead(collection, record) : undefined);
      let page: RawListResult;
      try {
        page = await this.store.listJson(collectionId, resumed, filter, { ...confine, stampOf: META_COLLECTION_ID });
      } catch (error) {
        // Refused (or the collection gone) under a cached schema that may be out of date: resolved and run again.
        if (cached && (await this.store.changes.lastChange({ collectionId: META_COLLECTION_ID })) !== stamp) continue;
        throw error;
      }
      // A schema changed since the one used was found current: its page may be of the older one; read again. (Found
      // current, the schema is marked so at the page's clock, as a call's read marks it: gets then skip the stamp.)
      if (this.collections.cachedWithStamp(collectionId, page.stamp!, page.timestamp) !== collection && attempt < MAX_SCHEMA_RACES) continue;
      // The page is of one schema only if no schema changed while it was read (a pass casting records to a newer
      // one, or writes under it, may have changed some of them): otherwise it is read again.
      if (attempt < MAX_SCHEMA_RACES && (await this.store.changes.lastChange({ collectionId: META_COLLECTION_ID })) !== stamp) continue;
      // A list does not read versions: while the pass may be running, every record goes through the cast, which
      // leaves one already in the new form as it is (`conform` gives null).
      const records = casting ? await Promise.all(page.records.map((text) => textInForm(collection, text, 0, page.timestamp))) : page.records;
      return withQuery({ records, cursor: page.cursor, timestamp: page.timestamp }, resumed);
    }
  }

  /**
   * The number of records matching `where` that the caller may read. Every matching record's read permission is
   * checked; one whose check needs more than the request's budget of delegate loads fails the count (400
   * `permission/limit-exceeded`) rather than leaving it out unseen. The store bounds the entries read. While a
   * schema change's pass may be running, see `#counted`.
   */
  async count(collectionId: string, where: unknown, caller: Caller): Promise<CountResult> {
    this.#assertReady('count');
    return this.#counted(collectionId, where, caller, 'count', (filter, options) => this.store.count(collectionId, { where }, filter, options));
  }

  /**
   * `count` with the sums, averages, least and greatest values of number fields over the same records: those
   * matching `where` that the caller may read, confined and checked as a count is (store: aggregates.ts).
   */
  async aggregate(collectionId: string, where: unknown, aggregates: AggregateRequest, caller: Caller): Promise<AggregateResult> {
    this.#assertReady('count');
    const what = ['count', ...(['sum', 'avg', 'min', 'max'] as const).filter((kind) => aggregates[kind]?.length)].join(', ');
    return this.#counted(collectionId, where, caller, what, (filter, options) => this.store.aggregate(collectionId, { where, aggregates }, filter, options), true);
  }

  /**
   * A count (or aggregate) answered as of the schema current when it read, as a list is. While that schema's
   * pass may still be casting (or migrating) records, each record read is passed through it before the read
   * filter judges it and it is aggregated, and the count is read again when a schema changed meanwhile. A count
   * with a where is then refused (503 `collection/migrating`): the index entries it would select by are, for the
   * records the pass has not reached, those of the old form, and no bounded read can tell which records the new
   * form would match. The number of records itself never changes in a pass (it rewrites each, deleting none).
   */
  async #counted<T>(
    collectionId: string,
    where: unknown,
    caller: Caller,
    what: string,
    read: (filter: ((record: JsonObject) => Promise<boolean> | boolean) | undefined, options: CountOptions) => Promise<T>,
    readsValues = false,
  ): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const { collection, stamp } = await this.collections.resolveWithStamp(collectionId);
      const loader = this.#requestLoader('fail');
      const confinement = this.#confinement(collection, caller, loader, 'count');
      const casting = collection.kind === 'user' && collection.castUntil === Infinity;
      if (casting && hasConditions(where)) throw migratingRead(collectionId, what, 'a where', this.collections.migrations.progress(collectionId));
      const filter = this.#readFilter(collection, caller, loader, confinement);
      const inForm = casting && (filter !== undefined || readsValues) ? (record: JsonObject) => castRead(collection, record) : undefined;
      const answer = await read(filter, { ...(confinement ? { confine: confinement.check } : {}), ...(inForm ? { inForm } : {}) });
      if (casting && attempt < MAX_SCHEMA_RACES && (await this.store.changes.lastChange({ collectionId: META_COLLECTION_ID })) !== stamp) continue;
      return answer;
    }
  }

  /**
   * Whether the caller may read the record, for a push stream's event (stream.ts). A check that needs more than
   * the budget of delegate loads counts as "may not": the event is not sent.
   */
  async mayRead(collectionId: string, record: JsonObject, caller: Caller): Promise<boolean> {
    this.#assertReady('mayRead');
    const collection = await this.collections.resolve(collectionId);
    return this.#canRead(collection, record, caller, this.#requestLoader('absent'));
  }

  /**
   * Reads records for `expand` (expand.ts): each the record when it exists and the caller may read it, else null,
   * whichever it is (a missing collection or id too). The checks of one reader share one budget of delegate loads;
   * a check past it counts as "may not".
   */
  expansionReader(caller: Caller): (collectionId: string, id: string) => Promise<JsonObject | null> {
    this.#assertReady('expansionReader');
    const loader = this.#requestLoader('absent');
    return async (collectionId, id) => {
      let collection: ResolvedCollection;
      let text: string | null;
      try {
        ({ collection, text } = await this.readJson(collectionId, id));
      } catch (error) {
        // A collection since deleted, or an id the store refuses (too long): nothing to expand.
        if ((error instanceof ServiceError || isStoreError(error)) && error.code !== 'unavailable' && error.code !== 'internal') return null;
        throw error;
      }
      if (text === null) return null;
      const record = JSON.parse(text) as JsonObject;
      return (await this.#canRead(collection, record, caller, loader)) ? record : null;
    };
  }

  /**
   * Throws what the list would throw before reading (an unknown collection, a query no index serves, a list of a
   * private collection not confined to the caller), so that a long-poll is refused before it waits.
   */
  async assertList(collectionId: string, query: ListQuery, caller: Caller, operation: 'list' | 'count'): Promise<void> {
    this.#assertReady('assertList');
    const collection = await this.collections.resolve(collectionId);
    const confinement = this.#confinement(collection, caller, this.#requestLoader('absent'), operation);
    if (confinement) await this.store.checkQuery(collectionId, resumeQuery(query), confinement.check);
  }

  /** Throws 404 when the collection does not exist (before a long-poll starts waiting on it). */
  async assertCollection(collectionId: string): Promise<void> {
    this.#assertReady('assertCollection');
    await this.collections.resolve(collectionId);
  }

  // -------------------------------------------------------------------------------------------------------
  // Writing

  /** Runs the constructor and stores the new record; returns it. */
  async create(collectionId: string, args: readonly unknown[], caller: Caller): Promise<JsonObject> {
    this.#assertReady('create');
    if (collectionId === META_COLLECTION_ID) return this.#createCollection(args, caller);
    const quick = await this.#createWithCached(collectionId, args, caller);
    if (quick) return quick;
    // The schema is looked up on every attempt: a conflict may come from a schema update casting the records. The
    // commit expects the stamp read before the schema: a new record has no version a cast would change, so without
    // it a schema updated (and its records cast) between the read and the commit would leave this record in the
    // old schema's form.
    return this.#retry(async () => {
      const { collection, stamp } = await this.collections.resolveWithStamp(collectionId);
      if (collection.kind !== 'user') throw notFound('collection/not-found', `collection "${collectionId}" not found`);
      return this.#runCreate(collection, args, caller, stamp);
    });
  }

  /**
   * The create run with the schema cached here, without reading the meta collection's stamp first: the commit
   * expects the stamp at which the schema was last found current, so it goes through only if the schema used is
   * still current. Anything else gives undefined, and the create runs again after resolving the schema: no
   * schema cached, a conflict (the id taken included), or any error (it is reported from that run), except one
   * after which the commit may have happened (see commitMayHaveHappened): that one is the answer.
   */
  async #createWithCached(collectionId: string, args: readonly unknown[], caller: Caller): Promise<JsonObject | undefined> {
    const found = this.collections.lastFound(collectionId);
    if (!found) return undefined;
    try {
      return await this.#runCreate(found.collection, args, caller, found.stamp);
    } catch (error) {
      if (commitMayHaveHappened(error)) throw error;
      return undefined;
    }
  }

  /** Writes what a run logged with log(...) to the debug log (a run that is retried logs again). */
  #logFunction(collectionId: string, functionName: string, result: ExecuteResult): void {
    const logs = result.ok ? result.transition.logs : result.logs;
    if (!logs || !this.#functionLog) return;
    for (const line of logs) this.#functionLog(`log ${collectionId}.${functionName}: ${line}`);
  }

  /** Runs the constructor and commits the new record (and the records it changed); `metaStamp` as in #runCall. */
  async #runCreate(collection: UserCollection, args: readonly unknown[], caller: Caller, metaStamp?: number): Promise<JsonObject> {
    const { collectionId } = collection;
    this.#checkFunction(collection, 'constructor', args);
    const reads = new ReadSet();
    const loaded = await this.#loadRecordArguments(collection, 'constructor', args, caller, this.#requestLoader('fail', reads), reads);
    const result = execute(collection.compiled, 'constructor', null, loaded, { publicKey: caller.publicKey }, this.#limits);
    caller.onGas?.(result.ok ? result.transition.gasUsed : result.gasUsed);
    this.#logFunction(collectionId, 'constructor', result);
    this.#metrics?.gasUsed('constructor', result.ok ? result.transition.gasUsed : result.gasUsed);
    if (!result.ok) throw fromRuntimeError(result.error);
    const { record, changed } = result.transition;
    if (!record) throw notFound('record/not-found', 'the constructor deleted the record it created (selfdestruct), so there is nothing to return');
    const id = record.id as string;
    const writes: Write[] = [{ kind: 'put', collectionId, record }];
    const expect: Expectation[] = [{ collectionId, id, version: null }];
    for (const other of changed) {
      writes.push({ kind: 'put', collectionId: other.collectionId, record: other.record });
      expect.push({ collectionId: other.collectionId, id: other.id, version: reads.versionOf(other.collectionId, other.id) ?? null });
    }
    expect.push(...reads.expectationsBesides(expect));
    const stamps = metaStamp === undefined ? [] : [{ collectionId: META_COLLECTION_ID, stamp: metaStamp }];
    await this.#commit(writes, expect, caller, { collectionId, id }, stamps);
    return record;
  }

  /** Runs `functionName` on the record and stores the result; returns the record after the call (null: deleted). */
  async call(collectionId: string, id: string, functionName: string, args: readonly unknown[], caller: Caller, options: CallOptions = {}): Promise<JsonObject | null> {
    this.#assertReady('call');
    if (collectionId === META_COLLECTION_ID) return this.#callCollection(id, functionName, args, caller, options);
    if (options.acceptDataLoss !== undefined) {
      throw invalidArgument('request/invalid-body', `acceptDataLoss applies only to ${META_COLLECTION_ID} updateCode (a schema change), not to a call of "${functionName}" in "${collectionId}"`);
    }
    // The schema is looked up on every attempt, not once before the queue: a call that waited behind others, or
    // whose write conflicted with a schema update casting the records, would otherwise run the old schema's
    // function on the cast record and write it back in the old form (a new required field gone).
    const run = async () => {
      const quick = await this.#callOnRecent(collectionId, id, functionName, args, caller);
      if (quick) return quick.record;
      return this.#retry(async () => {
        // The commit expects the stamp read with the record, as the first attempt expects the cached one: a schema
        // update that casts nothing of this record (its version unchanged) is otherwise not seen by the commit,
        // which would store the old function's result under the new schema (a removed field put back).
        const { collection, current, version, stamp } = await this.#callTarget(collectionId, id, functionName, args);
        return (await this.#runCall(collection, { id, current, version }, functionName, args, caller, stamp)).record;
      });
    };
    // One call at a time per record in this process: see record-queue.ts.
    return this.#queue.run(key(collectionId, id), run);
  }

  /**
   * The call run on the record as this process last committed it (`RecordStore.lastCommitted`) with the schema
   * cached here, neither read again: its commit expects that version of the record and the meta collection's
   * stamp at which the schema was last found current, so it goes through only if both are still what the call
   * used, as when they are read first. Anything else gives undefined, and the call runs again on what it reads:
   * no such record or schema kept here, a conflict, any error (it is reported from the run on fresh reads), or a
   * call that commits nothing (its answer would rest on what no commit checked). An error after which the commit
   * may have happened (see commitMayHaveHappened) is the answer instead: running the call again could apply it twice.
   */
  async #callOnRecent(collectionId: string, id: string, functionName: string, args: readonly unknown[], caller: Caller): Promise<{ record: JsonObject | null } | undefined> {
    const recent = this.store.lastCommitted(collectionId, id);
    const found = recent && this.collections.lastFound(collectionId);
    if (!found) return undefined;
    try {
      this.#checkCallable(found.collection, functionName, args);
      // Committed by this process, maybe before the schema's switch: cast as a read at its own version would be.
      const current = await inForm(found.collection, recent.record, recent.version, recent.version);
      const outcome = await this.#runCall(found.collection, { id, current, version: recent.version }, functionName, args, caller, found.stamp);
      return outcome.committed ? { record: outcome.record } : undefined;
    } catch (error) {
      if (commitMayHaveHappened(error)) throw error;
      return undefined;
    }
  }

  /**
   * Runs the function on `target.current` (at `target.version`) and commits what it changed, expecting every
   * record it read still at the version read and, when `metaStamp` is given, the meta collection's stamp at it
   * (the schema used is still current). `committed` is false when there was nothing to commit.
   */
  async #runCall(
    collection: UserCollection,
    target: { id: string; current: JsonObject; version: number },
    functionName: string,
    args: readonly unknown[],
    caller: Caller,
    metaStamp?: number,
  ): Promise<{ record: JsonObject | null; committed: boolean }> {
    const { collectionId } = collection;
    const { id, current, version } = target;
    const reads = new ReadSet();
    const loader = this.#requestLoader('fail', reads);
    // A function anyone may call needs no check (nothing read, no await): most calls of a @public collection.
    if (!callableByEveryone(collection.compiled, functionName)) {
      const permission = await canCall(collection.compiled, functionName, current as WireRecord, caller.publicKey, loader.load);
      if (!permission.allowed) throw unauthorized(permission.message);
    }
    const loaded = await this.#loadRecordArguments(collection, functionName, args, caller, loader, reads);
    const result = execute(collection.compiled, functionName, current as WireRecord, loaded, { publicKey: caller.publicKey }, this.#limits);
    caller.onGas?.(result.ok ? result.transition.gasUsed : result.gasUsed);
    this.#logFunction(collectionId, functionName, result);
    this.#metrics?.gasUsed(functionName, result.ok ? result.transition.gasUsed : result.gasUsed);
    if (!result.ok) throw fromRuntimeError(result.error);
    const { record, deleted, changed } = result.transition;
    const writes: Write[] = [];
    const expect: Expectation[] = [{ collectionId, id, version }];
    if (deleted) writes.push({ kind: 'delete', collectionId, id });
    else if (record && JSON.stringify(record) !== JSON.stringify(current)) writes.push({ kind: 'put', collectionId, record });
    for (const other of changed) {
      if (other.collectionId === collectionId && other.id === id) continue;
      writes.push({ kind: 'put', collectionId: other.collectionId, record: other.record });
      expect.push({ collectionId: other.collectionId, id: other.id, version: reads.versionOf(other.collectionId, other.id) ?? null });
    }
    // What the call read besides what it writes: the permission and the result rest on it (read-set.ts).
    expect.push(...reads.expectationsBesides(expect));
    const stamps = metaStamp === undefined ? [] : [{ collectionId: META_COLLECTION_ID, stamp: metaStamp }];
    const committed = await this.#commit(writes, expect, caller, undefined, stamps);
    return { record: deleted ? null : (record ?? null), committed };
  }

  /**
   * The collection and the record a call runs on. The record, the clock and the meta collection's change stamp
   * (which tells whether the cached schema is current, and which the commit expects) are one read; the schema is
   * read only when the stamp moved. Errors come in Polybase's order, as if the collection had been resolved first:
   * an unknown collection, then an unknown function or wrong argument count, then a malformed or unknown record id.
   */
  async #callTarget(
    collectionId: string,
    id: string,
    functionName: string,
    args: readonly unknown[],
  ): Promise<{ collection: UserCollection; current: JsonObject; version: number; stamp: number }> {
    let read: Awaited<ReturnType<RecordStore['getWithStamp']>>;
    try {
      read = await this.store.getWithStamp(collectionId, id, META_COLLECTION_ID);
    } catch (error) {
      this.#checkCallable(await this.#userCollection(collectionId), functionName, args);
      throw error;
    }
    const resolved = this.collections.cachedWithStamp(collectionId, read.stamp, read.timestamp) ?? (await this.collections.resolve(collectionId, read.timestamp));
    if (resolved.kind !== 'user') throw notFound('collection/not-found', `collection "${collectionId}" not found`);
    this.#checkCallable(resolved, functionName, args);
    if (!read.record || read.version === null) throw notFound('record/not-found', `record "${id}" was not found in collection "${collectionId}"`);
    // The function runs on the record in the schema's form; the commit expects the stored version, so a cast of the
    // record by the pass meanwhile makes it run again.
    return { collection: resolved, current: await inForm(resolved, read.record, read.version, read.timestamp), version: read.version, stamp: read.stamp };
  }

  /** A function a call may name: not the constructor, a function of the collection, with the right argument count. */
  #checkCallable(collection: UserCollection, functionName: string, args: readonly unknown[]): void {
    // Polybase let `call/constructor` run the constructor over an existing record, with no permission check.
    if (functionName === 'constructor') {
      throw notFound('function/not-found', `the constructor of "${collection.collectionId}" runs only when a record is created (POST …/records)`);
    }
    this.#checkFunction(collection, functionName, args);
  }

  // -------------------------------------------------------------------------------------------------------
  // The Collection meta collection

  async #createCollection(args: readonly unknown[], caller: Caller): Promise<JsonObject> {
    const { id, code } = constructorArgs(args);
    // Who may, before any work on the schema text (schema-access.ts).
    this.schemaAccess.checkCreate(id, caller.publicKey);
    const checked = checkCollectionSchema(id, code);
    const record = newCollectionRecord(checked, caller.publicKey) as JsonObject;
    await this.#retry(async () => {
      const history = await this.#historyWrite(checked, caller.publicKey, []);
      await this.#commit([{ kind: 'put', collectionId: META_COLLECTION_ID, record }, history.write], [{ collectionId: META_COLLECTION_ID, id, version: null }, history.expect], caller, {
        collectionId: META_COLLECTION_ID,
        id,
      });
    });
    await this.collections.install(checked);
    return record;
  }

  async #callCollection(id: string, functionName: string, args: readonly unknown[], caller: Caller, options: CallOptions): Promise<JsonObject> {
    if (functionName !== 'updateCode') {
      throw notFound('function/not-found', `method "${functionName}" not found in collection "${META_COLLECTION_ID}"`);
    }
    const code = updateCodeArgs(args);
    // Who may, before any work on the schema text; checked again with the record the update commits against.
    splitCollectionId(id); // an id the store would refuse is reported as checkCollectionSchema reports it
    const stored = await this.store.get(META_COLLECTION_ID, id);
    if (stored.record) this.schemaAccess.checkChange(id, stored.record.publicKey, caller.publicKey);
    const checked = checkCollectionSchema(id, code);
    const updated = await this.#retry(async () => {
      const { record: current, version } = await this.store.get(META_COLLECTION_ID, id);
      if (!current || version === null) throw notFound('record/not-found', `record "${id}" was not found in collection "${META_COLLECTION_ID}"`);
      // Who may: schema-access.ts (throws 403 naming who may). What the update does to the stored data: below.
      this.schemaAccess.checkChange(id, current.publicKey, caller.publicKey);
      const record = updatedCollectionRecord(current, checked) as JsonObject;
      const accepted = options.acceptDataLoss ?? [];
      const plan = await this.checkRecordsFollow(checked, accepted);
      const history = await this.#historyWrite(checked, caller.publicKey, accepted, plan);
      // Committed only while the collection is as the plan read it: a record written meanwhile (by a server still on
      // the old schema) is planned again, never cast without having been counted.
      const stamps = [{ collectionId: id, stamp: plan.stamp }];
      await this.#commit([{ kind: 'put', collectionId: META_COLLECTION_ID, record }, history.write], [{ collectionId: META_COLLECTION_ID, id, version }, history.expect], caller, undefined, stamps);
      return record;
    });
    await this.collections.install(checked);
    return updated;
  }

  /** Writes a collection's schema on behalf of the server operator (`vellum serve --schema`): no owner check. */
  async installSchema(
    collectionId: string,
    code: string,
    acceptDataLoss: readonly string[] = [],
    onProgress?: (progress: RebuildProgress) => void,
    planned?: PlannedChange,
  ): Promise<'created' | 'updated' | 'unchanged'> {
    this.#assertReady('installSchema');
    const checked = checkCollectionSchema(collectionId, code);
    let reusable = planned;
    const outcome = await this.#retry(async () => {
      const { record: current, version } = await this.store.get(META_COLLECTION_ID, collectionId);
      if (current?.code === code) return 'unchanged' as const;
      const record = current
        ? (updatedCollectionRecord(current, checked) as JsonObject)
        : (newCollectionRecord(checked, undefined) as JsonObject);
      // The caller's plan stands for this attempt when it was computed against the schema record as read now: the
      // commit expects that record's version and the collection's stamp as the plan read its records, so a change
      // of either since makes it conflict, and the next attempt plans again.
      const reused = reusable && reusable.plan.collectionId === collectionId && reusable.code === code && reusable.schemaVersion === version ? reusable.plan : undefined;
      reusable = undefined;
      const plan = current ? (reused ? judged(reused, acceptDataLoss) : await this.checkRecordsFollow(checked, acceptDataLoss)) : undefined;
      const history = await this.#historyWrite(checked, undefined, acceptDataLoss, plan);
      await this.store.commit({
        writes: [{ kind: 'put', collectionId: META_COLLECTION_ID, record }, history.write],
        expect: [{ collectionId: META_COLLECTION_ID, id: collectionId, version }, history.expect],
        expectStamps: plan ? [{ collectionId, stamp: plan.stamp }] : [],
      });
      return current ? ('updated' as const) : ('created' as const);
    });
    await this.collections.install(checked, onProgress);
    return outcome;
  }

  /**
   * The plan of replacing the collection's schema by `checked`, against the stored records (schema-plan.ts), and
   * refused (400) unless every field losing stored data is named in `acceptDataLoss` and every record can
   * follow: `collection/data-loss` names each field losing values with its count and an example record,
   * `collection/invalid-schema` a new required field without a default or an over-full indexed array. When it is
   * accepted, the update casts every record as the plan says (collections.ts), so every stored record is valid
   * under the schema in force. The records are read in bounded batches; nothing is written.
   */
  async checkRecordsFollow(checked: CheckedCollection, acceptDataLoss: readonly string[] = []): Promise<SchemaPlan> {
    this.#assertReady('checkRecordsFollow');
    const plan = await this.planSchema(checked);
    checkPlan(plan, acceptDataLoss);
    return plan;
  }

  /** The plan of replacing the collection's schema (if any) by `checked`, not judged: nothing is refused or written. */
  async planSchema(checked: CheckedCollection): Promise<SchemaPlan> {
    return (await this.planChange(checked)).plan;
  }

  /**
   * `planSchema`, with the version of the schema record it was planned against: `installSchema` takes it back and
   * commits with this plan instead of planning again, as long as that record is unchanged (`vellum migrate apply`
   * shows the plan, then applies it).
   */
  async planChange(checked: CheckedCollection): Promise<PlannedChange> {
    const { record, version } = await this.store.get(META_COLLECTION_ID, checked.collectionId);
    // Compiled here rather than resolved through the registry, which would also finish the collection's pending
    // layout pass first (an earlier update's install) before this update could be planned.
    const current = typeof record?.code === 'string' ? checkCollectionSchema(checked.collectionId, record.code) : undefined;
    const old = current ? { node: current.node, compiled: compileChecked(current) } : null;
    const resumingMigration = record?.code === checked.code && (await this.#migrationUnfinished(checked.collectionId, checked.code));
    const plan = await planSchemaChange(this.store, old, { checked, compiled: compileChecked(checked) }, { resumingMigration, references: this.#migrationReferences() });
    return { plan, code: checked.code, schemaVersion: version };
  }

  /** How a plan reads the records a migration loads, and their collections' stored schemas (schema-plan.ts). */
  #migrationReferences(): MigrationReferences {
    return {
      load: (targets) => loadReferenced(this.collections, this.store, targets),
      fields: async (collectionId) => {
        const { record } = await this.store.get(META_COLLECTION_ID, collectionId);
        return typeof record?.code === 'string' ? fieldsOf(checkCollectionSchema(collectionId, record.code).node) : null;
      },
    };
  }

  /** Whether the stored schema (`code`) ran a migration whose pass over the records was cut short (a crash). */
  async #migrationUnfinished(collectionId: string, code: string): Promise<boolean> {
    if ((await this.store.getLayout(collectionId)) === null || !(await this.store.conforming(collectionId))) return false;
    const latest = await latestVersion(this.store, collectionId);
    return latest?.code === code && latest.plan.migration?.runs === true;
  }

  /** Every version of the collection's schema, oldest first (schema-history.ts). */
  schemaHistory(collectionId: string): Promise<SchemaVersion[]> {
    return schemaHistory(this.store, collectionId);
  }

  /** The history record of applying `checked` with `plan` (planned here for a new collection), for the same commit. */
  async #historyWrite(checked: CheckedCollection, signer: PublicKey | undefined, accepted: readonly string[], plan?: SchemaPlan): Promise<{ write: Write; expect: Expectation }> {
    return nextVersionWrite(this.store, { collectionId: checked.collectionId, code: checked.code, signer, plan: plan ?? (await this.planSchema(checked)), acceptedDataLoss: accepted });
  }

  /**
   * `POST /v0/collections/Collection/records/{id}/plan/updateCode`: the plan of the `updateCode` call with the
   * same arguments, for a caller who may make it, without making it.
   */
  async planUpdate(id: string, args: readonly unknown[], caller: Caller): Promise<SchemaPlan> {
    this.#assertReady('planUpdate');
    const code = updateCodeArgs(args);
    const { record: current } = await this.store.get(META_COLLECTION_ID, id);
    if (!current) throw notFound('record/not-found', `record "${id}" was not found in collection "${META_COLLECTION_ID}"`);
    // The same rule as the update itself (schema-access.ts), before any work on the schema text or the records.
    this.schemaAccess.checkChange(id, current.publicKey, caller.publicKey);
    const checked = checkCollectionSchema(id, code);
    updatedCollectionRecord(current, checked);
    return this.planSchema(checked);
  }

  /**
   * `GET /v0/collections/Collection/records/{id}/migration`: how far this server's pass over the collection's
   * stored records has got after a schema change (cast or `@migrate`), for a caller who may change the schema.
   */
  async migrationProgress(id: string, caller: Caller): Promise<MigrationProgress> {
    const { record: current } = await this.store.get(META_COLLECTION_ID, id);
    if (!current) throw notFound('record/not-found', `record "${id}" was not found in collection "${META_COLLECTION_ID}"`);
    this.schemaAccess.checkChange(id, current.publicKey, caller.publicKey, `reading the migration progress of collection ${id} (as changing its schema)`);
    return this.collections.migrations.progress(id);
  }

  // -------------------------------------------------------------------------------------------------------
  // Helpers

  async #userCollection(collectionId: string): Promise<UserCollection> {
    const collection = await this.collections.resolve(collectionId);
    if (collection.kind !== 'user') throw notFound('collection/not-found', `collection "${collectionId}" not found`);
    return collection;
  }

  /** Polybase's order: an unknown function is 404 before anything is read, then the argument count. */
  #checkFunction(collection: UserCollection, functionName: string, args: readonly unknown[]): void {
    const fn = collection.compiled.functions.get(functionName);
    if (!fn) throw notFound('function/not-found', `method "${functionName}" not found in collection "${collection.collectionId}"`);
    if (isMigration(fn.declaration)) {
      throw notFound('function/not-found', `method "${functionName}" of collection "${collection.collectionId}" is a migration: it runs over the stored records when its schema is installed, and cannot be called`);
    }
    const parameters = fn.declaration.parameters;
    const required = parameters.filter((p) => !p.optional).length;
    if (args.length < required) throw new ServiceError('invalid-argument', 'function/invalid-args', `method ${functionName} args invalid, expected ${required} got ${args.length}`);
    if (args.length > parameters.length) {
      throw new ServiceError('invalid-argument', 'function/invalid-args', `method ${functionName} args invalid, expected ${parameters.length} got ${args.length}`);
    }
  }

  /**
   * Replaces record references in the arguments by `{collectionId, id, data}`, read with the caller's permission;
   * each one read is noted in `reads` with its version.
   */
  async #loadRecordArguments(
    collection: UserCollection,
    functionName: string,
    args: readonly unknown[],
    caller: Caller,
    loader: RequestLoader,
    reads: ReadSet,
  ): Promise<unknown[]> {
    const requests = recordArguments(collection.compiled, functionName, args);
    if (!requests.ok) throw fromRuntimeError(requests.error);
    const loaded = [...args];
    for (const request of requests.records) {
      const missing = () => notFound('record/not-found', `record "${request.id}" was not found in collection "${request.collectionId}"`);
      let read: FormRead;
      try {
        read = await this.readJson(request.collectionId, request.id);
      } catch (error) {
        throw isUnknownCollection(error) ? missing() : error;
      }
      const { collection: target, text, version } = read;
      if (text === null || version === null) throw missing();
      reads.saw(request.collectionId, request.id, version);
      // In the form of its collection's schema, as a get would answer it (a cast pass may not have reached it yet).
      const record = JSON.parse(text) as JsonObject;
      if (!(await this.#canRead(target, record, caller, loader))) throw unauthorized('unauthorized read');
      loaded[request.index] = { collectionId: request.collectionId, id: request.id, data: record };
    }
    return loaded;
  }

  #canRead(collection: ResolvedCollection, record: JsonObject, caller: Caller, loader: RequestLoader): Promise<boolean> | boolean {
    if (collection.publicRead) return true;
    return canRead(collection.kind === 'user' ? collection.compiled : collection.node, record as WireRecord, caller.publicKey, loader.load);
  }

  #confinement(collection: ResolvedCollection, caller: Caller, loader: RequestLoader, operation: 'list' | 'count'): Confinement | undefined {
    return this.#privateLists === 'confined' ? confinementOf(collection, caller.publicKey, loader.load, operation) : undefined;
  }

  /**
   * The read filter of a list or count of a private collection. A confined query reads only records its check
   * found readable through the pinned field: that is asked first, so the walk of the record's other fields (and
   * the request's budget of loads it spends) decides only for a record the plan should not have read.
   */
  #readFilter(
    collection: ResolvedCollection,
    caller: Caller,
    loader: RequestLoader,
    confinement: Confinement | undefined,
    inForm?: (record: JsonObject) => Promise<JsonObject>,
  ): ((record: JsonObject) => Promise<boolean> | boolean) | undefined {
    if (collection.publicRead) return undefined;
    if (inForm) return async (stored) => {
      const record = await inForm(stored);
      return confinement?.proves(record) || this.#canRead(collection, record, caller, loader);
    };
    return (record) => confinement?.proves(record) || this.#canRead(collection, record, caller, loader);
  }

  /** The loader of one request's permission checks (see permission-loader.ts); a write's notes what it reads in `reads`. */
  #requestLoader(overBudget: OverBudget, reads?: ReadSet): RequestLoader {
    return new RequestLoader(this.collections, this.store, this.#delegateLoadsPerRequest, overBudget, reads);
  }

  /**
   * Commits the writes with the signature claim; false when there is nothing to commit. A conflict on `creating` (the new record's id is taken) is 409
   * `collection/id-exists`; any other conflict propagates, and #retry runs the operation again.
   */
  async #commit(
    writes: Write[],
    expect: Expectation[],
    caller: Caller,
    creating?: { collectionId: string; id: string },
    expectStamps: StampExpectation[] = [],
  ): Promise<boolean> {
    if (writes.length === 0 && !caller.claim) return false;
    try {
      await this.store.commit({ writes, expect, expectStamps, ...(caller.claim ? { claimSignature: caller.claim } : {}) });
      this.#metrics?.committed();
      return true;
    } catch (error) {
      // (A replayed signed create is reported by the store as a replay: it checks the claim first.)
      if (error instanceof ConflictError && creating && error.collectionId === creating.collectionId && error.id === creating.id) {
        throw new ServiceError('already-exists', 'collection/id-exists', 'record id already exists in collection');
      }
      throw error;
    }
  }

  async #retry<T>(operation: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await operation();
      } catch (error) {
        if (error instanceof ConflictError) this.#metrics?.conflicted();
        if (!(error instanceof ConflictError) || attempt >= this.#maxAttempts) throw error;
        this.#metrics?.retried();
        await new Promise((resolve) => setTimeout(resolve, conflictPause(attempt)));
      }
    }
  }
}

/**
 * Whether a write that failed with `error` may nevertheless have been committed: the database failed or went
 * away during the commit (503 `unavailable`, 500 `internal`; PostgreSQL's COMMIT can succeed with its answer
 * lost). Such a write must not run again on fresh reads: it would be applied twice (a counter added to twice, a
 * created record reported as taken). Every other error comes from a check or a run that wrote nothing.
 */
/** A plan (`RecordService.planChange`) and what it was planned from: the new code and the schema record's version (null: none). */
export interface PlannedChange {
  readonly plan: SchemaPlan;
  readonly code: string;
  readonly schemaVersion: number | null;
}

/** The plan, refused (400) as `checkRecordsFollow` refuses it. */
function judged(plan: SchemaPlan, acceptDataLoss: readonly string[]): SchemaPlan {
  checkPlan(plan, acceptDataLoss);
  return plan;
}

function hasConditions(where: unknown): boolean {
  return typeof where === 'object' && where !== null && Object.keys(where).length > 0;
}

/** Whether a list picks or orders its records by their values: a where, a search, or a sort by a field other than id. */
function selectsByValues(query: ListQuery): boolean {
  const { sort } = query;
  const sortsByValues = Array.isArray(sort) && sort.some((entry) => !(Array.isArray(entry) && entry[0] === 'id'));
  return hasConditions(query.where) || query.search !== undefined || sortsByValues;
}

/** The refusal of a read that `selection` (what picks its records by their values) makes wait for the pass. */
function migratingRead(collectionId: string, what: string, selection: string, progress: MigrationProgress): ServiceError {
  const far = progress.running && progress.total > 0 ? ` (${progress.done.toLocaleString('en-US')} of ${progress.total.toLocaleString('en-US')} records done here)` : '';
  return new ServiceError(
    'unavailable',
    'collection/migrating',
    `${what} of ${collectionId} with ${selection} is not answered while its records are cast to its new schema${far}: the index still holds the old form's values of the records the pass has not reached, so the answer could be of neither schema. Retry once the pass is over (GET /v0/collections/Collection/records/${encodeURIComponent(collectionId)}/migration says how far it is); without ${selection} it is answered now`,
  );
}

function commitMayHaveHappened(error: unknown): boolean {
  return isStoreError(error) && (error.code === 'unavailable' || error.code === 'internal');
}

/**
 * The pause before running a conflicted write again: a random time up to 2^attempt ms, at most MAX_CONFLICT_PAUSE_MS
 * ("full jitter"). Writers of one record in different processes then drift apart instead of colliding again
 * at once; a pause that grew only linearly (up to 2 × attempt ms) retried about three times as often in
 * bench/contended.ts.
 */
function conflictPause(attempt: number): number {
  return Math.random() * Math.min(MAX_CONFLICT_PAUSE_MS, 2 ** attempt);
}

const MAX_CONFLICT_PAUSE_MS = 100;

function key(collectionId: string, id: string): string {
  return `${collectionId}\u0000${id}`;
}
