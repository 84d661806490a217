// What is at an offset of a schema: the chain of AST nodes whose spans hold it, outermost first, with the collection
// and function around it. Only nodes whose span holds the offset are entered, so a lookup costs the depth of the
// tree times the width of each level, not the size of the schema.
import type { Collection, FunctionDeclaration, Program, Span } from '../lang/index.ts';

export interface Located {
  /** Nodes holding the offset, outermost first (each has a `kind` and a `span`). */
  path: { kind: string; span: Span }[];
  collection?: Collection;
  fn?: FunctionDeclaration;
}

function holds(span: Span, offset: number): boolean {
  return span.start <= offset && offset <= span.end;
}

export function locate(program: Program, offset: number): Located {
  const located: Located = { path: [] };
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const item of value) visit(item);
      return;
    }
    if (value === null || typeof value !== 'object') return;
    const node = value as { kind?: string; span?: Span };
    if (node.span !== undefined && node.kind !== undefined) {
      if (!holds(node.span, offset)) return;
      located.path.push(node as { kind: string; span: Span });
      if (node.kind === 'collection') located.collection = node as Collection;
      if (node.kind === 'function') located.fn = node as FunctionDeclaration;
    }
    for (const [key, child] of Object.entries(node)) if (key !== 'span' && key !== 'bodyTextSpan' && typeof child === 'object') visit(child);
  };
  for (const collection of program.collections) {
    // Decorators come before a collection's span: look at them too.
    const start = Math.min(collection.span.start, ...collection.decorators.map((d) => d.span.start));
    if (start <= offset && offset <= collection.span.end) visit(collection);
  }
  return located;
}
