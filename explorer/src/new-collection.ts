// Creating a collection from the editor: a record of the Collection collection with [id, schema text], as any
// client creates one, signed with the key in use, which then owns the collection (it and the admin keys may update
// it). Unsigned, the server refuses it (docs/service.md "Securing a deployment"): the page then asks to sign in.
import type { Connection } from './connection.ts';
import { h, replaceChildren } from './dom.ts';
import { SchemaEditor } from './editor.ts';
import { isReason, signInNeeded } from './format.ts';
import type { SigningKey } from './key.ts';
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

export interface NewCollectionHost {
  /** The key in use, if any. */
  key: () => SigningKey | undefined;
  /** Opens the key menu. */
  signIn: () => void;
  onCreated: (id: string) => void;
}

export function newCollectionView(connection: Connection, host: NewCollectionHost): HTMLElement {
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
        () => host.onCreated(id.value.trim()),
        (error: unknown) => {
          if (host.key() || !isReason(error, 'permission/create-collection')) return showSchemaError(error, editor, result);
          editor.showDiagnostics([]);
          replaceChildren(result, signInNeeded('Sign in with a key to create collections',
            'The server creates collections only for signed requests (who may is its operator\'s choice). Sign in with your key, or generate one, and press "Create collection" again.',
            host.signIn, error));
        });
    } },
      h('div', { class: 'query-line' }, h('label', { for: 'new-collection-id' }, 'Collection id'), id, h('button', { type: 'submit', id: 'create-collection' }, 'Create collection')),
      editor.element,
      result));
}
