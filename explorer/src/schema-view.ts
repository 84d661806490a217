// A collection's schema: its code highlighted, and an editor that saves a new version through the Collection
// collection's `updateCode` (the same call any client makes), with the checker's errors at line and column.
import { VellumError } from 'vellum/client';
import type { Connection, WireRecord } from './connection.ts';
import { h, replaceChildren } from './dom.ts';
import { diagnosticsOf } from './diagnostics.ts';
import { SchemaEditor } from './editor.ts';
import { errorBox } from './format.ts';
import { highlighted } from './highlight.ts';

export const META_COLLECTION = 'Collection';

export class SchemaView {
  readonly element = h('div', { class: 'schema-view' });

  constructor(
    private readonly connection: Connection,
    private readonly record: WireRecord & { code?: unknown; publicKey?: unknown },
    private readonly onSaved: () => void,
  ) {
    this.showCode();
  }

  private get code(): string {
    return typeof this.record.code === 'string' ? this.record.code : '';
  }

  private showCode(): void {
    replaceChildren(this.element,
      h('div', { class: 'schema-bar' },
        h('button', { type: 'button', id: 'edit-schema', onclick: () => this.edit() }, 'Edit schema'),
        h('span', { class: 'muted' }, this.record.publicKey ? 'Owned by the key that created it: only that key and admin keys may update it.' : 'No owner (installed by the operator): only admin keys may update it.')),
      h('pre', { class: 'code', id: 'schema-code' }, h('code', {}, highlighted(this.code))));
  }

  private edit(): void {
    const editor = new SchemaEditor(this.code, 'schema');
    const result = h('div', { class: 'result', id: 'schema-result' });
    replaceChildren(this.element,
      h('form', { class: 'schema-form', onsubmit: (event: Event) => {
        event.preventDefault();
        void this.save(editor, result);
      } },
        editor.element,
        h('div', { class: 'schema-bar' }, h('button', { type: 'submit', id: 'save-schema' }, 'Save'), h('button', { type: 'button', onclick: () => this.showCode() }, 'Cancel')),
        result));
    editor.textarea.focus();
  }

  private async save(editor: SchemaEditor, result: HTMLElement): Promise<void> {
    replaceChildren(result, h('span', { class: 'muted' }, 'Saving…'));
    try {
      await this.connection.collection(META_COLLECTION).record(this.record.id).call('updateCode', editor.value);
      this.onSaved();
    } catch (error) {
      showSchemaError(error, editor, result);
    }
  }
}

/** A refused schema: its errors marked in the editor (when they have a place) and the envelope below it. */
export function showSchemaError(error: unknown, editor: SchemaEditor, result: HTMLElement): void {
  editor.showDiagnostics(error instanceof VellumError && error.reason === 'collection/invalid-schema' ? diagnosticsOf(error.message) : []);
  replaceChildren(result, errorBox(error));
}
