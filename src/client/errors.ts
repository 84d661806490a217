// What a failed request throws: the service's error envelope `{ error: { code, reason, message } }` with the
// HTTP status, or a description of an answer that was not one.

export class VellumError extends Error {
  override readonly name = 'VellumError';

  constructor(
    /** The HTTP status (0 when no answer arrived). */
    readonly status: number,
    /** The error class: `invalid-argument`, `not-found`, `permission-denied`, ... */
    readonly code: string,
    /** The precise reason: `record/not-found`, `function/collection-error`, ... */
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

/** The error of a non-2xx answer: its envelope when it has one, else a description of what came back. */
export function errorOfAnswer(status: number, body: unknown, text: string): VellumError {
  const error = (body as { error?: unknown } | undefined)?.error;
  if (typeof error === 'object' && error !== null) {
    const { code, reason, message } = error as Record<string, unknown>;
    if (typeof code === 'string' && typeof reason === 'string' && typeof message === 'string') return new VellumError(status, code, reason, message);
  }
  const preview = text.length > 200 ? `${text.slice(0, 197)}...` : text;
  return new VellumError(status, 'unknown', 'response/unexpected', `the service answered ${status} without an error envelope: ${JSON.stringify(preview)}`);
}

/** An answer of the right status whose body is not what the route answers (a proxy's page, another service). */
export function unexpectedAnswer(status: number, what: string): VellumError {
  return new VellumError(status, 'unknown', 'response/unexpected', `the service answered ${status} with ${what}`);
}
