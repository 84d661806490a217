// A collection of the service, typed by its generated schema: create records with the constructor's parameters,
// call functions with theirs, get records, and list them with a where and sort limited to indexed fields.
import { aggregateParameters, aggregatesOf, type AggregateField, type AggregateSpec, type Aggregates } from './aggregates.ts';
import type { Client, RequestOptions } from './client.ts';
import { unexpectedAnswer } from './errors.ts';
import { expandParameter, type EventExpansion, type ExpandOption, type ExpandPath, type Expansion, type WithExpansion } from './expand.ts';
import { Query } from './query.ts';
import { Subscription, type StreamEvent, type SubscribeOptions } from './stream.ts';
import { argumentsJson, type RecordReference } from './wire.ts';
import type { ComparisonFor, FieldValue, IsOptional, Direction, Operand, Sort, SortField, Where } from './where.ts';

/** What `vellum generate client` writes for each collection. */
export interface CollectionSchema {
  /** The collection's name in its schema (its id is `<namespace>/<name>`). */
  name: string;
  /** A record as the service returns it. */
  record: object;
  /** The constructor's parameters, in order. */
  constructorArgs: readonly unknown[];
  /** Each function's parameters, in order. */
  functions: object;
  /** Every path a where or sort may use (each has an index), with the type of value a filter on it takes. */
  queryFields: object;
  /** Each reference field, with the schema of the collection it points to (an array of it for an array of references): what `expand` may name. */
  references?: object;
  /** The fields `@search(...)` covers (a union of their names), when the collection declares one: it can be searched. */
  searchFields?: string;
  /** The number fields (a union of their paths, nested ones dotted) that sum, avg, min and max take; without it, the number query fields. */
  aggregateFields?: string;
}

/** The words of a search: a string on a collection that declares `@search(...)`, nothing on another (a type error). */
export type SearchText<S extends CollectionSchema> = S extends { searchFields: string } ? string : never;

/** The parameters of function `Name` of a schema. */
export type FunctionArgs<S extends CollectionSchema, Name extends keyof S['functions']> = S['functions'][Name] extends readonly unknown[]
  ? S['functions'][Name]
  : never;

export interface ListOptions<Fields> {
  where?: Where<Fields>;
  sort?: Sort<Fields>;
  /** At most this many records (the service's default is 100, its maximum 1000). */
  limit?: number;
  /** A cursor of a previous page: the records after it. A cursor alone goes on with the query that made it. */
  after?: string;
  /** A cursor of a previous page: the records before it. */
  before?: string;
  /**
   * Words to search for (`search=`, docs/service.md "Full-text search"): typed only through `Collection.search` and
   * `Query.search`, which take it on a collection with `@search(...)`. The page is ordered by relevance: no sort.
   */
  search?: string;
}

export interface Page<R> {
  records: R[];
  /** Cursors for the pages before and after this one (null when the page is empty and no cursor was given). */
  cursor: { before: string | null; after: string | null };
  /** The service's time of this answer: the `since` of `waitForList` to wait for the next change. */
  timestamp: string | null;
}

export class Collection<S extends CollectionSchema> {
  /** The collection's name in its schema: its id after the last `/`. */
  readonly name: S['name'];

  constructor(
    readonly client: Client,
    /** `<namespace>/<name>` */
    readonly id: string,
    /** Whether reads are signed: the collection is not public, so who reads decides what is seen. */
    readonly signReads: boolean,
    /** Given to every request of this collection (`with`). */
    readonly requestOptions: RequestOptions = {},
  ) {
    this.name = id.slice(id.lastIndexOf('/') + 1);
  }

  /**
   * This collection with options for every request it sends: `accounts.with({ signal }).create(...)` (a create's
   * and a call's arguments are the function's own, so their signal comes this way). A signal given to a call as
   * well ends it when either aborts.
   */
  with(options: RequestOptions): Collection<S> {
    return new Collection<S>(this.client, this.id, this.signReads, { signal: eitherSignal(this.requestOptions.signal, options.signal) });
  }

  /** The signal of one request: this collection's, and the call's own. */
  signalOf(options: RequestOptions | undefined): AbortSignal | undefined {
    return eitherSignal(this.requestOptions.signal, options?.signal);
  }

  /** Runs the constructor; the new record as stored. */
  async create(...args: S['constructorArgs']): Promise<S['record']> {
    const answer = await this.client.send({ method: 'POST', path: `${this.#path()}/records`, body: argumentsJson(args), sign: true, signal: this.signalOf(undefined) });
    return recordOf(answer.status, answer.body) as S['record'];
  }

  /** A record of this collection by id, to get it or call its functions. */
  record(id: string): RecordHandle<S> {
    return new RecordHandle(this, id);
  }

  /** The record with this id; a VellumError `record/not-found` (404) when there is none. */
  get(id: string, options?: RequestOptions): Promise<S['record']> {
    return this.record(id).get(options);
  }

  /** A reference to a record of this collection, for a field or a parameter that takes one. */
  ref(id: string): RecordReference<S['name']> {
    return { collectionId: this.id, id };
  }

  /**
   * One page of records. On a collection not readable by everyone the where must limit it to records the caller
   * may read (a read-granting field equal to its key), else VellumError 403 `permission/unconfined-query`.
   */
  async list(options: ListOptions<S['queryFields']> & RequestOptions = {}): Promise<Page<S['record']>> {
    const answer = await this.client.send({ method: 'GET', path: `${this.#path()}/records`, query: listQuery(options), sign: this.signReads, signal: this.signalOf(options) });
    return pageOf(answer.status, answer.body, answer.headers);
  }

  /**
   * One page of records, each with the records its reference fields point to (`expand`, at most two levels:
   * `['team', 'team.lead']`): `{ record, expand }`, where an expanded record is `{ data }` (and its own `expand`),
   * or null when the caller may not read it or it does not exist. Cursors do not carry `expand`: give it again
   * with `after`.
   */
  async listExpanded<P extends ExpandPath<S>>(paths: readonly P[], options: ListOptions<S['queryFields']> & RequestOptions = {}): Promise<Page<WithExpansion<S['record'], Expansion<S, P>>>> {
    const query = { ...listQuery(options), expand: expandParameter(paths) };
    const answer = await this.client.send({ method: 'GET', path: `${this.#path()}/records`, query, sign: this.signReads, signal: this.signalOf(options) });
    const page = pageOf<S['record']>(answer.status, answer.body, answer.headers);
    const entries = (answer.body as { data: unknown[] }).data;
    return { ...page, records: page.records.map((record, i) => ({ record, expand: expansionOf(answer.status, entries[i]) as Expansion<S, P> })) };
  }

  /**
   * How many records match the where that the caller may read (`count=true`). The service reads at most 100,000
   * index entries for one count: past that it is a VellumError `indexer/scan-limit-exceeded` (narrow the where).
   */
  async count(where?: Where<S['queryFields']>, options?: RequestOptions): Promise<number> {
    const query = { ...listQuery({ where }), count: 'true' };
    const answer = await this.client.send({ method: 'GET', path: `${this.#path()}/records`, query, sign: this.signReads, signal: this.signalOf(options) });
    const count = isObject(answer.body) ? answer.body.count : undefined;
    if (typeof count !== 'number') throw unexpectedAnswer(answer.status, 'a body that is not { "count": n }');
    return count;
  }

  /**
   * The count with sums, averages, least and greatest values of number fields over the same records (`sum=`,
   * `avg=`, `min=`, `max=`): `aggregate({ sum: ['price'], max: ['price'] }, where)` →
   * `{ count, sum: { price }, max: { price } }`. Bounded as `count` is.
   */
  async aggregate<const Spec extends AggregateSpec<AggregateField<S>>>(spec: Spec, where?: Where<S['queryFields']>, options?: RequestOptions): Promise<Aggregates<Spec>> {
    const query = { ...listQuery({ where }), ...aggregateParameters(spec) };
    const answer = await this.client.send({ method: 'GET', path: `${this.#path()}/records`, query, sign: this.signReads, signal: this.signalOf(options) });
    return aggregatesOf(answer.status, answer.body) as Aggregates<Spec>;
  }

  /**
   * Push updates of the records that match `where` (every record without one), in `sort`'s order at the start
   * (`stream=1`): a `put` for each record of the result, `ready`, then each change as it is committed. Close the
   * subscription to end it; a dropped connection reconnects and resumes where it was. With `limit`, only the first
   * `limit` records of that order: one entering a full window pushes the last out (a `remove`), one leaving lets
   * the next in (a `put`).
   */
  subscribe<P extends ExpandOption<S> = never>(
    onEvent: (event: StreamEvent<S['record'], EventExpansion<S, P>>) => void,
    options: Omit<SubscribeOptions, 'expand'> & { expand?: readonly P[] } & Pick<ListOptions<S['queryFields']>, 'where' | 'sort' | 'limit'> = {},
  ): Subscription<S['record']> {
    const query = { ...listQuery({ where: options.where, sort: options.sort, limit: options.limit }), ...streamQuery(options) };
    const request = { method: 'GET', path: `${this.#path()}/records`, query, sign: this.signReads } as const;
    return new Subscription(this.client, request, onEvent as (event: StreamEvent<S['record']>) => void, { ...options, signal: this.signalOf(options) });
  }

  /**
   * Waits until a record of the collection changes after `since` (a page's `timestamp`), then lists as `list`
   * does; null when nothing changed within `waitFor` (`'10s'`, `'500ms'`; the service's default and maximum is 60 s).
   * Aborting `signal` ends the wait at once and closes its connection.
   */
  async waitForList(since: string, options: ListOptions<S['queryFields']> & RequestOptions & { waitFor?: string } = {}): Promise<Page<S['record']> | null> {
    const query = { ...listQuery(options), since, ...(options.waitFor === undefined ? {} : { waitFor: options.waitFor }) };
    const answer = await this.client.send({ method: 'GET', path: `${this.#path()}/records`, query, sign: this.signReads, signal: this.signalOf(options) });
    return answer.status === 304 ? null : pageOf(answer.status, answer.body, answer.headers);
  }

  /**
   * One page of the records whose `@search(...)` fields hold every word of `text` (the last as a prefix; case and
   * accents ignored), by relevance (fewest words in those fields first), then id. Equality filters, `limit` and
   * the cursors apply; a cursor alone (`after`) goes on with the search. Only on a collection with `@search`.
   */
  search(text: SearchText<S>, options: Omit<ListOptions<S['queryFields']>, 'sort' | 'search'> & RequestOptions = {}): Promise<Page<S['record']>> {
    return this.list({ ...options, search: text });
  }

  /** A query of this collection, built one call at a time: `.where('balance', '>=', 10).sort('balance', 'desc').get()`. */
  query(): Query<S> {
    return new Query(this, {});
  }

  where<Path extends keyof S['queryFields'] & string, C extends ComparisonFor<FieldValue<S['queryFields'], Path>, IsOptional<S['queryFields'], Path>>>(
    field: Path,
    comparison: C,
    value: Operand<FieldValue<S['queryFields'], Path>, C>,
  ): Query<S> {
    return this.query().where(field, comparison, value);
  }

  /** A query of the records that match any of these where objects (`$or`). */
  or(...alternatives: Where<S['queryFields']>[]): Query<S> {
    return this.query().or(...alternatives);
  }

  sort(field: SortField<S['queryFields']>, direction: Direction = 'asc'): Query<S> {
    return this.query().sort(field, direction);
  }

  /** `/collections/<id>`, percent-encoded. */
  #path(): string {
    return `/collections/${encodeURIComponent(this.id)}`;
  }

  /** Used by RecordHandle. */
  recordPath(id: string): string {
    return `${this.#path()}/records/${encodeURIComponent(id)}`;
  }
}

export class RecordHandle<S extends CollectionSchema> {
  constructor(
    readonly collection: Collection<S>,
    readonly id: string,
  ) {}

  async get(options?: RequestOptions): Promise<S['record']> {
    const request = { method: 'GET', path: this.collection.recordPath(this.id), sign: this.collection.signReads, signal: this.collection.signalOf(options) } as const;
    const answer = await this.collection.client.send(request);
    return recordOf(answer.status, answer.body) as S['record'];
  }

  /**
   * The record with the records its reference fields point to (`expand`, at most two levels: `['team',
   * 'team.lead']`): an expanded record is `{ data }` (and its own `expand`), or null when the caller may not read
   * it, it does not exist, or the field is unset.
   */
  async getExpanded<P extends ExpandPath<S>>(paths: readonly P[], options?: RequestOptions): Promise<WithExpansion<S['record'], Expansion<S, P>>> {
    const query = { expand: expandParameter(paths) };
    const request = { method: 'GET', path: this.collection.recordPath(this.id), query, sign: this.collection.signReads, signal: this.collection.signalOf(options) } as const;
    const answer = await this.collection.client.send(request);
    return { record: recordOf(answer.status, answer.body) as S['record'], expand: expansionOf(answer.status, answer.body) as Expansion<S, P> };
  }

  /** Waits until this record changes after `since` (a `timestamp` of the service), then gets it; null when nothing changed within `waitFor`. */
  async waitForChange(since: string, waitFor?: string, options?: RequestOptions): Promise<S['record'] | null> {
    const query = { since, ...(waitFor === undefined ? {} : { waitFor }) };
    const request = { method: 'GET', path: this.collection.recordPath(this.id), query, sign: this.collection.signReads, signal: this.collection.signalOf(options) } as const;
    const answer = await this.collection.client.send(request);
    return answer.status === 304 ? null : (recordOf(answer.status, answer.body) as S['record']);
  }

  /**
   * Push updates of this record (`stream=1`): a `put` when it is readable (at the start, and on each change), a
   * `remove` when it is deleted or no longer readable. Close the subscription to end it.
   */
  subscribe<P extends ExpandOption<S> = never>(
    onEvent: (event: StreamEvent<S['record'], EventExpansion<S, P>>) => void,
    options: Omit<SubscribeOptions, 'expand'> & { expand?: readonly P[] } = {},
  ): Subscription<S['record']> {
    const request = { method: 'GET', path: this.collection.recordPath(this.id), query: streamQuery(options), sign: this.collection.signReads } as const;
    return new Subscription(this.collection.client, request, onEvent as (event: StreamEvent<S['record']>) => void, { ...options, signal: this.collection.signalOf(options) });
  }

  /** Calls function `name` on this record; the record after the call, or null when the function deleted it. */
  async call<Name extends keyof S['functions'] & string>(name: Name, ...args: FunctionArgs<S, Name>): Promise<S['record'] | null> {
    const path = `${this.collection.recordPath(this.id)}/call/${encodeURIComponent(name)}`;
    const answer = await this.collection.client.send({ method: 'POST', path, body: argumentsJson(args), sign: true, signal: this.collection.signalOf(undefined) });
    // `{ "data": null }`: the function deleted the record.
    if (isObject(answer.body) && answer.body.data === null) return null;
    return recordOf(answer.status, answer.body) as S['record'];
  }

  /** A reference to this record. */
  ref(): RecordReference<S['name']> {
    return this.collection.ref(this.id);
  }
}

function listQuery<Fields>(options: ListOptions<Fields>): Record<string, string> {
  const query: Record<string, string> = {};
  if (options.where !== undefined && Object.keys(options.where).length > 0) query.where = JSON.stringify(options.where);
  if (options.sort !== undefined && options.sort.length > 0) query.sort = JSON.stringify(options.sort);
  if (options.limit !== undefined) query.limit = String(options.limit);
  if (options.after !== undefined) query.after = options.after;
  if (options.before !== undefined) query.before = options.before;
  if (options.search !== undefined) query.search = options.search;
  return query;
}

/** `stream=1`, the `since` to start after when there is one, and `expand`. */
function streamQuery(options: SubscribeOptions): Record<string, string> {
  return { stream: '1', ...(options.since === undefined ? {} : { since: options.since }), ...(options.expand === undefined ? {} : { expand: expandParameter(options.expand) }) };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The `expand` of `{ data: record, expand: {...} }`. */
function expansionOf(status: number, body: unknown): object {
  if (!isObject(body) || !isObject(body.expand)) throw unexpectedAnswer(status, 'a body without the "expand" asked for');
  return body.expand;
}

/** The record of `{ data: record }`. */
function recordOf(status: number, body: unknown): object {
  if (!isObject(body) || !isObject(body.data)) throw unexpectedAnswer(status, 'a body that is not { "data": record }');
  return body.data;
}

function pageOf<R>(status: number, body: unknown, headers: Headers): Page<R> {
  if (!isObject(body) || !Array.isArray(body.data) || !isObject(body.cursor)) throw unexpectedAnswer(status, 'a body that is not a list of records');
  const records = body.data.map((entry: unknown) => recordOf(status, entry) as R);
  const cursorOf = (value: unknown) => (typeof value === 'string' ? value : null);
  return {
    records,
    cursor: { before: cursorOf(body.cursor.before), after: cursorOf(body.cursor.after) },
    timestamp: headers.get('X-Service-Timestamp') ?? headers.get('X-Polybase-Timestamp'),
  };
}

/** A signal that aborts when either does (undefined when neither is given). */
export function eitherSignal(a: AbortSignal | undefined, b: AbortSignal | undefined): AbortSignal | undefined {
  if (a === undefined || a === b) return b;
  if (b === undefined) return a;
  return AbortSignal.any([a, b]);
}
