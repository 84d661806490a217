// A fast path for the schema lexer: a hand-written scanner for what a correct schema's structure holds (white space,
// comments, words, key literals, decorators, punctuation and function bodies), making the same tokens as chevrotain's lexer made
// from lexer.ts's token types (image, offset, type, and the body's payload).
//
// It gives up (returns undefined) at anything else: a string, number, template literal or operator in
// the structure, a comment never closed, a character that is not ASCII, one that starts no token. chevrotain's lexer
// then reads the whole text, and reports every problem. So whenever it answers, the answer is chevrotain's
// (test/lang/lexer-fast.test.ts compares the two); chevrotain's lexer spent about a fifth of a parse on the structure.

import type { ILexingResult, IToken, TokenType } from 'chevrotain';
import {
  allTokens,
  Decorator,
  Dot,
  FunctionBody,
  Identifier,
  KeyLiteral,
  LCurly,
  opensFunctionBody,
  readBody,
  type FunctionBodyPayload,
} from './lexer.ts';

// The lexical facts come from lexer.ts's token types (test/lang/lexer-fast.test.ts fails when one is added that this
// file does not know).

/** The punctuation tokens (a one-character string pattern) by character code; `{` is a function body or LCurly, and
 *  `.` a Dot unless a digit follows, both read below. */
const PUNCTUATION: (TokenType | undefined)[] = new Array(128).fill(undefined);
for (const type of allTokens) {
  if (typeof type.PATTERN === 'string' && type !== LCurly && type !== Dot) PUNCTUATION[type.PATTERN.charCodeAt(0)] = type;
}

/** The keywords that are read whole as a longer token (`LONGER_ALT`) when they are only its start, by their text. */
function keywordsOf(longer: TokenType): Map<string, TokenType> {
  return new Map(allTokens.filter((type) => type.LONGER_ALT === longer).map((type) => [(type.PATTERN as RegExp).source, type]));
}

/** `collection`, `contract`, `function`, `map`. */
const KEYWORDS = keywordsOf(Identifier);
/** `@index`, `@search`. */
const DECORATOR_KEYWORDS = keywordsOf(Decorator);

function isWordStart(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || code === 95 || code === 36;
}

function isWordPart(code: number): boolean {
  return isWordStart(code) || (code >= 48 && code <= 57);
}

function isKeyPart(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57) || code === 95;
}

function token(image: string, startOffset: number, type: TokenType): IToken {
  return { image, startOffset, tokenTypeIdx: type.tokenTypeIdx!, tokenType: type } as IToken;
}

/** The end of the word starting at `start` (a word start). */
function wordEnd(text: string, start: number): number {
  let end = start + 1;
  while (isWordPart(text.charCodeAt(end))) end++;
  return end;
}

/**
 * The tokens of `text` as chevrotain's lexer reads them, or undefined when it must read them. Every body read on the
 * way goes into `bodies` by the offset of its `{`, so that chevrotain's lexer need not read it again (schemaLexer).
 */
export function tokenizeFast(text: string, bodies?: Map<number, FunctionBodyPayload>): ILexingResult | undefined {
  const tokens: IToken[] = [];
  const length = text.length;
  let i = 0;
  while (i < length) {
    const code = text.charCodeAt(i);
    if (code === 32 || code === 10 || code === 13 || code === 9 || code === 11 || code === 12) {
      i++;
    } else if (isWordStart(code)) {
      let end = wordEnd(text, i);
      if (text.charCodeAt(end) === 35 /* # */) {
        // `eth#0x…`: a key literal, the word, `#` and any letters, digits and `_`.
        end++;
        while (isKeyPart(text.charCodeAt(end))) end++;
        tokens.push(token(text.slice(i, end), i, KeyLiteral));
      } else {
        const image = text.slice(i, end);
        tokens.push(token(image, i, KEYWORDS.get(image) ?? Identifier));
      }
      i = end;
    } else if (code === 123 /* { */) {
      if (opensFunctionBody(tokens)) {
        const body = readBody(text, i);
        bodies?.set(i, body);
        const bodyToken = token(text.slice(i, body.end), i, FunctionBody);
        bodyToken.payload = body;
        tokens.push(bodyToken);
        i = body.end;
      } else {
        tokens.push(token('{', i, LCurly));
        i++;
      }
    } else if (code < 128 && PUNCTUATION[code] !== undefined) {
      tokens.push(token(text[i]!, i, PUNCTUATION[code]!));
      i++;
    } else if (code === 64 /* @ */) {
      // `@` white space? name (Decorator), or exactly `@index` / `@search`; anything else is an operator.
      let nameStart = i + 1;
      while (nameStart < length && (text.charCodeAt(nameStart) === 32 || text.charCodeAt(nameStart) === 9 || text.charCodeAt(nameStart) === 10 || text.charCodeAt(nameStart) === 13)) nameStart++;
      if (!isWordStart(text.charCodeAt(nameStart))) return undefined;
      const end = wordEnd(text, nameStart);
      const image = text.slice(i, end);
      tokens.push(token(image, i, DECORATOR_KEYWORDS.get(image) ?? Decorator));
      i = end;
    } else if (code === 47 /* / */ && text.charCodeAt(i + 1) === 47) {
      i += 2;
      while (i < length) {
        const c = text.charCodeAt(i);
        if (c === 10 || c === 13 || c === 0x2028 || c === 0x2029) break;
        i++;
      }
    } else if (code === 47 && text.charCodeAt(i + 1) === 42 /* * */) {
      const close = text.indexOf('*/', i + 2);
      if (close < 0) return undefined;
      i = close + 2;
    } else if (code === 46 /* . */ && !(text.charCodeAt(i + 1) >= 48 && text.charCodeAt(i + 1) <= 57)) {
      tokens.push(token('.', i, Dot));
      i++;
    } else {
      return undefined;
    }
  }
  return { tokens, errors: [], groups: {} };
}
