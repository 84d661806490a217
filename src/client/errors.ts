// What a failed request throws: the service's error envelope `{ error: { code, reason, message } }` with the
// HTTP status, or a description of an answer that was not one, or of a request that got no answer.
//
// `code` and `reason` are typed as the service's own unions. The lists are the service's error catalogue
// (src/service/errors.ts, ERROR_CATALOGUE), copied here because the client loads nothing of the server;
// test/client/error-catalogue.test.ts checks that the two agree, so a reason added to the service fails that test
// until it is added here too.

/** Every `code` of the service's error envelope, with the HTTP status it comes with. */
export const SERVICE_ERROR_CODES = [
  'invalid-argument',
  'failed-precondition',
  'permission-denied',
  'not-found',
  'already-exists',
  'aborted',
  'payload-too-large',
  'resource-exhausted',
  'unavailable',
  'internal',
] as const;

/** Every `reason` of the service's error envelope. */
export const SERVICE_ERROR_REASONS = [
  'request/invalid',
  'request/invalid-body',
  'request/invalid-json',
  'request/invalid-query',
  'request/invalid-url',
  'request/invalid-http',
  'request/invalid-header',
  'request/method-not-allowed',
  'request/unsupported-encoding',
  'request/body-too-large',
  'request/headers-too-large',
  'request/timeout',
  'request/rate-limited',
  'request/too-many-expansions',
  'route/not-found',
  'collection/not-found',
  'collection/invalid-schema',
  'collection/invalid-id',
  'collection/id-exists',
  'collection/data-loss',
  'collection/migrating',
  'record/not-found',
  'record/not-object',
  'record/id-not-string',
  'record/invalid-id',
  'record/invalid-field',
  'record/missing-field',
  'record/id-modified',
  'record/conflict',
  'constructor/no-id-assigned',
  'function/not-found',
  'function/invalid-args',
  'function/collection-error',
  'function/javascript-exception',
  'function/out-of-gas',
  'function/arithmetic-error',
  'function/limit-exceeded',
  'function/invalid-return',
  'indexer/missing-index',
  'indexer/query-inequality-not-last',
  'indexer/invalid-query-value',
  'indexer/invalid-query',
  'indexer/invalid-cursor',
  'indexer/scan-limit-exceeded',
  'indexer/invalid-search',
  'indexer/no-search-index',
  'stream/too-many-streams',
  'stream/too-many-records',
  'permission/unconfined-query',
  'permission/limit-exceeded',
  'permission/create-collection',
  'permission/change-schema',
  'auth/invalid-signature',
  'unauthorized',
  'store/invalid-commit',
  'store/unavailable',
  'store/internal',
  'internal',
] as const;

export type ServiceErrorCode = (typeof SERVICE_ERROR_CODES)[number];
export type ServiceErrorReason = (typeof SERVICE_ERROR_REASONS)[number];

/** A VellumError's code: the service's, or `unknown` for an answer that is not the service's envelope. */
export type ErrorCode = ServiceErrorCode | 'unknown';

/**
 * A VellumError's reason: the service's, or one of the client's own: `request/failed` (no answer came: the
 * network, DNS, a refused connection; status 0, the fetch's error as `cause`) and `response/unexpected` (an answer
 * that is not what the service sends: a proxy's error page, or an envelope with a code or reason this client does
 * not know).
 */
export type ErrorReason = ServiceErrorReason | 'request/failed' | 'response/unexpected';

const CODES: ReadonlySet<string> = new Set(SERVICE_ERROR_CODES);
const REASONS: ReadonlySet<string> = new Set(SERVICE_ERROR_REASONS);

export class VellumError extends Error {
  override readonly name = 'VellumError';

  constructor(
    /** The HTTP status (0 when no answer arrived). */
    readonly status: number,
    /** The error class: `invalid-argument`, `not-found`, `permission-denied`, ... */
    readonly code: ErrorCode,
    /** The precise reason: `record/not-found`, `function/collection-error`, ... */
    readonly reason: ErrorReason,
    message: string,
    /** `cause`: what went wrong underneath (for `request/failed`, the fetch's own error). */
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The service's error triple of an answer's body or a stream's error event, or undefined when it holds none. */
export function errorOfEnvelope(status: number, body: unknown): VellumError | undefined {
  const error = (body as { error?: unknown } | undefined)?.error;
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, reason, message } = error as Record<string, unknown>;
  if (typeof code !== 'string' || typeof reason !== 'string' || typeof message !== 'string') return undefined;
  if (CODES.has(code) && REASONS.has(reason)) return new VellumError(status, code as ServiceErrorCode, reason as ServiceErrorReason, message);
  // A later service's error: kept whole in the message, so nothing the service said is lost.
  return new VellumError(status, 'unknown', 'response/unexpected', `the service answered ${status} ${code} ${reason}, which this client does not know: ${message}`);
}

/** The error of a non-2xx answer: its envelope when it has one, else a description of what came back. */
export function errorOfAnswer(status: number, body: unknown, text: string): VellumError {
  const error = errorOfEnvelope(status, body);
  if (error) return error;
  const preview = text.length > 200 ? `${text.slice(0, 197)}...` : text;
  return new VellumError(status, 'unknown', 'response/unexpected', `the service answered ${status} without an error envelope: ${JSON.stringify(preview)}`);
}

/** An answer of the right status whose body is not what the route answers (a proxy's page, another service). */
export function unexpectedAnswer(status: number, what: string): VellumError {
  return new VellumError(status, 'unknown', 'response/unexpected', `the service answered ${status} with ${what}`);
}
