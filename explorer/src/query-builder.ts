// The where/sort builder: pick one of the collection's indexes, give each of its fields a condition (or none),
// and an order; the query is built from that index, so it is one the server can plan (docs/service.md, "More
// where operators": a `≠`, `not in`, or `in` on a later field can still be refused, and the server's error is
// shown). A field of the index may be an equality, a range, `≠` ($ne), `in`/`not in` ($in/$nin: a comma-separated
// list, or a JSON array when a value holds a comma); an array field (an index on `tags: string[]`) serves only
// `contains` ($contains), so it must have one and is left out of the sort. An optional field also offers `exists`
// ($exists: true, or false), a string field `starts with` ($startsWith). Values are read by the field's type
// (a number field gets a number, a reference the {collectionId, id} of an id).
// "Any of" adds alternatives (`$or`): each is a group of conditions on an index of its own, and the conditions
// above apply to every one (the server needs each alternative served by an index in the query's order, and says
// which `@index` to add when one is not).
// On a collection not readable by everyone, a list must be limited by its where to records the caller may read
// (docs/service.md "Private records in lists"): a "Records" choice pins a PublicKey field that grants read (`@read`
// or `@delegate`) to the key in use, which is the default; choosing "all" (or having no key) sends the where as
// built, and the server's refusal is shown.
import { WHERE_LIMITS, WHERE_OPERATORS } from 'vellum/client';
import type { ListQuery } from './connection.ts';
import type { SigningKey } from './key.ts';
import { h, replaceChildren } from './dom.ts';
import { conditionValue, listValues } from './conditions.ts';
import { indexLabel, type CollectionInfo, type IndexField, type ReadField, type StableType } from './schema.ts';

type Where = Record<string, unknown>;
type Sort = [string, 'asc' | 'desc'][];

/**
 * The operators of the where language (vellum/client's table) a field takes: `eq` sends the value bare, as an
 * equality; `exists` (`$exists`) only on an optional field, `starts with` (`$startsWith`) only on a string.
 */
function operatorsOf(field: IndexField): (readonly [string, string])[] {
  const applies = (on: string) => on === 'scalar' || (on === 'optional' && field.optional === true) || (on === 'string' && field.type.kind === 'primitive' && field.type.value === 'string');
  const named = Object.entries(WHERE_OPERATORS).filter(([, operator]) => applies(operator.on));
  return [['', 'any'], ...named.map(([name, { label }]) => [name === '$eq' ? 'eq' : name, label] as const)];
}
const ARRAY_OPERATORS = Object.entries(WHERE_OPERATORS).filter(([, operator]) => operator.on === 'array').map(([name, { label }]) => [name, label] as const);

/** The server's bounds on list operators ($in, $nin). */
const MAX_LIST_VALUES = { $in: WHERE_OPERATORS.$in.maxValues, $nin: WHERE_OPERATORS.$nin.maxValues } as const;
/** The server reads at most this many ranges for one where: more alternatives than that can never be served. */
const MAX_ALTERNATIVES = WHERE_LIMITS.ranges;

/** An index and a condition for each of its fields: the main conditions, or one alternative of an `$or`. */
class ConditionGroup {
  readonly indexSelect: HTMLSelectElement;
  readonly rows = h('div', { class: 'where-rows' });
  private fields: { field: IndexField; operator: HTMLSelectElement; value: HTMLInputElement }[] = [];

  constructor(
    private readonly info: CollectionInfo,
    /** The attribute that names a row's field: `data-field` for the main conditions, `data-or-field` for an alternative's. */
    private readonly fieldAttribute: 'data-field' | 'data-or-field',
    attributes: Record<string, string>,
  ) {
    this.indexSelect = h('select', { ...attributes, onchange: () => this.renderRows() },
      ...info.indexes.map((index, i) => h('option', { value: String(i) }, indexLabel(index))));
    this.renderRows();
  }

  get index(): IndexField[] {
    return this.info.indexes[Number(this.indexSelect.value)] ?? this.info.indexes[0]!;
  }

  private renderRows(): void {
    this.fields = this.index.map((field) => {
      const operators = field.type.kind === 'array' ? ARRAY_OPERATORS : operatorsOf(field);
      const valueType = elementType(field.type);
      return {
        field,
        operator: h('select', { 'aria-label': `${field.path} operator`, [this.fieldAttribute]: field.path }, ...operators.map(([value, label]) => h('option', { value }, label))),
        value: h('input', { type: 'text', 'aria-label': `${field.path} value`, [this.fieldAttribute]: field.path, placeholder: valueType.kind === 'foreignrecord' ? 'record id' : valueType.kind === 'publickey' ? '0x… hex' : valueType.kind === 'primitive' ? valueType.value : '' }),
      };
    });
    replaceChildren(this.rows, ...this.fields.map(({ field, operator, value }) =>
      h('div', { class: 'where-row' }, h('span', { class: 'where-field' }, field.path, field.direction === 'desc' ? ' ↓' : ''), operator, value)));
  }

  /** The conditions as a where object; an Error names the field whose value does not read. */
  where(): Where {
    const where: Where = {};
    for (const { field, operator, value } of this.fields) {
      if (operator.value === '') continue;
      const type = elementType(field.type);
      if (operator.value === '$in' || operator.value === '$nin') {
        where[field.path] = { [operator.value]: listValues(this.info, field.path, type, value.value, MAX_LIST_VALUES[operator.value]) };
        continue;
      }
      if (operator.value === '$exists') {
        const text = value.value.trim();
        if (text !== '' && text !== 'true' && text !== 'false') throw new Error(`${field.path}: exists takes true or false (empty is true), got ${JSON.stringify(text)}`);
        where[field.path] = { $exists: text !== 'false' };
        continue;
      }
      // A prefix is text as typed, even one that looks like a number.
      const parsed = operator.value === '$startsWith' ? value.value : conditionValue(this.info, field.path, type, value.value);
      if (operator.value === 'eq') where[field.path] = parsed;
      else where[field.path] = { ...(where[field.path] as object | undefined), [operator.value]: parsed };
    }
    return where;
  }
}

export class QueryBuilder {
  readonly element: HTMLFormElement;
  private readonly main: ConditionGroup;
  private readonly alternatives: ConditionGroup[] = [];
  private readonly orGroups = h('div', { class: 'or-groups', id: 'or-groups' });
  private readonly order: HTMLSelectElement;
  private readonly limit: HTMLInputElement;
  private readonly problem = h('div', { class: 'form-problem', role: 'alert' });
  /** A private collection's PublicKey fields that grant read, one of which the list pins to the key in use. */
  private readonly keyFields: ReadField[];
  private readonly mine: HTMLSelectElement | undefined;
  /** Words to search for, on a collection with `@search(...)` (the page is then in relevance order). */
  private readonly search: HTMLInputElement | undefined;

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
    this.main = new ConditionGroup(info, 'data-field', { id: 'query-index', 'aria-label': 'index' });
    this.order = h('select', { id: 'query-order', 'aria-label': 'order' }, h('option', { value: 'index' }, 'index order'), h('option', { value: 'reversed' }, 'reversed'));
    this.search = info.searchFields.length === 0
      ? undefined
      : h('input', { id: 'query-search', type: 'search', maxlength: 256, placeholder: `search ${info.searchFields.join(', ')}`, 'aria-label': 'search' });
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
        h('label', { for: 'query-index' }, 'Index'), this.main.indexSelect,
        h('label', { for: 'query-order' }, 'Order'), this.order,
        h('label', { for: 'query-limit' }, 'Page'), this.limit,
        ...(this.mine ? [h('label', { for: 'query-mine' }, 'Records'), this.mine] : []),
        h('button', { type: 'submit', id: 'run-query' }, 'Run')),
      ...(this.search ? [h('div', { class: 'query-line' }, h('label', { for: 'query-search' }, 'Search'), this.search)] : []),
      this.main.rows,
      this.orGroups,
      h('div', { class: 'or-line' }, h('button', { type: 'button', class: 'small', id: 'add-or', title: 'records matching any of several groups of conditions ($or)', onclick: () => this.addAlternative() }, '+ Any of (or)')),
      this.problem);
  }

  /** Whether the builder can pin a read-granting field to the key in use ("mine"). */
  mineChoice(): boolean {
    return this.keyFields.length > 0;
  }

  /** Chooses "mine" (the first read-granting PublicKey field). */
  chooseMine(): void {
    if (this.mine && this.keyFields[0]) this.mine.value = this.keyFields[0].name;
  }

  private addAlternative(): void {
    if (this.alternatives.length >= MAX_ALTERNATIVES) {
      this.problem.textContent = `at most ${MAX_ALTERNATIVES} alternatives: the server reads at most ${MAX_ALTERNATIVES} index ranges for one where`;
      return;
    }
    const group = new ConditionGroup(this.info, 'data-or-field', { class: 'or-index', 'aria-label': `alternative ${this.alternatives.length + 1} index` });
    this.alternatives.push(group);
    this.renderAlternatives();
    group.indexSelect.focus();
  }

  private renderAlternatives(): void {
    replaceChildren(this.orGroups, ...(this.alternatives.length === 0 ? [] : [
      h('div', { class: 'or-title' }, 'and any of:'),
      ...this.alternatives.map((group, i) => h('div', { class: 'or-group', 'data-alternative': String(i + 1) },
        h('div', { class: 'query-line' },
          h('span', { class: 'or-label' }, i === 0 ? 'either' : 'or'), group.indexSelect,
          h('button', { type: 'button', class: 'small', 'aria-label': `remove alternative ${i + 1}`, onclick: () => {
            this.alternatives.splice(i, 1);
            this.renderAlternatives();
          } }, 'Remove')),
        group.rows)),
    ]));
  }

  query(): ListQuery {
    const where: Where = this.main.where();
    if (this.alternatives.length > 0) {
      where.$or = this.alternatives.map((group, i) => {
        const alternative = group.where();
        if (Object.keys(alternative).length === 0) throw new Error(`alternative ${i + 1} of "any of": give at least one condition (an alternative without one matches every record)`);
        return alternative;
      });
    }
    const pinned = this.keyFields.find((field) => field.name === this.mine?.value);
    const key = this.key();
    // Pinned to the key in use, unless a condition on that field is given already (the server judges it).
    if (pinned && key && !(pinned.name in where)) where[pinned.name] = pinned.array ? { $contains: key.publicKeyHex } : key.publicKeyHex;
    const reversed = this.order.value === 'reversed';
    const flip = (direction: 'asc' | 'desc'): 'asc' | 'desc' => (reversed ? (direction === 'asc' ? 'desc' : 'asc') : direction);
    // An array index is read only through `contains`, which fixes its array field: the order is the other fields'.
    const sort: Sort = this.main.index.filter((field) => field.type.kind !== 'array').map((field) => [field.path, flip(field.direction)]);
    const limit = Number(this.limit.value);
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new Error('page size: expected a whole number from 1 to 1000');
    const search = this.search?.value.trim() ?? '';
    // A search is ordered by relevance, then id (docs/service.md): it takes the conditions but no sort.
    if (search !== '') return { where, limit, search };
    return { where, sort, limit };
  }
}

/** The type a condition's value has: an array field's element type, else the field's own. */
function elementType(type: StableType): StableType {
  return type.kind === 'array' ? type.value : type;
}
