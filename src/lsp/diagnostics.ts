// Vellum's diagnostics as LSP diagnostics: the catalogue's code, the severity, the span, and notes with a place as
// related information (the `{` a missing `}` would close, the first declaration of a duplicate).
import { DiagnosticSeverity, type Diagnostic as LspDiagnostic } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { Diagnostic } from '../lang/index.ts';

export function toLspDiagnostics(diagnostics: readonly Diagnostic[], document: TextDocument): LspDiagnostic[] {
  const range = (span: { start: number; end: number }) => ({ start: document.positionAt(span.start), end: document.positionAt(span.end) });
  return diagnostics.map((d) => ({
    range: range(d.span),
    severity: d.severity === 'error' ? DiagnosticSeverity.Error : DiagnosticSeverity.Warning,
    code: d.code,
    source: 'vellum',
    message: [d.message, ...d.notes.filter((n) => !n.span).map((n) => n.message)].join('\n'),
    relatedInformation: d.notes
      .filter((n) => n.span)
      .map((n) => ({ location: { uri: document.uri, range: range(n.span!) }, message: n.message })),
  }));
}
