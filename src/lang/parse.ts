// Schema text in, AST or diagnostics out: lex (a function body is one token; the fast lexer, lexer-fast.ts, and
// when it gives up chevrotain's lexer from lexer.ts, which reports every problem), guard nesting depth, parse the
// structure (the fast parser, structure-fast.ts, and when it gives up the chevrotain grammar, which reports every
// problem; both build the AST as they go), then parse the function bodies.

import { EOF, type ILexingResult, type IRecognitionException, type IToken, type TokenType } from 'chevrotain';
import type { Program, Span } from './ast.ts';
import { diagnostic, type Diagnostic } from './diagnostics.ts';
import type { BuildOptions } from './build-ast.ts';
import { schemaParser, type ExpectedAt } from './grammar.ts';
import { parseStructureFast } from './structure-fast.ts';
import {
  FunctionBody,
  Greater,
  INVALID_GROUP,
  LCurly,
  Less,
  LParen,
  LSquare,
  MapKeyword,
  RCurly,
  RParen,
  RSquare,
  UnterminatedComment,
  type FunctionBodyPayload,
} from './lexer.ts';
import { schemaLexer } from './lexer.ts';
import { MAX_NESTING_DEPTH } from './nesting.ts';
import { tokenizeFast } from './lexer-fast.ts';
import { SourceFile } from './source.ts';
import { attachDocComments } from './doc-comments.ts';
import { findUnclosedBrace } from './unclosed.ts';

export interface ParseResult {
  /** Undefined only when the structure (collections, fields, function headers) could not be parsed. */
  program: Program | undefined;
  diagnostics: Diagnostic[];
  source: SourceFile;
}

/** Parses a schema. Never throws: every problem is a diagnostic. */
export function parse(text: string, fileName = '<schema>'): ParseResult {
  const source = new SourceFile(fileName, text);
  // A correct schema is read by the fast lexer; anything else by chevrotain's, which reports every problem and
  // reuses the bodies that the fast lexer read before it gave up.
  const bodies = new Map<number, FunctionBodyPayload>();
  const lexed = tokenizeFast(text, bodies) ?? schemaLexer.tokenize(text, bodies);
  const { diagnostics, problems } = lexicalProblems(lexed, text);
  const nesting = limitNesting(lexed.tokens);
  for (const d of nesting.diagnostics) {
    diagnostics.push(d);
    problems.push(d.span.start);
  }
  problems.sort((a, b) => a - b);

  let program: Program | undefined;
  try {
    const options: BuildOptions = {
      text,
      // A method, not an arrow property: tsx (esbuild's keepNames) would name an arrow on every call.
      hasLexicalProblem(start, end) {
        return containsOffset(problems, start, end);
      },
    };
    // A correct structure is parsed by the fast parser; anything else by chevrotain's, which reports every problem.
    const structure =
      (nesting.diagnostics.length === 0 ? parseStructureFast(nesting.tokens, options) : undefined) ??
      schemaParser().parseStructure(nesting.tokens, options);
    const { error } = structure;
    if (error) {
      // A syntax error caused by the tokens that the nesting guard removed says nothing new.
      const at = Number.isNaN(error.token.startOffset) ? text.length : error.token.startOffset;
      if (!nesting.diagnostics.some((d) => d.span.start <= at)) diagnostics.push(syntaxError(error, nesting.tokens, text));
    } else if (!nesting.inType) {
      program = structure.finish();
      attachDocComments(program, text);
      for (const d of structure.context.diagnostics) diagnostics.push(d);
    }
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    // Defensive: the nesting guard should make this unreachable.
    program = undefined;
    diagnostics.push(diagnostic('nestingTooDeep', { start: 0, end: 0 }, [MAX_NESTING_DEPTH, 'brackets']));
  }

  diagnostics.sort((a, b) => a.span.start - b.span.start);
  return { program, diagnostics: withoutRepeats(diagnostics), source };
}

/**
 * Diagnostics for what the lexer could not read (characters, unterminated strings and comments,
 * also inside function bodies, bodies nested too deeply or never closed), and their offsets: a
 * function body containing one is not handed to acorn.
 */
function lexicalProblems(lexed: ILexingResult, text: string): { diagnostics: Diagnostic[]; problems: number[] } {
  const diagnostics: Diagnostic[] = [];
  const problems: number[] = [];
  for (const error of lexed.errors) {
    const span = { start: error.offset, end: error.offset + error.length };
    diagnostics.push(diagnostic('invalidCharacter', span, [describeCharacter(text, error.offset)]));
    problems.push(error.offset);
  }
  for (const token of (lexed.groups[INVALID_GROUP] ?? []) as IToken[]) {
    const kind = token.tokenType === UnterminatedComment ? 'unterminatedComment' : 'unterminatedString';
    diagnostics.push(diagnostic(kind, { start: token.startOffset, end: token.startOffset + 1 }));
    problems.push(token.startOffset);
  }
  for (const token of lexed.tokens) {
    if (token.tokenType !== FunctionBody) continue;
    const scan = token.payload as FunctionBodyPayload;
    for (const problem of scan.problems) {
      const span = { start: problem.offset, end: problem.offset + 1 };
      diagnostics.push(
        problem.kind === 'nestingTooDeep'
          ? diagnostic('nestingTooDeep', span, [MAX_NESTING_DEPTH, 'brackets'])
          : diagnostic(problem.kind, span),
      );
      problems.push(problem.offset);
    }
    if (!scan.closed) {
      diagnostics.push(endOfFileError(text, ['`}`']));
      problems.push(token.startOffset);
    }
  }
  return { diagnostics, problems };
}

/** Drops a diagnostic identical to the previous one (an unclosed body is also an unclosed collection). */
function withoutRepeats(sorted: Diagnostic[]): Diagnostic[] {
  return sorted.filter((d, i) => {
    const previous = sorted[i - 1];
    return !previous || previous.code !== d.code || previous.span.start !== d.span.start || previous.message !== d.message;
  });
}

function describeCharacter(text: string, offset: number): string {
  const codePoint = text.codePointAt(offset) ?? 0;
  const hex = `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;
  return codePoint < 0x20 || codePoint === 0x7f ? hex : `\`${String.fromCodePoint(codePoint)}\` (${hex})`;
}

function containsOffset(sorted: readonly number[], start: number, end: number): boolean {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (sorted[mid]! < start) low = mid + 1;
    else high = mid;
  }
  return low < sorted.length && sorted[low]! < end;
}

// --- Nesting guard ----------------------------------------------------------------------------

function isOpener(type: TokenType): boolean {
  return type === LCurly || type === LParen || type === LSquare;
}

function isCloser(type: TokenType): boolean {
  return type === RCurly || type === RParen || type === RSquare;
}

/**
 * Removes every bracketed region that would nest deeper than MAX_NESTING_DEPTH (from its opening to
 * its closing bracket) and reports it, so that no recursive pass ever sees it. `<` counts as an
 * opener only right after `map` (a type); in a body it is a comparison. `inType` says that a map
 * type was cut, which leaves a structure that parses but means something else.
 */
function limitNesting(tokens: IToken[]): { tokens: IToken[]; diagnostics: Diagnostic[]; inType: boolean } {
  const diagnostics: Diagnostic[] = [];
  let inType = false;
  let kept: IToken[] | undefined; // copied lazily: the common case removes nothing
  const open: TokenType[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    const type = token.tokenType;
    const opensAngle = type === Less && i > 0 && tokens[i - 1]!.tokenType === MapKeyword;
    if (isOpener(type) || opensAngle) {
      if (open.length >= MAX_NESTING_DEPTH) {
        const end = skipRegion(tokens, i);
        const span: Span = { start: token.startOffset, end: token.startOffset + 1 };
        diagnostics.push(diagnostic('nestingTooDeep', span, [MAX_NESTING_DEPTH, 'brackets']));
        kept ??= tokens.slice(0, i);
        // Without its `<…>` a map type still parses (as a reference to a collection named map).
        if (opensAngle) inType = true;
        i = end;
        continue;
      }
      open.push(opensAngle ? Less : type);
    } else if (isCloser(type)) {
      while (open[open.length - 1] === Less) open.pop();
      open.pop();
    } else if (type === Greater && open[open.length - 1] === Less) {
      open.pop();
    }
    kept?.push(token);
  }
  return { tokens: kept ?? tokens, diagnostics, inType };
}

/** Index of the token that closes the region opened at `start` (or the last token). */
function skipRegion(tokens: IToken[], start: number): number {
  const open: TokenType[] = [];
  for (let i = start; i < tokens.length; i++) {
    const type = tokens[i]!.tokenType;
    if (isOpener(type)) open.push(type);
    else if (type === Less && tokens[i - 1]?.tokenType === MapKeyword) open.push(Less);
    else if (isCloser(type)) {
      while (open[open.length - 1] === Less) open.pop();
      open.pop();
    } else if (type === Greater && open[open.length - 1] === Less) open.pop();
    if (open.length === 0) return i;
  }
  return tokens.length - 1;
}

// --- Syntax errors ----------------------------------------------------------------------------

function syntaxError(error: IRecognitionException, tokens: IToken[], text: string): Diagnostic {
  let details: ExpectedAt;
  try {
    details = JSON.parse(error.message) as ExpectedAt;
  } catch {
    details = { lookahead: 0, expected: [] };
  }
  const index = tokenIndex(tokens, error.token, details.lookahead);
  const token = tokens[index];
  const expected = listOf(details.expected);
  if (token === undefined || token.tokenType === EOF) return endOfFileError(text, details.expected);
  // A `;` forgotten at the end of a line is reported there, as tsc does, not at the start of the next line.
  const previous = tokens[index - 1];
  if (details.expected.includes('`;`') && previous !== undefined && lineBreakBetween(text, previous.startOffset + previous.image.length, token.startOffset)) {
    const at = previous.startOffset + previous.image.length;
    return diagnostic('missingToken', { start: at, end: at }, ['`;`']);
  }
  if (token.tokenType === FunctionBody) {
    // A `{` where the lexer saw a function body: only the brace is unexpected.
    return diagnostic('unexpectedToken', { start: token.startOffset, end: token.startOffset + 1 }, ['`{`', expected]);
  }
  return diagnostic('unexpectedToken', { start: token.startOffset, end: token.startOffset + token.image.length }, [describeToken(token), expected]);
}

/**
 * The file ended too soon. When a `}` was expected and the layout shows which `{` was left open, the error is
 * where its `}` belongs, with a note at the `{`.
 */
function endOfFileError(text: string, expected: readonly string[]): Diagnostic {
  const unclosed = expected.includes('`}`') ? findUnclosedBrace(text) : undefined;
  if (unclosed === undefined) return diagnostic('unexpectedEndOfFile', { start: text.length, end: text.length }, [listOf(expected)]);
  const at = { start: unclosed.missingAt, end: unclosed.missingAt };
  return diagnostic('missingToken', at, ['`}`'], [{ message: 'to close this `{`', span: { start: unclosed.opener, end: unclosed.opener + 1 } }]);
}

function lineBreakBetween(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (text[i] === '\n' || text[i] === '\r') return true;
  return false;
}

/** Index in `tokens` of the token `lookahead` places after `first` (tokens.length when that is past the end). */
function tokenIndex(tokens: IToken[], first: IToken, lookahead: number): number {
  if (first.tokenType === EOF) return tokens.length;
  let low = 0;
  let high = tokens.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (tokens[mid]!.startOffset < first.startOffset) low = mid + 1;
    else high = mid;
  }
  return low + lookahead;
}

function describeToken(token: IToken): string {
  const image = token.image.length > 30 ? `${token.image.slice(0, 30)}…` : token.image;
  return `\`${image.replace(/\s+/g, ' ')}\``;
}

function listOf(names: readonly string[]): string {
  if (names.length === 0) return 'something else';
  if (names.length === 1) return names[0]!;
  return `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`;
}
