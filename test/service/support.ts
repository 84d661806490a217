// Test support: a record service on a random port over real HTTP, and small helpers to call it.
import { afterAll, beforeAll, describe } from 'vitest';
import { signRequest, publicKeyOf } from '../../src/auth/index.ts';
import { openSqliteStore, type RecordStore } from '../../src/store/index.ts';
import { startServer, type RunningServer, type ServerOptions } from '../../src/service/index.ts';
import { storeBackends, type TestPostgres } from '../support/postgres.ts';

export const KEYS = {
  alice: `0x${'11'.repeat(32)}`,
  bob: `0x${'22'.repeat(32)}`,
  carol: `0x${'33'.repeat(32)}`,
  /** The admin key of every test server (unless a test gives its own `schemaAccess`). */
  admin: `0x${'ad'.repeat(32)}`,
} as const;

export const jwkOf = (key: string) => publicKeyOf(key).toJwk();
export const hexOf = (key: string) => publicKeyOf(key).toHex();

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

export interface RequestOptions {
  /** Sign with this private key. */
  key?: string;
  headers?: Record<string, string>;
  /** Raw body text (instead of JSON.stringify(body)). */
  raw?: string;
  signedAt?: number;
}

/**
 * A write's signature is single-use and covers only the time and the body, so two requests with the same body
 * signed by the same key in the same millisecond are one signature, and the second is refused as a replay.
 * Requests that name no time get distinct ones, as separate requests from one client would.
 */
let lastSignedAt = 0;
function nextSignedAt(): number {
  lastSignedAt = Math.max(Date.now(), lastSignedAt + 1);
  return lastSignedAt;
}

export class TestServer {
  constructor(readonly server: RunningServer) {}

  get url(): string {
    return this.server.url;
  }

  async request(method: string, path: string, body?: unknown, options: RequestOptions = {}): Promise<Answer> {
    const text = options.raw ?? (body === undefined ? '' : JSON.stringify(body));
    const headers: Record<string, string> = { ...options.headers };
    if (method !== 'GET' && text !== '' && !('content-type' in headers)) headers['content-type'] = 'application/json';
    if (options.key) headers['x-polybase-signature'] = signRequest(options.key, method === 'GET' ? '' : text, options.signedAt ?? nextSignedAt());
    const response = await fetch(this.url + path, { method, headers, body: method === 'GET' ? undefined : text });
    const answer = await response.text();
    let json: unknown;
    try {
      json = answer === '' ? undefined : JSON.parse(answer);
    } catch {
      json = undefined;
    }
    return { status: response.status, headers: response.headers, text: answer, json };
  }

  get(path: string, options?: RequestOptions): Promise<Answer> {
    return this.request('GET', path, undefined, options);
  }

  post(path: string, body: unknown, options?: RequestOptions): Promise<Answer> {
    return this.request('POST', path, body, options);
  }

  /** Creates the collection signed by `key`, or by the admin key (an unsigned request never changes a schema). */
  async createCollection(id: string, code: string, key: string = KEYS.admin): Promise<Answer> {
    const answer = await this.post('/v0/collections/Collection/records', { args: [id, code] }, { key });
    if (answer.status !== 200) throw new Error(`creating ${id} failed: ${answer.text}`);
    return answer;
  }

  create(collection: string, args: unknown[], key?: string): Promise<Answer> {
    return this.post(`/v0/collections/${encodeURIComponent(collection)}/records`, { args }, { key });
  }

  call(collection: string, id: string, fn: string, args: unknown[], key?: string): Promise<Answer> {
    return this.post(`/v0/collections/${encodeURIComponent(collection)}/records/${encodeURIComponent(id)}/call/${encodeURIComponent(fn)}`, { args }, { key });
  }

  record(collection: string, id: string, key?: string): Promise<Answer> {
    return this.get(`/v0/collections/${encodeURIComponent(collection)}/records/${encodeURIComponent(id)}`, { key });
  }

  list(collection: string, query: Record<string, unknown> = {}, key?: string): Promise<Answer> {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) {
      if (value !== undefined) params.set(name, typeof value === 'string' ? value : JSON.stringify(value));
    }
    const qs = params.toString();
    return this.get(`/v0/collections/${encodeURIComponent(collection)}/records${qs ? `?${qs}` : ''}`, { key });
  }

  /** `updateCode` of the collection `id`, signed by `key` (default: the admin key). */
  updateCode(id: string, code: string, key: string | undefined = KEYS.admin): Promise<Answer> {
    return this.call('Collection', id, 'updateCode', [code], key);
  }

  close(): Promise<void> {
    return this.server.close();
  }
}

/**
 * What test servers allow unless a test says otherwise: `KEYS.admin` is an admin key, and any signed key may
 * create collections (policy `anyone`), since tests create collections as several keys. The defaults themselves
 * are tested in schema-access.test.ts. Test servers have no rate limits unless a test gives them (rate-limits.test.ts).
 */
export const TEST_SCHEMA_ACCESS = { adminKeys: [publicKeyOf(KEYS.admin)], createPolicy: 'anyone' } as const;

export async function startTestServer(options: Partial<ServerOptions> = {}): Promise<TestServer> {
  const server = await startServer({ port: 0, host: '127.0.0.1', store: options.store ?? openSqliteStore(':memory:'), schemaAccess: TEST_SCHEMA_ACCESS, rateLimits: false, ...options });
  return new TestServer(server);
}

/** A test server and the store under it (see `describeOnEachBackend`). */
export interface ServedStore {
  s: TestServer;
  store: RecordStore;
}

/**
 * The suite `tests` declares, once on each backend (`storeBackends`, PostgreSQL on `postgres`): before its tests, a
 * store of its own is opened and a test server started over it, and closed after them. The tests read both from
 * `served`, which is filled in by the time they run.
 */
export function describeOnEachBackend(postgres: () => TestPostgres, tests: (served: ServedStore) => void): void {
  describe.each(storeBackends(postgres))('on %s', (_name, openStore) => {
    const served = {} as ServedStore;
    beforeAll(async () => {
      served.store = await openStore();
      served.s = await startTestServer({ store: served.store });
    });
    afterAll(() => served.s.close());
    tests(served);
  });
}

/** The error triple of an answer. */
export function errorOf(answer: Answer): { code: string; reason: string; message: string } | undefined {
  return answer.json?.error;
}
