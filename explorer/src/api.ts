// The explorer's only way to the server: the public /v0 API, as any client calls it. Requests are signed with
// the browser's key when there is one (reads too, as the Polybase client does, so read permissions apply).
import type { SigningKey } from './signing.ts';

export interface ErrorEnvelope {
  code: string;
  reason: string;
  message: string;
}

/** A failed request: the server's error envelope, or one made here when the server could not be reached. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly envelope: ErrorEnvelope,
  ) {
    super(envelope.message);
  }
}

export type WhereValue = unknown;
export type Where = Record<string, WhereValue>;
export type Sort = [string, 'asc' | 'desc'][];

export interface ListQuery {
  where?: Where;
  sort?: Sort;
  limit?: number;
  after?: string;
  before?: string;
}

export type WireRecord = Record<string, unknown> & { id: string };

export interface ListAnswer {
  records: WireRecord[];
  cursor: { before: string | null; after: string | null };
  /** X-Service-Timestamp: the `since` of the next long-poll. */
  timestamp: string;
}

export interface LongPoll {
  since: string;
  waitFor: string;
  signal: AbortSignal;
}

// A read signs only `<t>.` (no body), so one header serves every read. As the Polybase client does, it is signed
// an hour ahead (the server accepts t up to 65 minutes ahead and 5 behind) and reused for that hour: the server
// then recovers the key once and remembers the header, instead of once per list, get and long-poll.
const READ_AHEAD_MS = 60 * 60 * 1000;

export class Api {
  private read: { key: SigningKey; header: string; until: number } | undefined;
  private lastWrite = 0;

  constructor(
    private readonly key: () => SigningKey | undefined,
    private readonly base = '/v0',
  ) {}

  /** A page of records; with `poll`, waits for a change after `since` first and answers null when none came. */
  async list(collectionId: string, query: ListQuery, poll?: LongPoll): Promise<ListAnswer | null> {
    const params = new URLSearchParams();
    if (query.where && Object.keys(query.where).length > 0) params.set('where', JSON.stringify(query.where));
    if (query.sort && query.sort.length > 0) params.set('sort', JSON.stringify(query.sort));
    if (query.limit !== undefined) params.set('limit', String(query.limit));
    if (query.after) params.set('after', query.after);
    if (query.before) params.set('before', query.before);
    if (poll) {
      params.set('since', poll.since);
      params.set('waitFor', poll.waitFor);
    }
    const response = await this.request('GET', `${recordsPath(collectionId)}?${params}`, undefined, poll?.signal);
    if (response.status === 304) return null;
    const body = (await response.json()) as { data: { data: WireRecord }[]; cursor: ListAnswer['cursor'] };
    return { records: body.data.map((item) => item.data), cursor: body.cursor, timestamp: response.headers.get('X-Service-Timestamp') ?? '0' };
  }

  /** How many records matching `where` the caller may read (`count=true`). */
  async count(collectionId: string, where: Where | undefined): Promise<number> {
    const params = new URLSearchParams({ count: 'true' });
    if (where && Object.keys(where).length > 0) params.set('where', JSON.stringify(where));
    const response = await this.request('GET', `${recordsPath(collectionId)}?${params}`);
    return ((await response.json()) as { count: number }).count;
  }

  /**
   * The push stream of a query's changes (`stream=1`, Server-Sent Events): its response, whose body is the event
   * stream. `since` is the timestamp the caller is up to date as of (a list's, or the last event id seen).
   */
  async stream(collectionId: string, query: Pick<ListQuery, 'where' | 'sort'>, since: string, signal: AbortSignal): Promise<ReadableStream<Uint8Array>> {
    const params = new URLSearchParams({ stream: '1', since });
    if (query.where && Object.keys(query.where).length > 0) params.set('where', JSON.stringify(query.where));
    if (query.sort && query.sort.length > 0) params.set('sort', JSON.stringify(query.sort));
    const response = await this.request('GET', `${recordsPath(collectionId)}?${params}`, undefined, signal);
    if (!response.body) throw new ApiError(0, { code: 'unavailable', reason: 'network', message: 'the stream answer has no body' });
    return response.body;
  }

  async get(collectionId: string, id: string): Promise<WireRecord> {
    const response = await this.request('GET', `${recordsPath(collectionId)}/${encodeURIComponent(id)}`);
    return ((await response.json()) as { data: WireRecord }).data;
  }

  async create(collectionId: string, args: unknown[]): Promise<WireRecord> {
    const response = await this.request('POST', recordsPath(collectionId), JSON.stringify({ args }));
    return ((await response.json()) as { data: WireRecord }).data;
  }

  /** Calls a function on a record: the record after the call, or null when the function deleted it. */
  async call(collectionId: string, id: string, functionName: string, args: unknown[]): Promise<WireRecord | null> {
    const path = `${recordsPath(collectionId)}/${encodeURIComponent(id)}/call/${encodeURIComponent(functionName)}`;
    const response = await this.request('POST', path, JSON.stringify({ args }));
    return ((await response.json()) as { data: WireRecord | null }).data;
  }

  private readSignature(key: SigningKey): string {
    const now = Date.now();
    if (this.read?.key !== key || now >= this.read.until) {
      this.read = { key, header: key.signatureHeader('', now + READ_AHEAD_MS), until: now + READ_AHEAD_MS };
    }
    return this.read.header;
  }

  /**
   * A write's signature is used once; two writes with the same body in the same millisecond (calling `like()`
   * twice) would carry the same one, and the second would be refused as a replay. Each gets its own time.
   */
  private writeTime(): number {
    this.lastWrite = Math.max(Date.now(), this.lastWrite + 1);
    return this.lastWrite;
  }

  private async request(method: 'GET' | 'POST', path: string, body?: string, signal?: AbortSignal): Promise<Response> {
    const headers: Record<string, string> = {};
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const key = this.key();
    if (key) headers['X-Polybase-Signature'] = body === undefined ? this.readSignature(key) : key.signatureHeader(body, this.writeTime());
    let response: Response;
    try {
      response = await fetch(`${this.base}${path}`, { method, headers, body, signal });
    } catch (error) {
      if (signal?.aborted) throw error;
      throw new ApiError(0, { code: 'unavailable', reason: 'network', message: `the server did not answer: ${(error as Error).message}` });
    }
    if (response.ok || response.status === 304) return response;
    const text = await response.text();
    let envelope: ErrorEnvelope | undefined;
    try {
      envelope = (JSON.parse(text) as { error?: ErrorEnvelope }).error;
    } catch {
      envelope = undefined;
    }
    throw new ApiError(response.status, envelope ?? { code: 'unknown', reason: `http/${response.status}`, message: text.slice(0, 500) || response.statusText });
  }
}

function recordsPath(collectionId: string): string {
  return `/collections/${encodeURIComponent(collectionId)}/records`;
}
