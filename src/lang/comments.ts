// Comments of a schema, found in its text and tied to the nodes they belong to, so that the formatter can print
// them back around those nodes. The parser drops comments; this pass finds them again without it.
//
// A comment belongs to a "container" (the program, a collection, a block of statements) and, inside it, to one
// child (a collection, a collection item, a statement):
// - on a line of its own, or inside a child that has no container of its own there: before that child (leading);
// - after code on the same line: after the last child that ends on that line before it (trailing);
// - after the last child of its container: before the container's closing `}` (dangling).
// Printed that way, the comments are found again at the same places, so formatting twice changes nothing.

import type { BlockStatement, Collection, CollectionItem, Program, Span, Statement } from './ast.ts';

export interface Comment {
  /** The comment's text, `//` or `/*` included. */
  text: string;
  span: Span;
  /** Nothing but white space before it on its line. */
  ownLine: boolean;
}

type Container = Program | Collection | BlockStatement;
type Child = Collection | CollectionItem | Statement;

export interface AttachedComments {
  leading: Map<Child, Comment[]>;
  trailing: Map<Child, Comment[]>;
  dangling: Map<Container, Comment[]>;
}

/** Every `//` and `/* *\/` comment of the text, skipping strings and template literals. */
export function scanComments(text: string): Comment[] {
  const comments: Comment[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"' || c === "'" || c === '`') {
      i++;
      while (i < text.length && text[i] !== c && (c === '`' || text[i] !== '\n')) i += text[i] === '\\' ? 2 : 1;
    } else if (c === '/' && (text[i + 1] === '/' || text[i + 1] === '*')) {
      const start = i;
      if (text[i + 1] === '/') {
        while (i < text.length && text[i] !== '\n' && text[i] !== '\r') i++;
      } else {
        const close = text.indexOf('*/', i + 2);
        i = close < 0 ? text.length : close + 2;
      }
      let before = start - 1;
      while (before >= 0 && (text[before] === ' ' || text[before] === '\t')) before--;
      const ownLine = before < 0 || text[before] === '\n' || text[before] === '\r';
      comments.push({ text: text.slice(start, i).trimEnd(), span: { start, end: i }, ownLine });
      i--;
    }
  }
  return comments;
}

export function attachComments(program: Program, text: string): AttachedComments {
  const attached: AttachedComments = { leading: new Map(), trailing: new Map(), dangling: new Map() };
  const add = <K>(map: Map<K, Comment[]>, key: K, comment: Comment) => {
    const list = map.get(key);
    if (list) list.push(comment);
    else map.set(key, [comment]);
  };
  for (const comment of scanComments(text)) {
    let container: Container = program;
    for (;;) {
      const children = childrenOf(container);
      const holder = children.find((child) => child.span.start <= comment.span.start && comment.span.end <= child.span.end);
      if (holder !== undefined) {
        const blocks = containersIn(holder);
        const inner = blocks.find((c) => inside(c, comment.span));
        if (inner !== undefined) {
          container = inner;
          continue;
        }
        // Between the blocks of a statement but in none (`if (a) {…} else if (b) x; /* c */ else {…}`): kept in
        // source order by moving it to the start of the next block, or after the statement when no block follows.
        const earlier = blocks.some((c) => c.span.end <= comment.span.start);
        const later = blocks.find((c) => c.span.start >= comment.span.end);
        if (earlier && later !== undefined) {
          container = later;
          continue;
        }
        add(earlier ? attached.trailing : attached.leading, holder, comment);
        break;
      }
      if (!comment.ownLine) {
        const before = children.filter((child) => child.span.end <= comment.span.start).pop();
        if (before !== undefined && !/[\r\n]/.test(text.slice(before.span.end, comment.span.start))) {
          add(attached.trailing, before, comment);
          break;
        }
      }
      const after = children.find((child) => child.span.start >= comment.span.end);
      if (after !== undefined) add(attached.leading, after, comment);
      else add(attached.dangling, container, comment);
      break;
    }
  }
  return attached;
}

function childrenOf(container: Container): Child[] {
  switch (container.kind) {
    case 'program':
      return container.collections;
    case 'collection':
      return container.items;
    case 'block':
      return container.body;
  }
}

/** The containers directly inside a child: a collection is its own, a function has its body, a statement its blocks. */
function containersIn(child: Child): Container[] {
  switch (child.kind) {
    case 'collection':
      return [child];
    case 'function':
      return [child.body];
    case 'field':
    case 'index':
    case 'search':
      return [];
    default:
      return blocksOf(child);
  }
}

function blocksOf(statement: Statement): BlockStatement[] {
  switch (statement.kind) {
    case 'block':
      return [statement];
    case 'if':
      return [...blocksOf(statement.consequent), ...(statement.alternate ? blocksOf(statement.alternate) : [])];
    case 'while':
    case 'for':
    case 'forOf':
      return blocksOf(statement.body);
    default:
      return [];
  }
}

/** Whether a span lies between a container's braces (for a collection: after its name). */
function inside(container: Container, span: Span): boolean {
  if (container.kind === 'collection') return span.start >= container.name.span.end && span.end <= container.span.end;
  return span.start > container.span.start && span.end < container.span.end;
}
