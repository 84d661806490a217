// Finds where a function body ends. The body's text is parsed by acorn later; the lexer only has to
// find the `}` that closes it, which means skipping what may contain braces without closing
// anything: strings, template literals, comments and regular expressions. One pass over the
// characters, no tokens, no recursion: a body costs a fraction of what acorn spends on it.
//
// The scan also notes what acorn would only report confusingly or not at all: unterminated strings
// and comments, and brackets nested so deeply that a recursive parser would overflow its stack.

export interface BodyProblem {
  kind: 'unterminatedString' | 'unterminatedComment' | 'nestingTooDeep';
  offset: number;
}

export interface BodyScan {
  /** Offset just after the closing `}`, or the text length when the body is never closed. */
  end: number;
  closed: boolean;
  problems: readonly BodyProblem[];
}

const enum Char {
  Tab = 9,
  LineFeed = 10,
  CarriageReturn = 13,
  Space = 32,
  DoubleQuote = 34,
  Plus = 43,
  Minus = 45,
  Dot = 46,
  Dollar = 36,
  SingleQuote = 39,
  LParen = 40,
  RParen = 41,
  Star = 42,
  Slash = 47,
  Digit0 = 48,
  Digit9 = 57,
  UpperA = 65,
  UpperZ = 90,
  LSquare = 91,
  Backslash = 92,
  RSquare = 93,
  Underscore = 95,
  Backtick = 96,
  LowerA = 97,
  LowerZ = 122,
  LCurly = 123,
  RCurly = 125,
  LineSeparator = 0x2028,
  ParagraphSeparator = 0x2029,
}

// After these words an expression starts, so a `/` begins a regular expression, not a division.
const KEYWORDS_BEFORE_EXPRESSION = new Set([
  'return', 'typeof', 'case', 'do', 'else', 'in', 'of', 'new', 'delete', 'void', 'throw', 'instanceof', 'yield', 'await',
]);

function isWordChar(c: number): boolean {
  return (
    (c >= Char.LowerA && c <= Char.LowerZ) ||
    (c >= Char.UpperA && c <= Char.UpperZ) ||
    (c >= Char.Digit0 && c <= Char.Digit9) ||
    c === Char.Underscore ||
    c === Char.Dollar
  );
}

function isLineBreak(c: number): boolean {
  return c === Char.LineFeed || c === Char.CarriageReturn || c === Char.LineSeparator || c === Char.ParagraphSeparator;
}

/** Scans the body whose `{` is at `open`; `maxDepth` bounds the nesting of `{ ( [` inside it. */
export function scanBody(text: string, open: number, maxDepth: number): BodyScan {
  const problems: BodyProblem[] = [];
  const length = text.length;
  let braces = 1;
  let depth = 1;
  let tooDeepReported = false;
  // Whether the last significant token ends a value (then `/` divides) and, if it was a word that
  // may be a keyword (not a property name after `.`), where it is.
  let afterValue = false;
  let afterDot = false;
  let wordStart = -1;
  let wordEnd = -1;
  let noRegexUntil = 0;
  let i = open + 1;

  while (i < length) {
    const c = text.charCodeAt(i);
    if (c === Char.Space || c === Char.Tab || isLineBreak(c)) {
      i++;
    } else if (isWordChar(c)) {
      const start = i;
      while (i < length && isWordChar(text.charCodeAt(i))) i++;
      afterValue = true;
      wordStart = afterDot ? -1 : start;
      wordEnd = i;
      afterDot = false;
    } else if (c === Char.SingleQuote || c === Char.DoubleQuote) {
      i = skipString(text, i, c, problems);
      afterValue = true;
      afterDot = false;
      wordStart = -1;
    } else if (c === Char.Backtick) {
      i = skipTemplate(text, i, problems);
      afterValue = true;
      afterDot = false;
      wordStart = -1;
    } else if (c === Char.Slash) {
      const next = text.charCodeAt(i + 1);
      if (next === Char.Slash) {
        i += 2;
        while (i < length && !isLineBreak(text.charCodeAt(i))) i++;
        continue;
      }
      if (next === Char.Star) {
        const close = text.indexOf('*/', i + 2);
        if (close < 0) {
          problems.push({ kind: 'unterminatedComment', offset: i });
          i = length;
        } else {
          i = close + 2;
        }
        continue;
      }
      const keywordBefore = wordStart >= 0 && KEYWORDS_BEFORE_EXPRESSION.has(text.slice(wordStart, wordEnd));
      let regexEnd = -1;
      if ((!afterValue || keywordBefore) && i >= noRegexUntil) {
        regexEnd = skipRegex(text, i);
        // No regular expression closes before the end of this line: trying again from every later
        // `/` of the line would make a long line quadratic, so the rest of it has none.
        if (regexEnd < 0) noRegexUntil = lineEnd(text, i);
      }
      i = regexEnd >= 0 ? regexEnd : i + 1;
      afterValue = regexEnd >= 0;
      afterDot = false;
      wordStart = -1;
    } else {
      i++;
      wordStart = -1;
      afterDot = false;
      if (c === Char.Dot) {
        // `a.b` and `5.`: what follows a dot is a property name or the rest of a number.
        afterDot = true;
      } else if ((c === Char.Plus || c === Char.Minus) && text.charCodeAt(i) === c) {
        // `a++ / 2`: taken as a postfix update, the usual case; `++/re/` is no valid JavaScript.
        i++;
        afterValue = true;
      } else if (c === Char.LCurly || c === Char.LParen || c === Char.LSquare) {
        if (c === Char.LCurly) braces++;
        if (++depth > maxDepth && !tooDeepReported) {
          problems.push({ kind: 'nestingTooDeep', offset: i - 1 });
          tooDeepReported = true;
        }
        afterValue = false;
      } else if (c === Char.RCurly || c === Char.RParen || c === Char.RSquare) {
        depth--;
        if (c === Char.RCurly && --braces === 0) return { end: i, closed: true, problems };
        afterValue = true;
      } else {
        afterValue = false;
      }
    }
  }
  return { end: length, closed: false, problems };
}

/** Skips a '…' or "…" string starting at `start`; it ends at its quote or, unterminated, at a line break. */
function skipString(text: string, start: number, quote: number, problems: BodyProblem[]): number {
  let i = start + 1;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === quote) return i + 1;
    if (c === Char.Backslash) {
      i += text.charCodeAt(i + 1) === Char.CarriageReturn && text.charCodeAt(i + 2) === Char.LineFeed ? 3 : 2;
    } else if (c === Char.LineFeed || c === Char.CarriageReturn) {
      break;
    } else {
      i++;
    }
  }
  problems.push({ kind: 'unterminatedString', offset: start });
  return Math.min(i, text.length);
}

/** Skips a template literal (`${…}` parts included, as long as they hold no backtick). */
function skipTemplate(text: string, start: number, problems: BodyProblem[]): number {
  let i = start + 1;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === Char.Backtick) return i + 1;
    i += c === Char.Backslash ? 2 : 1;
  }
  problems.push({ kind: 'unterminatedString', offset: start });
  return text.length;
}

function lineEnd(text: string, from: number): number {
  let i = from;
  while (i < text.length && !isLineBreak(text.charCodeAt(i))) i++;
  return i;
}

/** The end of a regular expression literal at `start`, or -1 when none closes on this line. */
function skipRegex(text: string, start: number): number {
  let i = start + 1;
  let inClass = false;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (isLineBreak(c)) return -1;
    if (c === Char.Backslash) {
      i += 2;
      continue;
    }
    if (c === Char.LSquare) inClass = true;
    else if (c === Char.RSquare) inClass = false;
    else if (c === Char.Slash && !inClass) {
      if (i === start + 1) return -1; // `//` is a comment, handled by the caller
      i++;
      while (i < text.length && isWordChar(text.charCodeAt(i))) i++;
      return i;
    }
    i++;
  }
  return -1;
}
