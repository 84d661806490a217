// The where/sort builder: pick one of the collection's indexes, give each of its fields an equality or a range
// (or nothing), and an order; the query is built from that index, so it is one the server can serve. Values are
// read by the field's type (a number field gets a number, a reference the {collectionId, id} of an id).
import type { ListQuery, Sort, Where } from './api.ts';
import { h, replaceChildren } from './dom.ts';
import { indexLabel, referencedCollectionId, type CollectionInfo, type IndexField } from './schema.ts';

const OPERATORS = [
  ['', 'any'],
  ['eq', '='],
  ['$gt', '>'],
  ['$gte', '≥'],
  ['$lt', '<'],
  ['$lte', '≤'],
] as const;

export class QueryBuilder {
  readonly element: HTMLFormElement;
  private readonly indexSelect: HTMLSelectElement;
  private readonly rows = h('div', { class: 'where-rows' });
  private readonly order: HTMLSelectElement;
  private readonly limit: HTMLInputElement;
  private readonly problem = h('div', { class: 'form-problem', role: 'alert' });
  private fields: { field: IndexField; operator: HTMLSelectElement; value: HTMLInputElement }[] = [];

  constructor(
    private readonly info: CollectionInfo,
    onRun: (query: ListQuery) => void,
  ) {
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
        h('button', { type: 'submit', id: 'run-query' }, 'Run')),
      this.rows, this.problem);
    this.renderRows();
  }

  private renderRows(): void {
    const index = this.info.indexes[Number(this.indexSelect.value)] ?? this.info.indexes[0]!;
    this.fields = index.map((field) => ({
      field,
      operator: h('select', { 'aria-label': `${field.path} operator`, 'data-field': field.path }, ...OPERATORS.map(([value, label]) => h('option', { value }, label))),
      value: h('input', { type: 'text', 'aria-label': `${field.path} value`, 'data-field': field.path, placeholder: field.type.kind === 'foreignrecord' ? 'record id' : field.type.kind === 'publickey' ? '0x… hex' : field.type.kind === 'primitive' ? field.type.value : '' }),
    }));
    replaceChildren(this.rows, ...this.fields.map(({ field, operator, value }) =>
      h('div', { class: 'where-row' }, h('span', { class: 'where-field' }, field.path, field.direction === 'desc' ? ' ↓' : ''), operator, value)));
  }

  query(): ListQuery {
    const where: Where = {};
    for (const { field, operator, value } of this.fields) {
      if (operator.value === '') continue;
      const parsed = this.valueOf(field, value.value);
      if (operator.value === 'eq') where[field.path] = parsed;
      else where[field.path] = { ...(where[field.path] as object | undefined), [operator.value]: parsed };
    }
    const reversed = this.order.value === 'reversed';
    const flip = (direction: 'asc' | 'desc'): 'asc' | 'desc' => (reversed ? (direction === 'asc' ? 'desc' : 'asc') : direction);
    const sort: Sort = this.fields.map(({ field }) => [field.path, flip(field.direction)]);
    const limit = Number(this.limit.value);
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new Error('page size: expected a whole number from 1 to 1000');
    return { where, sort, limit };
  }

  private valueOf(field: IndexField, text: string): unknown {
    const type = field.type;
    if (type.kind === 'primitive' && type.value === 'number') {
      const number = Number(text.trim());
      if (text.trim() === '' || !Number.isFinite(number)) throw new Error(`${field.path}: expected a number, got ${JSON.stringify(text)}`);
      return number;
    }
    if (type.kind === 'primitive' && type.value === 'boolean') {
      if (text.trim() !== 'true' && text.trim() !== 'false') throw new Error(`${field.path}: expected true or false`);
      return text.trim() === 'true';
    }
    if (type.kind === 'foreignrecord') return { collectionId: referencedCollectionId(this.info, type.collection), id: text.trim() };
    if (type.kind === 'publickey') return text.trim();
    return text;
  }
}
