// How the service reads one stored record by id for a request: a get's answer, a call's record argument, a record
// a permission check walks to through a reference, an expanded reference, a stream's event, a record a migration
// loads through a reference. A schema change's cast pass (or migration) rewrites the stored records in batches while
// requests go on, so a record it has not reached yet may still be in the old schema's form; read here, it comes in
// the form of the schema current at the read (`inForm`), so that nothing the service answers, checks or runs on is
// of two forms. (The record a call runs on is read with the meta collection's stamp, and a list page as a page, in
// records.ts; both pass through the same `inForm`.)
import { referenceKey, type ReferencedRecords, type ReferenceTarget, type WireRecord } from '../runtime/index.ts';
import { isStoreError, type JsonObject, type RawGetResult, type RecordStore } from '../store/index.ts';
import type { CollectionRegistry, ResolvedCollection, UserCollection } from './collections.ts';
import { ServiceError } from './errors.ts';

/**
 * How many times a read goes again when a schema was committed while it read (so its record, or page, may be of
 * either schema): each time means another schema change within one read, so a few suffice.
 */
export const MAX_SCHEMA_RACES = 10;

export interface FormRead {
  /** The collection's schema current at `timestamp`. */
  collection: ResolvedCollection;
  /** The record's JSON text in that schema's form; null when there is no such record. */
  text: string | null;
  /** The stored record's version (a write that rests on the record expects it); null when there is none. */
  version: number | null;
  /** The store's clock read with the record. */
  timestamp: number;
}

/**
 * The record's JSON text in the form of the schema current when it was read (no permission check), with that
 * schema, its stored version and the store's clock of the read: `RecordStore.getJson`, then the schema at that
 * clock (a read before a schema's switch answers the old form, one after it the new: a record the cast pass has not
 * reached yet is cast here). When a schema was committed between the two reads, the record is read again. An
 * unknown collection is 404 `collection/not-found`, reported before a malformed record id.
 */
export async function readInForm(collections: CollectionRegistry, store: RecordStore, collectionId: string, id: string, forMigration = false): Promise<FormRead> {
  for (let attempt = 1; ; attempt++) {
    let answer: RawGetResult;
    try {
      answer = await store.getJson(collectionId, id);
    } catch (error) {
      // An unknown collection is reported before a malformed id, as when the collection was resolved first.
      await collections.resolve(collectionId);
      throw error;
    }
    const { text, version, timestamp } = answer;
    // The clock just read tells the registry whether anything was committed since it last checked the schema.
    let collection = collections.cachedAt(collectionId, timestamp);
    if (collection === undefined) {
      const resolved = await collections.resolveWithStamp(collectionId, timestamp);
      // A schema committed after the record was read: the record may predate the schema, or not; read again.
      if (resolved.stamp > timestamp && attempt < MAX_SCHEMA_RACES) continue;
      collection = resolved.collection;
    }
    // A record already in the schema's form (the most common case by far) is answered without waiting for
    // textInForm's promise: one microtask hop fewer on every get.
    if (text === null || collection.kind !== 'user' || inSchemaForm(collection, version!, timestamp)) return { collection, text, version, timestamp };
    return { collection, text: await textInForm(collection, text, version!, timestamp, forMigration), version, timestamp };
  }
}

/**
 * The record as the collection's schema has it, as a read answers it or a call runs on it: a record the schema's
 * cast pass may not have reached yet (written before the switch, read before the pass finished) is passed through
 * the pass's own function; any other is already in this form. `readAt`: the store's clock read with the record.
 */
export async function inForm(collection: UserCollection, record: JsonObject, version: number, readAt: number): Promise<JsonObject> {
  if (inSchemaForm(collection, version, readAt)) return record;
  return castRead(collection, record);
}

/**
 * Whether a record of `version`, read at the store's clock `readAt`, is in the collection's schema form for sure:
 * read once the schema's cast pass was over, or written under that schema.
 */
function inSchemaForm(collection: UserCollection, version: number, readAt: number): boolean {
  return readAt >= collection.castUntil || version >= collection.switchedAt;
}

/** `conformRead`, giving the record itself when it is already in the schema's form (`conform` gives null then). */
export async function castRead(collection: UserCollection, record: JsonObject): Promise<JsonObject> {
  return (await conformRead(collection, record)) ?? record;
}

/**
 * `inForm` of a record's stored JSON text, as a JSON text (the same text when nothing changes). `forMigration`:
 * the record is one another collection's migration loads (loadReferenced).
 */
export async function textInForm(collection: UserCollection, text: string, version: number, readAt: number, forMigration = false): Promise<string> {
  if (inSchemaForm(collection, version, readAt)) return text;
  const record = JSON.parse(text) as JsonObject;
  if (forMigration && collection.loadReferenced) {
    // Its own migration would load records in turn, which could lead back here: one migration that loads records
    // at a time per chain of references.
    throw new ServiceError(
      'unavailable',
      'collection/migrating',
      `record ${JSON.stringify(record.id)} of ${collection.collectionId} is referenced by a record being migrated, but is itself waiting for a migration that loads referenced records; retry once the migration of ${collection.collectionId} is over`,
    );
  }
  const cast = await conformRead(collection, record);
  return cast === null ? text : JSON.stringify(cast);
}

/** `collection.conform` of a record read for a request: the records its migration loads are read first. */
export async function conformRead(collection: UserCollection, record: JsonObject): Promise<JsonObject | null> {
  const referenced = collection.loadReferenced ? await collection.loadReferenced([record]) : undefined;
  return collection.conform(record, referenced);
}

/**
 * The records a migration loads (its stored records' references), each read as `readInForm` reads a call's record
 * argument: in the form of its collection's schema current at the read, with no permission check (the migration
 * is the schema owner's). A record (or collection) that does not exist is null: the migration then fails over
 * the record that references it, naming the field.
 */
export async function loadReferenced(collections: CollectionRegistry, store: RecordStore, targets: readonly ReferenceTarget[]): Promise<ReferencedRecords> {
  const unique = new Map(targets.map((target) => [referenceKey(target), target]));
  const loaded = await Promise.all(
    [...unique].map(async ([key, target]) => {
      try {
        const { text } = await readInForm(collections, store, target.collectionId, target.id, true);
        return [key, text === null ? null : (JSON.parse(text) as WireRecord)] as const;
      } catch (error) {
        if (isUnknownCollection(error) || (isStoreError(error) && error.reason === 'record/invalid-id')) return [key, null] as const;
        throw error;
      }
    }),
  );
  return new Map(loaded);
}

/** Whether `readInForm` failed because there is no such collection (or its id is not one the store allows). */
export function isUnknownCollection(error: unknown): boolean {
  return (error instanceof ServiceError || isStoreError(error)) && (error.reason === 'collection/not-found' || error.reason === 'collection/invalid-id');
}
