// CORS, from the operator's list of origins. Authentication is a request header (the signature), never a cookie,
// so browser apps need no credentials: by default every origin may read the answers (`Allow-Origin: *`) and none
// gets `Allow-Credentials`. An origin the operator lists gets its own origin echoed with
// `Access-Control-Allow-Credentials: true`; when the list does not include `*`, an origin not on it gets no
// `Allow-Origin` at all (the browser then keeps the answer from the page). An origin is never echoed with
// credentials unless it is listed. Any method and header may be asked for in a preflight, which is answered at
// once and cached for an hour. (Polybase echoed every origin with credentials: actix `Cors::permissive()`.)

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

export const EXPOSED_HEADERS = 'X-Service-Timestamp, X-Polybase-Timestamp, Content-Type, Content-Length, Retry-After';

export interface CorsOptions {
  /**
   * Origins (`https://app.example.com`, `http://localhost:3000`) whose pages may read answers with credentials,
   * and `*` for every other origin without credentials. Default `['*']`: every origin, no credentials.
   */
  origins?: readonly string[];
}

/** `scheme://host[:port]` as browsers send it; throws a TypeError saying what was expected. */
export function parseOrigin(text: string): string {
  if (text === '*') return text;
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname.includes('*') || url.origin !== text.toLowerCase().replace(/\/$/, '')) {
    throw new TypeError(`expected an origin such as https://app.example.com or http://localhost:3000 (scheme, host and port only), or *; got ${JSON.stringify(text.slice(0, 200))}`);
  }
  return url.origin;
}

/** The CORS headers an answer carries, by the request's Origin. */
export class CorsPolicy {
  readonly #listed: Set<string>;
  readonly #anyOrigin: boolean;

  constructor(options: CorsOptions = {}) {
    const origins = (options.origins ?? ['*']).map(parseOrigin);
    this.#anyOrigin = origins.length === 0 || origins.includes('*');
    this.#listed = new Set(origins.filter((origin) => origin !== '*'));
  }

  /** Writes the headers of an answer to a request from `origin` into `headers` (lower-case names). */
  write(headers: Record<string, string | number>, origin: string): void {
    // Answers differ by Origin (a listed one, or none for an unlisted one): caches must keep them apart.
    headers.vary = 'Origin';
    if (this.#listed.has(origin)) {
      headers['access-control-allow-origin'] = origin;
      headers['access-control-allow-credentials'] = 'true';
    } else if (this.#anyOrigin) {
      headers['access-control-allow-origin'] = '*';
    } else {
      return;
    }
    headers['access-control-expose-headers'] = EXPOSED_HEADERS;
  }

  /** The CORS headers of every fastify answer to a request with an Origin (app.ts adds them as the answer is sent). */
  addOriginHeaders(request: FastifyRequest, reply: FastifyReply): void {
    const origin = request.headers.origin;
    if (typeof origin !== 'string') return;
    const headers: Record<string, string> = {};
    this.write(headers, origin);
    const vary = reply.getHeader('vary');
    if (typeof vary === 'string' && vary !== '' && !/\borigin\b/i.test(vary)) headers.vary = `${vary}, Origin`;
    reply.headers(headers);
  }
}

/** Answers preflight requests (the origin headers come from `CorsPolicy.addOriginHeaders`, as for every answer). */
export function registerCors(app: FastifyInstance): void {
  app.options('*', async (request, reply) => {
    const method = request.headers['access-control-request-method'];
    const headers = request.headers['access-control-request-headers'];
    reply.header('Access-Control-Allow-Methods', typeof method === 'string' ? method : 'GET, POST, OPTIONS');
    if (typeof headers === 'string') reply.header('Access-Control-Allow-Headers', headers);
    reply.header('Access-Control-Max-Age', '3600');
    reply.code(204).send();
  });
}
