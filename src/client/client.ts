// The connection to a record service: where it is, which namespace the collections live in, who signs, and the
// one place that sends requests and turns answers into values or VellumErrors.
import { Collection, type CollectionSchema } from './collection.ts';
import { errorOfAnswer, unexpectedAnswer, VellumError } from './errors.ts';
import { SIGNATURE_HEADER, signatureHeader, type Signer } from './signer.ts';

export interface ClientOptions {
  /** The service's API root, with its `/v0`: `http://localhost:8080/v0` (as @polybase/client's `baseURL`). */
  baseURL: string;
  /** The collections are `<namespace>/<Name>` (what `vellum serve --namespace` installs them as). */
  namespace: string;
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
}

export interface ServiceAnswer {
  status: number;
  /** The parsed JSON body; undefined for 304. */
  body: unknown;
  headers: Headers;
}

export class Client {
  readonly baseURL: string;
  readonly namespace: string;
  readonly #signer: Signer | undefined;
  readonly #fetch: typeof fetch;

  constructor(options: ClientOptions) {
    if (typeof options?.baseURL !== 'string' || !isHttpUrl(options.baseURL)) {
      throw new TypeError(`baseURL must be an absolute http(s) URL such as "http://localhost:8080/v0", got ${JSON.stringify(options?.baseURL)}`);
    }
    // Paths are appended to the text: after a `?` or `#` they would be part of the query or fragment instead.
    if (/[?#]/.test(options.baseURL)) {
      throw new TypeError(`baseURL must have no query or fragment (the client appends paths to it), got ${JSON.stringify(options.baseURL)}`);
    }
    if (typeof options.namespace !== 'string' || options.namespace === '') {
      throw new TypeError(`namespace must be a non-empty string (collections are "<namespace>/<Name>"), got ${JSON.stringify(options.namespace)}`);
    }
    if (options.signer !== undefined && typeof options.signer !== 'function') throw new TypeError('signer must be a function (data) => { h, sig }');
    this.baseURL = options.baseURL.replace(/\/+$/, '');
    this.namespace = options.namespace;
    this.#signer = options.signer;
    this.#fetch = options.fetch ?? globalThis.fetch;
  }

  /** A collection of this namespace, typed by its generated schema. */
  collection<S extends CollectionSchema>(name: S['name'], options: { signReads?: boolean } = {}): Collection<S> {
    return new Collection<S>(this, name, options.signReads ?? false);
  }

  /** Sends one request; a 2xx or 304 answer is returned, any other is thrown as a VellumError. */
  async send(request: ServiceRequest): Promise<ServiceAnswer> {
    const response = await this.#fetchResponse(request, {});
    if (response.status === 304) return { status: 304, body: undefined, headers: response.headers };
    const text = await response.text();
    const body = jsonOrUndefined(text);
    if (!response.ok) throw errorOfAnswer(response.status, body, text);
    if (body === undefined) throw unexpectedAnswer(response.status, `a body that is not JSON: ${JSON.stringify(text.slice(0, 200))}`);
    return { status: response.status, body, headers: response.headers };
  }

  /** Sends one request whose answer is read as it arrives (a stream); any answer but a 2xx is thrown as a VellumError. */
  async open(request: ServiceRequest, headers: Readonly<Record<string, string>>, signal: AbortSignal): Promise<Response> {
    const response = await this.#fetchResponse(request, headers, signal);
    if (response.ok) return response;
    const text = await response.text();
    const body = jsonOrUndefined(text);
    throw errorOfAnswer(response.status, body, text);
  }

  async #fetchResponse(request: ServiceRequest, extraHeaders: Readonly<Record<string, string>>, signal?: AbortSignal): Promise<Response> {
    const url = new URL(this.baseURL + request.path);
    for (const [name, value] of Object.entries(request.query ?? {})) url.searchParams.set(name, value);
    const headers: Record<string, string> = { ...extraHeaders };
    if (request.body !== undefined) headers['Content-Type'] = 'application/json';
    if (request.sign && this.#signer) {
      const signature = await signatureHeader(this.#signer, request.body ?? '');
      if (signature !== null) headers[SIGNATURE_HEADER] = signature;
    }
    try {
      return await this.#fetch(url, { method: request.method, headers, body: request.body, signal });
    } catch (error) {
      throw new VellumError(0, 'unavailable', 'request/failed', `${request.method} ${url.pathname} failed: ${(error as Error).message}`);
    }
  }
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
