// How the parsers allocate the syntax tree: with the constructors below rather than object literals.
//
// V8 decides once per object literal (its allocation site) whether to allocate that literal's objects straight in the
// old generation, from how many of them survive young collections: parsing one large schema keeps every node alive,
// the tree's literals were pretenured, and every later small parse allocated its tree in the old generation, where it
// died: about 1.5x slower for the rest of the process (bench/README.md, "Measuring order"). Objects made by `new` have
// no allocation site, so that decision is never taken for them.
//
// The objects are still plain data: each constructor's `prototype` is Object.prototype, so a node's prototype, its
// `constructor`, how it prints and compares are those of an object literal, and each sets its properties in the order
// the literals did (ast.ts's order). One constructor serves every node kind of the same shape (the same property
// names), as V8 gave equal literals one hidden class. Lists the tree keeps are made with `new Array()` (an array
// literal is an allocation site too), each node its own, as before.

import type {
  BlockStatement,
  Decorator,
  Expression,
  FieldDeclaration,
  ForOfStatement,
  ForStatement,
  FunctionDeclaration,
  Identifier,
  Parameter,
  Span,
  Statement,
  TypeNode,
} from './ast.ts';

/** `init` as a constructor of plain objects. */
export function plain<A extends unknown[], T>(init: (this: T, ...args: A) => void): new (...args: A) => T {
  (init as unknown as { prototype: object }).prototype = Object.prototype;
  return init as unknown as new (...args: A) => T;
}

export const SpanOf = plain(function (this: Span, start: number, end: number) {
  this.start = start;
  this.end = end;
});

/** `{ kind, span }`: this, null, break, continue, publicKeyType, recordType. */
export const Leaf = plain(function (this: { kind: string; span: Span }, kind: string, span: Span) {
  this.kind = kind;
  this.span = span;
}) as unknown as new <T extends { kind: string; span: Span }>(kind: T['kind'], span: Span) => T;

/** A constructor of `{ kind, <key>, span }` nodes. */
interface One<K extends string> {
  new <T extends { kind: string; span: Span } & Record<K, unknown>>(kind: T['kind'], value: T[K], span: Span): T;
}

/** `{ kind, name, span }`: identifier, identifierExpression, primitiveType, sizedNumberType. */
export const Named = plain(function (this: { kind: string; name: unknown; span: Span }, kind: string, name: unknown, span: Span) {
  this.kind = kind;
  this.name = name;
  this.span = span;
}) as unknown as One<'name'>;

/** `{ kind, value, span }`: number, string, boolean. */
export const Valued = plain(function (this: { kind: string; value: unknown; span: Span }, kind: string, value: unknown, span: Span) {
  this.kind = kind;
  this.value = value;
  this.span = span;
}) as unknown as One<'value'>;

/** `{ kind, body, span }`: block. */
export const WithBody = plain(function (this: { kind: string; body: unknown; span: Span }, kind: string, body: unknown, span: Span) {
  this.kind = kind;
  this.body = body;
  this.span = span;
}) as unknown as One<'body'>;

/** `{ kind, argument, span }`: return, throw. */
export const WithArgument = plain(function (this: { kind: string; argument: unknown; span: Span }, kind: string, argument: unknown, span: Span) {
  this.kind = kind;
  this.argument = argument;
  this.span = span;
}) as unknown as One<'argument'>;

/** `{ kind, expression, span }`: expressionStatement. */
export const WithExpression = plain(function (this: { kind: string; expression: unknown; span: Span }, kind: string, expression: unknown, span: Span) {
  this.kind = kind;
  this.expression = expression;
  this.span = span;
}) as unknown as One<'expression'>;

/** `{ kind, elements, span }`: arrayLiteral. */
export const WithElements = plain(function (this: { kind: string; elements: unknown; span: Span }, kind: string, elements: unknown, span: Span) {
  this.kind = kind;
  this.elements = elements;
  this.span = span;
}) as unknown as One<'elements'>;

/** `{ kind, properties, span }`: objectLiteral. */
export const WithProperties = plain(function (this: { kind: string; properties: unknown; span: Span }, kind: string, properties: unknown, span: Span) {
  this.kind = kind;
  this.properties = properties;
  this.span = span;
}) as unknown as One<'properties'>;

/** `{ kind, fields, span }`: index, search, objectType. */
export const WithFields = plain(function (this: { kind: string; fields: unknown; span: Span }, kind: string, fields: unknown, span: Span) {
  this.kind = kind;
  this.fields = fields;
  this.span = span;
}) as unknown as One<'fields'>;

/** `{ kind, element, span }`: arrayType. */
export const WithElement = plain(function (this: { kind: string; element: unknown; span: Span }, kind: string, element: unknown, span: Span) {
  this.kind = kind;
  this.element = element;
  this.span = span;
}) as unknown as One<'element'>;

/** `{ kind, collection, span }`: referenceType. */
export const WithCollection = plain(function (this: { kind: string; collection: unknown; span: Span }, kind: string, collection: unknown, span: Span) {
  this.kind = kind;
  this.collection = collection;
  this.span = span;
}) as unknown as One<'collection'>;

/** `{ kind, collections, span }`: program. */
export const WithCollections = plain(function (this: { kind: string; collections: unknown; span: Span }, kind: string, collections: unknown, span: Span) {
  this.kind = kind;
  this.collections = collections;
  this.span = span;
}) as unknown as One<'collections'>;

/** A constructor of `{ kind, <a>, <b>, span }` nodes. */
interface Two<A extends string, B extends string> {
  new <T extends { kind: string; span: Span } & Record<A | B, unknown>>(kind: T['kind'], a: T[A], b: T[B], span: Span): T;
}

type Pair<A extends string, B extends string> = { kind: string; span: Span } & Record<A | B, unknown>;

/** `{ kind, test, body, span }`: while. */
export const TestBody = plain(function (this: Pair<'test', 'body'>, kind: string, test: unknown, body: unknown, span: Span) {
  this.kind = kind;
  this.test = test;
  this.body = body;
  this.span = span;
}) as unknown as Two<'test', 'body'>;

/** `{ kind, object, property, span }`: member. */
export const ObjectProperty = plain(function (this: Pair<'object', 'property'>, kind: string, object: unknown, property: unknown, span: Span) {
  this.kind = kind;
  this.object = object;
  this.property = property;
  this.span = span;
}) as unknown as Two<'object', 'property'>;

/** `{ kind, object, index, span }`: index. */
export const ObjectIndex = plain(function (this: Pair<'object', 'index'>, kind: string, object: unknown, index: unknown, span: Span) {
  this.kind = kind;
  this.object = object;
  this.index = index;
  this.span = span;
}) as unknown as Two<'object', 'index'>;

/** `{ kind, callee, arguments, span }`: call. */
export const CalleeArguments = plain(function (this: Pair<'callee', 'arguments'>, kind: string, callee: unknown, args: unknown, span: Span) {
  this.kind = kind;
  this.callee = callee;
  this.arguments = args;
  this.span = span;
}) as unknown as Two<'callee', 'arguments'>;

/** `{ kind, operator, argument, span }`: unary. */
export const OperatorArgument = plain(function (this: Pair<'operator', 'argument'>, kind: string, operator: unknown, argument: unknown, span: Span) {
  this.kind = kind;
  this.operator = operator;
  this.argument = argument;
  this.span = span;
}) as unknown as Two<'operator', 'argument'>;

/** `{ kind, key, value, span }`: property, mapType. */
export const KeyValue = plain(function (this: Pair<'key', 'value'>, kind: string, key: unknown, value: unknown, span: Span) {
  this.kind = kind;
  this.key = key;
  this.value = value;
  this.span = span;
}) as unknown as Two<'key', 'value'>;

/** `{ kind, name, arguments, span }`: decorator. */
export const NameArguments = plain(function (this: Pair<'name', 'arguments'>, kind: string, name: unknown, args: unknown, span: Span) {
  this.kind = kind;
  this.name = name;
  this.arguments = args;
  this.span = span;
}) as unknown as Two<'name', 'arguments'>;

/** `{ kind, text, hex, span }`: publicKeyLiteral. */
export const TextHex = plain(function (this: Pair<'text', 'hex'>, kind: string, text: unknown, hex: unknown, span: Span) {
  this.kind = kind;
  this.text = text;
  this.hex = hex;
  this.span = span;
}) as unknown as Two<'text', 'hex'>;

/** A constructor of `{ kind, <a>, <b>, <c>, span }` nodes. */
interface Three<A extends string, B extends string, C extends string> {
  new <T extends { kind: string; span: Span } & Record<A | B | C, unknown>>(kind: T['kind'], a: T[A], b: T[B], c: T[C], span: Span): T;
}

type Triple<A extends string, B extends string, C extends string> = { kind: string; span: Span } & Record<A | B | C, unknown>;

/** `{ kind, test, consequent, alternate, span }`: if, conditional. */
export const TestBranches = plain(function (this: Triple<'test', 'consequent', 'alternate'>, kind: string, test: unknown, consequent: unknown, alternate: unknown, span: Span) {
  this.kind = kind;
  this.test = test;
  this.consequent = consequent;
  this.alternate = alternate;
  this.span = span;
}) as unknown as Three<'test', 'consequent', 'alternate'>;

/** `{ kind, operator, left, right, span }`: binary, logical. */
export const OperatorLeftRight = plain(function (this: Triple<'operator', 'left', 'right'>, kind: string, operator: unknown, left: unknown, right: unknown, span: Span) {
  this.kind = kind;
  this.operator = operator;
  this.left = left;
  this.right = right;
  this.span = span;
}) as unknown as Three<'operator', 'left', 'right'>;

/** `{ kind, operator, target, value, span }`: assignment. */
export const OperatorTargetValue = plain(function (this: Triple<'operator', 'target', 'value'>, kind: string, operator: unknown, target: unknown, value: unknown, span: Span) {
  this.kind = kind;
  this.operator = operator;
  this.target = target;
  this.value = value;
  this.span = span;
}) as unknown as Three<'operator', 'target', 'value'>;

/** `{ kind, operator, prefix, argument, span }`: update. */
export const OperatorPrefixArgument = plain(function (this: Triple<'operator', 'prefix', 'argument'>, kind: string, operator: unknown, prefix: unknown, argument: unknown, span: Span) {
  this.kind = kind;
  this.operator = operator;
  this.prefix = prefix;
  this.argument = argument;
  this.span = span;
}) as unknown as Three<'operator', 'prefix', 'argument'>;

/** `{ kind, declarationKind, name, init, span }`: variable. */
export const DeclarationNameInit = plain(function (this: Triple<'declarationKind', 'name', 'init'>, kind: string, declarationKind: unknown, name: unknown, init: unknown, span: Span) {
  this.kind = kind;
  this.declarationKind = declarationKind;
  this.name = name;
  this.init = init;
  this.span = span;
}) as unknown as Three<'declarationKind', 'name', 'init'>;

/** `{ kind, name, optional, type, span }`: parameter. */
export const NameOptionalType = plain(function (this: Triple<'name', 'optional', 'type'>, kind: string, name: unknown, optional: unknown, type: unknown, span: Span) {
  this.kind = kind;
  this.name = name;
  this.optional = optional;
  this.type = type;
  this.span = span;
}) as unknown as Three<'name', 'optional', 'type'>;

/** `{ kind, path, direction, bracketed, span }`: indexField. */
export const PathDirection = plain(function (this: Triple<'path', 'direction', 'bracketed'>, kind: string, path: unknown, direction: unknown, bracketed: unknown, span: Span) {
  this.kind = kind;
  this.path = path;
  this.direction = direction;
  this.bracketed = bracketed;
  this.span = span;
}) as unknown as Three<'path', 'direction', 'bracketed'>;

/** `{ kind, name, decorators, items, span }`: collection. */
export const NameDecoratorsItems = plain(function (this: Triple<'name', 'decorators', 'items'>, kind: string, name: unknown, decorators: unknown, items: unknown, span: Span) {
  this.kind = kind;
  this.name = name;
  this.decorators = decorators;
  this.items = items;
  this.span = span;
}) as unknown as Three<'name', 'decorators', 'items'>;

export const ForOf = plain(function (this: ForOfStatement, declarationKind: 'let' | 'const', name: Identifier, iterable: Expression, body: Statement, span: Span) {
  this.kind = 'forOf';
  this.declarationKind = declarationKind;
  this.name = name;
  this.iterable = iterable;
  this.body = body;
  this.span = span;
});

export const For = plain(function (this: ForStatement, init: ForStatement['init'], test: Expression | null, update: Expression | null, body: Statement, span: Span) {
  this.kind = 'for';
  this.init = init;
  this.test = test;
  this.update = update;
  this.body = body;
  this.span = span;
});

export const Field = plain(function (this: FieldDeclaration, name: Identifier, optional: boolean, type: TypeNode, decorators: Decorator[], span: Span) {
  this.kind = 'field';
  this.name = name;
  this.optional = optional;
  this.type = type;
  this.decorators = decorators;
  this.span = span;
});

export const FunctionNode = plain(function (
  this: FunctionDeclaration,
  name: Identifier,
  decorators: Decorator[],
  functionKeyword: boolean,
  parameters: Parameter[],
  returnType: TypeNode | null,
  body: BlockStatement,
  bodyTextSpan: Span,
  span: Span,
) {
  this.kind = 'function';
  this.name = name;
  this.decorators = decorators;
  this.functionKeyword = functionKeyword;
  this.parameters = parameters;
  this.returnType = returnType;
  this.body = body;
  this.bodyTextSpan = bodyTextSpan;
  this.span = span;
});
