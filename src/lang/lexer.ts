// Tokens of the schema language, as data for chevrotain's lexer.
//
// One lexer covers the whole file, function bodies included. The structure grammar only needs
// identifiers and a little punctuation; inside a body the tokens exist so that the parser can find
// the `}` that closes it (strings, template literals, comments and regular expressions may contain
// braces). The body text itself is parsed by acorn later, so body tokens are deliberately coarse.
//
// Every token except `{` and `}` belongs to the `BodyToken` category, which lets the grammar say
// "anything but a brace" in one place.

import { createToken, Lexer, type IToken, type TokenType } from 'chevrotain';

export const BodyToken = createToken({ name: 'BodyToken', pattern: Lexer.NA });

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
  categories: [BodyToken],
});
export const UnterminatedString = createToken({
  name: 'UnterminatedString',
  pattern: /'(?:[^'\\\n\r]|\\(?:\r\n|[\s\S]))*|"(?:[^"\\\n\r]|\\(?:\r\n|[\s\S]))*/,
  group: INVALID_GROUP,
});
// Template literals are not supported in bodies (acorn reports them), but they must be skipped as
// a whole so that a `}` inside `${…}` does not close the function.
export const TemplateLiteral = createToken({
  name: 'TemplateLiteral',
  label: 'template literal',
  pattern: /`(?:[^`\\]|\\[\s\S])*`/,
  categories: [BodyToken],
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
  categories: [BodyToken],
});

export const Identifier = createToken({
  name: 'Identifier',
  label: 'identifier',
  pattern: /[A-Za-z_$][A-Za-z0-9_$]*/,
  categories: [BodyToken],
});
// Keywords of the structure. `map` is also an identifier everywhere else (a field may be called map).
export const CollectionKeyword = createToken({
  name: 'CollectionKeyword',
  label: '`collection`',
  pattern: /collection/,
  longer_alt: Identifier,
  categories: [BodyToken],
});
export const FunctionKeyword = createToken({
  name: 'FunctionKeyword',
  label: '`function`',
  pattern: /function/,
  longer_alt: Identifier,
  categories: [BodyToken],
});
export const MapKeyword = createToken({
  name: 'MapKeyword',
  label: '`map`',
  pattern: /map/,
  longer_alt: Identifier,
  categories: [Identifier, BodyToken],
});

export const Decorator = createToken({
  name: 'Decorator',
  label: 'decorator',
  // Polylang allows white space between `@` and the name.
  pattern: /@[ \t\r\n]*[A-Za-z_$][A-Za-z0-9_$]*/,
  line_breaks: true,
  categories: [BodyToken],
});
export const AtIndex = createToken({
  name: 'AtIndex',
  label: '`@index`',
  pattern: /@index/,
  longer_alt: Decorator,
  categories: [BodyToken],
});

function punctuation(name: string, character: string, inBody = true): TokenType {
  return createToken({
    name,
    label: `\`${character}\``,
    pattern: character,
    categories: inBody ? [BodyToken] : [],
  });
}

export const LCurly = punctuation('LCurly', '{', false);
export const RCurly = punctuation('RCurly', '}', false);
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

// Token types after which a `/` divides; anywhere else in a body it starts a regular expression.
const DIVISION_FOLLOWS = new Set<TokenType>();

// A regular expression literal must be skipped whole for the same reason as a template literal
// (`/}/` must not close the function). Whether a `/` starts one depends on the previous token,
// as in JavaScript: after a value (identifier, literal, `)`, `]`, `}`) it is a division.
const REGEX_BODY = /\/(?:[^/\\[\n\r]|\\[^\n\r]|\[(?:[^\]\\\n\r]|\\[^\n\r])*\])+\/[A-Za-z]*/y;
const KEYWORDS_BEFORE_EXPRESSION = new Set(['return', 'typeof', 'case', 'do', 'else', 'in', 'of', 'new', 'delete', 'void', 'throw', 'instanceof', 'yield', 'await']);

export const RegexLiteral = createToken({
  name: 'RegexLiteral',
  label: 'regular expression',
  line_breaks: false,
  start_chars_hint: ['/'],
  pattern: {
    exec(text: string, offset: number, matchedTokens: IToken[]): RegExpExecArray | null {
      const previous = matchedTokens[matchedTokens.length - 1];
      if (previous !== undefined && DIVISION_FOLLOWS.has(previous.tokenType)) {
        if (previous.tokenType !== Identifier || !KEYWORDS_BEFORE_EXPRESSION.has(previous.image)) return null;
      }
      REGEX_BODY.lastIndex = offset;
      return REGEX_BODY.exec(text);
    },
  },
  categories: [BodyToken],
});

// Operators and any other ASCII punctuation a body may contain. Runs are one token (`===`, `+=`);
// `/` stands alone so that a following `/` or `*` still starts a comment.
export const Operator = createToken({
  name: 'Operator',
  label: 'operator',
  pattern: /[!%^&*\-+=|~\\#@]+|\//,
  categories: [BodyToken],
});

for (const type of [Identifier, CollectionKeyword, FunctionKeyword, MapKeyword, NumberLiteral, StringLiteral, TemplateLiteral, RegexLiteral, RParen, RSquare, RCurly]) {
  DIVISION_FOLLOWS.add(type);
}

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
  RegexLiteral,
  NumberLiteral,
  CollectionKeyword,
  FunctionKeyword,
  MapKeyword,
  Identifier,
  AtIndex,
  Decorator,
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

export const schemaLexer = new Lexer(allTokens, {
  positionTracking: 'onlyOffset',
  ensureOptimizations: true,
});
