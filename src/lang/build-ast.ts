// Concrete syntax tree (grammar.ts) to AST (ast.ts). Every node gets a span in whole-file offsets.
// Function bodies are handed to body.ts, which parses them with acorn. Problems that the grammar
// deliberately lets through (unknown decorator names, index directions, array element types,
// root-level functions) are reported here, with a more precise message than a syntax error.

import type { CstNode, IToken } from 'chevrotain';
import type {
  Collection,
  CollectionItem,
  Decorator,
  DecoratorName,
  FieldDeclaration,
  FunctionDeclaration,
  Identifier,
  IndexDeclaration,
  IndexField,
  Parameter,
  Program,
  Span,
  TypeNode,
} from './ast.ts';
import { parseBodies, type BodySource } from './body.ts';
import { diagnostic, type Diagnostic } from './diagnostics.ts';

export interface BuildOptions {
  text: string;
  diagnostics: Diagnostic[];
  /** True when the lexer already reported a problem inside [start, end): acorn would only repeat it
   *  (or, for nesting, overflow). */
  hasLexicalProblem(start: number, end: number): boolean;
}

interface BuildContext extends BuildOptions {
  /** Bodies to parse once the structure is built, and the function each belongs to. */
  bodies: (BodySource & { into: FunctionDeclaration })[];
}

const DECORATOR_NAMES: ReadonlySet<string> = new Set<DecoratorName>(['public', 'read', 'call', 'delegate']);
const PRIMITIVE_TYPES: ReadonlySet<string> = new Set(['string', 'number', 'boolean', 'bytes']);

// --- CST access -------------------------------------------------------------------------------

function nodes(node: CstNode, name: string): CstNode[] {
  return (node.children[name] as CstNode[] | undefined) ?? [];
}

function node1(node: CstNode, name: string): CstNode {
  return nodes(node, name)[0]!;
}

function tokens(node: CstNode, name: string): IToken[] {
  return (node.children[name] as IToken[] | undefined) ?? [];
}

function token1(node: CstNode, name: string): IToken {
  return tokens(node, name)[0]!;
}

function tokenSpan(token: IToken): Span {
  return { start: token.startOffset, end: token.startOffset + token.image.length };
}

function tokenEnd(token: IToken): number {
  return token.startOffset + token.image.length;
}

function identifier(token: IToken): Identifier {
  return { kind: 'identifier', name: token.image, span: tokenSpan(token) };
}

// --- Structure --------------------------------------------------------------------------------

/**
 * Builds the program. A function whose body has errors keeps an empty body (and the diagnostics say
 * why), so that tools which only need the structure still get it.
 */
export function buildProgram(cst: CstNode, options: BuildOptions): Program {
  const context: BuildContext = { ...options, bodies: [] };
  const collections: Collection[] = [];
  for (const rootItem of nodes(cst, 'rootItem')) {
    const decorators = buildDecorators(nodes(rootItem, 'decorator'), context);
    const collection = nodes(rootItem, 'collection')[0];
    if (collection) {
      collections.push(buildCollection(collection, decorators, nodes(rootItem, 'decorator')[0], context));
    } else {
      const name = token1(node1(rootItem, 'functionDeclaration'), 'Identifier');
      context.diagnostics.push(diagnostic('rootFunction', tokenSpan(name), [`\`${name.image}\``]));
    }
  }
  const parsed = parseBodies(context.bodies);
  context.bodies.forEach((body, i) => {
    const result = parsed[i]!;
    for (const d of result.diagnostics) context.diagnostics.push(d);
    if (result.statements) body.into.body.body = result.statements;
  });
  return { kind: 'program', collections, span: { start: 0, end: context.text.length } };
}

function buildCollection(
  node: CstNode,
  decorators: Decorator[],
  firstDecorator: CstNode | undefined,
  context: BuildContext,
): Collection {
  const keyword = token1(node, 'CollectionKeyword');
  const start = firstDecorator ? token1(firstDecorator, 'Decorator').startOffset : keyword.startOffset;
  const items = nodes(node, 'item').map((item) => buildItem(item, context));
  return {
    kind: 'collection',
    name: identifier(token1(node, 'Identifier')),
    decorators,
    items,
    span: { start, end: tokenEnd(token1(node, 'RCurly')) },
  };
}

function buildItem(node: CstNode, context: BuildContext): CollectionItem {
  const index = nodes(node, 'index')[0];
  if (index) return buildIndex(index, context);
  const decoratorNodes = nodes(node, 'decorator');
  const decorators = buildDecorators(decoratorNodes, context);
  const start = decoratorNodes[0] ? token1(decoratorNodes[0], 'Decorator').startOffset : undefined;
  const field = nodes(node, 'field')[0];
  if (field) return buildField(field, decorators, start, tokenEnd(token1(field, 'Semicolon')), context);
  return buildFunction(node1(node, 'functionDeclaration'), decorators, start, context);
}

function buildDecorators(decoratorNodes: CstNode[], context: BuildContext): Decorator[] {
  const decorators: Decorator[] = [];
  for (const node of decoratorNodes) {
    const nameToken = token1(node, 'Decorator');
    const name = nameToken.image.slice(1).trimStart();
    if (!DECORATOR_NAMES.has(name)) {
      const at = { start: tokenEnd(nameToken) - name.length, end: tokenEnd(nameToken) };
      context.diagnostics.push(diagnostic('unknownDecorator', at, [name]));
      continue;
    }
    const closing = tokens(node, 'RParen')[0];
    decorators.push({
      kind: 'decorator',
      name: name as DecoratorName,
      arguments: closing ? tokens(node, 'Identifier').map(identifier) : null,
      span: { start: nameToken.startOffset, end: closing ? tokenEnd(closing) : tokenEnd(nameToken) },
    });
  }
  return decorators;
}

function buildField(
  node: CstNode,
  decorators: Decorator[],
  start: number | undefined,
  end: number,
  context: BuildContext,
): FieldDeclaration {
  const name = token1(node, 'Identifier');
  return {
    kind: 'field',
    name: identifier(name),
    optional: tokens(node, 'Question').length > 0,
    type: buildType(node1(node, 'type'), context),
    decorators,
    span: { start: start ?? name.startOffset, end },
  };
}

function buildIndex(node: CstNode, context: BuildContext): IndexDeclaration {
  return {
    kind: 'index',
    fields: nodes(node, 'indexEntry').map((entry) => buildIndexField(entry, context)),
    span: { start: token1(node, 'AtIndex').startOffset, end: tokenEnd(token1(node, 'Semicolon')) },
  };
}

function buildIndexField(node: CstNode, context: BuildContext): IndexField {
  const path = tokens(node1(node, 'fieldPath'), 'Identifier').map(identifier);
  const open = tokens(node, 'LSquare')[0];
  if (!open) {
    return { kind: 'indexField', path, direction: 'asc', bracketed: false, span: { start: path[0]!.span.start, end: path[path.length - 1]!.span.end } };
  }
  const directionToken = token1(node, 'Identifier');
  let direction: 'asc' | 'desc' = 'asc';
  if (directionToken.image === 'asc' || directionToken.image === 'desc') direction = directionToken.image;
  else context.diagnostics.push(diagnostic('unexpectedToken', tokenSpan(directionToken), [`\`${directionToken.image}\``, '`asc` or `desc`']));
  return {
    kind: 'indexField',
    path,
    direction,
    bracketed: true,
    span: { start: open.startOffset, end: tokenEnd(token1(node, 'RSquare')) },
  };
}

function buildFunction(
  node: CstNode,
  decorators: Decorator[],
  start: number | undefined,
  context: BuildContext,
): FunctionDeclaration {
  const keyword = tokens(node, 'FunctionKeyword')[0];
  const name = token1(node, 'Identifier');
  const body = token1(nodes(node, 'body')[0]!, 'FunctionBody');
  const blockSpan = tokenSpan(body);
  const returnType = nodes(node, 'type')[0];
  const bodyTextSpan = { start: blockSpan.start + 1, end: blockSpan.end - 1 };
  const declaration: FunctionDeclaration = {
    kind: 'function',
    name: identifier(name),
    decorators,
    functionKeyword: keyword !== undefined,
    parameters: nodes(node, 'parameter').map((parameter) => buildParameter(parameter, context)),
    returnType: returnType ? buildType(returnType, context) : null,
    // Filled in by buildProgram once every body has been parsed.
    body: { kind: 'block', body: [], span: blockSpan },
    bodyTextSpan,
    span: { start: start ?? (keyword ?? name).startOffset, end: blockSpan.end },
  };
  if (!context.hasLexicalProblem(blockSpan.start, blockSpan.end)) {
    context.bodies.push({ block: body.image, start: blockSpan.start, into: declaration });
  }
  return declaration;
}

function buildParameter(node: CstNode, context: BuildContext): Parameter {
  const name = token1(node, 'Identifier');
  const type = buildType(node1(node, 'type'), context);
  return {
    kind: 'parameter',
    name: identifier(name),
    optional: tokens(node, 'Question').length > 0,
    type,
    span: { start: name.startOffset, end: type.span.end },
  };
}

// --- Types ------------------------------------------------------------------------------------

function buildType(node: CstNode, context: BuildContext): TypeNode {
  let type = buildBaseType(node, context);
  const opens = tokens(node, 'LSquare');
  tokens(node, 'RSquare').forEach((close, i) => {
    // Polylang's grammar has no arrays of arrays, maps or objects; the grammar here lets them
    // through so that the error can say why.
    const element = type.kind === 'arrayType' ? 'arrays' : type.kind === 'mapType' ? 'maps' : type.kind === 'objectType' ? 'objects' : undefined;
    if (element) {
      const open = opens[i]!;
      context.diagnostics.push(
        diagnostic('unexpectedToken', tokenSpan(open), ['`[`', '`;`'], [
          { message: `arrays of ${element} are not supported; use a map or a separate collection` },
        ]),
      );
    }
    type = { kind: 'arrayType', element: type, span: { start: type.span.start, end: tokenEnd(close) } };
  });
  return type;
}

function buildBaseType(node: CstNode, context: BuildContext): TypeNode {
  const map = nodes(node, 'mapType')[0];
  if (map) {
    const [key, value] = nodes(map, 'type');
    return {
      kind: 'mapType',
      key: buildType(key!, context),
      value: buildType(value!, context),
      span: { start: token1(map, 'MapKeyword').startOffset, end: tokenEnd(token1(map, 'Greater')) },
    };
  }
  const object = nodes(node, 'objectType')[0];
  if (object) return buildObjectType(object, context);
  const name = token1(node, 'Identifier');
  const span = tokenSpan(name);
  if (PRIMITIVE_TYPES.has(name.image)) return { kind: 'primitiveType', name: name.image as 'string', span };
  if (name.image === 'PublicKey') return { kind: 'publicKeyType', span };
  if (name.image === 'record') return { kind: 'recordType', span };
  return { kind: 'referenceType', collection: identifier(name), span };
}

function buildObjectType(node: CstNode, context: BuildContext): TypeNode {
  // Every inner field but the last is followed by a `;`, so the i-th `;` ends the i-th field.
  const semicolons = tokens(node, 'Semicolon');
  const fields = nodes(node, 'objectField').map((field, i) => {
    const decoratorNodes = nodes(field, 'decorator');
    const decorators = buildDecorators(decoratorNodes, context);
    const start = decoratorNodes[0] ? token1(decoratorNodes[0], 'Decorator').startOffset : undefined;
    const semicolon = semicolons[i];
    const declaration = buildField(field, decorators, start, 0, context);
    declaration.span.end = semicolon ? tokenEnd(semicolon) : declaration.type.span.end;
    return declaration;
  });
  return {
    kind: 'objectType',
    fields,
    span: { start: token1(node, 'LCurly').startOffset, end: tokenEnd(token1(node, 'RCurly')) },
  };
}
