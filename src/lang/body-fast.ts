// A fast path for function bodies: a small recursive-descent parser for the plain subset that almost
// every body uses, building our Statement/Expression nodes directly, with no ESTree in between (acorn
// and the conversion of its tree were most of the time `checkSchema` spent parsing).
//
// It gives up (returns undefined) at anything it does not handle exactly as acorn + body.ts would: a
// missing `;` (automatic semicolon insertion), escapes in strings, regular expressions, unusual number
// forms, non-ASCII text outside strings and comments, reserved or contextual words used as names,
// `??`, trailing commas in arguments, unsupported constructs, syntax errors. acorn (body.ts) then
// parses that body and produces every diagnostic. So whenever it answers, the answer is the one
// acorn + body.ts would give, spans included: a parenthesised expression has its inner expression's
// span, and a node built on one starts at its `(`, as in acorn.
//
// The tokenizer reads every character once and makes no string for a punctuator or a known word: a token is a
// small number (its type), punctuators are read through a table of their characters, and names are looked up in a
// table of the names seen before (interned), which also says which are keywords. The parser compares numbers.

import type {
  AssignmentOperator,
  BinaryOperator,
  Expression,
  Identifier,
  IdentifierExpression,
  IndexExpression,
  MemberExpression,
  ObjectProperty,
  Statement,
  VariableDeclaration,
} from './ast.ts';

/** Below body.ts's MAX_TREE_DEPTH: deeper bodies go to acorn, which reports them. */
const MAX_DEPTH = 200;

// --- token types ---------------------------------------------------------------------------------

/** A token's type: the end, a name, a number, a string, or one of the punctuators below (its index + FIRST_PUNCTUATOR). */
const END: number = 0;
const NAME: number = 1;
const NUMBER: number = 2;
const STRING: number = 3;
const FIRST_PUNCTUATOR: number = 4;

/** Punctuators, up to four characters long. `...` is left out, so that it reads as three `.` tokens: spread is
 *  outside the plain subset, and the body goes to acorn, which reports it. */
const PUNCTUATORS = [
  '{', '}', '(', ')', '[', ']', ';', ',', '.', '?', ':', '=',
  '<', '>', '+', '-', '*', '/', '%', '&', '|', '^', '!', '~',
  '=>', '==', '!=', '<=', '>=', '&&', '||', '??', '?.', '++', '--', '+=', '-=', '*=', '/=', '%=', '&=', '|=', '^=', '<<', '>>', '**',
  '===', '!==', '>>>', '**=', '<<=', '>>=', '&&=', '||=', '??=',
  '>>>=',
] as const;

type Punctuator = (typeof PUNCTUATORS)[number];

/** The token type of a punctuator. */
function type(punctuator: Punctuator): number {
  return PUNCTUATORS.indexOf(punctuator) + FIRST_PUNCTUATOR;
}

const L_CURLY = type('{');
const R_CURLY = type('}');
const L_PAREN = type('(');
const R_PAREN = type(')');
const L_SQUARE = type('[');
const R_SQUARE = type(']');
const SEMICOLON = type(';');
const COMMA = type(',');
const DOT = type('.');
const QUESTION = type('?');
const COLON = type(':');
const EQUALS = type('=');
const ARROW = type('=>');
const QUESTION_DOT = type('?.');
const PLUS_PLUS = type('++');
const MINUS_MINUS = type('--');
const STAR_STAR = type('**');
const BANG = type('!');
const MINUS = type('-');
const PLUS = type('+');
const TILDE = type('~');
const OR = type('||');
const AND = type('&&');

/** The text of a token type that is a punctuator (an operator's text in the tree). */
const TEXT: string[] = [];
for (let i = 0; i < FIRST_PUNCTUATOR; i++) TEXT.push('');
for (const punctuator of PUNCTUATORS) TEXT.push(punctuator);

/** By token type: the precedence of a binary operator (acorn's), GIVES_UP for `??` (it may not mix with `||`/`&&`,
 *  acorn's to check) and `**` (taken by `unary`), 0 for any other token. */
const PRECEDENCE = new Uint8Array(TEXT.length);
const GIVES_UP = 255;
const BINARY_PRECEDENCE: [Punctuator, number][] = [
  ['||', 1], ['&&', 2], ['|', 3], ['^', 4], ['&', 5],
  ['==', 6], ['!=', 6], ['===', 6], ['!==', 6],
  ['<', 7], ['>', 7], ['<=', 7], ['>=', 7],
  ['<<', 8], ['>>', 8], ['>>>', 8],
  ['+', 9], ['-', 9], ['*', 10], ['/', 10], ['%', 10],
  ['??', GIVES_UP], ['**', GIVES_UP],
];
for (const [punctuator, precedence] of BINARY_PRECEDENCE) PRECEDENCE[type(punctuator)] = precedence;

/** By token type: 1 for the assignment operators of the plain subset, 2 for every other punctuator ending in `=`
 *  that is not a comparison (`**=`, `<<=`, `&&=`, …: acorn's), 0 for any other token. */
const ASSIGNMENT = new Uint8Array(TEXT.length);
for (const punctuator of PUNCTUATORS) {
  if (punctuator.endsWith('=') && !['==', '===', '!=', '!==', '<=', '>='].includes(punctuator)) ASSIGNMENT[type(punctuator)] = 2;
}
for (const punctuator of ['=', '+=', '-=', '*=', '/=', '%='] as const) ASSIGNMENT[type(punctuator)] = 1;

/**
 * The punctuators as a table of their characters, for the longest match: a state is a row of 128 entries, one per
 * ASCII character, giving the state after it (0: none); state 0's row is the first character. `MATCHED[state]` is
 * the token type read once in `state`. Every prefix of a punctuator is one itself (checked below), so the longest
 * match never has to step back.
 */
const STEPS: number[] = new Array(128).fill(0);
const MATCHED: number[] = [0];
for (const punctuator of [...PUNCTUATORS].sort((a, b) => a.length - b.length)) {
  let state = 0;
  for (let i = 0; i < punctuator.length - 1; i++) {
    state = STEPS[state * 128 + punctuator.charCodeAt(i)]!;
    if (state === 0) throw new Error(`body-fast: the punctuator ${punctuator} has a prefix that is none`);
  }
  const next = MATCHED.length;
  MATCHED.push(type(punctuator));
  STEPS[state * 128 + punctuator.charCodeAt(punctuator.length - 1)] = next;
  for (let i = 0; i < 128; i++) STEPS.push(0);
}
const PUNCTUATOR_STEPS = Int32Array.from(STEPS);
const PUNCTUATOR_MATCHED = Int32Array.from(MATCHED);

// --- words ---------------------------------------------------------------------------------------

/** What a name token is: a plain name, or one of the words below. Every word but PLAIN is a keyword, reserved or
 *  contextual somewhere in JavaScript, never a plain name here. */
const PLAIN: number = 0;
const IF: number = 1;
const ELSE: number = 2;
const WHILE: number = 3;
const FOR: number = 4;
const RETURN: number = 5;
const THROW: number = 6;
const BREAK: number = 7;
const CONTINUE: number = 8;
const LET: number = 9;
const CONST: number = 10;
const OF: number = 11;
const IN: number = 12;
const INSTANCEOF: number = 13;
const DELETE: number = 14;
const THIS: number = 15;
const NULL: number = 16;
const TRUE: number = 17;
const FALSE: number = 18;
const PROTO: number = 19;
/** Every other special word: a statement starting with one is acorn's to parse or reject. */
const OTHER: number = 20;

/** Words that are keywords, reserved or contextual somewhere in JavaScript: never plain names here. */
const SPECIAL_WORDS =
  'break case catch class const continue debugger default delete do else enum export extends false finally for ' +
  'function if import in instanceof new null return super switch this throw true try typeof var void while with ' +
  'yield let static implements interface package private protected public await async of get set arguments eval ' +
  '__proto__';

/** Every special word, as the word above that it is or as OTHER. */
const WORDS = new Map<string, number>();
const NAMED_WORDS = new Map<string, number>([
  ['if', IF], ['else', ELSE], ['while', WHILE], ['for', FOR], ['return', RETURN], ['throw', THROW], ['break', BREAK],
  ['continue', CONTINUE], ['let', LET], ['const', CONST], ['of', OF], ['in', IN], ['instanceof', INSTANCEOF],
  ['delete', DELETE], ['this', THIS], ['null', NULL], ['true', TRUE], ['false', FALSE], ['__proto__', PROTO],
]);
for (const word of SPECIAL_WORDS.split(' ')) WORDS.set(word, NAMED_WORDS.get(word) ?? OTHER);

/**
 * The names read before, by a hash of their characters (one entry a slot, a new name replacing an old one), and what
 * word each is: a name met again is taken from here, with no new string and no keyword lookup, and is then the same
 * string in every node, whose hash the checker's tables compute once. Only names of up to INTERNED_LENGTH characters
 * are kept: V8 copies a slice that short, but makes a longer one a view into the whole text, which the table would
 * then keep alive (fewer than 1% of the corpus's names are longer).
 */
const NAME_SLOTS = 4096;
const INTERNED_LENGTH = 12;
const NAMES: string[] = new Array<string>(NAME_SLOTS).fill('');
const NAME_WORDS = new Uint8Array(NAME_SLOTS);

/** By ASCII character: 1 where a name may start, 2 where it may only continue, 0 elsewhere. */
const NAME_CHARACTER = new Uint8Array(128);
for (let code = 0; code < 128; code++) {
  if ((code >= 97 && code <= 122) || (code >= 65 && code <= 90) || code === 95 || code === 36) NAME_CHARACTER[code] = 1;
  else if (code >= 48 && code <= 57) NAME_CHARACTER[code] = 2;
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

class GiveUp extends Error {}

const GIVE_UP = new GiveUp();

function giveUp(): never {
  throw GIVE_UP;
}

/**
 * The statements of a body, given its text from `{` to the matching `}` and the file offset of that
 * `{`; undefined when acorn must parse it.
 */
export function parseBodyFast(block: string, start: number): Statement[] | undefined {
  try {
    const parser = new FastBodyParser(block, 0, start, Infinity);
    const statements = parser.body();
    parser.next();
    return parser.atEnd() ? statements : undefined;
  } catch (error) {
    if (error === GIVE_UP) return undefined;
    throw error;
  }
}

/**
 * Reads the body whose `{` is at `open` in the whole schema `text`, finding its closing `}` on the
 * way: the lexer calls this first, so that a plain body is read once instead of scanned for its end
 * (body-scanner.ts) and parsed afterwards. Undefined when the body is not plain or nests brackets
 * deeper than `maxDepth`; the lexer then scans it and body.ts parses it later, as before.
 *
 * Whenever this answers, the scanner would have found the same end and no problem, and
 * `parseBodyFast` would have given the same statements: a plain body holds no regular expression,
 * template, escape or unterminated string or comment, so every bracket that the scanner counts is a
 * punctuator here, and the bracket depth is checked against the same limit.
 */
export function readBodyFast(text: string, open: number, maxDepth: number): { statements: Statement[]; end: number } | undefined {
  try {
    const parser = new FastBodyParser(text, open, 0, maxDepth);
    const statements = parser.body();
    return { statements, end: parser.closingEnd() };
  } catch (error) {
    if (error === GIVE_UP) return undefined;
    throw error;
  }
}

class FastBodyParser {
  // The current token: its type (END, NAME, NUMBER, STRING or a punctuator's), for a name which word it is, its
  // value (a name's or a string's text), its number and where it is.
  private type = END;
  private word = PLAIN;
  private value = '';
  private numberValue = 0;
  private tokenStart = 0;
  private tokenEnd = 0;
  /** Whether a line break comes between the previous token and this one. */
  private newlineBefore = false;
  /** The end of the previous token. */
  private lastEnd = 0;
  private depth = 0;
  /** How deeply `{ ( [` nest at this token, the body's own `{` counting as 1 (as body-scanner.ts counts). */
  private brackets = 0;
  private readonly length: number;

  /** Reads `text` from `position`; spans are positions in `text` plus `offset`. */
  constructor(
    private readonly text: string,
    private position: number,
    private readonly offset: number,
    private readonly maxBrackets: number,
  ) {
    this.length = text.length;
  }

  /** The statements of the body, with its closing `}` as the current token. */
  body(): Statement[] {
    this.next();
    this.expect(L_CURLY);
    const statements = this.statementList();
    if (this.type !== R_CURLY) giveUp();
    return statements;
  }

  /** After `body`: the position just after the closing `}`. */
  closingEnd(): number {
    return this.tokenEnd;
  }

  atEnd(): boolean {
    return this.type === END;
  }

  // --- tokens --------------------------------------------------------------------------------

  next(): void {
    this.lastEnd = this.tokenEnd;
    this.newlineBefore = false;
    this.skipSpaceAndComments();
    const text = this.text;
    const start = this.position;
    this.tokenStart = start;
    if (start >= this.length) {
      this.type = END;
      this.tokenEnd = start;
      return;
    }
    const code = text.charCodeAt(start);
    const nameCharacter = code < 128 ? NAME_CHARACTER[code]! : 0;
    if (nameCharacter === 1) {
      this.name(start);
    } else if (nameCharacter === 2) {
      this.number(start);
    } else if (code === 39 || code === 34) {
      const end = text.indexOf(text[start]!, start + 1);
      if (end < 0) giveUp();
      const value = text.slice(start + 1, end);
      if (value.includes('\\') || value.includes('\n') || value.includes('\r')) giveUp();
      this.type = STRING;
      this.value = value;
      this.tokenEnd = this.position = end + 1;
    } else {
      if (code > 127) giveUp();
      // `<!--` and `-->` start comments in a script.
      if ((code === 60 && text.startsWith('<!--', start)) || (code === 45 && text.startsWith('-->', start))) giveUp();
      let state = PUNCTUATOR_STEPS[code]!;
      if (state === 0) giveUp();
      let end = start + 1;
      for (;;) {
        const c = text.charCodeAt(end);
        const following = c < 128 ? PUNCTUATOR_STEPS[state * 128 + c]! : 0;
        if (following === 0) break;
        state = following;
        end++;
      }
      if (code === 123 || code === 40 || code === 91) {
        if (++this.brackets > this.maxBrackets) giveUp();
      } else if (code === 125 || code === 41 || code === 93) {
        this.brackets--;
      }
      this.type = PUNCTUATOR_MATCHED[state]!;
      this.tokenEnd = this.position = end;
    }
  }

  /** A name starting at `start`: its text from the names read before when it is one of them. */
  private name(start: number): void {
    const text = this.text;
    const length = this.length;
    let hash = text.charCodeAt(start);
    let end = start + 1;
    let code = 0;
    while (end < length) {
      code = text.charCodeAt(end);
      if (code >= 128 || NAME_CHARACTER[code] === 0) break;
      hash = (Math.imul(hash, 31) + code) | 0;
      end++;
    }
    if (end < length && (code === 92 || code > 127)) giveUp();
    const size = end - start;
    const slot = (hash ^ (hash >>> 12) ^ size) & (NAME_SLOTS - 1);
    const known = NAMES[slot]!;
    let same = known.length === size;
    for (let i = 0; same && i < size; i++) same = known.charCodeAt(i) === text.charCodeAt(start + i);
    if (same) {
      this.value = known;
      this.word = NAME_WORDS[slot]!;
    } else {
      const value = text.slice(start, end);
      const word = WORDS.get(value) ?? PLAIN;
      if (size <= INTERNED_LENGTH) {
        NAMES[slot] = value;
        NAME_WORDS[slot] = word;
      }
      this.value = value;
      this.word = word;
    }
    this.type = NAME;
    this.tokenEnd = this.position = end;
  }

  /** Plain decimal numbers only: `0`, `12`, `1.5`, `2e10`; anything else (`0x1`, `07`, `1_0`, `.5`) goes to acorn. */
  private number(start: number): void {
    const text = this.text;
    const length = this.length;
    let end = start;
    // The value of the digits, exact up to 15 of them; a longer number, a fraction or an exponent is read by Number.
    let value = 0;
    while (end < length) {
      const code = text.charCodeAt(end);
      if (!isDigit(code)) break;
      value = value * 10 + (code - 48);
      end++;
    }
    if (text.charCodeAt(start) === 48 && end > start + 1) giveUp();
    let exact = end - start <= 15;
    if (text.charCodeAt(end) === 46) {
      exact = false;
      end++;
      while (end < length && isDigit(text.charCodeAt(end))) end++;
    }
    const exponent = text.charCodeAt(end);
    if (exponent === 101 || exponent === 69) {
      exact = false;
      end++;
      const sign = text.charCodeAt(end);
      if (sign === 43 || sign === 45) end++;
      if (!isDigit(text.charCodeAt(end))) giveUp();
      while (end < length && isDigit(text.charCodeAt(end))) end++;
    }
    const after = text.charCodeAt(end);
    if (end < length && ((after < 128 && NAME_CHARACTER[after] !== 0) || after === 46 || after === 92 || after > 127)) giveUp();
    this.type = NUMBER;
    this.numberValue = exact ? value : Number(text.slice(start, end));
    this.tokenEnd = this.position = end;
  }

  private skipSpaceAndComments(): void {
    const text = this.text;
    const length = this.length;
    let position = this.position;
    while (position < length) {
      const code = text.charCodeAt(position);
      if (code === 32 || code === 9 || code === 11 || code === 12) {
        position++;
      } else if (code === 10 || code === 13) {
        this.newlineBefore = true;
        position++;
      } else if (code === 47 && text.charCodeAt(position + 1) === 47) {
        // The comment ends at a line break (left for the loop to see); U+2028/U+2029 are acorn's.
        position += 2;
        while (position < length) {
          const c = text.charCodeAt(position);
          if (c === 10 || c === 13) break;
          if (c === 0x2028 || c === 0x2029) giveUp();
          position++;
        }
      } else if (code === 47 && text.charCodeAt(position + 1) === 42) {
        const end = text.indexOf('*/', position + 2);
        if (end < 0) giveUp();
        for (let i = position + 2; i < end; i++) {
          const c = text.charCodeAt(i);
          if (c === 10 || c === 13 || c === 0x2028 || c === 0x2029) {
            this.newlineBefore = true;
            break;
          }
        }
        position = end + 2;
      } else {
        break;
      }
    }
    this.position = position;
  }

  private expect(type: number): void {
    if (this.type !== type) giveUp();
    this.next();
  }

  private span(start: number): { start: number; end: number } {
    return { start: start + this.offset, end: this.lastEnd + this.offset };
  }

  /** One level deeper: recursion, or one more link of a chain (`a.b.c`, `a + b + c`), which nests the tree as deep. */
  private enter(): void {
    if (++this.depth > MAX_DEPTH) giveUp();
  }

  /** A plain name (not a keyword or a contextual word). */
  private identifier(): Identifier {
    if (this.type !== NAME || this.word !== PLAIN) giveUp();
    const identifier: Identifier = { kind: 'identifier', name: this.value, span: { start: this.tokenStart + this.offset, end: this.tokenEnd + this.offset } };
    this.next();
    return identifier;
  }

  /** After `.` or as an object key: any word, keywords included. */
  private propertyName(): Identifier {
    if (this.type !== NAME || this.word === PROTO) giveUp();
    const identifier: Identifier = { kind: 'identifier', name: this.value, span: { start: this.tokenStart + this.offset, end: this.tokenEnd + this.offset } };
    this.next();
    return identifier;
  }

  /** `;` ends a statement; automatic semicolon insertion is acorn's. */
  private semicolon(): void {
    this.expect(SEMICOLON);
  }

  // --- statements ----------------------------------------------------------------------------

  private statementList(): Statement[] {
    const statements: Statement[] = [];
    while (this.type !== R_CURLY) {
      if (this.type === SEMICOLON) {
        this.next();
        continue;
      }
      if (this.type === NAME && (this.word === LET || this.word === CONST)) {
        const start = this.tokenStart;
        const declarationKind = this.word === LET ? 'let' : 'const';
        this.next();
        const name = this.identifier();
        const init = this.variableInit();
        this.semicolon();
        statements.push({ kind: 'variable', declarationKind, name, init, span: this.span(start) });
      } else {
        statements.push(this.statement());
      }
    }
    return statements;
  }

  /** After `let x` or `const x` (one declarator): `= value`, if any. */
  private variableInit(): Expression | null {
    let init: Expression | null = null;
    if (this.type === EQUALS) {
      this.next();
      init = this.assign();
    }
    if (this.type === COMMA) giveUp();
    return init;
  }

  private statement(): Statement {
    this.enter();
    const statement = this.statementInner();
    this.depth--;
    return statement;
  }

  private statementInner(): Statement {
    const start = this.tokenStart;
    if (this.type === L_CURLY) {
      this.next();
      const body = this.statementList();
      this.expect(R_CURLY);
      return { kind: 'block', body, span: this.span(start) };
    }
    if (this.type === NAME) {
      switch (this.word) {
        case PLAIN:
        case THIS:
        case DELETE:
        case NULL:
        case TRUE:
        case FALSE:
          break;
        case IF: {
          this.next();
          const test = this.parenthesised();
          const consequent = this.statement();
          let alternate: Statement | null = null;
          if (this.type === NAME && this.word === ELSE) {
            this.next();
            alternate = this.statement();
          }
          return { kind: 'if', test, consequent, alternate, span: this.span(start) };
        }
        case WHILE: {
          this.next();
          const test = this.parenthesised();
          const body = this.statement();
          return { kind: 'while', test, body, span: this.span(start) };
        }
        case FOR:
          return this.forStatement(start);
        case RETURN: {
          this.next();
          if (this.type === SEMICOLON) {
            this.next();
            return { kind: 'return', argument: null, span: this.span(start) };
          }
          if (this.newlineBefore) giveUp();
          const argument = this.expression();
          this.semicolon();
          return { kind: 'return', argument, span: this.span(start) };
        }
        case THROW: {
          this.next();
          if (this.newlineBefore) giveUp();
          const argument = this.expression();
          this.semicolon();
          return { kind: 'throw', argument, span: this.span(start) };
        }
        case BREAK:
        case CONTINUE: {
          const kind = this.word === BREAK ? 'break' : 'continue';
          this.next();
          if (this.newlineBefore) giveUp();
          this.semicolon();
          return { kind, span: this.span(start) };
        }
        default:
          // Other keywords (`var`, `switch`, `function`, `let` here, …) are acorn's to parse or reject.
          giveUp();
      }
    }
    const expression = this.expression();
    this.semicolon();
    return { kind: 'expressionStatement', expression, span: this.span(start) };
  }

  private forStatement(start: number): Statement {
    this.next();
    this.expect(L_PAREN);
    if (this.type === NAME && (this.word === LET || this.word === CONST)) {
      const declarationStart = this.tokenStart;
      const declarationKind = this.word === LET ? 'let' : 'const';
      this.next();
      const name = this.identifier();
      if (this.type === NAME && this.word === OF) {
        this.next();
        const iterable = this.assign();
        this.expect(R_PAREN);
        const body = this.statement();
        return { kind: 'forOf', declarationKind, name, iterable, body, span: this.span(start) };
      }
      const value = this.variableInit();
      const init: VariableDeclaration = { kind: 'variable', declarationKind, name, init: value, span: this.span(declarationStart) };
      return this.forRest(start, init);
    }
    const init = this.type === SEMICOLON ? null : this.expression();
    return this.forRest(start, init);
  }

  private forRest(start: number, init: VariableDeclaration | Expression | null): Statement {
    this.expect(SEMICOLON);
    const test = this.type === SEMICOLON ? null : this.expression();
    this.expect(SEMICOLON);
    const update = this.type === R_PAREN ? null : this.expression();
    this.expect(R_PAREN);
    const body = this.statement();
    return { kind: 'for', init, test, update, body, span: this.span(start) };
  }

  /** `( expression )` after `if` and `while`. */
  private parenthesised(): Expression {
    this.expect(L_PAREN);
    const expression = this.expression();
    this.expect(R_PAREN);
    return expression;
  }

  // --- expressions ---------------------------------------------------------------------------

  /** An expression where JavaScript allows a comma expression: commas are acorn's. */
  private expression(): Expression {
    const expression = this.assign();
    if (this.type === COMMA) giveUp();
    return expression;
  }

  private assign(): Expression {
    this.enter();
    const start = this.tokenStart;
    const startsWithParen = this.type === L_PAREN;
    const left = this.conditional();
    let result = left;
    const assignment = ASSIGNMENT[this.type]!;
    if (assignment !== 0) {
      const operator = TEXT[this.type]! as AssignmentOperator;
      if (assignment !== 1 || startsWithParen || !isTarget(left)) giveUp();
      this.next();
      const value = this.assign();
      result = { kind: 'assignment', operator, target: left, value, span: this.span(start) };
    }
    this.depth--;
    return result;
  }

  private conditional(): Expression {
    const start = this.tokenStart;
    const test = this.binary(0);
    if (this.type !== QUESTION) return test;
    this.next();
    const consequent = this.assign();
    this.expect(COLON);
    const alternate = this.assign();
    return { kind: 'conditional', test, consequent, alternate, span: this.span(start) };
  }

  /** Operators binding tighter than `minimum`, left to right (precedence climbing, as acorn). */
  private binary(minimum: number): Expression {
    const start = this.tokenStart;
    let left = this.unary(false, false);
    let links = 0;
    for (;;) {
      if (this.type === NAME && (this.word === IN || this.word === INSTANCEOF)) giveUp();
      const precedence = PRECEDENCE[this.type]!;
      if (precedence === GIVES_UP) giveUp();
      if (precedence <= minimum) {
        this.depth -= links;
        return left;
      }
      this.enter();
      links++;
      const operatorType = this.type;
      this.next();
      const right = this.binary(precedence);
      left =
        operatorType === OR || operatorType === AND
          ? { kind: 'logical', operator: operatorType === OR ? '||' : '&&', left, right, span: this.span(start) }
          : { kind: 'binary', operator: TEXT[operatorType]! as BinaryOperator, left, right, span: this.span(start) };
    }
  }

  /**
   * Prefix operators, postfix `++`/`--` and `**`, as acorn's parseMaybeUnary: `**` binds here, to the
   * right, and may not follow a unary operator (`-a ** 2` is a syntax error); `sawUnary` says one came
   * just before, `incDec` that the caller is `++`/`--` (which takes its operand without `**`).
   */
  private unary(sawUnary: boolean, incDec: boolean): Expression {
    const start = this.tokenStart;
    const type = this.type;
    let expression: Expression;
    let prefixed = false;
    if (type === BANG || type === MINUS || type === PLUS || type === TILDE || (type === NAME && this.word === DELETE)) {
      const operator = type === NAME ? 'delete' : (TEXT[type]! as '!' | '-' | '+' | '~');
      this.next();
      this.enter();
      const argument = this.unary(true, false);
      this.depth--;
      expression = { kind: 'unary', operator, argument, span: this.span(start) };
      prefixed = true;
    } else if (type === PLUS_PLUS || type === MINUS_MINUS) {
      const operator = type === PLUS_PLUS ? '++' : '--';
      this.next();
      const parenthesised = this.type === L_PAREN;
      this.enter();
      const argument = this.unary(true, true);
      this.depth--;
      if (parenthesised || !isTarget(argument)) giveUp();
      expression = { kind: 'update', operator, prefix: true, argument, span: this.span(start) };
    } else {
      const parenthesised = type === L_PAREN;
      expression = this.subscripts();
      if ((this.type === PLUS_PLUS || this.type === MINUS_MINUS) && !this.newlineBefore) {
        if (parenthesised || !isTarget(expression)) giveUp();
        const operator = this.type === PLUS_PLUS ? '++' : '--';
        this.next();
        expression = { kind: 'update', operator, prefix: false, argument: expression, span: this.span(start) };
        if (this.type === PLUS_PLUS || this.type === MINUS_MINUS) giveUp();
      }
    }
    if (incDec || this.type !== STAR_STAR) return expression;
    if (sawUnary || prefixed) giveUp();
    this.next();
    this.enter();
    const right = this.unary(false, false);
    this.depth--;
    return { kind: 'binary', operator: '**', left: expression, right, span: this.span(start) };
  }

  /** A primary expression followed by `.name`, `[index]` and `(arguments)`. */
  private subscripts(): Expression {
    const start = this.tokenStart;
    let expression = this.primary();
    let links = 0;
    for (;;) {
      const type = this.type;
      if (type === DOT) {
        this.next();
        const property = this.propertyName();
        expression = { kind: 'member', object: expression, property, span: this.span(start) };
      } else if (type === L_SQUARE) {
        this.next();
        const index = this.expression();
        this.expect(R_SQUARE);
        expression = { kind: 'index', object: expression, index, span: this.span(start) };
      } else if (type === L_PAREN) {
        this.next();
        const args: Expression[] = [];
        while (this.type !== R_PAREN) {
          args.push(this.assign());
          if (this.type !== R_PAREN) {
            this.expect(COMMA);
            if (this.type === R_PAREN) giveUp();
          }
        }
        this.next();
        expression = { kind: 'call', callee: expression, arguments: args, span: this.span(start) };
      } else {
        if (type === QUESTION_DOT) giveUp();
        this.depth -= links;
        return expression;
      }
      this.enter();
      links++;
    }
  }

  private primary(): Expression {
    const start = this.tokenStart;
    switch (this.type) {
      case NUMBER: {
        const value = this.numberValue;
        this.next();
        return { kind: 'number', value, span: this.span(start) };
      }
      case STRING: {
        const value = this.value;
        this.next();
        return { kind: 'string', value, span: this.span(start) };
      }
      case NAME: {
        switch (this.word) {
          case THIS:
            this.next();
            return { kind: 'this', span: this.span(start) };
          case NULL:
            this.next();
            return { kind: 'null', span: this.span(start) };
          case TRUE:
          case FALSE: {
            const value = this.word === TRUE;
            this.next();
            return { kind: 'boolean', value, span: this.span(start) };
          }
        }
        const identifier = this.identifier();
        if (this.type === ARROW) giveUp();
        return { kind: 'identifierExpression', name: identifier.name, span: identifier.span };
      }
      case L_PAREN: {
        this.next();
        if (this.type === R_PAREN) giveUp();
        const inner = this.expression();
        this.expect(R_PAREN);
        if (this.type === ARROW) giveUp();
        return inner;
      }
      case L_SQUARE: {
        this.next();
        const elements: Expression[] = [];
        while (this.type !== R_SQUARE) {
          if (this.type === COMMA) giveUp();
          elements.push(this.assign());
          if (this.type !== R_SQUARE) this.expect(COMMA);
        }
        this.next();
        return { kind: 'arrayLiteral', elements, span: this.span(start) };
      }
      case L_CURLY: {
        this.next();
        const properties: ObjectProperty[] = [];
        while (this.type !== R_CURLY) {
          const propertyStart = this.tokenStart;
          const key = this.propertyName();
          this.expect(COLON);
          const value = this.assign();
          properties.push({ kind: 'property', key, value, span: this.span(propertyStart) });
          if (this.type !== R_CURLY) this.expect(COMMA);
        }
        this.next();
        return { kind: 'objectLiteral', properties, span: this.span(start) };
      }
      default:
        giveUp();
    }
  }
}

function isTarget(expression: Expression): expression is IdentifierExpression | MemberExpression | IndexExpression {
  return expression.kind === 'identifierExpression' || expression.kind === 'member' || expression.kind === 'index';
}
