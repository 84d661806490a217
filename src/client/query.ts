// A list query built one call at a time, as @polybase/client's is, but typed: `where` and `sort` take only the
// collection's query fields (those with an index), and a filter's value has the field's type. Each call returns
// a new query, so a query can be kept and extended.
import type { Collection, CollectionSchema, ListOptions, Page } from './collection.ts';
import { COMPARISONS, type Comparison, type Direction, type Operand } from './where.ts';

type Fields<S extends CollectionSchema> = S['queryFields'];

export class Query<S extends CollectionSchema> {
  constructor(
    readonly collection: Collection<S>,
    readonly options: ListOptions<Fields<S>>,
  ) {}

  /** Adds a condition; conditions on one field combine (`> 1` then `< 5` is the range between). */
  where<Path extends keyof Fields<S> & string, C extends Comparison>(field: Path, comparison: C, value: Operand<Fields<S>[Path], C>): Query<S> {
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

  /** Adds a sort field after those already given. */
  sort(field: keyof Fields<S> & string, direction: Direction = 'asc'): Query<S> {
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

  get(): Promise<Page<S['record']>> {
    return this.collection.list(this.options);
  }

  #with(change: ListOptions<Fields<S>>): Query<S> {
    return new Query(this.collection, { ...this.options, ...change });
  }
}
