// Typed store errors: a `code` saying what kind of failure it is, a `reason` naming it (Polybase's reason string where
// Polybase had one, docs/service.md "Errors") and a message naming the field. How an error is presented (the HTTP
// status and the envelope) is the service's business (src/service/errors.ts).

export type ErrorCode =
  | 'invalid-argument' // the request itself is wrong: a malformed where, sort, cursor or value
  | 'failed-precondition' // the request cannot be served as the data stands
  | 'not-found'
  | 'already-exists'
  | 'aborted' // a concurrent commit changed what this one read; retry
  | 'internal'
  | 'unavailable'; // the database is down, unreachable or too slow; retry later

export type ErrorReason =
  | 'indexer/missing-index'
  | 'indexer/query-inequality-not-last'
  | 'indexer/invalid-query-value'
  | 'indexer/invalid-query'
  | 'indexer/invalid-cursor'
  | 'indexer/scan-limit-exceeded'
  | 'indexer/invalid-search'
  | 'indexer/no-search-index'
  | 'collection/not-found'
  | 'collection/invalid-schema'
  | 'collection/invalid-id'
  | 'record/not-object'
  | 'record/id-not-string'
  | 'record/invalid-id'
  | 'record/invalid-field'
  | 'record/conflict'
  | 'store/invalid-commit'
  | 'auth/invalid-signature'
  | 'store/internal'
  | 'store/unavailable';

export class StoreError extends Error {
  override readonly name = 'StoreError';
  constructor(
    readonly code: ErrorCode,
    readonly reason: ErrorReason,
    message: string,
  ) {
    super(message);
  }

  toJSON(): { code: ErrorCode; reason: ErrorReason; message: string } {
    return { code: this.code, reason: this.reason, message: this.message };
  }
}

/** A commit whose expectations no longer hold (a record it read has changed). Retry the whole operation. */
export class ConflictError extends StoreError {
  constructor(
    message: string,
    readonly collectionId: string,
    readonly id: string,
  ) {
    super('aborted', 'record/conflict', message);
  }
}

/** The commit tried to mark a signature as used that is already used (a replayed request). */
export class SignatureReplayError extends StoreError {
  constructor() {
    super('invalid-argument', 'auth/invalid-signature', 'signature has already been used');
  }
}

export function isStoreError(error: unknown): error is StoreError {
  return error instanceof StoreError;
}

export function invalidQuery(message: string): StoreError {
  return new StoreError('invalid-argument', 'indexer/invalid-query', message);
}

export function invalidQueryValue(message: string): StoreError {
  return new StoreError('invalid-argument', 'indexer/invalid-query-value', message);
}

export function invalidCursor(message: string): StoreError {
  return new StoreError('invalid-argument', 'indexer/invalid-cursor', message);
}

export function collectionNotFound(collectionId: string): StoreError {
  return new StoreError('not-found', 'collection/not-found', `collection "${collectionId}" not found`);
}

/** A database that cannot serve now (down, unreachable, too slow, locked, full): `what` says which; retry later. */
export function databaseUnavailable(database: 'SQLite' | 'PostgreSQL', what: string, cause: Error): StoreError {
  return new StoreError('unavailable', 'store/unavailable', `${database}: ${what} (${cause.message}); retry later`);
}
