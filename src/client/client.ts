// The connection to a record service: where it is, which namespace the collections live in, who signs, and the
// one place that sends requests and turns answers into values or VellumErrors.
import { Collection, type CollectionSchema } from './collection.ts';
import { errorOfAnswer, unexpectedAnswer, VellumError } from './errors.ts';
import { SIGNATURE_HEADER, signatureHeader, type Signer } from './signer.ts';

/**
 * A read signs only `<t>.` (it has no body), so one signature serves every read. As @polybase/client does, it is
 * signed an hour ahead (the service accepts a `t` up to 65 minutes ahead and 5 behind) and used for that hour: the
 * service recovers the key once and remembers the header, and a wallet's signer asks its user once an hour
 * instead of at each read.
 */
const READ_SIGNATURE_MS = 60 * 60 * 1000;

export interface ClientOptions {
  /** The service's API root, with its `/v0`: `http://localhost:8080/v0` (as @polybase/client's `baseURL`). */
  baseURL: string;
  /**
   * The collections are `<namespace>/<Name>` (what `vellum serve --namespace` installs them as). Without one,
   * collections are named by their whole id (`collectionById`).
   */
  namespace?: string;
  /** Signs writes, and reads of collections that are not public. Without one, requests go unsigned. */
  signer?: Signer;
  /** The fetch to use (default: the global one). */
  fetch?: typeof fetch;
}

export interface ServiceRequest {
  method: 'GET' | 'POST';
  /** Under the base URL, already percent-encoded: `/collections/ns%2FAccount/records`. */
  path: string;
  query?: Readonly<Record<string, string>>;
  /** JSON text of a POST. */
  body?: string;
  sign: boolean;
  /** Aborts the request: it rejects with the signal's reason (an `AbortError` unless given another). */
  signal?: AbortSignal;
}

/** What every method that sends a request takes besides its own options. */
export interface RequestOptions {
  /**
   * Cancels the request (or the subscription, or the long-poll): its connection is closed at once, and the call
   * rejects with the signal's reason, as fetch does (`AbortError`, a DOMException, unless `abort(reason)` gave one).
   */
  signal?: AbortSignal;
}

export interface ServiceAnswer {
  status: number;
  /** The parsed JSON body; undefined for 304. */
  body: unknown;
  headers: Headers;
}

export class Client {
  readonly baseURL: string;
  readonly namespace: string | undefined;
  readonly #signer: Signer | undefined;
  readonly #fetch: typeof fetch;
  #read: { header: string; until: number } | undefined;
  #lastWrite = 0;

  constructor(options: ClientOptions) {
    if (typeof options?.baseURL !== 'string' || !isHttpUrl(options.baseURL)) {
      throw new TypeError(`baseURL must be an absolute http(s) URL such as "http://localhost:8080/v0", got ${JSON.stringify(options?.baseURL)}`);
    }
    // Paths are appended to the text: after a `?` or `#` they would be part of the query or fragment instead.
    if (/[?#]/.test(options.baseURL)) {
      throw new TypeError(`baseURL must have no query or fragment (the client appends paths to it), got ${JSON.stringify(options.baseURL)}`);
    }
    if (options.namespace !== undefined && (typeof options.namespace !== 'string' || options.namespace === '')) {
      throw new TypeError(`namespace must be a non-empty string (collections are "<namespace>/<Name>"), got ${JSON.stringify(options.namespace)}`);
    }
    if (options.signer !== undefined && typeof options.signer !== 'function') throw new TypeError('signer must be a function (data) => { h, sig }');
    this.baseURL = options.baseURL.replace(/\/+$/, '');
    this.namespace = options.namespace;
    this.#signer = options.signer;
    // Called as a plain function: a browser's fetch called as a method of another object throws "Illegal
    // invocation". Looked up at each request, so a fetch replaced later (a test's stub, a polyfill) is the one used.
    this.#fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }

  /** A collection of this namespace, typed by its generated schema. */
  collection<S extends CollectionSchema>(name: S['name'], options: { signReads?: boolean } = {}): Collection<S> {
    if (this.namespace === undefined) throw new TypeError(`collection(${JSON.stringify(name)}): this client has no namespace; give one, or use collectionById("<namespace>/<Name>")`);
    return new Collection<S>(this, `${this.namespace}/${name}`, options.signReads ?? false);
  }

  /**
   * A collection by its whole id (`app/Account`, or `Collection`, the collections themselves), for a client that
   * works with any collection of a service, such as a console; `UntypedSchema` types it when no schema is generated.
   */
  collectionById<S extends CollectionSchema = UntypedSchema>(id: string, options: { signReads?: boolean } = {}): Collection<S> {
    if (typeof id !== 'string' || id === '') throw new TypeError(`a collection id must be a non-empty string, got ${JSON.stringify(id)}`);
    return new Collection<S>(this, id, options.signReads ?? false);
  }

  /** Sends one request; a 2xx or 304 answer is returned, any other is thrown as a VellumError. */
  async send(request: ServiceRequest): Promise<ServiceAnswer> {
    const response = await this.#fetchResponse(request, {}, request.signal);
    if (response.status === 304) return { status: 304, body: undefined, headers: response.headers };
    const text = await this.#text(request, response);
    const body = jsonOrUndefined(text);
    if (!response.ok) throw errorOfAnswer(response.status, body, text);
    if (body === undefined) throw unexpectedAnswer(response.status, `a body that is not JSON: ${JSON.stringify(text.slice(0, 200))}`);
    return { status: response.status, body, headers: response.headers };
  }

  /** Sends one request whose answer is read as it arrives (a stream); any answer but a 2xx is thrown as a VellumError. */
  async open(request: ServiceRequest, headers: Readonly<Record<string, string>>, signal: AbortSignal): Promise<Response> {
    const response = await this.#fetchResponse(request, headers, signal);
    if (response.ok) return response;
    const text = await this.#text(request, response, signal);
    const body = jsonOrUndefined(text);
    throw errorOfAnswer(response.status, body, text);
  }

  /** An answer's body as text; a connection lost on the way is `request/failed`, as a fetch that failed is. */
  async #text(request: ServiceRequest, response: Response, signal = request.signal): Promise<string> {
    try {
      return await response.text();
    } catch (error) {
      throw failed(request, error, signal);
    }
  }

  async #fetchResponse(request: ServiceRequest, extraHeaders: Readonly<Record<string, string>>, signal?: AbortSignal): Promise<Response> {
    const url = new URL(this.baseURL + request.path);
    for (const [name, value] of Object.entries(request.query ?? {})) url.searchParams.set(name, value);
    const headers: Record<string, string> = { ...extraHeaders };
    if (request.body !== undefined) headers['Content-Type'] = 'application/json';
    signal?.throwIfAborted();
    if (request.sign && this.#signer) {
      const signature = request.method === 'GET' ? await this.#readSignature(this.#signer) : await signatureHeader(this.#signer, request.body ?? '', this.#writeTime());
      if (signature !== null) headers[SIGNATURE_HEADER] = signature;
      signal?.throwIfAborted();
    }
    try {
      return await this.#fetch(url, { method: request.method, headers, body: request.body, signal });
    } catch (error) {
      throw failed(request, error, signal);
    }
  }

  /**
   * The signature of every read for the hour ahead (see READ_SIGNATURE_MS); null when the signer declines, which is
   * not kept: a signer that declines now (a wallet not yet connected) is asked again at the next read.
   */
  async #readSignature(signer: Signer): Promise<string | null> {
    const now = Date.now();
    if (this.#read !== undefined && now < this.#read.until) return this.#read.header;
    const t = now + READ_SIGNATURE_MS;
    const header = await signatureHeader(signer, '', t);
    if (header !== null) this.#read = { header, until: t };
    return header;
  }

  /**
   * The time a write is signed at. A write's signature is accepted once: two writes with the same body in the
   * same millisecond (calling `like()` twice) would carry the same one and the second be refused as a replay, so
   * each write gets a millisecond of its own.
   */
  #writeTime(): number {
    this.#lastWrite = Math.max(Date.now(), this.#lastWrite + 1);
    return this.#lastWrite;
  }
}

/**
 * A fetch (or the read of its body) that failed: the signal's reason when it was aborted (as fetch itself rejects),
 * else a VellumError `request/failed` with the fetch's error as its `cause`.
 */
function failed(request: ServiceRequest, error: unknown, signal: AbortSignal | undefined): unknown {
  if (signal?.aborted) return signal.reason;
  const why = error instanceof Error ? (error.cause instanceof Error ? `${error.message} (${error.cause.message})` : error.message) : String(error);
  return new VellumError(0, 'unavailable', 'request/failed', `${request.method} ${request.path.split('?')[0]} failed: ${why}`, { cause: error });
}

/**
 * The schema of a collection whose generated types are not at hand: records are JSON objects with an id, any
 * function takes any arguments, and a where or sort may name any field (the service judges them).
 */
export interface UntypedSchema extends CollectionSchema {
  name: string;
  record: { id: string; [field: string]: unknown };
  constructorArgs: unknown[];
  functions: Record<string, unknown[]>;
  queryFields: Record<string, unknown>;
}

function jsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isHttpUrl(text: string): boolean {
  try {
    const { protocol } = new URL(text);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}
