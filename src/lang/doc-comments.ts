// Doc comments: `///` lines or a `/** … *\/` block right before a collection, a field or a function (before its
// decorators or among them), with nothing but white space in between. They are kept in the AST as plain text
// (`doc`), for hovers in an editor and JSDoc in generated clients. Other comments are not documentation.

import type { Collection, CollectionItem, Program } from './ast.ts';
import { scanComments, type Comment } from './comments.ts';

export function attachDocComments(program: Program, text: string): void {
  // Most schemas have none: skip the scan.
  if (!text.includes('///') && !text.includes('/**')) return;
  const docs = scanComments(text).filter(isDocComment);
  if (docs.length === 0) return;
  const nodes: (Collection | CollectionItem)[] = program.collections.flatMap((c) => [c, ...c.items]);
  for (const node of nodes) {
    if (node.kind === 'index' || node.kind === 'search') continue;
    const start = Math.min(node.span.start, ...node.decorators.map((d) => d.span.start));
    // The doc comments that end right before the node, each separated from the next only by white space.
    const before: Comment[] = [];
    let end = start;
    for (let i = lastEndingBefore(docs, start); i >= 0 && text.slice(docs[i]!.span.end, end).trim() === ''; i--) {
      before.unshift(docs[i]!);
      end = docs[i]!.span.start;
    }
    // Those among its decorators count too (the formatter moves them before the decorators).
    const among: Comment[] = [];
    for (let i = lastEndingBefore(docs, node.name.span.start); i >= 0 && docs[i]!.span.start >= start; i--) among.unshift(docs[i]!);
    const all = [...before, ...among];
    if (all.length > 0) node.doc = all.map(docText).join('\n');
  }
}

function isDocComment(comment: Comment): boolean {
  return (comment.text.startsWith('///') && !comment.text.startsWith('////')) || (comment.text.startsWith('/**') && comment.text !== '/**/');
}

/** Index of the last comment that ends at or before `offset`, or -1. */
function lastEndingBefore(comments: Comment[], offset: number): number {
  let low = 0;
  let high = comments.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (comments[mid]!.span.end <= offset) low = mid + 1;
    else high = mid;
  }
  return low - 1;
}

/** The text of a doc comment without its markers: `/// a` is `a`; in `/** … *\/` each line loses its leading `*`. */
function docText(comment: Comment): string {
  if (comment.text.startsWith('///')) return comment.text.slice(3).replace(/^ /, '');
  const inner = comment.text.slice(3, comment.text.endsWith('*/') ? -2 : undefined);
  return inner
    .split(/\r?\n|\r/)
    .map((line) => line.replace(/^\s*\*? ?/, '').trimEnd())
    .join('\n')
    .trim();
}
