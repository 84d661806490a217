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

/** Words that are keywords, reserved or contextual somewhere in JavaScript: never plain names here. */
const SPECIAL_WORDS = new Set(
  ('break case catch class const continue debugger default delete do else enum export extends false finally for ' +
    'function if import in instanceof new null return super switch this throw true try typeof var void while with ' +
    'yield let static implements interface package private protected public await async of get set arguments eval ' +
    '__proto__').split(' '),
);

/** Binary operators and their precedence (acorn's); `**` is parsed with the unary operators, `??` by acorn. */
const BINARY_PRECEDENCE = new Map<string, number>([
  ['||', 1], ['&&', 2], ['|', 3], ['^', 4], ['&', 5],
  ['==', 6], ['!=', 6], ['===', 6], ['!==', 6],
  ['<', 7], ['>', 7], ['<=', 7], ['>=', 7],
  ['<<', 8], ['>>', 8], ['>>>', 8],
  ['+', 9], ['-', 9], ['*', 10], ['/', 10], ['%', 10],
]);

/** Whether a character starts some binary operator: most tokens after an operand (`;` `)` `,`) do not,
 *  and need no lookup. */
const STARTS_BINARY = new Uint8Array(128);
for (const operator of BINARY_PRECEDENCE.keys()) STARTS_BINARY[operator.charCodeAt(0)] = 1;

const ASSIGNMENT_OPERATORS = new Set(['=', '+=', '-=', '*=', '/=', '%=']);

/** Punctuators, up to four characters long. `...` is left out, so that it reads as three `.` tokens: spread is
 *  outside the plain subset, and the body goes to acorn, which reports it. */
const PUNCTUATORS = new Set([
  '>>>=', '===', '!==', '>>>', '**=', '<<=', '>>=', '&&=', '||=', '??=',
  '=>', '==', '!=', '<=', '>=', '&&', '||', '??', '?.', '++', '--', '+=', '-=', '*=', '/=', '%=', '&=', '|=', '^=', '<<', '>>', '**',
  '{', '}', '(', ')', '[', ']', ';', ',', '<', '>', '+', '-', '*', '/', '%', '&', '|', '^', '!', '~', '?', ':', '=', '.',
]);

/** The one-character punctuators by character code, whether a character continues some longer punctuator, and
 *  the longer punctuators by their first character, longest first: tables, because the tokenizer asks about every
 *  punctuator of every body. */
const ONE_CHARACTER: (string | undefined)[] = new Array(128).fill(undefined);
const CONTINUES = new Uint8Array(128);
const LONGER: string[][] = Array.from({ length: 128 }, () => []);
for (const punctuator of PUNCTUATORS) {
  if (punctuator.length === 1) ONE_CHARACTER[punctuator.charCodeAt(0)] = punctuator;
  for (let i = 1; i < punctuator.length; i++) CONTINUES[punctuator.charCodeAt(i)] = 1;
}
for (const punctuator of PUNCTUATORS) if (punctuator.length > 1) LONGER[punctuator.charCodeAt(0)]!.push(punctuator);
for (const list of LONGER) list.sort((a, b) => b.length - a.length);

/** The longest punctuator at `start` (an ASCII character), as one of the strings of PUNCTUATORS (no new string). */
function punctuatorAt(text: string, start: number): string {
  const code = text.charCodeAt(start);
  const first = ONE_CHARACTER[code];
  if (first === undefined) giveUp();
  // Most punctuators are one character: `(`, `.`, `;`, or one that nothing longer continues.
  if (CONTINUES[text.charCodeAt(start + 1)] !== 1) return first;
  for (const longer of LONGER[code]!) if (text.startsWith(longer, start)) return longer;
  return first;
}

class GiveUp extends Error {}

const GIVE_UP = new GiveUp();

function giveUp(): never {
  throw GIVE_UP;
}

type TokenKind = 'name' | 'number' | 'string' | 'punctuator' | 'end';

function isNameStart(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || code === 95 || code === 36;
}

function isNamePart(code: number): boolean {
  return isNameStart(code) || (code >= 48 && code <= 57);
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
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
  // The current token.
  private kind: TokenKind = 'end';
  private value = '';
  private tokenStart = 0;
  private tokenEnd = 0;
  /** Whether a line break comes between the previous token and this one. */
  private newlineBefore = false;
  /** The end of the previous token. */
  private lastEnd = 0;
  private numberValue = 0;
  private depth = 0;
  /** How deeply `{ ( [` nest at this token, the body's own `{` counting as 1 (as body-scanner.ts counts). */
  private brackets = 0;

  /** Reads `text` from `position`; spans are positions in `text` plus `offset`. */
  constructor(
    private readonly text: string,
    private position: number,
    private readonly offset: number,
    private readonly maxBrackets: number,
  ) {}

  /** The statements of the body, with its closing `}` as the current token. */
  body(): Statement[] {
    this.next();
    this.expect('{');
    const statements = this.statementList();
    if (!this.is('}')) giveUp();
    return statements;
  }

  /** After `body`: the position just after the closing `}`. */
  closingEnd(): number {
    return this.tokenEnd;
  }

  atEnd(): boolean {
    return this.kind === 'end';
  }

  // --- tokens --------------------------------------------------------------------------------

  next(): void {
    this.lastEnd = this.tokenEnd;
    this.newlineBefore = false;
    this.skipSpaceAndComments();
    const text = this.text;
    const start = this.position;
    this.tokenStart = start;
    if (start >= text.length) {
      this.kind = 'end';
      this.value = '';
      this.tokenEnd = start;
      return;
    }
    const code = text.charCodeAt(start);
    if (isNameStart(code)) {
      let end = start + 1;
      while (end < text.length && isNamePart(text.charCodeAt(end))) end++;
      if (end < text.length && (text.charCodeAt(end) === 92 || text.charCodeAt(end) > 127)) giveUp();
      this.finish('name', text.slice(start, end), end);
    } else if (isDigit(code)) {
      this.number(start);
    } else if (code === 39 || code === 34) {
      const end = text.indexOf(text[start]!, start + 1);
      if (end < 0) giveUp();
      const value = text.slice(start + 1, end);
      if (value.includes('\\') || value.includes('\n') || value.includes('\r')) giveUp();
      this.finish('string', value, end + 1);
    } else {
      if (code > 127) giveUp();
      // `<!--` and `-->` start comments in a script.
      if ((code === 60 && text.startsWith('<!--', start)) || (code === 45 && text.startsWith('-->', start))) giveUp();
      const punctuator = punctuatorAt(text, start);
      if (code === 123 || code === 40 || code === 91) {
        if (++this.brackets > this.maxBrackets) giveUp();
      } else if (code === 125 || code === 41 || code === 93) {
        this.brackets--;
      }
      this.finish('punctuator', punctuator, start + punctuator.length);
    }
  }

  private finish(kind: TokenKind, value: string, end: number): void {
    this.kind = kind;
    this.value = value;
    this.tokenEnd = end;
    this.position = end;
  }

  /** Plain decimal numbers only: `0`, `12`, `1.5`, `2e10`; anything else (`0x1`, `07`, `1_0`, `.5`) goes to acorn. */
  private number(start: number): void {
    const text = this.text;
    let end = start;
    while (end < text.length && isDigit(text.charCodeAt(end))) end++;
    if (text.charCodeAt(start) === 48 && end > start + 1) giveUp();
    if (text.charCodeAt(end) === 46) {
      end++;
      while (end < text.length && isDigit(text.charCodeAt(end))) end++;
    }
    const exponent = text.charCodeAt(end);
    if (exponent === 101 || exponent === 69) {
      end++;
      const sign = text.charCodeAt(end);
      if (sign === 43 || sign === 45) end++;
      if (!isDigit(text.charCodeAt(end))) giveUp();
      while (end < text.length && isDigit(text.charCodeAt(end))) end++;
    }
    const after = text.charCodeAt(end);
    if (end < text.length && (isNamePart(after) || after === 46 || after === 92 || after > 127)) giveUp();
    this.finish('number', text.slice(start, end), end);
    this.numberValue = Number(this.value);
  }

  private skipSpaceAndComments(): void {
    const text = this.text;
    let position = this.position;
    while (position < text.length) {
      const code = text.charCodeAt(position);
      if (code === 32 || code === 9 || code === 11 || code === 12) {
        position++;
      } else if (code === 10 || code === 13) {
        this.newlineBefore = true;
        position++;
      } else if (code === 47 && text.charCodeAt(position + 1) === 47) {
        // The comment ends at a line break (left for the loop to see); U+2028/U+2029 are acorn's.
        position += 2;
        while (position < text.length) {
          const c = text.charCodeAt(position);
          if (c === 10 || c === 13) break;
          if (c === 0x2028 || c === 0x2029) giveUp();
          position++;
        }
      } else if (code === 47 && text.charCodeAt(position + 1) === 42) {
        const end = text.indexOf('*/', position + 2);
        if (end < 0) giveUp();
        if (/[\n\r\u2028\u2029]/.test(text.slice(position, end))) this.newlineBefore = true;
        position = end + 2;
      } else {
        break;
      }
    }
    this.position = position;
  }

  private is(punctuator: string): boolean {
    return this.kind === 'punctuator' && this.value === punctuator;
  }

  private isWord(word: string): boolean {
    return this.kind === 'name' && this.value === word;
  }

  private expect(punctuator: string): void {
    if (!this.is(punctuator)) giveUp();
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
  private name(): Identifier {
    if (this.kind !== 'name' || SPECIAL_WORDS.has(this.value)) giveUp();
    const identifier: Identifier = { kind: 'identifier', name: this.value, span: { start: this.tokenStart + this.offset, end: this.tokenEnd + this.offset } };
    this.next();
    return identifier;
  }

  /** After `.` or as an object key: any word, keywords included. */
  private propertyName(): Identifier {
    if (this.kind !== 'name' || this.value === '__proto__') giveUp();
    const identifier: Identifier = { kind: 'identifier', name: this.value, span: { start: this.tokenStart + this.offset, end: this.tokenEnd + this.offset } };
    this.next();
    return identifier;
  }

  /** `;` ends a statement; automatic semicolon insertion is acorn's. */
  private semicolon(): void {
    this.expect(';');
  }

  // --- statements ----------------------------------------------------------------------------

  private statementList(): Statement[] {
    const statements: Statement[] = [];
    while (!this.is('}')) {
      if (this.is(';')) {
        this.next();
        continue;
      }
      if (this.isWord('let') || this.isWord('const')) {
        const declaration = this.variable();
        this.semicolon();
        declaration.span = this.span(declaration.span.start - this.offset);
        statements.push(declaration);
      } else {
        statements.push(this.statement());
      }
    }
    return statements;
  }

  /** `let x = …` or `const x = …` (one declarator), without the `;`. */
  private variable(): VariableDeclaration {
    const start = this.tokenStart;
    const declarationKind = this.value as 'let' | 'const';
    this.next();
    const name = this.name();
    let init: Expression | null = null;
    if (this.is('=')) {
      this.next();
      init = this.assign();
    }
    if (this.is(',')) giveUp();
    return { kind: 'variable', declarationKind, name, init, span: this.span(start) };
  }

  private statement(): Statement {
    this.enter();
    const statement = this.statementInner();
    this.depth--;
    return statement;
  }

  private statementInner(): Statement {
    const start = this.tokenStart;
    if (this.is('{')) {
      this.next();
      const body = this.statementList();
      this.expect('}');
      return { kind: 'block', body, span: this.span(start) };
    }
    if (this.kind === 'name') {
      switch (this.value) {
        case 'if': {
          this.next();
          const test = this.parenthesised();
          const consequent = this.statement();
          let alternate: Statement | null = null;
          if (this.isWord('else')) {
            this.next();
            alternate = this.statement();
          }
          return { kind: 'if', test, consequent, alternate, span: this.span(start) };
        }
        case 'while': {
          this.next();
          const test = this.parenthesised();
          const body = this.statement();
          return { kind: 'while', test, body, span: this.span(start) };
        }
        case 'for':
          return this.forStatement(start);
        case 'return': {
          this.next();
          if (this.is(';')) {
            this.next();
            return { kind: 'return', argument: null, span: this.span(start) };
          }
          if (this.newlineBefore) giveUp();
          const argument = this.expression();
          this.semicolon();
          return { kind: 'return', argument, span: this.span(start) };
        }
        case 'throw': {
          this.next();
          if (this.newlineBefore) giveUp();
          const argument = this.expression();
          this.semicolon();
          return { kind: 'throw', argument, span: this.span(start) };
        }
        case 'break':
        case 'continue': {
          const kind = this.value;
          this.next();
          if (this.newlineBefore) giveUp();
          this.semicolon();
          return { kind, span: this.span(start) };
        }
        default:
          // Other keywords (`var`, `switch`, `function`, `let` here, …) are acorn's to parse or reject.
          if (SPECIAL_WORDS.has(this.value) && this.value !== 'this' && this.value !== 'delete' && this.value !== 'null' && this.value !== 'true' && this.value !== 'false') giveUp();
      }
    }
    const expression = this.expression();
    this.semicolon();
    return { kind: 'expressionStatement', expression, span: this.span(start) };
  }

  private forStatement(start: number): Statement {
    this.next();
    this.expect('(');
    if (this.isWord('let') || this.isWord('const')) {
      const declarationStart = this.tokenStart;
      const declarationKind = this.value as 'let' | 'const';
      this.next();
      const name = this.name();
      if (this.isWord('of')) {
        this.next();
        const iterable = this.assign();
        this.expect(')');
        const body = this.statement();
        return { kind: 'forOf', declarationKind, name, iterable, body, span: this.span(start) };
      }
      let value: Expression | null = null;
      if (this.is('=')) {
        this.next();
        value = this.assign();
      }
      if (this.is(',')) giveUp();
      const init: VariableDeclaration = { kind: 'variable', declarationKind, name, init: value, span: this.span(declarationStart) };
      return this.forRest(start, init);
    }
    const init = this.is(';') ? null : this.expression();
    return this.forRest(start, init);
  }

  private forRest(start: number, init: VariableDeclaration | Expression | null): Statement {
    this.expect(';');
    const test = this.is(';') ? null : this.expression();
    this.expect(';');
    const update = this.is(')') ? null : this.expression();
    this.expect(')');
    const body = this.statement();
    return { kind: 'for', init, test, update, body, span: this.span(start) };
  }

  /** `( expression )` after `if` and `while`. */
  private parenthesised(): Expression {
    this.expect('(');
    const expression = this.expression();
    this.expect(')');
    return expression;
  }

  // --- expressions ---------------------------------------------------------------------------

  /** An expression where JavaScript allows a comma expression: commas are acorn's. */
  private expression(): Expression {
    const expression = this.assign();
    if (this.is(',')) giveUp();
    return expression;
  }

  private assign(): Expression {
    this.enter();
    const start = this.tokenStart;
    const startsWithParen = this.is('(');
    const left = this.conditional();
    let result = left;
    if (this.kind === 'punctuator' && this.value.charCodeAt(this.value.length - 1) === 61 /* = */ && this.value !== '==' && this.value !== '===' && this.value !== '!=' && this.value !== '!==' && this.value !== '<=' && this.value !== '>=') {
      const operator = this.value;
      if (!ASSIGNMENT_OPERATORS.has(operator) || startsWithParen || !isTarget(left)) giveUp();
      this.next();
      const value = this.assign();
      result = { kind: 'assignment', operator: operator as AssignmentOperator, target: left, value, span: this.span(start) };
    }
    this.depth--;
    return result;
  }

  private conditional(): Expression {
    const start = this.tokenStart;
    const test = this.binary(0);
    if (!this.is('?')) return test;
    this.next();
    const consequent = this.assign();
    this.expect(':');
    const alternate = this.assign();
    return { kind: 'conditional', test, consequent, alternate, span: this.span(start) };
  }

  /** Operators binding tighter than `minimum`, left to right (precedence climbing, as acorn). */
  private binary(minimum: number): Expression {
    const start = this.tokenStart;
    let left = this.unary();
    let links = 0;
    for (;;) {
      if (this.kind === 'name' && (this.value === 'in' || this.value === 'instanceof')) giveUp();
      // `**` is taken by `unary`; `??` may not mix with `||`/`&&`: acorn's to check.
      if (this.kind === 'punctuator' && (this.value === '??' || this.value === '**')) giveUp();
      const precedence = this.kind === 'punctuator' && STARTS_BINARY[this.value.charCodeAt(0)] === 1 ? BINARY_PRECEDENCE.get(this.value) : undefined;
      if (precedence === undefined || precedence <= minimum) {
        this.depth -= links;
        return left;
      }
      this.enter();
      links++;
      const operator = this.value;
      this.next();
      const right = this.binary(precedence);
      left =
        operator === '||' || operator === '&&'
          ? { kind: 'logical', operator, left, right, span: this.span(start) }
          : { kind: 'binary', operator: operator as BinaryOperator, left, right, span: this.span(start) };
    }
  }

  /**
   * Prefix operators, postfix `++`/`--` and `**`, as acorn's parseMaybeUnary: `**` binds here, to the
   * right, and may not follow a unary operator (`-a ** 2` is a syntax error); `sawUnary` says one came
   * just before, `incDec` that the caller is `++`/`--` (which takes its operand without `**`).
   */
  private unary(sawUnary = false, incDec = false): Expression {
    const start = this.tokenStart;
    let expression: Expression;
    let prefixed = false;
    if (this.kind === 'punctuator' && (this.value === '!' || this.value === '-' || this.value === '+' || this.value === '~')) {
      const operator = this.value;
      this.next();
      this.enter();
      const argument = this.unary(true, false);
      this.depth--;
      expression = { kind: 'unary', operator, argument, span: this.span(start) };
      prefixed = true;
    } else if (this.isWord('delete')) {
      this.next();
      this.enter();
      const argument = this.unary(true, false);
      this.depth--;
      expression = { kind: 'unary', operator: 'delete', argument, span: this.span(start) };
      prefixed = true;
    } else if (this.is('++') || this.is('--')) {
      const operator = this.value as '++' | '--';
      this.next();
      const parenthesised = this.is('(');
      this.enter();
      const argument = this.unary(true, true);
      this.depth--;
      if (parenthesised || !isTarget(argument)) giveUp();
      expression = { kind: 'update', operator, prefix: true, argument, span: this.span(start) };
    } else {
      const parenthesised = this.is('(');
      expression = this.subscripts();
      if ((this.is('++') || this.is('--')) && !this.newlineBefore) {
        if (parenthesised || !isTarget(expression)) giveUp();
        const operator = this.value as '++' | '--';
        this.next();
        expression = { kind: 'update', operator, prefix: false, argument: expression, span: this.span(start) };
        if (this.is('++') || this.is('--')) giveUp();
      }
    }
    if (incDec || !this.is('**')) return expression;
    if (sawUnary || prefixed) giveUp();
    this.next();
    this.enter();
    const right = this.unary();
    this.depth--;
    return { kind: 'binary', operator: '**', left: expression, right, span: this.span(start) };
  }

  /** A primary expression followed by `.name`, `[index]` and `(arguments)`. */
  private subscripts(): Expression {
    const start = this.tokenStart;
    let expression = this.primary();
    let links = 0;
    for (;;) {
      if (this.is('.')) {
        this.next();
        const property = this.propertyName();
        expression = { kind: 'member', object: expression, property, span: this.span(start) };
      } else if (this.is('[')) {
        this.next();
        const index = this.expression();
        this.expect(']');
        expression = { kind: 'index', object: expression, index, span: this.span(start) };
      } else if (this.is('(')) {
        this.next();
        const args: Expression[] = [];
        while (!this.is(')')) {
          args.push(this.assign());
          if (!this.is(')')) {
            this.expect(',');
            if (this.is(')')) giveUp();
          }
        }
        this.next();
        expression = { kind: 'call', callee: expression, arguments: args, span: this.span(start) };
      } else {
        if (this.is('?.')) giveUp();
        this.depth -= links;
        return expression;
      }
      this.enter();
      links++;
    }
  }

  private primary(): Expression {
    const start = this.tokenStart;
    switch (this.kind) {
      case 'number': {
        const value = this.numberValue;
        this.next();
        return { kind: 'number', value, span: this.span(start) };
      }
      case 'string': {
        const value = this.value;
        this.next();
        return { kind: 'string', value, span: this.span(start) };
      }
      case 'name': {
        switch (this.value) {
          case 'this':
            this.next();
            return { kind: 'this', span: this.span(start) };
          case 'null':
            this.next();
            return { kind: 'null', span: this.span(start) };
          case 'true':
          case 'false': {
            const value = this.value === 'true';
            this.next();
            return { kind: 'boolean', value, span: this.span(start) };
          }
        }
        const identifier = this.name();
        if (this.is('=>')) giveUp();
        return { kind: 'identifierExpression', name: identifier.name, span: identifier.span };
      }
      case 'punctuator':
        break;
      default:
        giveUp();
    }
    if (this.is('(')) {
      this.next();
      if (this.is(')')) giveUp();
      const inner = this.expression();
      this.expect(')');
      if (this.is('=>')) giveUp();
      return inner;
    }
    if (this.is('[')) {
      this.next();
      const elements: Expression[] = [];
      while (!this.is(']')) {
        if (this.is(',')) giveUp();
        elements.push(this.assign());
        if (!this.is(']')) this.expect(',');
      }
      this.next();
      return { kind: 'arrayLiteral', elements, span: this.span(start) };
    }
    if (this.is('{')) {
      this.next();
      const properties: ObjectProperty[] = [];
      while (!this.is('}')) {
        const propertyStart = this.tokenStart;
        const key = this.propertyName();
        this.expect(':');
        const value = this.assign();
        properties.push({ kind: 'property', key, value, span: this.span(propertyStart) });
        if (!this.is('}')) this.expect(',');
      }
      this.next();
      return { kind: 'objectLiteral', properties, span: this.span(start) };
    }
    giveUp();
  }
}

function isTarget(expression: Expression): expression is IdentifierExpression | MemberExpression | IndexExpression {
  return expression.kind === 'identifierExpression' || expression.kind === 'member' || expression.kind === 'index';
}
