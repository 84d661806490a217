// The edges of HTTP that Node's server answers on its own, or not at all, before or around fastify: each gets the
// JSON error envelope like any other failure.
//
// - A request Node's parser refuses (headers too large, malformed HTTP, a timeout): `answerClientError`.
//   Bytes refused while an earlier request on the connection is still being answered (a GET's unframed body):
//   that answer goes first, then the connection closes.
// - An HTTP/1.1 request without a Host header: Node answered a bare 400 with no body. Its own check is turned off
//   (`HTTP_SERVER_OPTIONS`) and the service makes it, with the envelope, before fastify (`createHttpServer`); and
//   refuses several Host headers, which Node let through.
// - CONNECT: with no 'connect' listener Node closed the connection without a word. It is 405.
// - `Expect: 100-continue` with a Content-Length over the body limit: 413 at once, so the body is never sent. Any
//   other expectation: 417 (Node's was bare).
// - A client that takes longer than the request timeout to send its request (headers and body): 408, then the
//   connection closes (fastify's default was no limit, so a stalled body held its connection for ever).
// - A body refused for its size while the client is still sending: fastify answered 413 and the connection was
//   closed at once; the client's next bytes then met a closed socket, the kernel answered them with a reset, and
//   a client that sends its whole body before reading (as simple clients do) lost the answer (EPIPE, no status).
//   So the rest of the body is read and dropped for a while after the answer (`drainRefusedBody`), as nginx's
//   lingering close does, and the connection is closed only if the client is still sending after that.

import { STATUS_CODES, createServer, maxHeaderSize, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { bodyTooLarge, clientErrorResponse, invalidArgument, ServiceError, toErrorResponse, type ErrorBody } from './errors.ts';

/** Options for Node's HTTP server: the service checks the Host header itself, to answer with the envelope. */
export const HTTP_SERVER_OPTIONS = { requireHostHeader: false } as const;

/** How often Node looks for connections past their request timeout (its default, 30 s, would let one run 2x over). */
const TIMEOUT_CHECK_INTERVAL_MS = 1000;

/** How long the rest of a body refused for its size is read (and dropped) before the connection is closed. */
export const REFUSED_BODY_LINGER_MS = 5000;

/** Connections reading the rest of a refused body: their request has had its answer. */
const draining = new WeakSet<Socket>();

/** Connections whose parser refused bytes while an answer was being made: they close after that answer. */
const closingAfterAnswer = new WeakSet<Socket>();

/** The methods the service answers (HEAD: fastify's, for every GET route). */
const ALLOWED_METHODS = 'GET, HEAD, POST, OPTIONS';

/**
 * Fastify's `serverFactory`: Node's HTTP server (with HTTP_SERVER_OPTIONS and fastify's timeouts, as fastify makes
 * it), whose requests pass the Host check before they reach fastify. The check is made here rather than in an
 * onRequest hook because fastify's hook machinery costs every request about a microsecond, and a request that
 * passes reads two fields it reads anyway.
 */
export function createHttpServer(handler: (request: IncomingMessage, response: ServerResponse) => void, options: Record<string, unknown>): Server {
  const server = createServer({ ...HTTP_SERVER_OPTIONS, connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS }, withHostCheck(handler));
  // Fastify passes its options with their defaults filled in.
  const setting = (name: string): number => {
    const value = options[name];
    if (typeof value !== 'number') throw new Error(`fastify gave the server factory no ${name}`);
    return value;
  };
  server.keepAliveTimeout = setting('keepAliveTimeout');
  server.requestTimeout = setting('requestTimeout');
  // The headers are part of the request: their own limit (Node's 60 s) may not outlast the whole request's.
  if (server.requestTimeout > 0) server.headersTimeout = Math.min(server.headersTimeout, server.requestTimeout);
  server.setTimeout(setting('connectionTimeout'));
  return server;
}

type Listener = (request: IncomingMessage, response: ServerResponse) => void;

/** The listener behind the Host check: a request without a Host header, or with several, is 400 with the envelope. */
export function withHostCheck(handler: Listener): Listener {
  return (request, response) => {
    const problem = hostProblem(request);
    if (problem === undefined) handler(request, response);
    else writeResponse(response, invalidArgument('request/invalid-http', problem));
  };
}

/**
 * The request timeout where the server is not ours (a mounted Vellum, embed.ts): a request whose body is not all
 * in `timeoutMs` after its headers gets the standalone server's 408 envelope, and its connection closes. (The
 * headers themselves are the server's to time: Node's headersTimeout, 60 s unless the embedder sets it.) Waiting
 * for an answer does not count: the timer stops once the body is read, or the answer is written. 0: no limit.
 */
export function withRequestTimeout(handler: Listener, timeoutMs: number): Listener {
  if (timeoutMs <= 0) return handler;
  return (request, response) => {
    const { headers } = request;
    const hasBody = headers['transfer-encoding'] !== undefined || (headers['content-length'] !== undefined && headers['content-length'] !== '0');
    if (hasBody && !request.complete) {
      const timer = setTimeout(() => {
        if (request.complete || response.writableFinished) return;
        const { status, body } = clientErrorResponse({ code: 'ERR_HTTP_REQUEST_TIMEOUT' }, maxHeaderSize)!;
        if (!response.headersSent) {
          const text = JSON.stringify(body);
          response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), connection: 'close' });
          response.end(text, () => request.socket.destroy());
        } else request.socket.destroy();
      }, timeoutMs);
      const stop = () => clearTimeout(timer);
      request.once('end', stop);
      request.once('close', stop);
      response.once('finish', stop);
    }
    handler(request, response);
  };
}

/**
 * RFC 9112, section 3.2: a server must answer 400 to an HTTP/1.1 request without Host (HTTP/1.0 may omit it), and
 * to any request with more than one (Node keeps the first; a proxy in front may have used another).
 */
function hostProblem(request: IncomingMessage): string | undefined {
  const { httpVersionMajor, httpVersionMinor } = request;
  if (request.headers.host === undefined) {
    if (httpVersionMajor > 1 || (httpVersionMajor === 1 && httpVersionMinor >= 1)) return 'an HTTP/1.1 request must have a Host header';
  } else if (hostHeaderCount(request.rawHeaders) > 1) {
    return 'a request must have one Host header, not several';
  }
  return undefined;
}

/** Registers the answers to CONNECT and to `Expect: 100-continue` over the body limit. */
export function registerHttpEdges(app: FastifyInstance, bodyLimit: number): void {
  app.server.on('connect', (_request: IncomingMessage, socket: Duplex) => {
    const method = new ServiceError('invalid-argument', 'request/method-not-allowed', `CONNECT is not supported: this server is not a proxy (it answers ${ALLOWED_METHODS})`, 405);
    writeRawAnswer(socket as Socket, method, { Allow: ALLOWED_METHODS });
    (socket as Socket).destroySoon();
  });

  // With this listener, Node no longer sends `100 Continue` by itself: each request says whether it goes on.
  app.server.on('checkContinue', (request: IncomingMessage, response: ServerResponse) => {
    if (Number(request.headers['content-length']) > bodyLimit) {
      // The client waits for our word before it sends the body: after this answer, it sends none.
      writeResponse(response, bodyTooLarge());
      return;
    }
    response.writeContinue();
    app.server.emit('request', request, response);
  });

  // An Expect other than 100-continue: Node answered a bare 417.
  app.server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => {
    const expectation = String(request.headers.expect).slice(0, 40);
    const error = new ServiceError('invalid-argument', 'request/invalid-http', `Expect: ${JSON.stringify(expectation)} is not supported (only 100-continue is)`, 417);
    writeResponse(response, error);
  });
}

/** How many Host headers a request has (`rawHeaders` is name, value, name, value, ...). */
function hostHeaderCount(rawHeaders: readonly string[]): number {
  let count = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]!.length === 4 && rawHeaders[i]!.toLowerCase() === 'host') count++;
  return count;
}

/** Answers with the envelope through Node's response, closing the connection (the request's body, if any, is unread). */
function writeResponse(response: ServerResponse, error: ServiceError): void {
  const { status, body } = toErrorResponse(error);
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), connection: 'close' });
  response.end(text);
}

/**
 * Keeps reading (and dropping) the rest of a request whose body was refused for its size, so that a client still
 * sending it reads the answer instead of a reset: the answer does not close the connection, Node reads the body
 * to its end (after which the connection may carry the next request), and only a client still sending
 * REFUSED_BODY_LINGER_MS after the answer has its connection closed.
 */
export function drainRefusedBody(request: IncomingMessage, reply: FastifyReply): void {
  if (request.complete) return;
  // Fastify asked to close the connection with the answer; Node then closes it at once.
  reply.removeHeader('connection');
  reply.raw.once('finish', () => {
    if (request.complete) return;
    const socket = request.socket;
    draining.add(socket);
    const timer = setTimeout(() => socket.destroy(), REFUSED_BODY_LINGER_MS);
    const stop = () => {
      clearTimeout(timer);
      draining.delete(socket);
    };
    request.once('end', stop);
    socket.once('close', stop);
  });
}

/** The answer Node's server is writing on a connection, if any (the field Node's own clientError default reads). */
type ServerSocket = Socket & { _httpMessage?: ServerResponse | null };

/**
 * Requests Node's HTTP parser refuses (headers too large, malformed HTTP) get the envelope too, but never ahead of
 * an answer still being made on the same connection. Bytes that follow a request without a Content-Length or
 * Transfer-Encoding are, to HTTP, the next request: the usual source is a GET whose client wrote a body anyway
 * (Node's http client sends a GET's `req.write()` unframed). The parser refuses them in the same read as the GET,
 * while its answer is still being made; the 400 was written at once and the connection destroyed, so the client
 * read the 400 as the GET's answer and lost the real one. Now that answer goes out, with `Connection: close`
 * when its head is not yet written, the connection closes after it, and the refused bytes get no answer.
 */
export function answerClientError(error: Error & { code?: string }, socket: ServerSocket): void {
  if (closingAfterAnswer.has(socket)) return;
  const inFlight = socket._httpMessage;
  // Only after a request read to its end: bytes refused inside a request's own body (a bad chunk) are its answer.
  if (inFlight && inFlight.req.complete && !inFlight.writableFinished && !socket.destroyed) {
    closingAfterAnswer.add(socket);
    if (!inFlight.headersSent) inFlight.setHeader('Connection', 'close');
    inFlight.once('finish', () => socket.destroySoon());
    return;
  }
  const answer = clientErrorResponse(error, maxHeaderSize);
  // A refused body cut short by its client is not a second request to answer: the 413 was its answer.
  if (answer && socket.writable && !draining.has(socket)) writeRawAnswer(socket, answer);
  socket.destroy(error);
}

/** Writes an answer with the envelope straight to the socket (no HTTP response object to write it with). */
function writeRawAnswer(socket: Socket, answer: ServiceError | { status: number; body: ErrorBody }, headers: Record<string, string> = {}): void {
  const { status, body } = answer instanceof ServiceError ? toErrorResponse(answer) : answer;
  const text = JSON.stringify(body);
  const extra = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('');
  socket.write(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n${extra}` +
      `Content-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
  );
}
