// The AST nodes that the grammar's embedded actions (grammar.ts) and the fast structure parser (structure-fast.ts) build
// from tokens. Every node gets a span in whole-file offsets. A function body the lexer already read (lexer.ts,
// body-fast.ts) goes into its function at once; the others are collected here and parsed once the structure is
// complete (body.ts).
// Problems that the grammar deliberately lets through (unknown decorator names, index directions, array
// element types, root-level functions) are reported here, with a more precise message than a syntax error.
//
// The builders that report a problem or change a node are called inside the grammar's ACTIONs (never
// while chevrotain records the grammar); the others only read the tokens they are given.

import type { IToken } from 'chevrotain';
import type {
  Collection,
  CollectionItem,
  Decorator,
  DecoratorName,
  FieldDeclaration,
  FunctionDeclaration,
  Identifier,
  IndexDeclaration,
  SearchDeclaration,
  IndexField,
  Parameter,
  Program,
  PublicKeyLiteral,
  Span,
  TypeNode,
} from './ast.ts';
import { parseBodies, type BodySource } from './body.ts';
import { diagnostic, type Diagnostic } from './diagnostics.ts';
import type { FunctionBodyPayload } from './lexer.ts';
import { DECORATOR_NAMES, isPrimitiveTypeName, isSizedNumberName } from './words.ts';
import { isCurvePoint } from './key-literal.ts';

export interface BuildOptions {
  text: string;
  /** True when the lexer already reported a problem inside [start, end): acorn would only repeat it
   *  (or, for nesting, overflow). */
  hasLexicalProblem(start: number, end: number): boolean;
}

/** The state of one parse: what the builders reported, and the bodies to parse once the structure is built. */
export class BuildContext {
  readonly diagnostics: Diagnostic[] = [];
  /** Bodies to parse once the structure is built, and the function each belongs to. */
  readonly bodies: (BodySource & { into: FunctionDeclaration })[] = [];

  constructor(readonly options: BuildOptions) {}

  /** Where the reports end now: `rollBack` forgets everything reported after it. */
  mark(): { diagnostics: number; bodies: number } {
    return { diagnostics: this.diagnostics.length, bodies: this.bodies.length };
  }

  rollBack(mark: { diagnostics: number; bodies: number }): void {
    this.diagnostics.length = mark.diagnostics;
    this.bodies.length = mark.bodies;
  }
}

/** A decorator as parsed: unknown names are reported and leave no node, but still start their item. */
export interface ParsedDecorator {
  start: number;
  decorator: Decorator | undefined;
}

const DECORATORS: ReadonlySet<string> = new Set<DecoratorName>(DECORATOR_NAMES);

function tokenSpan(token: IToken): Span {
  return { start: token.startOffset, end: token.startOffset + token.image.length };
}

export function tokenEnd(token: IToken): number {
  return token.startOffset + token.image.length;
}

export function identifier(token: IToken): Identifier {
  return { kind: 'identifier', name: token.image, span: tokenSpan(token) };
}

// --- Structure --------------------------------------------------------------------------------

/**
 * The program, once the structure parsed without errors: parses the function bodies. A function whose
 * body has errors keeps an empty body (and the diagnostics say why), so that tools which only need the
 * structure still get it.
 */
export function finishProgram(collections: Collection[], context: BuildContext): Program {
  const parsed = parseBodies(context.bodies);
  context.bodies.forEach((body, i) => {
    const result = parsed[i]!;
    for (const d of result.diagnostics) context.diagnostics.push(d);
    if (result.statements) body.into.body.body = result.statements;
  });
  return { kind: 'program', collections, span: { start: 0, end: context.options.text.length } };
}

export function rootFunction(name: Identifier, context: BuildContext): void {
  context.diagnostics.push(diagnostic('rootFunction', name.span, [`\`${name.name}\``]));
}

export function collectionOf(keyword: IToken, name: IToken, items: CollectionItem[], close: IToken): Collection {
  const collection: Collection = {
    kind: 'collection',
    name: identifier(name),
    decorators: [],
    items,
    span: { start: keyword.startOffset, end: tokenEnd(close) },
  };
  // Only a `contract` is marked, so the AST of every 0.6 schema stays what it was.
  if (keyword.image === 'contract') collection.contractKeyword = true;
  return collection;
}

/** Gives a collection, field or function the decorators written before it (its span starts at the first). */
export function attachDecorators(node: Collection | FieldDeclaration | FunctionDeclaration, parsed: ParsedDecorator[]): void {
  if (parsed.length === 0) return;
  const decorators: Decorator[] = [];
  for (const { decorator } of parsed) if (decorator) decorators.push(decorator);
  node.decorators = decorators;
  node.span.start = parsed[0]!.start;
}

export function decoratorOf(nameToken: IToken, args: Identifier[] | null, close: IToken | undefined, context: BuildContext, keyTokens: IToken[] = []): ParsedDecorator {
  const name = nameToken.image.slice(1).trimStart();
  if (!DECORATORS.has(name)) {
    const at = { start: tokenEnd(nameToken) - name.length, end: tokenEnd(nameToken) };
    context.diagnostics.push(diagnostic('unknownDecorator', at, [name]));
    return { start: nameToken.startOffset, decorator: undefined };
  }
  const decorator: Decorator = {
    kind: 'decorator',
    name: name as DecoratorName,
    arguments: close ? args : null,
    span: { start: nameToken.startOffset, end: close ? tokenEnd(close) : tokenEnd(nameToken) },
  };
  if (keyTokens.length > 0) {
    const keys = keyTokens.map((token) => keyLiteralOf(token, context)).filter((key) => key !== undefined);
    if (keys.length > 0) decorator.keys = keys;
  }
  return { start: nameToken.startOffset, decorator };
}

/**
 * `eth#0x<hex>`, checked as the Polylang compiler did: a secp256k1 key of 64 bytes (x‖y), 65 (`04` first) or
 * 33 (compressed); 20 bytes is an address. The bytes must be a point of the curve (key-literal.ts).
 */
function keyLiteralOf(token: IToken, context: BuildContext): PublicKeyLiteral | undefined {
  const span = tokenSpan(token);
  const [scheme, digits] = token.image.split('#') as [string, string];
  const fail = (message: string) => {
    context.diagnostics.push(diagnostic('invalidKeyLiteral', span, [message]));
    return undefined;
  };
  if (scheme !== 'eth') return fail(`unknown key kind "${scheme}#": only eth# (secp256k1) keys are supported`);
  if (!/^0x(?:[0-9a-fA-F]{2})*$/.test(digits)) return fail(`invalid hex literal: ${digits === '' ? 'nothing' : digits} (expected 0x and an even number of hex digits)`);
  const bytes = (digits.length - 2) / 2;
  if (bytes === 20) {
    return fail('you provided an address, where a public key is expected: give the key (64 bytes x‖y, 65 bytes starting 04, or 33 compressed)');
  }
  if (bytes !== 64 && bytes !== 65 && bytes !== 33) return fail(`invalid secp256k1 xy bytes length: ${bytes}. A key should be 65, 64 or 33 bytes long.`);
  const hex = digits.slice(2).toLowerCase();
  if (!isCurvePoint(hex)) return fail('the bytes are not a point of secp256k1 (a mistyped key?)');
  return { kind: 'publicKeyLiteral', text: token.image, hex, span };
}

/** A field or an inner field of an object type; `end` is its `;` (or the end of its type). */
export function fieldOf(name: IToken, question: IToken | undefined, type: TypeNode, end: number): FieldDeclaration {
  return {
    kind: 'field',
    name: identifier(name),
    optional: question !== undefined,
    type,
    decorators: [],
    span: { start: name.startOffset, end },
  };
}

export function indexOf(at: IToken, fields: IndexField[], semicolon: IToken): IndexDeclaration {
  return { kind: 'index', fields, span: { start: at.startOffset, end: tokenEnd(semicolon) } };
}

export function searchOf(at: IToken, fields: Identifier[], semicolon: IToken): SearchDeclaration {
  return { kind: 'search', fields, span: { start: at.startOffset, end: tokenEnd(semicolon) } };
}

export function plainIndexField(path: Identifier[]): IndexField {
  return { kind: 'indexField', path, direction: 'asc', bracketed: false, span: { start: path[0]!.span.start, end: path[path.length - 1]!.span.end } };
}

export function bracketedIndexField(open: IToken, path: Identifier[], directionToken: IToken, close: IToken, context: BuildContext): IndexField {
  let direction: 'asc' | 'desc' = 'asc';
  if (directionToken.image === 'asc' || directionToken.image === 'desc') direction = directionToken.image;
  else context.diagnostics.push(diagnostic('unexpectedToken', tokenSpan(directionToken), [`\`${directionToken.image}\``, '`asc` or `desc`']));
  return {
    kind: 'indexField',
    path,
    direction,
    bracketed: true,
    span: { start: open.startOffset, end: tokenEnd(close) },
  };
}

export function functionOf(
  keyword: IToken | undefined,
  name: IToken,
  parameters: Parameter[],
  returnType: TypeNode | null,
  body: IToken,
  context: BuildContext,
): FunctionDeclaration {
  const blockSpan = tokenSpan(body);
  const declaration: FunctionDeclaration = {
    kind: 'function',
    name: identifier(name),
    decorators: [],
    functionKeyword: keyword !== undefined,
    parameters,
    returnType,
    // Filled in below, or by finishProgram once every body has been parsed.
    body: { kind: 'block', body: [], span: blockSpan },
    bodyTextSpan: { start: blockSpan.start + 1, end: blockSpan.end - 1 },
    span: { start: (keyword ?? name).startOffset, end: blockSpan.end },
  };
  if (!context.options.hasLexicalProblem(blockSpan.start, blockSpan.end)) {
    const { statements } = body.payload as FunctionBodyPayload;
    // A body the lexer already read (body-fast.ts) is complete; the others are parsed once the structure is.
    if (statements) declaration.body.body = statements;
    else context.bodies.push({ block: body.image, start: blockSpan.start, into: declaration });
  }
  return declaration;
}

export function parameterOf(name: IToken, question: IToken | undefined, type: TypeNode): Parameter {
  return {
    kind: 'parameter',
    name: identifier(name),
    optional: question !== undefined,
    type,
    span: { start: name.startOffset, end: type.span.end },
  };
}

// --- Types ------------------------------------------------------------------------------------

export function namedType(name: IToken): TypeNode {
  const span = tokenSpan(name);
  if (isPrimitiveTypeName(name.image)) return { kind: 'primitiveType', name: name.image, span };
  if (isSizedNumberName(name.image)) return { kind: 'sizedNumberType', name: name.image, span };
  if (name.image === 'PublicKey') return { kind: 'publicKeyType', span };
  if (name.image === 'record') return { kind: 'recordType', span };
  return { kind: 'referenceType', collection: identifier(name), span };
}

export function mapTypeOf(keyword: IToken, key: TypeNode, value: TypeNode, close: IToken): TypeNode {
  return { kind: 'mapType', key, value, span: { start: keyword.startOffset, end: tokenEnd(close) } };
}

export function objectTypeOf(open: IToken, fields: FieldDeclaration[], close: IToken): TypeNode {
  return { kind: 'objectType', fields, span: { start: open.startOffset, end: tokenEnd(close) } };
}

/** `element[]`. Polylang's grammar has no arrays of arrays, maps or objects; the grammar here lets
 *  them through so that the error can say why. */
export function arrayTypeOf(element: TypeNode, open: IToken, close: IToken, context: BuildContext): TypeNode {
  const kind = element.kind === 'arrayType' ? 'arrays' : element.kind === 'mapType' ? 'maps' : element.kind === 'objectType' ? 'objects' : undefined;
  if (kind) {
    context.diagnostics.push(
      diagnostic('unexpectedToken', tokenSpan(open), ['`[`', '`;`'], [
        { message: `arrays of ${kind} are not supported; use a map or a separate collection` },
      ]),
    );
  }
  return { kind: 'arrayType', element, span: { start: element.span.start, end: tokenEnd(close) } };
}
