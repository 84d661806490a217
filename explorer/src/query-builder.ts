// The where/sort builder: pick one of the collection's indexes, give each of its fields a condition (or none),
// and an order; the query is built from that index, so it is one the server can plan (docs/service.md, "More
// where operators": a `≠`, `not in`, or `in` on a later field can still be refused, and the server's error is
// shown). A field of the index may be an equality, a range, `≠` ($ne), `in`/`not in` ($in/$nin: a comma-separated
// list, or a JSON array when a value holds a comma); an array field (an index on `tags: string[]`) serves only
// `contains` ($contains), so it must have one and is left out of the sort. Values are read by the field's type
// (a number field gets a number, a reference the {collectionId, id} of an id).
// On a collection not readable by everyone, a list must be limited by its where to records the caller may read
// (docs/service.md "Private records in lists"): a "Records" choice pins a PublicKey field that grants read (`@read`
// or `@delegate`) to the key in use, which is the default; choosing "all" (or having no key) sends the where as
// built, and the server's 403 says what to add.
import type { ListQuery } from './connection.ts';
import type { SigningKey } from './key.ts';

type Where = Record<string, unknown>;
type Sort = [string, 'asc' | 'desc'][];
import { h, replaceChildren } from './dom.ts';
import { conditionValue, listValues } from './conditions.ts';
import { indexLabel, type CollectionInfo, type IndexField, type ReadField, type StableType } from './schema.ts';

const OPERATORS = [
  ['', 'any'],
  ['eq', '='],
  ['$ne', '≠'],
  ['$in', 'in'],
  ['$nin', 'not in'],
  ['$gt', '>'],
  ['$gte', '≥'],
  ['$lt', '<'],
  ['$lte', '≤'],
] as const;

const ARRAY_OPERATORS = [['$contains', 'contains']] as const;

/** The server's bounds on list operators (src/store/where.ts MAX_IN_VALUES, MAX_NIN_VALUES). */
const MAX_LIST_VALUES = { $in: 30, $nin: 10 } as const;

export class QueryBuilder {
  readonly element: HTMLFormElement;
  private readonly indexSelect: HTMLSelectElement;
  private readonly rows = h('div', { class: 'where-rows' });
  private readonly order: HTMLSelectElement;
  private readonly limit: HTMLInputElement;
  private readonly problem = h('div', { class: 'form-problem', role: 'alert' });
  private fields: { field: IndexField; operator: HTMLSelectElement; value: HTMLInputElement }[] = [];
  /** A private collection's PublicKey fields that grant read, one of which the list pins to the key in use. */
  private readonly keyFields: ReadField[];
  private readonly mine: HTMLSelectElement | undefined;

  constructor(
    private readonly info: CollectionInfo,
    onRun: (query: ListQuery) => void,
    private readonly key: () => SigningKey | undefined,
  ) {
    this.keyFields = info.publicRead ? [] : info.readFields.filter((field) => field.element.kind === 'publickey');
    this.mine = info.publicRead
      ? undefined
      : h('select', { id: 'query-mine', 'aria-label': 'records' },
        ...this.keyFields.map((field) => h('option', { value: field.name }, `mine: ${field.name} ${field.array ? 'contains' : '='} my key`)),
        h('option', { value: '' }, 'all (a private collection refuses this)'));
    this.indexSelect = h('select', { id: 'query-index', 'aria-label': 'index', onchange: () => this.renderRows() },
      ...info.indexes.map((index, i) => h('option', { value: String(i) }, indexLabel(index))));
    this.order = h('select', { id: 'query-order', 'aria-label': 'order' }, h('option', { value: 'index' }, 'index order'), h('option', { value: 'reversed' }, 'reversed'));
    this.limit = h('input', { id: 'query-limit', type: 'number', min: 1, max: 1000, value: 25, 'aria-label': 'page size' });
    this.element = h('form', { class: 'query-builder', onsubmit: (event: Event) => {
      event.preventDefault();
      try {
        this.problem.textContent = '';
        onRun(this.query());
      } catch (error) {
        this.problem.textContent = (error as Error).message;
      }
    } },
      h('div', { class: 'query-line' },
        h('label', { for: 'query-index' }, 'Index'), this.indexSelect,
        h('label', { for: 'query-order' }, 'Order'), this.order,
        h('label', { for: 'query-limit' }, 'Page'), this.limit,
        ...(this.mine ? [h('label', { for: 'query-mine' }, 'Records'), this.mine] : []),
        h('button', { type: 'submit', id: 'run-query' }, 'Run')),
      this.rows, this.problem);
    this.renderRows();
  }

  private renderRows(): void {
    const index = this.info.indexes[Number(this.indexSelect.value)] ?? this.info.indexes[0]!;
    this.fields = index.map((field) => {
      const operators = field.type.kind === 'array' ? ARRAY_OPERATORS : OPERATORS;
      const valueType = elementType(field.type);
      return {
        field,
        operator: h('select', { 'aria-label': `${field.path} operator`, 'data-field': field.path }, ...operators.map(([value, label]) => h('option', { value }, label))),
        value: h('input', { type: 'text', 'aria-label': `${field.path} value`, 'data-field': field.path, placeholder: valueType.kind === 'foreignrecord' ? 'record id' : valueType.kind === 'publickey' ? '0x… hex' : valueType.kind === 'primitive' ? valueType.value : '' }),
      };
    });
    replaceChildren(this.rows, ...this.fields.map(({ field, operator, value }) =>
      h('div', { class: 'where-row' }, h('span', { class: 'where-field' }, field.path, field.direction === 'desc' ? ' ↓' : ''), operator, value)));
  }

  query(): ListQuery {
    const where: Where = {};
    for (const { field, operator, value } of this.fields) {
      if (operator.value === '') continue;
      const type = elementType(field.type);
      if (operator.value === '$in' || operator.value === '$nin') {
        where[field.path] = { [operator.value]: listValues(this.info, field.path, type, value.value, MAX_LIST_VALUES[operator.value]) };
        continue;
      }
      const parsed = conditionValue(this.info, field.path, type, value.value);
      if (operator.value === 'eq') where[field.path] = parsed;
      else where[field.path] = { ...(where[field.path] as object | undefined), [operator.value]: parsed };
    }
    const pinned = this.keyFields.find((field) => field.name === this.mine?.value);
    const key = this.key();
    // Pinned to the key in use, unless a condition on that field is given already (the server judges it).
    if (pinned && key && !(pinned.name in where)) where[pinned.name] = pinned.array ? { $contains: key.publicKeyHex } : key.publicKeyHex;
    const reversed = this.order.value === 'reversed';
    const flip = (direction: 'asc' | 'desc'): 'asc' | 'desc' => (reversed ? (direction === 'asc' ? 'desc' : 'asc') : direction);
    // An array index is read only through `contains`, which fixes its array field: the order is the other fields'.
    const sort: Sort = this.fields.filter(({ field }) => field.type.kind !== 'array').map(({ field }) => [field.path, flip(field.direction)]);
    const limit = Number(this.limit.value);
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new Error('page size: expected a whole number from 1 to 1000');
    return { where, sort, limit };
  }
}

/** The type a condition's value has: an array field's element type, else the field's own. */
function elementType(type: StableType): StableType {
  return type.kind === 'array' ? type.value : type;
}
