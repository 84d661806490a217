// A list query built one call at a time, as @polybase/client's is, but typed: `where` and `sort` take only the
// collection's query fields (those with an index), and a filter's value has the field's type. Each call returns
// a new query, so a query can be kept and extended.
import type { AggregateField, AggregateSpec, Aggregates } from './aggregates.ts';
import type { RequestOptions } from './client.ts';
import type { Collection, CollectionSchema, ListOptions, Page, SearchText } from './collection.ts';
import type { EventExpansion, ExpandOption } from './expand.ts';
import type { StreamEvent, SubscribeOptions, Subscription } from './stream.ts';
import { COMPARISONS, type ComparisonFor, type FieldValue, type IsOptional, type Direction, type Operand, type SortField, type Where } from './where.ts';

type Fields<S extends CollectionSchema> = S['queryFields'];

export class Query<S extends CollectionSchema> {
  constructor(
    readonly collection: Collection<S>,
    readonly options: ListOptions<Fields<S>>,
  ) {}

  /** Adds a condition; conditions on one field combine (`> 1` then `< 5` is the range between). */
  where<Path extends keyof Fields<S> & string, C extends ComparisonFor<FieldValue<Fields<S>, Path>, IsOptional<Fields<S>, Path>>>(
    field: Path,
    comparison: C,
    value: Operand<FieldValue<Fields<S>, Path>, C>,
  ): Query<S> {
    if (!Object.hasOwn(COMPARISONS, comparison)) {
      throw new TypeError(`where: unknown comparison ${JSON.stringify(comparison)}; expected one of ${Object.keys(COMPARISONS).join(' ')}`);
    }
    const operator = COMPARISONS[comparison];
    const where: Record<string, Record<string, unknown>> = { ...(this.options.where as Record<string, Record<string, unknown>> | undefined) };
    const earlier = Object.hasOwn(where, field) ? where[field] : undefined;
    // Defined, not assigned: a field may be called `__proto__`.
    Object.defineProperty(where, field, { value: { ...earlier, [operator]: value }, enumerable: true, writable: true, configurable: true });
    return this.#with({ where: where as ListOptions<Fields<S>>['where'] });
  }

  /**
   * Adds a disjunction: the records that match any of these where objects (`$or`), and the conditions given
   * before and after it. A query has one `$or`; an alternative may have its own.
   */
  or(...alternatives: Where<Fields<S>>[]): Query<S> {
    if (alternatives.length === 0) throw new TypeError('or: give at least one where object');
    const where = this.options.where as Record<string, unknown> | undefined;
    if (where !== undefined && Object.hasOwn(where, '$or')) throw new TypeError('or: the query already has an $or; nest the alternatives in one or(...)');
    return this.#with({ where: { ...where, $or: alternatives } as unknown as Where<Fields<S>> });
  }

  /** Searches the collection's `@search(...)` fields for these words (Collection.search); a search takes no sort. */
  search(text: SearchText<S>): Query<S> {
    return this.#with({ search: text });
  }

  /** Adds a sort field after those already given. */
  sort(field: SortField<Fields<S>>, direction: Direction = 'asc'): Query<S> {
    return this.#with({ sort: [...(this.options.sort ?? []), [field, direction]] });
  }

  limit(limit: number): Query<S> {
    return this.#with({ limit });
  }

  /** The records after a cursor of a previous page (`page.cursor.after`). */
  after(cursor: string): Query<S> {
    const { before: _, ...rest } = this.options;
    return new Query(this.collection, { ...rest, after: cursor });
  }

  /** The records before a cursor of a previous page (`page.cursor.before`). */
  before(cursor: string): Query<S> {
    const { after: _, ...rest } = this.options;
    return new Query(this.collection, { ...rest, before: cursor });
  }

  get(options?: RequestOptions): Promise<Page<S['record']>> {
    return this.collection.list({ ...this.options, ...options });
  }

  /** How many records match the query's where that the caller may read (the sort does not matter). */
  count(options?: RequestOptions): Promise<number> {
    this.#refusePaging('count');
    this.#refuseSearch('count');
    return this.collection.count(this.options.where, options);
  }

  /** The count with sums, averages, least and greatest values of number fields (see Collection.aggregate). */
  aggregate<const Spec extends AggregateSpec<AggregateField<S>>>(spec: Spec, options?: RequestOptions): Promise<Aggregates<Spec>> {
    this.#refusePaging('aggregate');
    return this.collection.aggregate(spec, this.options.where, options);
  }

  /**
   * Push updates of the query's records, in its sort's order at the start; with a limit, of a window of the first
   * `limit` records (see Collection.subscribe).
   */
  subscribe<P extends ExpandOption<S> = never>(
    onEvent: (event: StreamEvent<S['record'], EventExpansion<S, P>>) => void,
    options: Omit<SubscribeOptions, 'expand'> & { expand?: readonly P[] } = {},
  ): Subscription<S['record']> {
    this.#refusePaging('subscribe', ['after', 'before']);
    this.#refuseSearch('subscribe');
    const { where, sort, limit } = this.options;
    return this.collection.subscribe(onEvent, { ...options, where, sort, ...(limit === undefined ? {} : { limit }) });
  }

  /** A count covers the whole result, and a stream starts at its first record (as the service's do): no page of it. */
  #refusePaging(what: string, options: readonly ('limit' | 'after' | 'before')[] = ['limit', 'after', 'before']): void {
    const paging = options.filter((option) => this.options[option] !== undefined);
    if (paging.length > 0) throw new TypeError(`${what}: a query with ${paging.join(', ')} has no ${what}; it starts at the first matching record`);
  }

  /** The service counts and streams no search (docs/service.md): refused here rather than answered without it. */
  #refuseSearch(what: string): void {
    if (this.options.search !== undefined) throw new TypeError(`${what}: a search has no ${what}; page through it with get() instead`);
  }

  #with(change: ListOptions<Fields<S>>): Query<S> {
    return new Query(this.collection, { ...this.options, ...change });
  }
}
