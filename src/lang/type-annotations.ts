// Typed `let`/`const` (Polylang after 0.6: `let i: u32 = 0;`). A function body is JavaScript to acorn,
// which has no type annotations, so before acorn reads a body the annotations are found, parsed, and
// replaced by spaces (every offset stays where it was); the converter then gives each declaration its
// type. `let x :` (and `const x :`) is never valid JavaScript, so no 0.6 body changes meaning.

import type { Span, TypeNode } from './ast.ts';
import { diagnostic, type Diagnostic } from './diagnostics.ts';
import { isPrimitiveTypeName, isSizedNumberName } from './words.ts';

export interface StrippedAnnotations {
  /** The body with each annotation (from its `:` to the end of its type) replaced by spaces. */
  text: string;
  /** The type of each annotated declaration, by the file offset where its name ends. */
  types: Map<number, TypeNode>;
  diagnostics: Diagnostic[];
}

const NAME = /[A-Za-z_$][A-Za-z0-9_$]*/y;
const SPACE = /(?:\s|\/\/[^\n]*|\/\*[\s\S]*?\*\/)*/y;

/** Finds the annotations of a body's text (`start`: its file offset); cheap when there are none. */
export function stripAnnotations(block: string, start: number): StrippedAnnotations {
  const types = new Map<number, TypeNode>();
  const diagnostics: Diagnostic[] = [];
  if (!/\b(?:let|const)\s+[A-Za-z_$][\w$]*\s*:/.test(block)) return { text: block, types, diagnostics };
  let text = block;
  let i = 0;
  while (i < block.length) {
    const c = block[i]!;
    if (c === '"' || c === "'" || c === '`') {
      i = skipString(block, i);
      continue;
    }
    if (c === '/' && (block[i + 1] === '/' || block[i + 1] === '*')) {
      SPACE.lastIndex = i;
      SPACE.exec(block);
      i = Math.max(SPACE.lastIndex, i + 1);
      continue;
    }
    NAME.lastIndex = i;
    const word = NAME.exec(block);
    if (!word) {
      i++;
      continue;
    }
    i = NAME.lastIndex;
    if ((word[0] !== 'let' && word[0] !== 'const') || /[\w$.]/.test(block[word.index - 1] ?? '')) continue;
    const nameStart = skipSpace(block, i);
    NAME.lastIndex = nameStart;
    const name = NAME.exec(block);
    if (!name) continue;
    const nameEnd = NAME.lastIndex;
    const colon = skipSpace(block, nameEnd);
    if (block[colon] !== ':') continue;
    const parsed = parseType(block, skipSpace(block, colon + 1), start);
    if (!parsed) {
      const at = start + skipSpace(block, colon + 1);
      diagnostics.push(diagnostic('bodySyntaxError', { start: at, end: at + 1 }, [`expected a type after \`:\` in the declaration of "${name[0]}"`]));
      i = colon + 1;
      continue;
    }
    types.set(start + nameEnd, parsed.type);
    text = text.slice(0, colon) + ' '.repeat(parsed.end - colon) + text.slice(parsed.end);
    i = parsed.end;
  }
  return { text, types, diagnostics };
}

function skipSpace(text: string, at: number): number {
  SPACE.lastIndex = at;
  SPACE.exec(text);
  return SPACE.lastIndex;
}

function skipString(text: string, at: number): number {
  const quote = text[at];
  for (let i = at + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === quote) return i + 1;
  }
  return text.length;
}

/** type := (`map` `<` type `,` type `>` | name) (`[` `]`)*, from `at`; the node's span is in file offsets. */
function parseType(text: string, at: number, start: number, depth = 0): { type: TypeNode; end: number } | undefined {
  if (depth > 20) return undefined;
  NAME.lastIndex = at;
  const word = NAME.exec(text);
  if (!word) return undefined;
  let end = NAME.lastIndex;
  const span = (to: number): Span => ({ start: start + at, end: start + to });
  let type: TypeNode;
  if (word[0] === 'map' && text[skipSpace(text, end)] === '<') {
    const key = parseType(text, skipSpace(text, skipSpace(text, end) + 1), start, depth + 1);
    if (!key || text[skipSpace(text, key.end)] !== ',') return undefined;
    const value = parseType(text, skipSpace(text, skipSpace(text, key.end) + 1), start, depth + 1);
    if (!value || text[skipSpace(text, value.end)] !== '>') return undefined;
    end = skipSpace(text, value.end) + 1;
    type = { kind: 'mapType', key: key.type, value: value.type, span: span(end) };
  } else {
    const name = word[0];
    const nameSpan = span(end);
    if (isPrimitiveTypeName(name)) type = { kind: 'primitiveType', name, span: nameSpan };
    else if (isSizedNumberName(name)) type = { kind: 'sizedNumberType', name, span: nameSpan };
    else if (name === 'PublicKey') type = { kind: 'publicKeyType', span: nameSpan };
    else if (name === 'record') type = { kind: 'recordType', span: nameSpan };
    else type = { kind: 'referenceType', collection: { kind: 'identifier', name, span: nameSpan }, span: nameSpan };
  }
  for (;;) {
    const open = skipSpace(text, end);
    if (text[open] !== '[') break;
    const close = skipSpace(text, open + 1);
    if (text[close] !== ']') break;
    end = close + 1;
    type = { kind: 'arrayType', element: type, span: span(end) };
  }
  return { type, end };
}
