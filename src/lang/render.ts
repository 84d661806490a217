// Presentation of diagnostics: `file:line:col: error CODE: message` with a code frame, or JSON for
// tools. The data (diagnostics.ts) knows nothing about either.

import type { Diagnostic } from './diagnostics.ts';
import type { SourceFile } from './source.ts';

export interface DiagnosticJson {
  file: string;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  code: string;
  severity: string;
  message: string;
  notes: { message: string; line?: number; column?: number }[];
}

export function toJson(diagnostic: Diagnostic, source: SourceFile): DiagnosticJson {
  const start = source.position(diagnostic.span.start);
  const end = source.position(diagnostic.span.end);
  return {
    file: source.name,
    line: start.line,
    column: start.column,
    endLine: end.line,
    endColumn: end.column,
    code: diagnostic.code,
    severity: diagnostic.severity,
    message: diagnostic.message,
    notes: diagnostic.notes.map((note) => {
      if (!note.span) return { message: note.message };
      const at = source.position(note.span.start);
      return { message: note.message, line: at.line, column: at.column };
    }),
  };
}

const MAX_FRAME_WIDTH = 160;

export interface RenderOptions {
  /** ANSI colours, as tsc's pretty output on a terminal: the severity in red or yellow, the caret too, the gutter dim. */
  colour?: boolean;
}

const ANSI = { bold: '1', dim: '2', red: '31', yellow: '33', cyan: '36' } as const;

export function renderText(diagnostic: Diagnostic, source: SourceFile, options: RenderOptions = {}): string {
  const paint = (style: keyof typeof ANSI, text: string) => (options.colour ? `\u001b[${ANSI[style]}m${text}\u001b[0m` : text);
  const tone = diagnostic.severity === 'error' ? 'red' : 'yellow';
  const start = source.position(diagnostic.span.start);
  const end = source.position(diagnostic.span.end);
  const header = `${paint('cyan', `${source.name}:${start.line}:${start.column}`)}: ${paint(tone, `${diagnostic.severity}`)} ${paint('dim', diagnostic.code)}: ${diagnostic.message}`;
  const [code, caret] = codeFrame(source, start.line, start.column, end.line === start.line ? end.column : undefined);
  const gutter = (line: string) => line.replace(/^( [ \d]* \|)/, (g) => paint('dim', g));
  const lines = [header, gutter(code!), gutter(caret!).replace(/\^+$/, (marks) => paint(tone, marks))];
  for (const note of diagnostic.notes) {
    if (note.span) {
      const at = source.position(note.span.start);
      lines.push(`  ${paint('bold', 'note')}: ${paint('cyan', `${source.name}:${at.line}:${at.column}`)}: ${note.message}`);
    } else {
      lines.push(`  ${paint('bold', 'note')}: ${note.message}`);
    }
  }
  return lines.join('\n');
}

function codeFrame(source: SourceFile, line: number, column: number, endColumn: number | undefined): string[] {
  let text = source.lineText(line).replace(/\t/g, ' ');
  let caretColumn = column;
  // Very long lines (minified input, a 5 MB one-liner) are cut around the caret.
  if (text.length > MAX_FRAME_WIDTH) {
    const from = Math.max(0, column - 1 - MAX_FRAME_WIDTH / 2);
    text = text.slice(from, from + MAX_FRAME_WIDTH);
    caretColumn = column - from;
    if (endColumn !== undefined) endColumn -= from;
  }
  const width = Math.max(1, Math.min((endColumn ?? caretColumn + 1) - caretColumn, text.length - caretColumn + 1));
  const gutter = String(line);
  const pad = ' '.repeat(gutter.length);
  return [
    ` ${gutter} | ${text}`,
    ` ${pad} | ${' '.repeat(Math.max(0, caretColumn - 1))}${'^'.repeat(width)}`,
  ];
}
