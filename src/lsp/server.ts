// `vellum lsp`: a Language Server over stdio (vscode-languageserver), built on the checker. Each concern has its
// file: analysis.ts (one check per document version, incremental.ts redoing only what an edit changed), diagnostics.ts, symbol-at.ts (hover and definition),
// references.ts (references and rename), completion.ts and member-completion.ts, symbols.ts (outline), semantic-tokens.ts; formatting is the formatter's
// (src/lang/format.ts).
import { createConnection, ProposedFeatures, ResponseError, TextDocuments, TextDocumentSyncKind, MarkupKind } from 'vscode-languageserver/node.js';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { formatSchema, type CheckedProgram } from '../lang/index.ts';
import { Analyses, resolutionOf } from './analysis.ts';
import { toLspDiagnostics } from './diagnostics.ts';
import { completions } from './completion.ts';
import { memberCompletions } from './member-completion.ts';
import { references } from './references.ts';
import { legend, semanticTokens } from './semantic-tokens.ts';
import { symbolAt } from './symbol-at.ts';
import { documentSymbols } from './symbols.ts';

export function startServer(): void {
  const connection = createConnection(ProposedFeatures.all, process.stdin, process.stdout);
  const documents = new TextDocuments(TextDocument);
  const analyses = new Analyses();
  const analysisOf = (document: TextDocument) => analyses.get(document.uri, document.version, document.getText());
  // The last version of each document that checked, for completion while the current one does not parse.
  const lastChecked = new Map<string, CheckedProgram>();

  connection.onInitialize(() => ({
    capabilities: {
      textDocumentSync: TextDocumentSyncKind.Incremental,
      hoverProvider: true,
      definitionProvider: true,
      documentSymbolProvider: true,
      documentFormattingProvider: true,
      referencesProvider: true,
      renameProvider: true,
      completionProvider: { triggerCharacters: ['.', '@', ':'] },
      semanticTokensProvider: { legend, full: true },
    },
    serverInfo: { name: 'vellum' },
  }));

  // Diagnostics as you type: every change is checked once (from the previous version, incremental.ts) and published.
  documents.onDidChangeContent(({ document }) => {
    const { diagnostics, checked } = analysisOf(document);
    if (checked) lastChecked.set(document.uri, checked);
    void connection.sendDiagnostics({ uri: document.uri, version: document.version, diagnostics: toLspDiagnostics(diagnostics, document) });
  });
  documents.onDidClose(({ document }) => {
    analyses.forget(document.uri);
    lastChecked.delete(document.uri);
    void connection.sendDiagnostics({ uri: document.uri, diagnostics: [] });
  });

  connection.onHover(({ textDocument, position }) => {
    const document = documents.get(textDocument.uri);
    if (!document) return null;
    const analysis = analysisOf(document);
    if (!analysis.program) return null;
    const symbol = symbolAt(analysis.program, analysis.checked, document.offsetAt(position), resolutionOf(analysis));
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
    const analysis = analysisOf(document);
    if (!analysis.program) return null;
    const declaration = symbolAt(analysis.program, analysis.checked, document.offsetAt(position), resolutionOf(analysis))?.declaration;
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

  connection.onReferences(({ textDocument, position }) => {
    const document = documents.get(textDocument.uri);
    const analysis = document && analysisOf(document);
    if (!document || !analysis?.program) return null;
    const spans = references(analysis.program, analysis.checked, document.offsetAt(position), resolutionOf(analysis)) ?? [];
    return spans.map((span) => ({ uri: document.uri, range: { start: document.positionAt(span.start), end: document.positionAt(span.end) } }));
  });

  connection.onRenameRequest(({ textDocument, position, newName }) => {
    const document = documents.get(textDocument.uri);
    const analysis = document && analysisOf(document);
    if (!document || !analysis?.program) return null;
    const offset = document.offsetAt(position);
    const symbol = symbolAt(analysis.program, analysis.checked, offset, resolutionOf(analysis));
    if (!symbol?.declaration || symbol.kind === 'builtin' || symbol.kind === 'expression') throw new ResponseError(-32602, 'nothing here can be renamed');
    if (symbol.name === 'id' || symbol.name === 'constructor') throw new ResponseError(-32602, `"${symbol.name}" is required by the record service and cannot be renamed`);
    if (!/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(newName)) throw new ResponseError(-32602, `"${newName}" is not a name`);
    const spans = references(analysis.program, analysis.checked, offset, resolutionOf(analysis)) ?? [];
    const edits = spans.map((span) => ({ range: { start: document.positionAt(span.start), end: document.positionAt(span.end) }, newText: newName }));
    return { changes: { [document.uri]: edits } };
  });

  connection.onCompletion(({ textDocument, position }) => {
    const document = documents.get(textDocument.uri);
    if (!document) return [];
    const analysis = analysisOf(document);
    if (analysis.checked) lastChecked.set(document.uri, analysis.checked);
    const text = document.getText();
    const offset = document.offsetAt(position);
    return memberCompletions(text, offset) ?? completions(text.slice(0, offset), analysis.checked ?? lastChecked.get(document.uri));
  });

  connection.languages.semanticTokens.on(({ textDocument }) => {
    const document = documents.get(textDocument.uri);
    const analysis = document && analysisOf(document);
    return { data: document && analysis?.program ? semanticTokens(analysis.program, analysis.checked, document, resolutionOf(analysis)) : [] };
  });

  documents.listen(connection);
  connection.listen();
}
