// How the service reads one stored record by id for a request: a get's answer, a call's record argument, a record
// a permission check walks to through a reference, an expanded reference, a stream's event. A schema change's
// cast pass (or migration) rewrites the stored records in batches while requests go on, so a record it has not
// reached yet may still be in the old schema's form; read here, it comes in the form of the schema current at the
// read (collections.ts `inForm`), so that nothing the service answers, checks or runs on is of two forms. (The
// record a call runs on is read with the meta collection's stamp, and a list page as a page, in records.ts; both
// pass through the same `inForm`.)
import { isStoreError, type RawGetResult, type RecordStore } from '../store/index.ts';
import { textInForm, type CollectionRegistry, type ResolvedCollection } from './collections.ts';
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
export async function readInForm(collections: CollectionRegistry, store: RecordStore, collectionId: string, id: string): Promise<FormRead> {
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
    if (text === null || collection.kind !== 'user') return { collection, text, version, timestamp };
    return { collection, text: textInForm(collection, text, version!, timestamp), version, timestamp };
  }
}

/** Whether `readInForm` failed because there is no such collection (or its id is not one the store allows). */
export function isUnknownCollection(error: unknown): boolean {
  return (error instanceof ServiceError || isStoreError(error)) && (error.reason === 'collection/not-found' || error.reason === 'collection/invalid-id');
}
