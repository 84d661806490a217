// Every place a symbol is named, for find references and rename: each identifier of the schema is resolved
// (symbol-at.ts) and kept when it leads to the same declaration.
import type { CheckedProgram, Program, Span } from '../lang/index.ts';
import { symbolAt } from './symbol-at.ts';

export function references(program: Program, checked: CheckedProgram | undefined, offset: number): Span[] | undefined {
  const target = symbolAt(program, checked, offset)?.declaration;
  if (target === undefined) return undefined;
  const found: Span[] = [];
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (value === null || typeof value !== 'object') return;
    const node = value as { kind?: string; span?: Span };
    if ((node.kind === 'identifier' || node.kind === 'identifierExpression') && node.span) {
      const declaration = symbolAt(program, checked, node.span.start)?.declaration;
      if (declaration?.start === target.start && declaration.end === target.end) found.push(node.span);
    }
    for (const [key, child] of Object.entries(node)) if (key !== 'span' && key !== 'bodyTextSpan' && typeof child === 'object') visit(child);
  };
  visit(program);
  return found.sort((a, b) => a.start - b.start);
}
