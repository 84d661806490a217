// The schema editor: a plain textarea over a highlighted copy of its text (the textarea's own text is
// transparent, its caret is not), line numbers, and the server's diagnostics marked at their line and column.
import { h, replaceChildren } from './dom.ts';
import type { Diagnostic } from './diagnostics.ts';
import { highlighted } from './highlight.ts';

export class SchemaEditor {
  readonly textarea: HTMLTextAreaElement;
  readonly element: HTMLElement;
  private readonly code = h('code');
  private readonly gutter = h('div', { class: 'gutter', 'aria-hidden': 'true' });
  private readonly marks = h('div', { class: 'marks', 'aria-hidden': 'true' });
  private readonly list = h('ul', { class: 'diagnostics', 'aria-label': 'schema errors' });
  private diagnostics: Diagnostic[] = [];

  constructor(text: string, label: string) {
    this.textarea = h('textarea', { class: 'editor-input', spellcheck: 'false', autocomplete: 'off', wrap: 'off', 'aria-label': label });
    this.textarea.value = text;
    const layer = h('pre', { class: 'editor-highlight', 'aria-hidden': 'true' }, this.code);
    this.element = h('div', { class: 'editor' }, h('div', { class: 'editor-body' }, this.gutter, h('div', { class: 'editor-text' }, layer, this.marks, this.textarea)), this.list);
    this.textarea.addEventListener('input', () => {
      // Marks point into the text as it was checked: once it changes they would point at the wrong places.
      this.diagnostics = [];
      this.render();
    });
    this.textarea.addEventListener('scroll', () => {
      layer.scrollTop = this.marks.scrollTop = this.gutter.scrollTop = this.textarea.scrollTop;
      layer.scrollLeft = this.marks.scrollLeft = this.textarea.scrollLeft;
    });
    this.textarea.addEventListener('keydown', (event) => {
      // Tab indents (two spaces) as in any code editor; Escape first lets Tab move focus on as usual.
      if (event.key === 'Tab' && !event.shiftKey && !event.ctrlKey && !event.altKey && !event.metaKey && this.textarea.dataset.escaped !== 'yes') {
        event.preventDefault();
        this.textarea.setRangeText('  ', this.textarea.selectionStart, this.textarea.selectionEnd, 'end');
        this.textarea.dispatchEvent(new Event('input'));
      }
      this.textarea.dataset.escaped = event.key === 'Escape' ? 'yes' : 'no';
    });
    this.render();
  }

  get value(): string {
    return this.textarea.value;
  }

  showDiagnostics(diagnostics: Diagnostic[]): void {
    this.diagnostics = diagnostics;
    this.render();
  }

  /** Puts the caret at a line and column (1-based) and scrolls it into view. */
  goTo(line: number, column: number): void {
    const lines = this.textarea.value.split('\n');
    let offset = 0;
    for (let i = 0; i < Math.min(line - 1, lines.length); i++) offset += lines[i]!.length + 1;
    offset += Math.max(0, column - 1);
    this.textarea.focus();
    this.textarea.setSelectionRange(offset, offset);
    const lineHeight = parseFloat(getComputedStyle(this.textarea).lineHeight) || 20;
    this.textarea.scrollTop = Math.max(0, (line - 3) * lineHeight);
  }

  private render(): void {
    const text = this.textarea.value;
    // A trailing newline needs a character after it, or the highlight layer is a line shorter than the textarea.
    replaceChildren(this.code, highlighted(text), '\n');
    const lines = text.split('\n');
    const lineCount = lines.length;
    const marked = new Set(this.diagnostics.map((d) => d.line));
    this.gutter.replaceChildren(...Array.from({ length: lineCount }, (_, i) => h('div', { class: marked.has(i + 1) ? 'error-line' : undefined }, String(i + 1))));
    replaceChildren(this.marks, ...this.diagnostics.map((d) => {
      const mark = h('div', { class: 'mark', title: `${d.code}: ${d.message}` });
      // Positioned in line and character units by CSS variables, so the marks follow the font's metrics. The
      // underline runs from the column to the end of the line (at least one character).
      const rest = (lines[d.line - 1]?.length ?? 0) - (d.column - 1);
      mark.style.setProperty('--mark-line', String(d.line - 1));
      mark.style.setProperty('--mark-column', String(d.column - 1));
      mark.style.setProperty('--mark-width', String(Math.max(1, rest)));
      return mark;
    }));
    replaceChildren(this.list, ...this.diagnostics.map((d) =>
      h('li', {},
        h('button', { type: 'button', class: 'diagnostic', onclick: () => this.goTo(d.line, d.column) },
          h('span', { class: 'where' }, `${d.line}:${d.column}`), ' ', h('span', { class: 'diagnostic-code' }, d.code), ' ', d.message))));
  }
}
