// The error envelope: every failure becomes `{"error":{"code","reason","message"}}` with the HTTP status of its
// code (docs/service.md, "Errors"). Typed errors of the other modules (store, auth, runtime) and fastify's
// own errors (bad URL, oversize body, unknown route) are all mapped here, so nothing reaches a client as text.

import { AuthError } from '../auth/index.ts';
import type { RuntimeError, RuntimeErrorReason } from '../runtime/index.ts';
import { StoreError, type ErrorReason as StoreErrorReason } from '../store/index.ts';

export type ErrorCode =
  | 'invalid-argument'
  | 'failed-precondition'
  | 'permission-denied'
  | 'not-found'
  | 'already-exists'
  | 'aborted'
  | 'payload-too-large'
  | 'resource-exhausted'
  | 'unavailable'
  | 'internal';

const STATUS: Record<ErrorCode, number> = {
  'invalid-argument': 400,
  'failed-precondition': 400,
  'permission-denied': 403,
  'not-found': 404,
  'already-exists': 409,
  aborted: 409,
  'payload-too-large': 413,
  'resource-exhausted': 429,
  unavailable: 503,
  internal: 500,
};

/** The reasons the service gives of its own, beside those of the store, the runtime and auth. */
type ServiceOwnReason =
  | 'request/invalid'
  | 'request/invalid-body'
  | 'request/invalid-json'
  | 'request/invalid-query'
  | 'request/invalid-url'
  | 'request/invalid-http'
  | 'request/invalid-header'
  | 'request/method-not-allowed'
  | 'request/unsupported-encoding'
  | 'request/body-too-large'
  | 'request/headers-too-large'
  | 'request/timeout'
  | 'request/rate-limited'
  | 'request/too-many-expansions'
  | 'route/not-found'
  | 'collection/id-exists'
  | 'collection/data-loss'
  | 'collection/migrating'
  | 'stream/too-many-streams'
  | 'stream/too-many-records'
  | 'permission/unconfined-query'
  | 'permission/limit-exceeded'
  | 'permission/create-collection'
  | 'permission/change-schema'
  | 'unauthorized'
  | 'internal';

/** Every `reason` an error envelope of the service may hold. */
export type ErrorReason = ServiceOwnReason | StoreErrorReason | RuntimeErrorReason | AuthError['reason'];

// The catalogue as values: an object with every reason as a key, so that the compiler refuses a reason missing
// from it or one that is not a reason. vellum/client keeps its own copy (it loads nothing of the server), and
// test/client/error-catalogue.test.ts checks that both lists agree.
const REASONS: { readonly [R in ErrorReason]: true } = {
  'request/invalid': true,
  'request/invalid-body': true,
  'request/invalid-json': true,
  'request/invalid-query': true,
  'request/invalid-url': true,
  'request/invalid-http': true,
  'request/invalid-header': true,
  'request/method-not-allowed': true,
  'request/unsupported-encoding': true,
  'request/body-too-large': true,
  'request/headers-too-large': true,
  'request/timeout': true,
  'request/rate-limited': true,
  'request/too-many-expansions': true,
  'route/not-found': true,
  'collection/not-found': true,
  'collection/invalid-schema': true,
  'collection/invalid-id': true,
  'collection/id-exists': true,
  'collection/data-loss': true,
  'collection/migrating': true,
  'record/not-found': true,
  'record/not-object': true,
  'record/id-not-string': true,
  'record/invalid-id': true,
  'record/invalid-field': true,
  'record/missing-field': true,
  'record/id-modified': true,
  'record/conflict': true,
  'constructor/no-id-assigned': true,
  'function/not-found': true,
  'function/invalid-args': true,
  'function/collection-error': true,
  'function/javascript-exception': true,
  'function/out-of-gas': true,
  'function/arithmetic-error': true,
  'function/limit-exceeded': true,
  'function/invalid-return': true,
  'indexer/missing-index': true,
  'indexer/query-inequality-not-last': true,
  'indexer/invalid-query-value': true,
  'indexer/invalid-query': true,
  'indexer/invalid-cursor': true,
  'indexer/scan-limit-exceeded': true,
  'indexer/invalid-search': true,
  'indexer/no-search-index': true,
  'stream/too-many-streams': true,
  'stream/too-many-records': true,
  'permission/unconfined-query': true,
  'permission/limit-exceeded': true,
  'permission/create-collection': true,
  'permission/change-schema': true,
  'auth/invalid-signature': true,
  unauthorized: true,
  'store/invalid-commit': true,
  'store/unavailable': true,
  'store/internal': true,
  internal: true,
};

/** The error catalogue: every `code` and every `reason` an error envelope of the service may hold. */
export const ERROR_CATALOGUE = {
  codes: Object.keys(STATUS) as ErrorCode[],
  reasons: Object.keys(REASONS) as ErrorReason[],
};

export interface ErrorBody {
  error: { code: ErrorCode; reason: ErrorReason; message: string };
}

/** A failure the service itself detects; `status` follows from `code` unless given. */
export class ServiceError extends Error {
  override readonly name = 'ServiceError';
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    readonly reason: ErrorReason,
    message: string,
    status?: number,
  ) {
    super(message);
    this.status = status ?? STATUS[code];
  }
}

/** 429 `request/rate-limited`: answered with `Retry-After: <retryAfter>` (whole seconds). */
export class RateLimitedError extends ServiceError {
  constructor(
    message: string,
    readonly retryAfter: number,
  ) {
    super('resource-exhausted', 'request/rate-limited', message);
  }
}

const RUNTIME_CODES: Record<RuntimeErrorReason, ErrorCode> = {
  'function/not-found': 'not-found',
  'function/invalid-args': 'invalid-argument',
  'function/collection-error': 'failed-precondition',
  'function/javascript-exception': 'failed-precondition',
  'function/out-of-gas': 'failed-precondition',
  'function/limit-exceeded': 'failed-precondition',
  'function/arithmetic-error': 'failed-precondition',
  'function/invalid-return': 'failed-precondition',
  'constructor/no-id-assigned': 'invalid-argument',
  'record/id-modified': 'failed-precondition',
  'record/missing-field': 'invalid-argument',
  'record/invalid-field': 'invalid-argument',
  'record/not-found': 'not-found',
};

/** A runtime error (a function failed) as a service error. */
export function fromRuntimeError(error: RuntimeError): ServiceError {
  return new ServiceError(RUNTIME_CODES[error.reason] ?? 'failed-precondition', error.reason, error.message);
}

export function notFound(reason: ErrorReason, message: string): ServiceError {
  return new ServiceError('not-found', reason, message);
}

export function invalidArgument(reason: ErrorReason, message: string): ServiceError {
  return new ServiceError('invalid-argument', reason, message);
}

export function unauthorized(message: string): ServiceError {
  return new ServiceError('permission-denied', 'unauthorized', message);
}

/** Longest path parameter (collection id, record id, function name) the router takes, in characters. */
export const MAX_PARAM_LENGTH = 4096;

/** The 413 of a request body over the service's limit. */
export function bodyTooLarge(): ServiceError {
  return new ServiceError('payload-too-large', 'request/body-too-large', 'request body is larger than the service accepts');
}

/** Fastify's own errors, by their code. */
const FRAMEWORK: Record<string, (message: string) => ServiceError> = {
  FST_ERR_CTP_BODY_TOO_LARGE: () => bodyTooLarge(),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () =>
    invalidArgument('request/invalid-body', 'request body length does not match its Content-Length header'),
  FST_ERR_BAD_URL: () => invalidArgument('request/invalid-url', 'the URL has an invalid percent-encoding (a % must be followed by two hex digits of UTF-8)'),
  FST_ERR_CTP_EMPTY_JSON_BODY: () => invalidArgument('request/invalid-body', 'request body is empty; expected {"args": [...]}'),
  FST_ERR_CTP_INVALID_MEDIA_TYPE: (message) => invalidArgument('request/invalid-body', message),
  FST_ERR_ASYNC_CONSTRAINT: () => invalidArgument('request/invalid-url', 'the request does not match a route'),
  FST_ERR_MAX_PARAM_LENGTH: () =>
    new ServiceError('invalid-argument', 'request/invalid-url', `a path segment (collection id, record id or function name) is longer than ${MAX_PARAM_LENGTH} characters`, 414),
};

/**
 * A request Node's HTTP parser refused before fastify saw it (`clientError`): `[status, envelope]`. Undefined when
 * there is no one to answer (the client reset the connection).
 */
export function clientErrorResponse(error: { code?: string }, maxHeaderSize: number): { status: number; body: ErrorBody } | undefined {
  const answer = (status: number, reason: ErrorReason, message: string) => ({ status, body: { error: { code: 'invalid-argument' as const, reason, message } } });
  switch (error.code) {
    case 'ECONNRESET':
      return undefined;
    case 'HPE_HEADER_OVERFLOW':
      return answer(431, 'request/headers-too-large', `the request line and headers (the URL with its query string) are larger than ${maxHeaderSize} bytes`);
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return answer(408, 'request/timeout', 'the request was not received in time');
    default:
      return answer(400, 'request/invalid-http', 'the request is not valid HTTP/1.1');
  }
}

/** Any thrown value as `[status, envelope]`. Unknown errors are 500 `internal` with a generic message. */
export function toErrorResponse(error: unknown): { status: number; body: ErrorBody; internal: boolean; retryAfter?: number } {
  const make = (status: number, code: ErrorCode, reason: ErrorReason, message: string, internal = false) => ({
    status,
    body: { error: { code, reason, message } },
    internal,
  });
  if (error instanceof RateLimitedError) return { ...make(error.status, error.code, error.reason, error.message), retryAfter: error.retryAfter };
  if (error instanceof ServiceError) return make(error.status, error.code, error.reason, error.message);
  if (error instanceof StoreError) {
    if (error.code === 'internal') return make(500, 'internal', error.reason, error.message, true);
    return make(STATUS[error.code], error.code, error.reason, error.message);
  }
  if (error instanceof AuthError) return make(STATUS[error.code], error.code, error.reason, error.message);
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code in FRAMEWORK) {
    const mapped = FRAMEWORK[code]!((error as Error).message);
    return make(mapped.status, mapped.code, mapped.reason, mapped.message);
  }
  const statusCode = (error as { statusCode?: unknown } | null)?.statusCode;
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) {
    // Another client error from fastify (a malformed request it refused): keep its status and text.
    return make(statusCode, 'invalid-argument', 'request/invalid', (error as Error).message);
  }
  return make(500, 'internal', 'internal', 'internal error', true);
}
