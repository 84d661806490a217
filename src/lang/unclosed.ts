// Where a missing `}` belongs. When a file ends inside braces, the parser only knows that the end came too soon;
// the brace was usually forgotten much earlier, and the layout says where: a block closes on a line indented like
// the one that opened it. The first `}` whose line is indented differently from its opener's line marks that opener
// as the unclosed one, and the `}` belongs after the last line of its block (before the next line indented no deeper
// than the opener's). When every block closes where its layout says, the innermost open one lacks its `}` at the end. Comments and strings are skipped; the answer is a hint for the message, so a layout that
// says nothing (everything on one line, no indentation) gives no answer.

export interface UnclosedBrace {
  /** Offset of the `{` that is never closed. */
  opener: number;
  /** Offset where its `}` is missing: the end of the last line of its block. */
  missingAt: number;
}

interface Open {
  offset: number;
  line: number;
  indent: number;
}

export function findUnclosedBrace(text: string): UnclosedBrace | undefined {
  const lineStarts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) lineStarts.push(i + 1);
  const lineOf = (offset: number) => {
    let low = 0;
    let high = lineStarts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (lineStarts[mid]! <= offset) low = mid;
      else high = mid - 1;
    }
    return low;
  };
  const indentOf = (line: number) => {
    let i = lineStarts[line]!;
    while (text[i] === ' ' || text[i] === '\t') i++;
    return i - lineStarts[line]!;
  };
  const firstOnLine = (offset: number) => lineStarts[lineOf(offset)]! + indentOf(lineOf(offset)) === offset;

  const open: Open[] = [];
  let suspect: Open | undefined;
  for (let i = 0; i < text.length && suspect === undefined; i++) {
    const c = text[i]!;
    if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 1;
    } else if (c === '"' || c === "'" || c === '`') {
      i++;
      while (i < text.length && text[i] !== c && (c === '`' || text[i] !== '\n')) i += text[i] === '\\' ? 2 : 1;
    } else if (c === '{') {
      const line = lineOf(i);
      open.push({ offset: i, line, indent: indentOf(line) });
    } else if (c === '}') {
      const opener = open.pop();
      if (opener === undefined) return undefined; // too many closers: not this problem
      const line = lineOf(i);
      if (line !== opener.line && firstOnLine(i) && indentOf(line) !== opener.indent) suspect = opener;
    }
  }
  // No block closes out of place: the innermost one open at the end lacks its `}`, which belongs at the end.
  if (suspect === undefined) return open.length === 0 ? undefined : { opener: open[open.length - 1]!.offset, missingAt: text.length };

  // The block ends before the first non-blank line, after the opener's, indented no deeper than the opener's line.
  let last = suspect.line;
  for (let line = suspect.line + 1; line < lineStarts.length; line++) {
    const start = lineStarts[line]!;
    const end = line + 1 < lineStarts.length ? lineStarts[line + 1]! - 1 : text.length;
    if (text.slice(start, end).trim() === '') continue;
    if (indentOf(line) <= suspect.indent) break;
    last = line;
  }
  const lineEnd = last + 1 < lineStarts.length ? lineStarts[last + 1]! - 1 : text.length;
  return { opener: suspect.offset, missingAt: lineStarts[last]! + text.slice(lineStarts[last]!, lineEnd).trimEnd().length };
}
