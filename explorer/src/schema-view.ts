// A collection's schema: its code highlighted, and an editor that saves a new version through the Collection
// collection's `updateCode` (the same call any client makes), with the checker's errors at line and column. Save
// first shows the change's plan (schema-plan.ts) and makes the change only when the user confirms it.
import { VellumError } from 'vellum/client';
import type { Connection, WireRecord } from './connection.ts';
import { h, replaceChildren } from './dom.ts';
import { diagnosticsOf } from './diagnostics.ts';
import { SchemaEditor } from './editor.ts';
import { errorBox } from './format.ts';
import { highlighted } from './highlight.ts';
import { watchMigration } from './migration-progress.ts';
import { planPanel, type SchemaPlan } from './schema-plan.ts';

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

  /** Asks the server for the change's plan (nothing is written) and shows it, with the button that applies it. */
  private async save(editor: SchemaEditor, result: HTMLElement): Promise<void> {
    replaceChildren(result, h('span', { class: 'muted' }, 'Planning…'));
    const code = editor.value;
    try {
      const answer = await this.connection.send({ method: 'POST', path: `${this.#recordPath()}/plan/updateCode`, body: JSON.stringify({ args: [code] }), sign: true });
      const plan = (answer.body as { data: SchemaPlan }).data;
      editor.showDiagnostics([]);
      replaceChildren(result, planPanel(plan, (accepted) => void this.apply(code, accepted, editor, result), () => replaceChildren(result)));
    } catch (error) {
      showSchemaError(error, editor, result);
    }
  }

  /** Makes the change the plan showed, accepting the loss of the fields the user named. */
  private async apply(code: string, acceptDataLoss: string[], editor: SchemaEditor, result: HTMLElement): Promise<void> {
    replaceChildren(result, h('span', { class: 'muted' }, 'Saving…'));
    const stopWatching = watchMigration(this.connection, this.record.id, result);
    try {
      const body = { args: [code], ...(acceptDataLoss.length > 0 ? { acceptDataLoss } : {}) };
      await this.connection.send({ method: 'POST', path: `${this.#recordPath()}/call/updateCode`, body: JSON.stringify(body), sign: true });
      stopWatching();
      this.onSaved();
    } catch (error) {
      stopWatching();
      showSchemaError(error, editor, result);
    }
  }

  #recordPath(): string {
    return `/collections/${META_COLLECTION}/records/${encodeURIComponent(this.record.id)}`;
  }
}

/** A refused schema: its errors marked in the editor (when they have a place) and the envelope below it. */
export function showSchemaError(error: unknown, editor: SchemaEditor, result: HTMLElement): void {
  editor.showDiagnostics(error instanceof VellumError && error.reason === 'collection/invalid-schema' ? diagnosticsOf(error.message) : []);
  replaceChildren(result, errorBox(error));
}
