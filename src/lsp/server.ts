// `vellum lsp`: a Language Server over stdio (vscode-languageserver), built on the checker. Each concern has its
// file: analysis.ts (one check per document version), diagnostics.ts, symbol-at.ts (hover and definition),
// symbols.ts (outline); formatting is the formatter's (src/lang/format.ts).
import { createConnection, ProposedFeatures, TextDocuments, TextDocumentSyncKind, MarkupKind } from 'vscode-languageserver/node.js';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { formatSchema } from '../lang/index.ts';
import { Analyses } from './analysis.ts';
import { toLspDiagnostics } from './diagnostics.ts';
import { symbolAt } from './symbol-at.ts';
import { documentSymbols } from './symbols.ts';

export function startServer(): void {
  const connection = createConnection(ProposedFeatures.all, process.stdin, process.stdout);
  const documents = new TextDocuments(TextDocument);
  const analyses = new Analyses();
  const analysisOf = (document: TextDocument) => analyses.get(document.uri, document.version, document.getText());

  connection.onInitialize(() => ({
    capabilities: {
      textDocumentSync: TextDocumentSyncKind.Incremental,
      hoverProvider: true,
      definitionProvider: true,
      documentSymbolProvider: true,
      documentFormattingProvider: true,
    },
    serverInfo: { name: 'vellum' },
  }));

  // Diagnostics as you type: every change is checked once and published.
  documents.onDidChangeContent(({ document }) => {
    const { diagnostics } = analysisOf(document);
    void connection.sendDiagnostics({ uri: document.uri, version: document.version, diagnostics: toLspDiagnostics(diagnostics, document) });
  });
  documents.onDidClose(({ document }) => {
    analyses.forget(document.uri);
    void connection.sendDiagnostics({ uri: document.uri, diagnostics: [] });
  });

  connection.onHover(({ textDocument, position }) => {
    const document = documents.get(textDocument.uri);
    if (!document) return null;
    const { program, checked } = analysisOf(document);
    if (!program) return null;
    const symbol = symbolAt(program, checked, document.offsetAt(position));
    if (!symbol) return null;
    const value = ['```vellum', symbol.signature, '```', ...(symbol.doc ? ['', symbol.doc] : [])].join('\n');
    return {
      contents: { kind: MarkupKind.Markdown, value },
      range: { start: document.positionAt(symbol.span.start), end: document.positionAt(symbol.span.end) },
    };
  });

  connection.onDefinition(({ textDocument, position }) => {
    const document = documents.get(textDocument.uri);
    if (!document) return null;
    const { program, checked } = analysisOf(document);
    if (!program) return null;
    const declaration = symbolAt(program, checked, document.offsetAt(position))?.declaration;
    if (!declaration) return null;
    return { uri: document.uri, range: { start: document.positionAt(declaration.start), end: document.positionAt(declaration.end) } };
  });

  connection.onDocumentSymbol(({ textDocument }) => {
    const document = documents.get(textDocument.uri);
    const program = document && analysisOf(document).program;
    return document && program ? documentSymbols(program, document) : null;
  });

  connection.onDocumentFormatting(({ textDocument }) => {
    const document = documents.get(textDocument.uri);
    if (!document) return null;
    const { formatted } = formatSchema(document.getText(), document.uri);
    if (formatted === undefined || formatted === document.getText()) return [];
    return [{ range: { start: { line: 0, character: 0 }, end: document.positionAt(document.getText().length) }, newText: formatted }];
  });

  documents.listen(connection);
  connection.listen();
}
