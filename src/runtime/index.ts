// The function runtime: compile a collection once, execute its functions over record snapshots, and
// evaluate permissions. Everything here is deterministic and never throws on bad input.

export { compileCollection, CollectionNotFoundError, type CompiledCollection, type CompileOptions } from './collection.ts';
export {
  execute,
  isMigration,
  type ChangedRecord,
  type ExecuteResult,
  type ExecutionContext,
  type RecordArgument,
  type Transition,
} from './execute.ts';
export { recordArguments, type RecordArgumentRequest } from './references.ts';
export { callableByEveryone, canCall, canRead, delegatesTo, readableByEveryone, readGrantingFields, type CallPermission, type PermissionLoader, type LoadedRecord } from './permissions.ts';
export { DEFAULT_LIMITS, MAX_GAS, MAX_NESTING_LEVELS, GAS, type ExecutionLimits } from './limits.ts';
export type { RuntimeError, RuntimeErrorReason } from './errors.ts';
export { PublicKey } from './values.ts';
export type { JsonValue, WireRecord } from './wire.ts';
export { castStoredRecord, type CastResult } from './cast-record.ts';
export {
  migrateRecord,
  migrationOf,
  loadedShapeProblem,
  migrationShapeProblem,
  referenceKey,
  referencesToLoad,
  type LoadedReference,
  type Migration,
  type MigrationOutcome,
  type ReferencedRecords,
  type ReferenceTarget,
} from './migrate-record.ts';
export { SchemaChange, castDropping, followMigrated, followRecord, type FieldChange, type LostValue, type RecordFollow } from './schema-change.ts';
export { runtimeBuiltins, unimplementedBuiltins } from './builtins.ts';
