// The outline of a schema: each collection with its fields, functions and indexes.
import { SymbolKind, type DocumentSymbol } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { printType, type Program, type Span } from '../lang/index.ts';

export function documentSymbols(program: Program, document: TextDocument): DocumentSymbol[] {
  const range = (span: Span) => ({ start: document.positionAt(span.start), end: document.positionAt(span.end) });
  return program.collections.map((collection) => ({
    name: collection.name.name,
    kind: SymbolKind.Class,
    range: range(collection.span),
    selectionRange: range(collection.name.span),
    children: collection.items.map((item): DocumentSymbol => {
      if (item.kind === 'index') return { name: '@index', kind: SymbolKind.Key, range: range(item.span), selectionRange: range(item.span) };
      if (item.kind === 'search') return { name: '@search', kind: SymbolKind.Key, range: range(item.span), selectionRange: range(item.span) };
      if (item.kind === 'field') {
        return { name: item.name.name, detail: printType(item.type), kind: SymbolKind.Field, range: range(item.span), selectionRange: range(item.name.span) };
      }
      const kind = item.name.name === 'constructor' ? SymbolKind.Constructor : SymbolKind.Method;
      return { name: item.name.name, kind, range: range(item.span), selectionRange: range(item.name.span) };
    }),
  }));
}
