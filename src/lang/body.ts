// Function bodies: acorn parses the text between a function's braces as JavaScript, and this file
// converts acorn's ESTree nodes into our Statement/Expression nodes, accepting only the subset that
// collection functions support. Anything else gets a diagnostic naming the construct. All spans are
// shifted from body-relative to whole-file offsets.

import { createRequire } from 'node:module';
import type * as estree from 'acorn';
import type {
  AssignmentOperator,
  BinaryOperator,
  BlockStatement,
  Expression,
  Identifier,
  IdentifierExpression,
  IndexExpression,
  MemberExpression,
  ObjectProperty,
  Span,
  Statement,
  UnaryOperator,
  ForOfStatement,
  TypeNode,
  VariableDeclaration,
} from './ast.ts';
import { parseBodyFast } from './body-fast.ts';
import { stripAnnotations } from './type-annotations.ts';
import { diagnostic, type Diagnostic } from './diagnostics.ts';

/**
 * How deep statements and expressions may nest (one level per node). Later passes (checker,
 * runtime) recurse over the tree, so an unbounded depth would overflow their stacks. With 1000, the
 * checker overflowed at about 610 nested statements under `node --stack-size=500`, so a schema
 * accepted on one machine crashed on another; 300 leaves it twice that margin.
 */
export const MAX_TREE_DEPTH = 300;

// acorn also checks some rules while parsing that belong to the checker, which reports them with its
// own codes: a variable declared twice, `break`/`continue` outside a loop, `const` without a value.
// This parser lets them through (acorn carries on normally after each of these reports).
const CHECKER_RULES = /^Unsyntactic (?:break|continue)$/;

interface ReportingParser {
  raise(position: number, message: string): void;
  raiseRecoverable(position: number, message: string): void;
  parseVar(node: unknown, isFor: boolean, kind: string, allowMissingInitializer?: boolean): unknown;
  declareName(name: string, bindingType: number, position: number): void;
}

// acorn is loaded on first use: most bodies take the fast path (body-fast.ts), and loading acorn costs about a
// fifth of `vellum check`'s start (bench/cli.ts). Node loads its CommonJS build with `require`.
const load = createRequire(import.meta.url);
let bodyParser: typeof estree.Parser | undefined;

/** acorn's parser, with the changes below; made on first use. */
function acornParser(): typeof estree.Parser {
  return (bodyParser ??= makeBodyParser((load('acorn') as typeof estree).Parser));
}

function makeBodyParser(Parser: typeof estree.Parser): typeof estree.Parser {
  return Parser.extend(
    (Base) =>
      class extends (Base as unknown as new (...args: unknown[]) => ReportingParser) {
        override raise(position: number, message: string): void {
          if (!CHECKER_RULES.test(message)) super.raise(position, message);
        }
        override raiseRecoverable(position: number, message: string): void {
          if (!CHECKER_RULES.test(message)) super.raiseRecoverable(position, message);
        }
        // acorn records declared names only to find redeclarations (in a script), and does it with
        // arrays, which is quadratic in the names of one scope: 100,000 declarations took 20 seconds.
        override declareName(): void {}
        // `const x;` is the checker's to report too (it says what is missing, not "unexpected token").
        override parseVar(node: unknown, isFor: boolean, kind: string, allowMissingInitializer?: boolean): unknown {
          return super.parseVar(node, isFor, kind, allowMissingInitializer || kind === 'const');
        }
      } as unknown as typeof Parser,
  );
}

const ASCII_NAME = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

const BINARY_OPERATORS = new Set<string>([
  '+', '-', '*', '/', '%', '**', '==', '!=', '===', '!==', '<', '<=', '>', '>=', '&', '|', '^', '<<', '>>', '>>>',
]);
const ASSIGNMENT_OPERATORS = new Set<string>(['=', '+=', '-=', '*=', '/=', '%=', '**=']);
const UNARY_OPERATORS = new Set<string>(['!', '-', '+', '~', 'delete']);

export interface ParsedBody {
  /** The statements of the body, or undefined when the body has errors (see `diagnostics`). */
  statements: Statement[] | undefined;
  diagnostics: Diagnostic[];
}

/** A function body: its text from `{` to the matching `}`, and the file offset of that `{`. */
export interface BodySource {
  block: string;
  start: number;
}

const ACORN_OPTIONS = { ecmaVersion: 2022, sourceType: 'script', allowReturnOutsideFunction: true } as const;

/**
 * Parses function bodies. Never throws: syntax errors, unsupported constructs and excessive nesting
 * become diagnostics, each in whole-file coordinates.
 *
 * Bodies go to acorn several at a time, as consecutive blocks of one script: setting up an acorn
 * parser costs about as much as parsing a small body. When that fails (a syntax error stops acorn
 * at the first one) each body of the batch is parsed on its own, so that each reports its own error.
 */
export function parseBodies(bodies: readonly BodySource[]): ParsedBody[] {
  // Most bodies take the fast path (body-fast.ts); acorn parses the others, and reports every error.
  const results: (ParsedBody | undefined)[] = bodies.map((body) => {
    const statements = parseBodyFast(body.block, body.start);
    return statements ? { statements, diagnostics: [] } : undefined;
  });
  const rest = bodies.filter((_, i) => results[i] === undefined);
  if (rest.length === 0) return results as ParsedBody[];
  const parsed = parseBodiesWithAcorn(rest);
  let next = 0;
  return results.map((result) => result ?? parsed[next++]!);
}

function parseBodiesWithAcorn(sources: readonly BodySource[]): ParsedBody[] {
  // Typed let/const: acorn reads the bodies with their annotations blanked out (type-annotations.ts).
  const stripped = sources.map((body) => stripAnnotations(body.block, body.start));
  const bodies = sources.map((body, i) => (stripped[i]!.text === body.block ? body : { ...body, block: stripped[i]!.text }));
  const results: ParsedBody[] = [];
  for (let first = 0; first < bodies.length; ) {
    // Batches of bounded size: one acorn call per body costs setup, one call for a whole large file
    // keeps its entire acorn tree alive at once, which the garbage collector makes expensive.
    let last = first + 1;
    let size = bodies[first]!.block.length;
    while (last < bodies.length && size + bodies[last]!.block.length <= BATCH_SIZE) size += bodies[last++]!.block.length;
    const batch = bodies.slice(first, last);
    const blocks = parseTogether(batch);
    if (blocks === undefined) {
      batch.forEach((body, i) => results.push(parseBody(body.block.slice(1, -1), body.start + 1, stripped[first + i]!.types)));
    } else {
      blocks.forEach((block, i) => results.push(convert(block.body, batch[i]!.start - block.start, stripped[first + i]!.types)));
    }
    first = last;
  }
  // A malformed annotation fails its body with that error.
  return results.map((result, i) => (stripped[i]!.diagnostics.length > 0 ? { statements: undefined, diagnostics: stripped[i]!.diagnostics } : result));
}

/** Characters of body text per acorn call. */
const BATCH_SIZE = 16_384;

/** The bodies as blocks of one script, or undefined when acorn fails or sees other blocks than ours. */
function parseTogether(bodies: readonly BodySource[]): estree.BlockStatement[] | undefined {
  const starts: number[] = [];
  let length = 0;
  for (const body of bodies) {
    starts.push(length);
    length += body.block.length + 1;
  }
  let program: estree.Program;
  try {
    program = acornParser().parse(bodies.map((body) => body.block).join('\n'), ACORN_OPTIONS);
  } catch {
    return undefined;
  }
  if (program.body.length !== bodies.length) return undefined;
  const blocks = program.body as estree.Statement[];
  for (let i = 0; i < blocks.length; i++) {
    const block = blocks[i]!;
    if (block.type !== 'BlockStatement' || block.start !== starts[i] || block.end !== starts[i]! + bodies[i]!.block.length) {
      return undefined;
    }
  }
  return blocks as estree.BlockStatement[];
}

/** Parses one body's text (between its braces), which starts at offset `start` of the file. */
export function parseBody(source: string, start: number, annotations?: ReadonlyMap<number, TypeNode>): ParsedBody {
  let program: estree.Program;
  try {
    program = acornParser().parse(source, ACORN_OPTIONS);
  } catch (error) {
    return { statements: undefined, diagnostics: [syntaxErrorDiagnostic(error, source, start)] };
  }
  // sourceType 'script' never yields import/export declarations.
  return convert(program.body as estree.Statement[], start, annotations);
}

/** Converts acorn statements whose positions are `offset` less than file offsets. */
function convert(nodes: estree.Statement[], offset: number, annotations?: ReadonlyMap<number, TypeNode>): ParsedBody {
  const converter = new BodyConverter(offset, annotations);
  let statements: Statement[];
  try {
    statements = converter.statementList(nodes);
  } catch (error) {
    if (error instanceof TooDeep) {
      const message = diagnostic('nestingTooDeep', error.span, [MAX_TREE_DEPTH, 'statements and expressions']);
      return { statements: undefined, diagnostics: [...converter.diagnostics, message] };
    }
    throw error;
  }
  if (converter.diagnostics.length > 0) return { statements: undefined, diagnostics: converter.diagnostics };
  return { statements, diagnostics: [] };
}

function syntaxErrorDiagnostic(error: unknown, source: string, start: number): Diagnostic {
  if (error instanceof RangeError) {
    // acorn recursed too deeply (e.g. thousands of chained operators): report, never crash.
    return diagnostic('nestingTooDeep', { start, end: start }, [MAX_TREE_DEPTH, 'statements and expressions']);
  }
  if (!(error instanceof SyntaxError) || typeof (error as { pos?: unknown }).pos !== 'number') throw error;
  const position = (error as SyntaxError & { pos: number }).pos;
  const at = start + position;
  if (error.message.startsWith('Not enough stack space')) {
    // acorn's own guard against recursing too deeply (thousands of chained operators).
    return diagnostic('nestingTooDeep', { start: at, end: at }, [MAX_TREE_DEPTH, 'statements and expressions']);
  }
  // acorn appends "(line:column)" relative to the body; our renderer shows file coordinates.
  const message = error.message.replace(/ \(\d+:\d+\)$/, '');
  if (message === 'Assigning to rvalue' || message.includes('left-hand side')) {
    return diagnostic('invalidAssignmentTarget', { start: at, end: Math.min(at + 1, start + source.length) });
  }
  if (message === 'Unexpected token') {
    // In a script `await` and `yield` are plain names, so `await x` fails as a name followed by `x`.
    const keyword = /\b(?:await|yield)\s*$/.exec(source.slice(Math.max(0, position - 16), position));
    if (keyword) {
      const keywordStart = at - keyword[0].length;
      return diagnostic('unsupportedConstruct', { start: keywordStart, end: keywordStart + 5 }, ['`async`/`await`/`yield`']);
    }
    const token = tokenAt(source, position);
    return diagnostic('bodySyntaxError', { start: at, end: at + Math.max(1, token.length) }, [`unexpected \`${token || '}'}\``]);
  }
  const readable = message.charAt(0).toLowerCase() + message.slice(1);
  return diagnostic('bodySyntaxError', { start: at, end: Math.min(at + 1, start + source.length) }, [readable]);
}

/** The token at `position` of a body, roughly (a word, a run of operator characters or one character);
 *  empty at the end of the body, where the function's `}` is. */
function tokenAt(source: string, position: number): string {
  const rest = source.slice(position, position + 40);
  return /^(?:[A-Za-z0-9_$]+|[!%^&*\-+=|~<>?/]+|[\s\S])?/.exec(rest)![0];
}

class TooDeep extends Error {
  constructor(readonly span: Span) {
    super('nesting too deep');
  }
}

// An unsupported node is replaced by this placeholder so that conversion can go on and report
// further independent problems; the body is discarded when any diagnostic was produced.
const PLACEHOLDER_SPAN: Span = { start: 0, end: 0 };

class BodyConverter {
  readonly diagnostics: Diagnostic[] = [];
  private depth = 0;

  constructor(
    private readonly offset: number,
    /** The types of typed let/const, by the file offset where the name ends (type-annotations.ts). */
    private readonly annotations?: ReadonlyMap<number, TypeNode>,
  ) {}

  private span(node: estree.Node): Span {
    return { start: node.start + this.offset, end: node.end + this.offset };
  }

  private unsupported(node: estree.Node, construct: string): void {
    this.diagnostics.push(diagnostic('unsupportedConstruct', this.span(node), [construct]));
  }

  /** An identifier's name; JavaScript allows Unicode in names, the schema language only ASCII. */
  private name(node: estree.Identifier): string {
    const name = node.name;
    if (!ASCII_NAME.test(name)) {
      const character = [...name].find((c) => !/[A-Za-z0-9_$]/.test(c)) ?? name;
      const codePoint = character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
      const start = this.offset + node.start + Math.max(0, name.indexOf(character));
      this.diagnostics.push(diagnostic('invalidCharacter', { start, end: start + character.length }, [`\`${character}\` (U+${codePoint})`]));
    }
    return name;
  }

  private enter(node: estree.Node): void {
    if (++this.depth > MAX_TREE_DEPTH) throw new TooDeep(this.span(node));
  }

  statementList(nodes: readonly estree.Statement[]): Statement[] {
    const statements: Statement[] = [];
    for (const node of nodes) {
      if (node.type === 'EmptyStatement') continue;
      if (node.type === 'VariableDeclaration') {
        for (const declaration of this.variableDeclarations(node)) statements.push(declaration);
      } else {
        statements.push(this.statement(node));
      }
    }
    return statements;
  }

  private statement(node: estree.Statement): Statement {
    this.enter(node);
    const result = this.statementInner(node);
    this.depth--;
    return result;
  }

  private emptyBlock(node: estree.Node): BlockStatement {
    return { kind: 'block', body: [], span: this.span(node) };
  }

  private statementInner(node: estree.Statement): Statement {
    const span = this.span(node);
    switch (node.type) {
      case 'BlockStatement':
        return { kind: 'block', body: this.statementList(node.body), span };
      case 'EmptyStatement':
        // Only reachable as the single statement of `if`/`while`/`for`: an empty block says the same.
        return this.emptyBlock(node);
      case 'ExpressionStatement':
        return { kind: 'expressionStatement', expression: this.expression(node.expression), span };
      case 'VariableDeclaration': {
        // A declaration as the single statement of an `if`: JavaScript rejects that for let/const,
        // so only `var` gets here.
        const declarations = this.variableDeclarations(node);
        return declarations.length === 1 ? declarations[0]! : { kind: 'block', body: declarations, span };
      }
      case 'IfStatement':
        return {
          kind: 'if',
          test: this.expression(node.test),
          consequent: this.statement(node.consequent),
          alternate: node.alternate ? this.statement(node.alternate) : null,
          span,
        };
      case 'WhileStatement':
        return { kind: 'while', test: this.expression(node.test), body: this.statement(node.body), span };
      case 'ForStatement':
        return {
          kind: 'for',
          init: node.init ? this.forInit(node.init) : null,
          test: node.test ? this.expression(node.test) : null,
          update: node.update ? this.expression(node.update) : null,
          body: this.statement(node.body),
          span,
        };
      case 'ForOfStatement':
        return this.forOf(node);
      case 'BreakStatement':
        if (node.label) this.unsupported(node.label, 'labels');
        return { kind: 'break', span };
      case 'ContinueStatement':
        if (node.label) this.unsupported(node.label, 'labels');
        return { kind: 'continue', span };
      case 'ReturnStatement':
        return { kind: 'return', argument: node.argument ? this.expression(node.argument) : null, span };
      case 'ThrowStatement':
        return { kind: 'throw', argument: this.expression(node.argument), span };
      case 'ForInStatement':
        return this.forOf(node);
      case 'DoWhileStatement':
        this.unsupported(node, '`do…while` (use while)');
        return this.emptyBlock(node);
      case 'LabeledStatement':
        this.unsupported(node, 'labels');
        return this.emptyBlock(node);
      case 'WithStatement':
        this.unsupported(node, '`with`');
        return this.emptyBlock(node);
      case 'TryStatement':
        this.unsupported(node, '`try`/`catch`');
        return this.emptyBlock(node);
      case 'SwitchStatement':
        this.unsupported(node, '`switch`');
        return this.emptyBlock(node);
      case 'FunctionDeclaration':
        this.unsupported(node, 'nested function declarations');
        return this.emptyBlock(node);
      case 'ClassDeclaration':
        this.unsupported(node, 'classes');
        return this.emptyBlock(node);
      case 'DebuggerStatement':
        this.unsupported(node, '`debugger`');
        return this.emptyBlock(node);
    }
  }

  private variableDeclarations(node: estree.VariableDeclaration): VariableDeclaration[] {
    if (node.kind !== 'let' && node.kind !== 'const') {
      this.unsupported(node, node.kind === 'var' ? '`var` (use let or const)' : `\`${node.kind}\``);
      return [];
    }
    const kind = node.kind;
    const many = node.declarations.length > 1;
    return node.declarations.map((declarator, i): VariableDeclaration => {
      const span = !many ? this.span(node) : i === 0 ? { start: node.start + this.offset, end: declarator.end + this.offset } : this.span(declarator);
      const declaration: VariableDeclaration = {
        kind: 'variable',
        declarationKind: kind,
        name: this.bindingName(declarator.id),
        init: declarator.init ? this.expression(declarator.init) : null,
        span,
      };
      // Only an annotated declaration gets the key, so the AST of every 0.6 body stays what it was.
      const annotation = this.annotations?.get(declarator.id.end + this.offset);
      if (annotation) declaration.typeAnnotation = annotation;
      return declaration;
    });
  }

  private bindingName(pattern: estree.Pattern): Identifier {
    if (pattern.type === 'Identifier') return { kind: 'identifier', name: this.name(pattern), span: this.span(pattern) };
    this.unsupported(pattern, 'destructuring');
    return { kind: 'identifier', name: '', span: this.span(pattern) };
  }

  private forInit(init: estree.VariableDeclaration | estree.Expression): VariableDeclaration | Expression {
    if (init.type !== 'VariableDeclaration') return this.expression(init);
    if (init.declarations.length > 1) {
      this.unsupported(init, 'several declarations in a `for` initializer');
      return this.placeholder();
    }
    const [declaration] = this.variableDeclarations(init);
    return declaration ?? this.placeholder();
  }

  private forOf(node: estree.ForOfStatement | estree.ForInStatement): Statement {
    const span = this.span(node);
    const loop = node.type === 'ForInStatement' ? '`for…in`' : '`for…of`';
    if (node.type === 'ForOfStatement' && node.await) {
      this.unsupported(node, '`async`/`await`/`yield`');
      return this.emptyBlock(node);
    }
    const left = node.left;
    if (left.type !== 'VariableDeclaration' || (left.kind !== 'let' && left.kind !== 'const')) {
      this.unsupported(left, left.type === 'VariableDeclaration' && left.kind === 'var' ? '`var` (use let or const)' : `${loop} without \`let\` or \`const\``);
      return this.emptyBlock(node);
    }
    const declarator = left.declarations[0]!;
    const statement: ForOfStatement = {
      kind: 'forOf',
      declarationKind: left.kind,
      name: this.bindingName(declarator.id),
      iterable: this.expression(node.right),
      body: this.statement(node.body),
      span,
    };
    // Only a for…in carries the flag, so every for…of keeps its exact AST.
    if (node.type === 'ForInStatement') return { ...statement, forIn: true };
    return statement;
  }

  private placeholder(): Expression {
    return { kind: 'null', span: PLACEHOLDER_SPAN };
  }

  expression(node: estree.Expression | estree.Super | estree.PrivateIdentifier | estree.SpreadElement): Expression {
    this.enter(node);
    const result = this.expressionInner(node);
    this.depth--;
    return result;
  }

  private expressionInner(node: estree.Expression | estree.Super | estree.PrivateIdentifier | estree.SpreadElement): Expression {
    switch (node.type) {
      case 'Literal':
        return this.literal(node);
      case 'MemberExpression':
        return this.member(node);
      case 'ParenthesizedExpression':
        return this.expressionInner(node.expression);
    }
    const span = this.span(node);
    switch (node.type) {
      case 'Identifier':
        return { kind: 'identifierExpression', name: this.name(node), span };
      case 'ThisExpression':
        return { kind: 'this', span };
      case 'ArrayExpression': {
        const elements: Expression[] = [];
        for (const element of node.elements) {
          if (element === null) this.unsupported(node, 'holes in array literals');
          else elements.push(this.expression(element));
        }
        return { kind: 'arrayLiteral', elements, span };
      }
      case 'ObjectExpression': {
        const properties: ObjectProperty[] = [];
        for (const property of node.properties) {
          const converted = this.property(property);
          if (converted) properties.push(converted);
        }
        return { kind: 'objectLiteral', properties, span };
      }
      case 'CallExpression':
        if (node.optional) this.unsupported(node, 'optional chaining');
        return {
          kind: 'call',
          callee: this.expression(node.callee),
          arguments: node.arguments.map((argument) => this.expression(argument)),
          span,
        };
      case 'UnaryExpression':
        if (!UNARY_OPERATORS.has(node.operator)) return this.unsupportedExpression(node, `\`${node.operator}\``);
        return { kind: 'unary', operator: node.operator as UnaryOperator, argument: this.expression(node.argument), span };
      case 'UpdateExpression':
        return {
          kind: 'update',
          operator: node.operator,
          prefix: node.prefix,
          argument: this.assignmentTarget(node.argument),
          span,
        };
      case 'BinaryExpression':
        if (!BINARY_OPERATORS.has(node.operator)) return this.unsupportedExpression(node, '`in`/`instanceof`');
        return {
          kind: 'binary',
          operator: node.operator as BinaryOperator,
          left: this.expression(node.left),
          right: this.expression(node.right),
          span,
        };
      case 'LogicalExpression':
        return { kind: 'logical', operator: node.operator, left: this.expression(node.left), right: this.expression(node.right), span };
      case 'ConditionalExpression':
        return {
          kind: 'conditional',
          test: this.expression(node.test),
          consequent: this.expression(node.consequent),
          alternate: this.expression(node.alternate),
          span,
        };
      case 'AssignmentExpression':
        if (!ASSIGNMENT_OPERATORS.has(node.operator)) {
          return this.unsupportedExpression(node, `the \`${node.operator}\` operator`);
        }
        return {
          kind: 'assignment',
          operator: node.operator as AssignmentOperator,
          target: this.assignmentTarget(node.left),
          value: this.expression(node.right),
          span,
        };
      case 'ChainExpression':
        return this.unsupportedExpression(node, 'optional chaining');
      case 'SequenceExpression':
        return this.unsupportedExpression(node, 'sequence (comma) expressions');
      case 'ArrowFunctionExpression':
        return this.unsupportedExpression(node, 'arrow functions');
      case 'FunctionExpression':
        return this.unsupportedExpression(node, 'function expressions');
      case 'ClassExpression':
        return this.unsupportedExpression(node, 'classes');
      case 'NewExpression':
        return this.unsupportedExpression(node, '`new`');
      case 'TemplateLiteral':
      case 'TaggedTemplateExpression':
        return this.unsupportedExpression(node, 'template literals');
      case 'YieldExpression':
      case 'AwaitExpression':
        return this.unsupportedExpression(node, '`async`/`await`/`yield`');
      case 'SpreadElement':
        return this.unsupportedExpression(node, 'spread');
      case 'MetaProperty':
        return this.unsupportedExpression(node, `\`${node.meta.name}.${node.property.name}\``);
      case 'ImportExpression':
        return this.unsupportedExpression(node, '`import()`');
      case 'Super':
        return this.unsupportedExpression(node, '`super`');
      case 'PrivateIdentifier':
        return this.unsupportedExpression(node, 'private names');
    }
  }

  private unsupportedExpression(node: estree.Node, construct: string): Expression {
    this.unsupported(node, construct);
    return this.placeholder();
  }

  private literal(node: estree.Literal): Expression {
    const span = this.span(node);
    const value = node.value;
    if (node.regex) return this.unsupportedExpression(node, 'regular expressions');
    if (node.bigint !== undefined || typeof value === 'bigint') return this.unsupportedExpression(node, 'BigInt literals');
    if (typeof value === 'number') return { kind: 'number', value, span };
    if (typeof value === 'string') return { kind: 'string', value, span };
    if (typeof value === 'boolean') return { kind: 'boolean', value, span };
    if (value === null) return { kind: 'null', span };
    // A regular expression the host could not compile (acorn gives value undefined or a RegExp).
    return this.unsupportedExpression(node, 'regular expressions');
  }

  private member(node: estree.MemberExpression): MemberExpression | IndexExpression | Expression {
    const span = this.span(node);
    if (node.optional) return this.unsupportedExpression(node, 'optional chaining');
    const object = this.expression(node.object);
    if (node.computed) return { kind: 'index', object, index: this.expression(node.property), span };
    if (node.property.type !== 'Identifier') return this.unsupportedExpression(node.property, 'private names');
    return { kind: 'member', object, property: { kind: 'identifier', name: this.name(node.property), span: this.span(node.property) }, span };
  }

  private property(node: estree.Property | estree.SpreadElement): ObjectProperty | undefined {
    if (node.type === 'SpreadElement') {
      this.unsupported(node, 'spread');
      return undefined;
    }
    if (node.kind !== 'init') {
      this.unsupported(node, 'getters/setters');
      return undefined;
    }
    if (node.method) {
      this.unsupported(node, 'methods in object literals');
      return undefined;
    }
    if (node.computed || node.key.type !== 'Identifier') {
      this.unsupported(node.key, 'computed or string keys in object literals');
      return undefined;
    }
    const key: Identifier = { kind: 'identifier', name: this.name(node.key), span: this.span(node.key) };
    return { kind: 'property', key, value: this.expression(node.value), span: this.span(node) };
  }

  private assignmentTarget(node: estree.Pattern | estree.Expression): IdentifierExpression | MemberExpression | IndexExpression {
    if (node.type === 'ObjectPattern' || node.type === 'ArrayPattern') {
      this.unsupported(node, 'destructuring');
      return { kind: 'identifierExpression', name: '', span: this.span(node) };
    }
    if (node.type === 'Identifier' || node.type === 'MemberExpression') {
      const target = this.expression(node);
      if (target.kind === 'identifierExpression' || target.kind === 'member' || target.kind === 'index') return target;
      return { kind: 'identifierExpression', name: '', span: this.span(node) };
    }
    this.diagnostics.push(diagnostic('invalidAssignmentTarget', this.span(node)));
    return { kind: 'identifierExpression', name: '', span: this.span(node) };
  }
}
