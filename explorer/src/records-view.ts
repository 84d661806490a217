// A collection's records: the where/sort builder, a page of records with paging both ways and where it is in the
// result ("rows 26–50 of 250", the buttons off at either end), how many records match (`count=true`), live updates
// of the page shown, a form to create a record, and the selected record with a form per function. The query runs
// again when the key in use changes (who reads decides what is seen) and when a record is created here. A private
// collection that refuses the list (no key, or a list of all) shows how to see one's records, not a bare 403.
import { VellumError } from 'vellum/client';
import type { Connection, ListPage, ListQuery, WireRecord } from './connection.ts';
import { h, replaceChildren } from './dom.ts';
import { FormError, parameterForm } from './forms.ts';
import { errorBox, isReason, recordJson, shorten, valueText } from './format.ts';
import { shortKey, type SigningKey } from './key.ts';
import { LiveList } from './live.ts';
import { QueryBuilder } from './query-builder.ts';
import { typeText, type CollectionInfo } from './schema.ts';

/** A page as the table shows it: the records, and the expanded references of each by record id (what `expand` brought). */
type ShownPage = ListPage & { readonly expansions: ReadonlyMap<string, Record<string, unknown>> };

interface Shown {
  /** The request of the page: the query and its cursor. */
  query: ListQuery;
  answer: ShownPage;
  /** How many records of the result come before this page. */
  offset: number;
}

export interface RecordsViewHost {
  /** The key in use. */
  key: () => SigningKey | undefined;
  /** Opens the key menu ("sign in"). */
  signIn: () => void;
}

export class RecordsView {
  readonly element: HTMLElement;
  private readonly table = h('div', { class: 'records', id: 'records' });
  private readonly pager = h('div', { class: 'pager' });
  private readonly position = h('span', { class: 'page-position', id: 'page-position', 'aria-live': 'polite' });
  private readonly status = h('div', { class: 'live-status', id: 'live-status', role: 'status' });
  private readonly count = h('div', { class: 'record-count', id: 'record-count' });
  /** Sum, average, least and greatest of each number field over the matching records (`sum=`, `avg=`, …). */
  private readonly sums = h('div', { class: 'record-sums', id: 'record-sums' });
  private readonly detail = h('div', { class: 'record-detail', id: 'record-detail' });
  private readonly detailJson = h('div', { class: 'record-json' });
  private readonly liveToggle: HTMLInputElement;
  /** A checkbox per reference field: the records it points to are loaded with the page (`expand=`) and shown inline. */
  private readonly expandChoices: HTMLInputElement[];
  private readonly builder: QueryBuilder;
  private shown: Shown | undefined;
  /** The matching records' count, once known for the query shown. */
  private total: number | undefined;
  private live: LiveList<ShownPage> | undefined;
  private selectedId: string | undefined;
  private baseQuery: ListQuery = {};
  private loads = 0;
  private counts = 0;
  private closed = false;

  constructor(
    private readonly connection: Connection,
    private readonly info: CollectionInfo,
    private readonly host: RecordsViewHost,
  ) {
    this.builder = new QueryBuilder(info, (query) => void this.load({ ...query }), host.key);
    this.liveToggle = h('input', { type: 'checkbox', id: 'live', checked: true, onchange: () => this.restartLive() });
    this.expandChoices = info.fields
      .filter((field) => field.type.kind === 'foreignrecord' || (field.type.kind === 'array' && field.type.value.kind === 'foreignrecord'))
      .map((field) => h('input', { type: 'checkbox', id: `expand-${field.name}`, 'data-expand': field.name, onchange: () => this.reload() }));
    this.element = h('div', { class: 'records-view' },
      this.builder.element,
      h('div', { class: 'records-bar' },
        h('label', { for: 'live', class: 'live-toggle' }, this.liveToggle, 'Live'), this.status, this.count, this.openById()),
      ...(this.expandChoices.length === 0 ? [] : [h('div', { class: 'expand-line', title: 'load the records these references point to with the page (expand=)' },
        h('span', { class: 'muted' }, 'Show referenced records:'),
        ...this.expandChoices.map((box) => h('label', { class: 'expand-choice' }, box, box.dataset.expand!)))]),
      this.sums,
      this.table,
      h('div', { class: 'pager-bar' }, this.position, this.pager),
      h('div', { class: 'panels' }, this.createPanel(), this.detail));
    void this.load(this.builder.query());
  }

  /** Stops the live updates and aborts their requests, and keeps a load still on its way from starting another: the view is gone. */
  close(): void {
    this.closed = true;
    this.live?.stop();
  }

  /** The key in use changed: the query runs again as the new key (a private collection's "mine" follows it). */
  keyChanged(): void {
    try {
      void this.load(this.builder.query());
    } catch {
      // A query the builder refuses as typed: it says so when Run is pressed; the page shown stays.
    }
  }

  private async load(query: ListQuery, cursor: { after?: string; before?: string } = {}, offset = 0): Promise<void> {
    this.live?.stop();
    // Only the latest load is shown: a slower earlier one (Run clicked twice, then Next) must not overwrite it.
    const load = ++this.loads;
    const paging = Boolean(cursor.after || cursor.before);
    if (!paging) this.baseQuery = query;
    const request = { ...this.baseQuery, ...cursor };
    this.status.textContent = 'Loading…';
    try {
      const answer = await this.page(request);
      if (load !== this.loads || this.closed) return;
      if (answer.records.length === 0 && paging && this.shown) {
        // Paged past either end: the page shown stays (an empty page has no cursors to come back by).
        this.status.textContent = cursor.after ? 'No later records' : 'No earlier records';
        if (cursor.after) this.total = this.shown.offset + this.shown.answer.records.length;
        else this.shown = { ...this.shown, offset: 0 };
        this.renderPager();
        this.restartLive();
        return;
      }
      this.show({ query: request, answer, offset }, false);
      if (!paging) {
        this.total = undefined;
        this.renderPager();
        void this.refreshCount();
      }
      this.restartLive();
    } catch (error) {
      if (load !== this.loads || this.closed) return;
      this.shown = undefined;
      this.total = undefined;
      this.status.textContent = '';
      // A count still on its way for an earlier query must not show beside this error.
      this.counts++;
      this.count.textContent = '';
      replaceChildren(this.sums);
      replaceChildren(this.table, this.refusal(error));
      replaceChildren(this.pager);
      this.position.textContent = '';
    }
  }

  /**
   * A page of the query, with the references chosen expanded. Live updates read the page again through here too,
   * so a record that changes or arrives is shown expanded like the others.
   */
  private async page(request: ListQuery & { signal?: AbortSignal }): Promise<ShownPage> {
    const collection = this.connection.collection(this.info.id);
    const paths = this.expandChoices.filter((box) => box.checked).map((box) => box.dataset.expand!);
    if (paths.length === 0) return { ...(await collection.list(request)), expansions: new Map() };
    const expanded = await collection.listExpanded(paths as never[], request);
    return {
      ...expanded,
      records: expanded.records.map(({ record }) => record),
      expansions: new Map(expanded.records.map(({ record, expand }) => [record.id, expand as Record<string, unknown>])),
    };
  }

  /** The page shown, read again where it is (after a record was created here). */
  private reload(): void {
    const shown = this.shown;
    if (!shown) return void this.load(this.baseQuery);
    void this.load(this.baseQuery, { after: shown.query.after, before: shown.query.before }, shown.offset);
  }

  /**
   * What a refused list shows. A private collection's refusal of an unconfined list (no key, or a list of all) says
   * how to see one's records; the server's own answer is a click away. Anything else is the server's answer.
   */
  private refusal(error: unknown): HTMLElement {
    const unconfined = isReason(error, 'permission/unconfined-query') || isReason(error, 'unauthorized');
    if (!unconfined || this.info.publicRead) return errorBox(error);
    const keyFields = this.info.readFields.map((field) => field.name).join(', ') || 'a field of the record';
    const answer = h('details', { class: 'server-answer' }, h('summary', {}, 'What the server answered'), errorBox(error));
    if (!this.host.key()) {
      return h('div', { class: 'private-state', id: 'private-state' },
        h('h3', {}, 'Sign in to see your records'),
        h('p', {}, `${this.info.id} is private: each record is readable only by the keys it names (${keyFields}). Sign in with your key, or generate one, and the list shows the records you may read.`),
        h('button', { type: 'button', id: 'sign-in', onclick: () => this.host.signIn() }, 'Sign in'),
        answer);
    }
    const mine = this.builder.mineChoice();
    return h('div', { class: 'private-state', id: 'private-state' },
      h('h3', {}, 'Only your records can be listed'),
      h('p', {}, `${this.info.id} is private: a list must be limited to the records your key may read (${keyFields}).`),
      mine ? h('button', { type: 'button', id: 'show-mine', onclick: () => {
        this.builder.chooseMine();
        this.keyChanged();
      } }, 'Show my records') : null,
      answer);
  }

  private restartLive(): void {
    this.live?.stop();
    this.live = undefined;
    if (this.closed) return;
    const shown = this.shown;
    if (!shown || !this.liveToggle.checked) {
      if (shown) this.status.textContent = 'Live updates off';
      return;
    }
    // The service streams no search (a stream cannot keep a relevance order): Run again to search anew.
    if (shown.query.search !== undefined) {
      this.status.textContent = 'Search results, by relevance (no live updates)';
      return;
    }
    const live = new LiveList<ShownPage>(this.connection.collection(this.info.id), shown.query,
      (answer) => {
        this.show({ query: shown.query, answer, offset: shown.offset }, true);
        void this.refreshCount();
      },
      (error) => {
        this.status.textContent = `Live updates interrupted (${error instanceof VellumError ? error.reason : (error as Error).message}); retrying`;
      },
      (mode, why) => {
        // Which channel follows the page: the push stream, or long-polls when the server refused the stream.
        this.status.dataset.mode = mode;
        if (this.status.textContent?.startsWith('Live updates interrupted')) this.status.textContent = 'Live: waiting for changes';
        this.status.title = mode === 'stream' ? 'following the push stream (stream=1)' : `following with long-polls${why ? ` (the push stream was refused: ${why})` : ''}`;
      },
      // Read again as the page was read: a record that changes or arrives is shown with its references expanded.
      (request) => this.page(request));
    this.live = live;
    this.status.textContent = 'Live: waiting for changes';
    live.start(shown.answer.timestamp ?? '0');
  }

  /**
   * How many records match the query's where (and the caller may read): `count=true`, re-asked after each change;
   * with the collection's number fields (the first five) summed, averaged, and their least and greatest values, in
   * the same request (`sum=`, `avg=`, `min=`, `max=`).
   */
  private async refreshCount(): Promise<void> {
    const asked = ++this.counts;
    if (this.baseQuery.search !== undefined) {
      this.count.textContent = ''; // the service counts no search
      return;
    }
    const where = this.baseQuery.where;
    const numbers = this.info.fields.filter((field) => field.type.kind === 'primitive' && field.type.value === 'number').slice(0, 5).map((field) => field.name);
    try {
      const collection = this.connection.collection(this.info.id);
      const answer: { count: number; sum?: Record<string, number>; avg?: Record<string, number | null>; min?: Record<string, number | null>; max?: Record<string, number | null> } =
        numbers.length === 0 ? { count: await collection.count(where) } : await collection.aggregate({ sum: numbers, avg: numbers, min: numbers, max: numbers } as never, where);
      if (asked !== this.counts || this.closed) return;
      const { count } = answer;
      this.total = count;
      this.count.textContent = `${count} matching record${count === 1 ? '' : 's'}`;
      this.count.title = '';
      replaceChildren(this.sums, ...numbers.map((name) => h('span', { class: 'record-sum', 'data-field': name },
        h('strong', {}, name), ` sum ${numberText(answer.sum?.[name])} · avg ${numberText(answer.avg?.[name])} · min ${numberText(answer.min?.[name])} · max ${numberText(answer.max?.[name])}`)));
    } catch (error) {
      if (asked !== this.counts || this.closed) return;
      this.total = undefined;
      // A count is bounded by the entries it reads: past that, say so instead of a number.
      this.count.textContent = isReason(error, 'indexer/scan-limit-exceeded') ? 'too many to count' : 'count unavailable';
      this.count.title = error instanceof Error ? error.message : String(error);
      replaceChildren(this.sums);
    }
    this.renderPager();
  }

  private show(shown: Shown, fromLive: boolean): void {
    const before = new Map((this.shown?.answer.records ?? []).map((record) => [record.id, JSON.stringify(record)]));
    this.shown = shown;
    const { records, expansions } = shown.answer;
    if (fromLive) this.status.textContent = `Live: updated at ${new Date().toLocaleTimeString()}`;
    const fields = this.info.fields;
    const rows = records.map((record) => {
      const changed = fromLive && before.get(record.id) !== JSON.stringify(record);
      return h('tr', { class: [changed ? 'changed' : '', record.id === this.selectedId ? 'selected' : ''].join(' ').trim() || undefined, 'data-id': record.id, tabindex: 0,
        onclick: () => this.select(record), onkeydown: (event: Event) => {
          if ((event as KeyboardEvent).key === 'Enter') this.select(record);
        } },
        ...fields.map((field) => {
          const text = valueText(record[field.name], field.type);
          const numeric = field.type.kind === 'primitive' && field.type.value === 'number';
          const expansion = expansions.get(record.id);
          if (expansion && Object.hasOwn(expansion, field.name)) {
            // The referenced record inline: its id, then what names it; the whole of it in the tooltip.
            const entry = expansion[field.name];
            return h('td', { class: 'expanded', title: JSON.stringify(entry) }, shorten(`${text} → ${expandedText(entry)}`, 60));
          }
          // A key is told apart by its ends; the whole of it is in the tooltip and the record's JSON.
          const shown = field.type.kind === 'publickey' ? shortKey(text) : shorten(text, 40);
          return h('td', { title: shown !== text ? text : undefined, class: numeric ? 'number' : undefined }, shown);
        }));
    });
    replaceChildren(this.table, records.length === 0
      ? h('p', { class: 'muted empty' }, shown.offset === 0 ? 'No records match.' : 'No records on this page.')
      : h('table', {}, h('thead', {}, h('tr', {}, ...fields.map((field) => h('th', { scope: 'col', title: typeText(field.type) }, field.name)))), h('tbody', {}, ...rows)));
    const selected = records.find((record) => record.id === this.selectedId);
    // A live change to the selected record updates its JSON and leaves the function forms (and what is typed in them) alone.
    if (selected && fromLive) replaceChildren(this.detailJson, recordJson(selected));
    this.renderPager();
  }

  /**
   * "rows 26–50 of 250" and the paging buttons: Previous off on the first page, Next off on the last (the count
   * says where the result ends; without it, a page shorter than the page size is the last).
   */
  private renderPager(): void {
    const shown = this.shown;
    if (!shown) return;
    const { records, cursor } = shown.answer;
    const first = shown.offset + 1;
    const last = shown.offset + records.length;
    const limit = this.baseQuery.limit ?? 100;
    const atEnd = records.length < limit || (this.total !== undefined && last >= this.total);
    const atStart = shown.offset === 0 || !cursor.before;
    this.position.textContent = records.length === 0 ? '' : `rows ${first}–${last}${this.total === undefined ? '' : ` of ${this.total}`}`;
    const next = () => void this.load(this.baseQuery, { after: cursor.after ?? undefined }, last);
    const previous = () => void this.load(this.baseQuery, { before: cursor.before ?? undefined }, Math.max(0, shown.offset - limit));
    replaceChildren(this.pager,
      h('button', { type: 'button', id: 'previous-page', disabled: atStart || records.length === 0, onclick: previous }, '← Previous'),
      h('button', { type: 'button', id: 'next-page', disabled: atEnd || !cursor.after || records.length === 0, onclick: next }, 'Next →'));
  }

  /** A record by its id, wherever it is in the list: a get, with the caller's read permission. */
  private openById(): HTMLElement {
    const id = h('input', { type: 'text', id: 'open-id', placeholder: 'record id', 'aria-label': 'record id to open', spellcheck: 'false', autocomplete: 'off' });
    return h('form', { class: 'inline open-by-id', onsubmit: (event: Event) => {
      event.preventDefault();
      if (id.value === '') return;
      this.connection.collection(this.info.id).get(id.value).then(
        (record) => this.select(record),
        (error: unknown) => {
          this.selectedId = undefined;
          replaceChildren(this.detail, h('section', { class: 'panel' }, h('h3', {}, 'Record ', h('code', {}, id.value)), errorBox(error)));
        });
    } }, id, h('button', { type: 'submit' }, 'Open'));
  }

  private createPanel(): HTMLElement {
    const form = parameterForm(this.info, this.info.constructorParameters, this.host.key, 'create');
    const result = h('div', { class: 'result', id: 'create-result' });
    return h('section', { class: 'panel' },
      h('h3', {}, 'New record'),
      h('form', { id: 'create-form', onsubmit: (event: Event) => {
        event.preventDefault();
        void this.submit(result, async () => {
          const record = await this.connection.collection(this.info.id).create(...form.read());
          this.selectedId = record.id;
          this.renderDetail(record);
          // The list shows it (when it matches) without waiting for live updates, which may be off.
          this.reload();
          return h('div', { class: 'ok' }, `Created ${record.id}`);
        });
      } }, form.element, h('button', { type: 'submit', id: 'create-record' }, 'Create')),
      result);
  }

  private select(record: WireRecord): void {
    this.selectedId = record.id;
    for (const row of this.table.querySelectorAll('tr[data-id]')) row.classList.toggle('selected', row.getAttribute('data-id') === record.id);
    this.renderDetail(record);
  }

  private renderDetail(record: WireRecord): void {
    replaceChildren(this.detailJson, recordJson(record));
    const functions = this.info.functions.map((fn) => {
      const form = parameterForm(this.info, fn.parameters, this.host.key, `call-${fn.name}`);
      const result = h('div', { class: 'result' });
      return h('form', { class: 'function', 'data-function': fn.name, onsubmit: (event: Event) => {
        event.preventDefault();
        void this.submit(result, async () => {
          const after = await this.connection.collection(this.info.id).record(record.id).call(fn.name, ...form.read());
          if (after) replaceChildren(this.detailJson, recordJson(after));
          return h('div', { class: 'ok' }, after ? `${fn.name} done` : `${fn.name} done: the record was deleted`);
        });
      } }, h('h4', {}, fn.name, h('span', { class: 'muted' }, `(${fn.parameters.map((p) => p.name).join(', ')})`)), form.element, h('button', { type: 'submit' }, `Call ${fn.name}`), result);
    });
    replaceChildren(this.detail, h('section', { class: 'panel' },
      h('h3', {}, 'Record ', h('code', {}, record.id)),
      this.detailJson,
      functions.length > 0 ? h('div', { class: 'functions' }, ...functions) : h('p', { class: 'muted' }, 'This collection has no functions.')));
  }

  /** Runs a write and shows its outcome (or its error envelope) in `result`. */
  private async submit(result: HTMLElement, write: () => Promise<HTMLElement>): Promise<void> {
    replaceChildren(result, h('span', { class: 'muted' }, 'Sending…'));
    try {
      const outcome = await write();
      replaceChildren(result, outcome);
    } catch (error) {
      replaceChildren(result, error instanceof FormError ? h('div', { class: 'error-box', role: 'alert' }, error.message) : errorBox(error));
    }
  }
}

/** An aggregate as shown: at most 6 significant digits, `–` when there is none (no record holds a number). */
function numberText(value: number | null | undefined): string {
  if (value === null || value === undefined) return '–';
  return Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(6)));
}

/**
 * An expanded reference as a cell shows it: the referenced record's first text field other than its id (its
 * name, usually), or its id; `not readable` when the caller may not read it (the service leaves null).
 */
function expandedText(entry: unknown): string {
  if (Array.isArray(entry)) return entry.map(expandedText).join(', ');
  if (entry === null || typeof entry !== 'object' || !('data' in entry)) return 'not readable';
  const data = (entry as { data: Record<string, unknown> }).data;
  const name = Object.entries(data).find(([key, value]) => key !== 'id' && typeof value === 'string');
  return name ? String(name[1]) : String(data.id);
}
