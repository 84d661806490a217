// The record service: Polybase's HTTP surface under /v0 over the store and the runtime.
export { buildApp, DEFAULT_BODY_LIMIT, DEFAULT_REQUEST_TIMEOUT_MS, type AppOptions } from './app.ts';
export { startServer, openStore, installSchemaFiles, type ServerOptions, type RunningServer } from './server.ts';
export { vellum, createVellumHandler, type EmbedOptions, type VellumHandler } from './embed.ts';
export { RecordService, createRecordService, ServiceNotReadyError, type PlannedChange, type PrivateLists, type RecordServiceOptions } from './records.ts';
export { UNCONFINED_REASON } from './confinement.ts';
export { DEFAULT_SCHEMA_CACHE_CHARS } from './collections.ts';
export { MigrationStatus, type MigrationEvent, type MigrationProgress } from './migration-status.ts';
export { ERROR_CATALOGUE, ServiceError, toErrorResponse, type ErrorBody, type ErrorCode, type ErrorReason } from './errors.ts';
export { META_COLLECTION_ID, META_COLLECTION_CODE, checkCollectionSchema, describeDiagnostics } from './meta-collection.ts';
export { checkPlan, describePlan, planSchemaChange, type FieldPlan, type PermissionChange, type SchemaPlan } from './schema-plan.ts';
export { HISTORY_COLLECTION_ID, type SchemaVersion } from './schema-history.ts';
export { authenticate, type Caller } from './signature.ts';
export { MAX_WAIT_MS, parseWaitFor } from './request.ts';
export { readSchemaFiles, type SchemaFileCollection } from './schema-files.ts';
export { FileReadError, MAX_SCHEMA_FILE_BYTES, readBounded, readBoundedText } from '../files/index.ts';
export { DEFAULT_EXPLORER_DIR, EXPLORER_PATH, registerExplorer, type ExplorerOptions } from './explorer.ts';
export {
  CREATE_POLICIES,
  DEFAULT_CREATE_POLICY,
  SchemaAccess,
  parsePublicKey,
  type CreatePolicy,
  type ReservedNamespace,
  type SchemaAccessOptions,
} from './schema-access.ts';
export { CorsPolicy, parseOrigin, type CorsOptions } from './cors.ts';
export { Buckets, DEFAULT_RATE_LIMITS, RateLimiter, type RateLimitOptions } from './rate-limit.ts';
export { ClientAddresses } from './client-address.ts';
export { createLogger, LOG_FORMATS, LOG_LEVELS, type LogFormat, type LoggerOptions } from './log.ts';
