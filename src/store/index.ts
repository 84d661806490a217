// The public face of src/store: the record store, its backends, layouts, key encoding and errors.

export {
  RecordStore,
  retryOnConflict,
  DEFAULT_LIMIT,
  DEFAULT_SCAN_LIMIT,
  DEFAULT_PAGE_BYTES,
  MAX_LIMIT,
  type CommitRequest,
  type AggregateQuery,
  type AggregateResult,
  type CountOptions,
  type CountQuery,
  type CountResult,
  type DefineOptions,
  type DefineResult,
  type Expectation,
  type GetResult,
  type RawGetResult,
  type JsonObject,
  type ListOptions,
  type ListQuery,
  type ListResult,
  type RawListResult,
  type ReadFilter,
  type RebuildProgress,
  type SignatureClaim,
  type StampExpectation,
  type StoreOptions,
  type Write,
} from './record-store.ts';
export { layoutOf, valueAtPath, type FieldInfo, type IndexDefinition, type IndexField, type Layout } from './layout.ts';
export { SqliteKv, openSqlite, type SqliteOptions } from './sqlite.ts';
export { NativeModuleError } from './sqlite-native.ts';
export { PostgresKv, openPostgres, type PostgresOptions } from './postgres.ts';
export type { ClockedText, KvStore, KvEntry, KvOp, ScanOptions, SearchHit, SearchOp, SearchPosition, SearchScan, TextScanOptions, TransactionBody } from './kv.ts';
export type { KeyRange } from './keys.ts';
export type { TokenBuckets, TokenRefusal, TokenTake } from './token-buckets.ts';
export { PostgresBuckets } from './postgres-buckets.ts';
export { MAX_COLLECTION_ID_BYTES, MAX_RECORD_ID_BYTES } from './keys.ts';
export { checkCollectionId } from './validation.ts';
export { ChangeFeed, MAX_WAIT_MS, type Change, type ChangeTarget, type CommitChanges } from './changes.ts';
export { encodeValue, encodeTuple, MAX_INDEXED_STRING_BYTES, type Direction, type KeyValue } from './encoding.ts';
export { publicKeyBytes, queryKeyValue, recordKeyValue, type IndexableType } from './cast.ts';
export { planUnion, MAX_RANGES, type UnionPlan } from './planner.ts';
export type { FixedField, ScanBounds, ScanCheck, ScanRange } from './scan-bounds.ts';
export { WHERE_LIMITS, WHERE_OPERATORS, WHERE_OPERATOR_NAMES, type WhereOperator } from '../wire/index.ts';
export { MAX_IN_VALUES, MAX_NIN_VALUES, MAX_BRANCHES, whereMatcher } from './where.ts';
export { MAX_OR_DEPTH } from './where.ts';
export { AGGREGATE_KINDS, MAX_AGGREGATE_FIELDS, type AggregateKind, type AggregateRequest, type AggregateValues } from './aggregates.ts';
export { DEFAULT_COUNT_SCAN_LIMIT } from './union-read.ts';
export { MAX_INDEXED_ARRAY_ELEMENTS, overfullArrayFieldsCheck, type OverfullArrayField } from './index-entries.ts';
export { timestampToSeconds, secondsToTimestamp } from './timestamps.ts';
export {
  StoreError,
  ConflictError,
  SignatureReplayError,
  isStoreError,
  type ErrorCode,
  type ErrorReason,
} from './errors.ts';

import { RecordStore, type StoreOptions } from './record-store.ts';
import { openSqlite, type SqliteOptions } from './sqlite.ts';
import { openPostgres, type PostgresOptions } from './postgres.ts';

/** A record store on SQLite: a file path (WAL mode), or `:memory:`. */
export function openSqliteStore(path = ':memory:', options: SqliteOptions & StoreOptions = {}): RecordStore {
  return new RecordStore(openSqlite(path, options), options);
}

/** A record store on PostgreSQL; several processes may open the same database and table. */
export async function openPostgresStore(options: PostgresOptions & StoreOptions): Promise<RecordStore> {
  return new RecordStore(await openPostgres(options), options);
}
