// The sidebar: the collections (records of the Collection collection), filtered by id prefix on the server,
// paged with "more", and kept current by a long-poll so a collection created elsewhere appears.
import type { Connection, ListQuery, WireRecord } from './connection.ts';
import { h, replaceChildren } from './dom.ts';
import { errorBox } from './format.ts';
import { LiveList } from './live.ts';
import { META_COLLECTION } from './schema-view.ts';

const PAGE = 100;

export class CollectionsList {
  readonly element: HTMLElement;
  private readonly list = h('ul', { class: 'collection-list', id: 'collections' });
  private readonly more = h('div', { class: 'more' });
  private readonly filter: HTMLInputElement;
  private live: LiveList | undefined;
  private current = '';
  private readonly toggle: HTMLButtonElement;
  private readonly currentLabel = h('span', { class: 'current-collection' });
  private loads = 0;

  constructor(private readonly connection: Connection) {
    this.filter = h('input', { type: 'search', id: 'collection-filter', placeholder: 'filter by id prefix', 'aria-label': 'filter collections by id prefix', spellcheck: 'false', oninput: () => void this.load() });
    // On a narrow screen the list is folded under this button (the page is the collection's); on a wide one it
    // is always shown and the button is not.
    this.toggle = h('button', { type: 'button', class: 'collections-toggle', id: 'collections-toggle', 'aria-expanded': 'false', 'aria-controls': 'collections-body', onclick: () => this.setOpen(!this.element.classList.contains('open')) },
      'Collections', this.currentLabel);
    this.element = h('nav', { class: 'sidebar', 'aria-label': 'collections' },
      this.toggle,
      h('div', { class: 'sidebar-body', id: 'collections-body' },
        h('div', { class: 'sidebar-head' }, h('h2', {}, 'Collections'), h('a', { href: '#/new', class: 'button', id: 'new-collection' }, '+ New')),
        this.filter, this.list, this.more));
    void this.load();
  }

  /** Marks the collection shown in the main view; on a narrow screen the list folds away again. */
  select(id: string): void {
    this.current = id;
    this.setOpen(false);
    this.currentLabel.textContent = id;
    for (const link of this.list.querySelectorAll('a')) link.classList.toggle('current', link.dataset.id === id);
  }

  /** Lists again (a collection was created, or the key changed: who reads decides what is seen). */
  refresh(): void {
    void this.load();
  }

  private setOpen(open: boolean): void {
    this.element.classList.toggle('open', open);
    this.toggle.setAttribute('aria-expanded', String(open));
  }

  private query(): ListQuery {
    const prefix = this.filter.value;
    // Ids are compared as UTF-8 bytes: every id that starts with the prefix sorts below prefix + U+FFFF.
    const where = prefix ? { id: { $gte: prefix, $lt: `${prefix}\uffff` } } : {};
    return { where, sort: [['id', 'asc']], limit: PAGE };
  }

  private async load(): Promise<void> {
    this.live?.stop();
    // Only the latest load is shown and followed (a filter typed quickly starts several).
    const load = ++this.loads;
    const query = this.query();
    try {
      const collection = this.connection.collection(META_COLLECTION);
      const answer = await collection.list(query);
      if (load !== this.loads) return;
      this.render(answer.records, answer.cursor.after, false);
      this.live = new LiveList(collection, query, (next) => this.render(next.records, next.cursor.after, false), () => {});
      this.live.start(answer.timestamp ?? '0');
    } catch (error) {
      if (load === this.loads) replaceChildren(this.list, h('li', {}, errorBox(error)));
    }
  }

  private render(records: WireRecord[], after: string | null, append: boolean): void {
    const items = records.filter((record) => record.id !== META_COLLECTION).map((record) =>
      h('li', {}, h('a', { href: `#/c/${encodeURIComponent(record.id)}`, 'data-id': record.id, class: record.id === this.current ? 'current' : undefined }, record.id)));
    if (append) this.list.append(...items);
    else replaceChildren(this.list, ...(items.length > 0 ? items : [h('li', { class: 'muted' }, this.filter.value ? 'No collection with that prefix.' : 'No collections yet.')]));
    replaceChildren(this.more, records.length === PAGE && after
      ? h('button', { type: 'button', class: 'small', onclick: () => void this.loadMore(after) }, 'More…')
      : null);
  }

  private async loadMore(after: string): Promise<void> {
    try {
      const answer = await this.connection.collection(META_COLLECTION).list({ ...this.query(), after });
      this.render(answer.records, answer.cursor.after, true);
    } catch (error) {
      replaceChildren(this.more, errorBox(error));
    }
  }
}
