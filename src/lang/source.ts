// Offsets to line and column. Every span in the AST is an offset range into the whole schema text;
// people read lines and columns, so this converts (1-based line, 1-based column in UTF-16 units).

export interface Position {
  line: number;
  column: number;
}

export class SourceFile {
  private starts: number[] | undefined;

  constructor(
    readonly name: string,
    readonly text: string,
  ) {}

  /** Offsets at which lines begin. Computed on first use: most parses report nothing, and scanning
   *  every schema's text for line breaks up front was ~2% of `checkSchema`. */
  get lineStarts(): number[] {
    return (this.starts ??= lineStartsOf(this.text));
  }

  position(offset: number): Position {
    const clamped = Math.max(0, Math.min(offset, this.text.length));
    let low = 0;
    let high = this.lineStarts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (this.lineStarts[mid]! <= clamped) low = mid;
      else high = mid - 1;
    }
    return { line: low + 1, column: clamped - this.lineStarts[low]! + 1 };
  }

  /** The text of a 1-based line, without its line break. */
  lineText(line: number): string {
    const start = this.lineStarts[line - 1];
    if (start === undefined) return '';
    const next = this.lineStarts[line];
    let end = next === undefined ? this.text.length : next;
    while (end > start && (this.text[end - 1] === '\n' || this.text[end - 1] === '\r')) end--;
    return this.text.slice(start, end);
  }
}

function lineStartsOf(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 /* \n */) starts.push(i + 1);
    else if (c === 13 /* \r */) {
      if (text.charCodeAt(i + 1) === 10) i++;
      starts.push(i + 1);
    }
  }
  return starts;
}
