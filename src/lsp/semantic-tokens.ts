// Semantic highlighting: each name of a schema by what it is (a collection, a field, a function, a parameter, a
// variable, a type, a decorator), as the resolver tied it (src/lang/resolver.ts), which a TextMate grammar cannot know.
import { SemanticTokensBuilder, type SemanticTokensLegend } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { CheckedProgram, Program, ProgramResolution, Span } from '../lang/index.ts';
import { symbolAt } from './symbol-at.ts';

const TYPES = ['class', 'property', 'method', 'parameter', 'variable', 'type', 'decorator', 'function'] as const;
export const legend: SemanticTokensLegend = { tokenTypes: [...TYPES], tokenModifiers: ['declaration', 'documentation'] };

const KIND_TO_TYPE: Record<string, (typeof TYPES)[number]> = {
  collection: 'class',
  field: 'property',
  function: 'method',
  parameter: 'parameter',
  variable: 'variable',
  builtin: 'function',
};

export function semanticTokens(program: Program, checked: CheckedProgram | undefined, document: TextDocument, resolution = checked?.resolution): number[] {
  const tokens: { span: Span; type: (typeof TYPES)[number]; declaration: boolean }[] = [];
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (value === null || typeof value !== 'object') return;
    const node = value as { kind?: string; span?: Span; name?: unknown };
    if (node.kind === 'decorator' && node.span) tokens.push({ span: { start: node.span.start, end: node.span.start + 1 + String(node.name).length }, type: 'decorator', declaration: false });
    if (node.kind === 'primitiveType' || node.kind === 'publicKeyType' || node.kind === 'recordType') tokens.push({ span: node.span!, type: 'type', declaration: false });
    if ((node.kind === 'identifier' || node.kind === 'identifierExpression') && node.span) {
      const symbol = symbolAt(program, checked, node.span.start, resolution);
      const type = symbol && KIND_TO_TYPE[symbol.kind];
      if (type) tokens.push({ span: node.span, type, declaration: symbol.declaration?.start === node.span.start });
    }
    for (const [key, child] of Object.entries(node)) if (key !== 'span' && key !== 'bodyTextSpan' && typeof child === 'object') visit(child);
  };
  visit(program);
  tokens.sort((a, b) => a.span.start - b.span.start);
  const builder = new SemanticTokensBuilder();
  for (const token of tokens) {
    const start = document.positionAt(token.span.start);
    const end = document.positionAt(token.span.end);
    if (start.line !== end.line) continue; // tokens never span lines here
    builder.push(start.line, start.character, end.character - start.character, TYPES.indexOf(token.type), token.declaration ? 1 : 0);
  }
  return builder.build().data;
}
