// Creating a collection from the editor: a record of the Collection collection with [id, schema text], as any
// client creates one. Signed when the page holds a key, which then owns the collection (only it may update it).
import type { Connection } from './connection.ts';
import { h } from './dom.ts';
import { SchemaEditor } from './editor.ts';
import { showSchemaError, META_COLLECTION } from './schema-view.ts';

const TEMPLATE = `@public
collection Note {
  id: string;
  text: string;
  likes: number;

  constructor (id: string, text: string) {
    this.id = id;
    this.text = text;
    this.likes = 0;
  }

  like () {
    this.likes += 1;
  }
}
`;

const FIRST_COLLECTION = /\bcollection\s+([A-Za-z_$][\w$]*)/;

export function newCollectionView(connection: Connection, onCreated: (id: string) => void): HTMLElement {
  const editor = new SchemaEditor(TEMPLATE, 'new collection schema');
  const id = h('input', { type: 'text', id: 'new-collection-id', value: 'app/Note', spellcheck: 'false', autocomplete: 'off', required: true, pattern: '.+/.+', title: 'namespace/Name, such as app/Note' });
  // Until the id is edited by hand, it follows the name of the first collection in the text.
  let idEdited = false;
  id.addEventListener('input', () => (idEdited = true));
  editor.textarea.addEventListener('input', () => {
    const name = FIRST_COLLECTION.exec(editor.value)?.[1];
    if (!idEdited && name) id.value = `${id.value.slice(0, id.value.lastIndexOf('/') + 1) || 'app/'}${name}`;
  });
  const result = h('div', { class: 'result', id: 'new-collection-result' });
  return h('section', { class: 'new-collection' },
    h('h2', {}, 'New collection'),
    h('form', { onsubmit: (event: Event) => {
      event.preventDefault();
      result.textContent = 'Creating…';
      connection.collection(META_COLLECTION).create(id.value.trim(), editor.value).then(
        () => onCreated(id.value.trim()),
        (error: unknown) => showSchemaError(error, editor, result));
    } },
      h('div', { class: 'query-line' }, h('label', { for: 'new-collection-id' }, 'Collection id'), id, h('button', { type: 'submit', id: 'create-collection' }, 'Create collection')),
      editor.element,
      result));
}
