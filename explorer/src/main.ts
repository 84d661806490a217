// The Vellum Explorer: a web console for a Vellum record service, and a client of its public /v0 API only (it
// has no access the same requests from curl would not have). Pages are addressed by the URL's hash:
//   #/                 the collections (sidebar) and a short guide
//   #/new              create a collection from the editor
//   #/c/<id>           a collection's records
//   #/c/<id>/schema    a collection's schema
import './style.css';
import { Connection, type WireRecord } from './connection.ts';
import { CollectionsList } from './collections-list.ts';
import { h, replaceChildren } from './dom.ts';
import { errorBox } from './format.ts';
import { KeyPanel } from './keys.ts';
import { newCollectionView } from './new-collection.ts';
import { RecordsView } from './records-view.ts';
import { collectionInfo } from './schema.ts';
import { META_COLLECTION, SchemaView } from './schema-view.ts';

// A new key signs the next request; what is on screen stays (a record half typed in a form is not lost).
const keys = new KeyPanel();
const connection = new Connection(() => keys.key, new URL('/v0', location.href).href);
const collections = new CollectionsList(connection);
const main = h('main', { id: 'main' });
let closeView: (() => void) | undefined;
/** The records view shown, told when the key changes. */
let recordsView: RecordsView | undefined;

// A new key: what is listed is read again as it (who reads decides what is seen; a private collection's "mine"
// follows the key).
keys.onChange = () => {
  collections.refresh();
  recordsView?.keyChanged();
};
// Each route() counts one: a collection that finishes loading after the user went elsewhere is not shown.
let navigation = 0;

document.body.append(
  h('header', { class: 'top' },
    h('a', { href: '#/', class: 'brand' }, 'Vellum ', h('span', {}, 'Explorer')),
    h('span', { class: 'server', id: 'server-info' }),
    keys.element),
  h('div', { class: 'layout' }, collections.element, main));

void showServer();
window.addEventListener('hashchange', () => route());
route();

async function showServer(): Promise<void> {
  try {
    const response = await fetch('/', { headers: { Accept: 'application/json' } });
    const info = (await response.json()) as { server?: string; version?: string; compatible?: string };
    document.getElementById('server-info')!.textContent = `${info.server ?? 'server'} ${info.version ?? ''} · ${info.compatible ?? ''} · ${location.host}`;
  } catch {
    document.getElementById('server-info')!.textContent = location.host;
  }
}

function route(): void {
  navigation++;
  closeView?.();
  closeView = undefined;
  recordsView = undefined;
  const hash = location.hash.replace(/^#/, '');
  const collection = /^\/c\/([^/]+)(\/schema)?$/.exec(hash);
  if (hash === '/new') {
    collections.select('');
    replaceChildren(main, newCollectionView(connection, {
      key: () => keys.key,
      signIn: () => keys.open(),
      onCreated: (id) => {
        collections.refresh();
        location.hash = `#/c/${encodeURIComponent(id)}/schema`;
      },
    }));
  } else if (collection) {
    let id: string;
    try {
      id = decodeURIComponent(collection[1]!);
    } catch {
      replaceChildren(main, errorBox(new Error(`the address names no collection: ${collection[1]}`)));
      return;
    }
    collections.select(id);
    void showCollection(id, collection[2] ? 'schema' : 'records', navigation);
  } else {
    collections.select('');
    replaceChildren(main, welcome());
  }
}

async function showCollection(id: string, tab: 'records' | 'schema', started: number): Promise<void> {
  const base = `#/c/${encodeURIComponent(id)}`;
  replaceChildren(main, h('p', { class: 'muted' }, 'Loading…'));
  let record: WireRecord;
  try {
    record = await connection.collection(META_COLLECTION).get(id);
  } catch (error) {
    if (started === navigation) replaceChildren(main, h('h2', {}, id), errorBox(error));
    return;
  }
  if (started !== navigation) return;
  const header = h('div', { class: 'collection-head' },
    h('h2', { id: 'collection-title' }, id),
    h('div', { class: 'tabs', role: 'tablist' },
      h('a', { href: base, role: 'tab', class: tab === 'records' ? 'active' : undefined, 'aria-selected': String(tab === 'records') }, 'Records'),
      h('a', { href: `${base}/schema`, role: 'tab', class: tab === 'schema' ? 'active' : undefined, 'aria-selected': String(tab === 'schema') }, 'Schema')));
  if (tab === 'schema') {
    const view = new SchemaView(connection, record, () => {
      location.hash = base;
    });
    replaceChildren(main, header, view.element);
    return;
  }
  try {
    const info = collectionInfo(id, String(record.ast), typeof record.code === 'string' ? record.code : '');
    const view = new RecordsView(connection, info, { key: () => keys.key, signIn: () => keys.open() });
    closeView = () => view.close();
    recordsView = view;
    replaceChildren(main, header, view.element);
  } catch (error) {
    replaceChildren(main, header, errorBox(error));
  }
}

function welcome(): HTMLElement {
  return h('section', { class: 'welcome' },
    h('h2', {}, 'Vellum Explorer'),
    h('p', {}, 'Browse collections and records, create records and call functions, and write schemas, against this server\'s public /v0 API.'),
    h('ul', {},
      h('li', {}, 'Pick a collection from the list, or ', h('a', { href: '#/new' }, 'create one'), '.'),
      h('li', {}, 'Requests are signed with the key of "Sign in" at the top of the page when there is one (generate, paste or import it). The private key stays in this page; it is kept in this browser\'s localStorage only when "remember" is ticked.'),
      h('li', {}, 'Lists update live (long-poll) while "Live" is ticked.')));
}
