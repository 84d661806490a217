// A collection's records: the where/sort builder, a page of records with paging both ways, how many records match
// (`count=true`), live updates of the page shown, a form to create a record, and the selected record with a form
// per function.
import type { Connection, ListPage, ListQuery, WireRecord } from './connection.ts';
import { VellumError } from 'vellum/client';
import { h, replaceChildren } from './dom.ts';
import { FormError, parameterForm } from './forms.ts';
import { errorBox, recordJson, shorten, valueText } from './format.ts';
import { isReason, LiveList } from './live.ts';
import { QueryBuilder } from './query-builder.ts';
import { typeText, type CollectionInfo } from './schema.ts';
import type { SigningKey } from './key.ts';

interface Page {
  query: ListQuery;
  answer: ListPage;
}

export class RecordsView {
  readonly element: HTMLElement;
  private readonly table = h('div', { class: 'records', id: 'records' });
  private readonly pager = h('div', { class: 'pager' });
  private readonly status = h('div', { class: 'live-status', id: 'live-status', role: 'status' });
  private readonly count = h('div', { class: 'record-count', id: 'record-count' });
  private readonly detail = h('div', { class: 'record-detail', id: 'record-detail' });
  private readonly detailJson = h('div', { class: 'record-json' });
  private readonly liveToggle: HTMLInputElement;
  private page: Page | undefined;
  private live: LiveList | undefined;
  private selectedId: string | undefined;
  private baseQuery: ListQuery = {};
  private loads = 0;
  private counts = 0;
  private closed = false;

  constructor(
    private readonly connection: Connection,
    private readonly info: CollectionInfo,
    private readonly key: () => SigningKey | undefined,
  ) {
    const builder = new QueryBuilder(info, (query) => void this.load({ ...query }), key);
    this.liveToggle = h('input', { type: 'checkbox', id: 'live', checked: true, onchange: () => this.restartLive() });
    this.element = h('div', { class: 'records-view' },
      builder.element,
      h('div', { class: 'records-bar' }, h('label', { for: 'live', class: 'live-toggle' }, this.liveToggle, 'Live'), this.status, this.count, this.openById(), this.pager),
      this.table,
      h('div', { class: 'panels' }, this.createPanel(), this.detail));
    void this.load(builder.query());
  }

  /** Stops the long-poll, and keeps a load still on its way from starting another: the view is gone. */
  close(): void {
    this.closed = true;
    this.live?.stop();
  }

  private async load(query: ListQuery, cursor: { after?: string; before?: string } = {}): Promise<void> {
    this.live?.stop();
    // Only the latest load is shown: a slower earlier one (Run clicked twice, then Next) must not overwrite it.
    const load = ++this.loads;
    if (!cursor.after && !cursor.before) this.baseQuery = query;
    const request = { ...this.baseQuery, ...cursor };
    this.status.textContent = 'Loading…';
    try {
      const answer = await this.connection.collection(this.info.id).list(request);
      if (load !== this.loads) return;
      if (answer.records.length === 0 && (cursor.after || cursor.before) && this.page) {
        // Paged past either end: the page shown stays (an empty page has no cursors to come back by).
        this.restartLive();
        this.status.textContent = cursor.after ? 'No later records' : 'No earlier records';
        this.pager.querySelector<HTMLButtonElement>(cursor.after ? '#next-page' : '#previous-page')!.disabled = true;
        return;
      }
      this.show({ query: request, answer }, false);
      if (!cursor.after && !cursor.before) void this.refreshCount();
      this.restartLive();
    } catch (error) {
      if (load !== this.loads) return;
      this.page = undefined;
      this.status.textContent = '';
      // A count still on its way for an earlier query must not show beside this error.
      this.counts++;
      this.count.textContent = '';
      replaceChildren(this.table, errorBox(error));
      replaceChildren(this.pager);
    }
  }

  private restartLive(): void {
    this.live?.stop();
    this.live = undefined;
    if (this.closed) return;
    const page = this.page;
    if (!page || !this.liveToggle.checked) {
      if (page) this.status.textContent = 'Live updates off';
      return;
    }
    const live = new LiveList(this.connection.collection(this.info.id), page.query,
      (answer) => {
        this.show({ query: page.query, answer }, true);
        void this.refreshCount();
      },
      (error) => {
        this.status.textContent = `Live updates interrupted (${error instanceof VellumError ? error.reason : (error as Error).message}); retrying`;
      },
      (mode, why) => {
        // Which channel follows the page: the push stream, or long-polls when the server refused the stream.
        this.status.dataset.mode = mode;
        this.status.title = mode === 'stream' ? 'following the push stream (stream=1)' : `following with long-polls${why ? ` (the push stream was refused: ${why})` : ''}`;
      });
    this.live = live;
    this.status.textContent = 'Live: waiting for changes';
    live.start(page.answer.timestamp ?? '0');
  }

  /** How many records match the query's where (and the caller may read): `count=true`, re-asked after each change. */
  private async refreshCount(): Promise<void> {
    const asked = ++this.counts;
    const where = this.baseQuery.where;
    try {
      const count = await this.connection.collection(this.info.id).count(where);
      if (asked !== this.counts || this.closed) return;
      this.count.textContent = `${count} matching record${count === 1 ? '' : 's'}`;
      this.count.title = '';
    } catch (error) {
      if (asked !== this.counts || this.closed) return;
      // A count is bounded by the entries it reads: past that, say so instead of a number.
      this.count.textContent = isReason(error, 'indexer/scan-limit-exceeded') ? 'too many to count' : 'count unavailable';
      this.count.title = error instanceof Error ? error.message : String(error);
    }
  }

  private show(page: Page, fromLive: boolean): void {
    const before = new Map((this.page?.answer.records ?? []).map((record) => [record.id, JSON.stringify(record)]));
    this.page = page;
    const { records, cursor } = page.answer;
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
          return h('td', { title: text.length > 40 ? text : undefined, class: numeric ? 'number' : undefined }, shorten(text, 40));
        }));
    });
    replaceChildren(this.table, records.length === 0
      ? h('p', { class: 'muted empty' }, 'No records on this page.')
      : h('table', {}, h('thead', {}, h('tr', {}, ...fields.map((field) => h('th', { scope: 'col', title: typeText(field.type) }, field.name)))), h('tbody', {}, ...rows)));
    const selected = records.find((record) => record.id === this.selectedId);
    // A live change to the selected record updates its JSON and leaves the function forms (and what is typed in them) alone.
    if (selected && fromLive) replaceChildren(this.detailJson, recordJson(selected));
    replaceChildren(this.pager,
      h('button', { type: 'button', id: 'previous-page', disabled: !cursor.before || records.length === 0, onclick: () => void this.load(this.baseQuery, { before: cursor.before ?? undefined }) }, '← Previous'),
      h('button', { type: 'button', id: 'next-page', disabled: !cursor.after || records.length === 0, onclick: () => void this.load(this.baseQuery, { after: cursor.after ?? undefined }) }, 'Next →'));
  }

  /** A record by its id, wherever it is in the list: a get, with the caller's read permission. */
  private openById(): HTMLElement {
    const id = h('input', { type: 'text', id: 'open-id', placeholder: 'record id', 'aria-label': 'record id to open', spellcheck: 'false', autocomplete: 'off' });
    return h('form', { class: 'inline', onsubmit: (event: Event) => {
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
    const form = parameterForm(this.info, this.info.constructorParameters, this.key, 'create');
    const result = h('div', { class: 'result', id: 'create-result' });
    return h('section', { class: 'panel' },
      h('h3', {}, 'New record'),
      h('form', { id: 'create-form', onsubmit: (event: Event) => {
        event.preventDefault();
        void this.submit(result, async () => {
          const record = await this.connection.collection(this.info.id).create(...form.read());
          this.selectedId = record.id;
          this.renderDetail(record);
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
      const form = parameterForm(this.info, fn.parameters, this.key, `call-${fn.name}`);
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
