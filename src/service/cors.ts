// Permissive CORS, as Polybase configured it (actix `Cors::permissive()`), so browser apps on any origin can
// call the service: the request's Origin is echoed (never `*`, so credentials work), any method and header is
// allowed, the timestamp headers are exposed, and a preflight is answered at once and cached for an hour.

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

export const EXPOSED_HEADERS = 'X-Service-Timestamp, X-Polybase-Timestamp, Content-Type, Content-Length';

/** The CORS headers of every answer to a request with an Origin (app.ts adds them as the answer is sent). */
export function addOriginHeaders(request: FastifyRequest, reply: FastifyReply): void {
  const origin = request.headers.origin;
  if (typeof origin !== 'string') return;
  reply.header('Access-Control-Allow-Origin', origin);
  reply.header('Access-Control-Allow-Credentials', 'true');
  reply.header('Access-Control-Expose-Headers', EXPOSED_HEADERS);
  reply.header('Vary', 'Origin');
}

/** Answers preflight requests. */
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
