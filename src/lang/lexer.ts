// Tokens of the schema language, as data for chevrotain's lexer.
//
// These tokens cover the whole file. lexer-fast.ts reads a correct schema's structure by hand into the same tokens;
// where it gives up (anything it does not know, any error), chevrotain's lexer made from this file reads the text
// again and reports every problem, reusing the bodies the fast lexer read (schemaLexer below).
//
// The structure grammar needs identifiers and a little punctuation; a function body is a single `FunctionBody` token
// from its `{` to the matching `}`. A plain body is parsed right there by the fast body parser (body-fast.ts), which
// finds that `}`; any other is scanned for it (body-scanner.ts) and parsed later (body.ts, with acorn). Strings,
// numbers and operators still exist as tokens so that a stray one in the structure is named in the error message.

import { createToken, Lexer, type IToken, type TokenType } from 'chevrotain';
import type { Statement } from './ast.ts';
import { readBodyFast } from './body-fast.ts';
import { scanBody, type BodyProblem, type BodyScan } from './body-scanner.ts';
import { MAX_NESTING_DEPTH } from './nesting.ts';

// Tokens in the `invalid` group are reported as diagnostics and left out of the token vector.
export const INVALID_GROUP = 'invalid';

const WhiteSpace = createToken({ name: 'WhiteSpace', pattern: /\s+/, group: Lexer.SKIPPED });
const LineComment = createToken({
  name: 'LineComment',
  pattern: /\/\/[^\n\r\u2028\u2029]*/,
  group: Lexer.SKIPPED,
});
const BlockComment = createToken({ name: 'BlockComment', pattern: /\/\*[\s\S]*?\*\//, group: Lexer.SKIPPED });
export const UnterminatedComment = createToken({
  name: 'UnterminatedComment',
  pattern: /\/\*[\s\S]*/,
  group: INVALID_GROUP,
});

// Strings follow JavaScript: escapes (including line continuations), no raw line breaks. A quote
// without its closing quote on the same line is an unterminated string.
export const StringLiteral = createToken({
  name: 'StringLiteral',
  label: 'string',
  pattern: /'(?:[^'\\\n\r]|\\(?:\r\n|[\s\S]))*'|"(?:[^"\\\n\r]|\\(?:\r\n|[\s\S]))*"/,
});
export const UnterminatedString = createToken({
  name: 'UnterminatedString',
  pattern: /'(?:[^'\\\n\r]|\\(?:\r\n|[\s\S]))*|"(?:[^"\\\n\r]|\\(?:\r\n|[\s\S]))*/,
  group: INVALID_GROUP,
});
// Strings, template literals and numbers only reach the parser when they are misplaced in the
// structure (inside a function body, body-scanner.ts skips them); they are tokens so that the error
// shows them whole.
export const TemplateLiteral = createToken({
  name: 'TemplateLiteral',
  label: 'template literal',
  pattern: /`(?:[^`\\]|\\[\s\S])*`/,
});
export const UnterminatedTemplate = createToken({
  name: 'UnterminatedTemplate',
  pattern: /`(?:[^`\\]|\\[\s\S])*/,
  group: INVALID_GROUP,
});

export const NumberLiteral = createToken({
  name: 'NumberLiteral',
  label: 'number',
  pattern: /(?:0[xXoObB][0-9a-fA-F_]+|(?:\d[\d_]*(?:\.[\d_]*)?|\.\d[\d_]*)(?:[eE][+-]?\d[\d_]*)?)n?/,
});

// A public-key literal in decorator arguments (Polylang after 0.6): `eth#0x<hex>`. Lexed whole with any
// prefix and digits so that build-ast.ts can say what is wrong with it; never valid JavaScript or 0.6.
export const KeyLiteral = createToken({
  name: 'KeyLiteral',
  label: 'key literal',
  pattern: /[A-Za-z_$][A-Za-z0-9_$]*#[0-9A-Za-z_]*/,
});

export const Identifier = createToken({
  name: 'Identifier',
  label: 'identifier',
  pattern: /[A-Za-z_$][A-Za-z0-9_$]*/,
});
// Keywords of the structure. `map` is also an identifier everywhere else (a field may be called map).
export const CollectionKeyword = createToken({
  name: 'CollectionKeyword',
  label: '`collection`',
  pattern: /collection/,
  longer_alt: Identifier,
});
// `contract` (Polylang after 0.6) starts a collection as `collection` does; everywhere else it is an identifier,
// as in 0.6 (schemas on Polybase's testnet had fields named `contract`).
export const ContractKeyword = createToken({
  name: 'ContractKeyword',
  label: '`contract`',
  pattern: /contract/,
  longer_alt: Identifier,
  categories: [Identifier],
});
export const FunctionKeyword = createToken({
  name: 'FunctionKeyword',
  label: '`function`',
  pattern: /function/,
  longer_alt: Identifier,
});
export const MapKeyword = createToken({
  name: 'MapKeyword',
  label: '`map`',
  pattern: /map/,
  longer_alt: Identifier,
  categories: [Identifier],
});

export const Decorator = createToken({
  name: 'Decorator',
  label: 'decorator',
  // Polylang allows white space between `@` and the name.
  pattern: /@[ \t\r\n]*[A-Za-z_$][A-Za-z0-9_$]*/,
  line_breaks: true,
});
export const AtIndex = createToken({
  name: 'AtIndex',
  label: '`@index`',
  pattern: /@index/,
  longer_alt: Decorator,
});

export const AtSearch = createToken({
  name: 'AtSearch',
  label: '`@search`',
  pattern: /@search/,
  longer_alt: Decorator,
});

function punctuation(name: string, character: string): TokenType {
  return createToken({ name, label: `\`${character}\``, pattern: character });
}

export const LCurly = punctuation('LCurly', '{');
export const RCurly = punctuation('RCurly', '}');
export const LParen = punctuation('LParen', '(');
export const RParen = punctuation('RParen', ')');
export const LSquare = punctuation('LSquare', '[');
export const RSquare = punctuation('RSquare', ']');
export const Less = punctuation('Less', '<');
export const Greater = punctuation('Greater', '>');
export const Comma = punctuation('Comma', ',');
export const Semicolon = punctuation('Semicolon', ';');
export const Colon = punctuation('Colon', ':');
export const Question = punctuation('Question', '?');
export const Dot = punctuation('Dot', '.');

/**
 * Whether a `{` opens a function body rather than a collection or an object type: it does after the
 * `)` of the parameters or after a return type (a name, `]`, `>` or the `}` of an object type), but
 * not after `collection Name`, and an object type's `{` follows `:`, `<` or `,`.
 */
export function opensFunctionBody(matchedTokens: IToken[]): boolean {
  const previous = matchedTokens[matchedTokens.length - 1];
  if (previous === undefined) return false;
  const type = previous.tokenType;
  if (type === RParen || type === RSquare || type === Greater || type === RCurly) return true;
  if (type === Identifier || type === MapKeyword || type === ContractKeyword) {
    const before = matchedTokens[matchedTokens.length - 2]?.tokenType;
    return before !== CollectionKeyword && before !== ContractKeyword;
  }
  return false;
}

export interface FunctionBodyPayload extends BodyScan {
  /** The body's statements, when the fast body parser read it (finding its end on the way); otherwise
   *  body-scanner.ts found the end, and body.ts parses the body once the structure is known. */
  statements: Statement[] | undefined;
}

const NO_PROBLEMS: readonly BodyProblem[] = [];

/** A plain body is parsed where it is found; any other is scanned for its end. */
export function readBody(text: string, open: number): FunctionBodyPayload {
  const fast = readBodyFast(text, open, MAX_NESTING_DEPTH);
  if (fast) return { end: fast.end, closed: true, problems: NO_PROBLEMS, statements: fast.statements };
  const scan = scanBody(text, open, MAX_NESTING_DEPTH);
  return { end: scan.end, closed: scan.closed, problems: scan.problems, statements: undefined };
}

export const FunctionBody = createToken({
  name: 'FunctionBody',
  label: '`{`',
  line_breaks: true,
  start_chars_hint: ['{'],
  pattern: {
    exec(text: string, offset: number, matchedTokens: IToken[]): RegExpExecArray | null {
      if (text.charCodeAt(offset) !== 123 /* { */ || !opensFunctionBody(matchedTokens)) return null;
      const body = knownBodies?.get(offset) ?? readBody(text, offset);
      const match = [text.slice(offset, body.end)] as unknown as RegExpExecArray & { payload: FunctionBodyPayload };
      match.payload = body;
      return match;
    },
  },
});

// Any other ASCII punctuation (only ever an error in the structure). Runs are one token (`===`);
// `/` stands alone so that a following `/` or `*` still starts a comment.
export const Operator = createToken({
  name: 'Operator',
  label: 'operator',
  pattern: /[!%^&*\-+=|~\\#@]+|\//,
});

// Order matters: chevrotain takes the first pattern that matches (keywords use `longer_alt`).
export const allTokens: TokenType[] = [
  WhiteSpace,
  LineComment,
  BlockComment,
  UnterminatedComment,
  StringLiteral,
  UnterminatedString,
  TemplateLiteral,
  UnterminatedTemplate,
  NumberLiteral,
  KeyLiteral,
  CollectionKeyword,
  ContractKeyword,
  FunctionKeyword,
  MapKeyword,
  Identifier,
  AtIndex,
  AtSearch,
  Decorator,
  FunctionBody,
  LCurly,
  RCurly,
  LParen,
  RParen,
  LSquare,
  RSquare,
  Less,
  Greater,
  Comma,
  Semicolon,
  Colon,
  Question,
  Dot,
  Operator,
];

/** A lexer of the schema language. `validate`: run chevrotain's checks of the token patterns, which find mistakes in
 *  this file, never in a schema; the tests run them (test/lang/lexer.test.ts), the lexer made for use skips them. */
export function createSchemaLexer(validate = false): Lexer {
  return new Lexer(allTokens, { positionTracking: 'onlyOffset', ensureOptimizations: true, skipValidations: !validate });
}

let lexer: Lexer | undefined;

/** Bodies already read in the text being tokenized, by the offset of their `{` (set only during schemaLexer.tokenize). */
let knownBodies: ReadonlyMap<number, FunctionBodyPayload> | undefined;

/** The schema lexer. chevrotain's Lexer is made on first use: making it analyses every token pattern, which a program that imports the library without parsing should not pay for.
 *  `bodies`: bodies of this same text already read (by lexer-fast.ts before it gave up), by offset; readBody would give the same payloads. */
export const schemaLexer = {
  tokenize(text: string, bodies?: ReadonlyMap<number, FunctionBodyPayload>) {
    knownBodies = bodies;
    try {
      return (lexer ??= createSchemaLexer()).tokenize(text);
    } finally {
      knownBodies = undefined;
    }
  },
};
