// A fast-check arbitrary of programs the parser can produce: every node kind of ast.ts, with
// recursion bounded, and only trees that some source text parses to (valid names, `break` only in
// loops, no dangling `else`, declarations that JavaScript accepts, assignable targets only, ...).
// Spans are all zero: tests compare trees with spans stripped.

import fc from 'fast-check';
import type {
  AssignmentExpression,
  AssignmentOperator,
  BinaryOperator,
  BlockStatement,
  Collection,
  CollectionItem,
  Decorator,
  DecoratorName,
  Expression,
  FieldDeclaration,
  FunctionDeclaration,
  Identifier,
  IndexDeclaration,
  IndexField,
  LogicalOperator,
  Parameter,
  PrimitiveTypeName,
  Program,
  Span,
  Statement,
  TypeNode,
  UnaryOperator,
  VariableDeclaration,
} from '../../src/lang/ast.ts';

const span: Span = { start: 0, end: 0 };

// JavaScript reserved words (strict mode included), Polylang keywords and words Vellum's grammar may
// treat specially: none of them is generated as a name.
const RESERVED = new Set(
  (
    'break case catch class const continue debugger default delete do else enum export extends false finally ' +
    'for function if import in instanceof new null return super switch this throw true try typeof var void ' +
    'while with yield let static implements interface package private protected public await arguments eval ' +
    'of async get set undefined NaN Infinity ' +
    'number string boolean bytes map record PublicKey collection contract ' +
    'i32 u32 i64 u64 f32 f64'
  ).split(' '),
);

const randomName = fc.stringMatching(/^[A-Za-z_$][A-Za-z0-9_]{0,6}$/).filter((name) => !RESERVED.has(name));
/** Names that Polylang 0.6 split wrongly and Vellum accepts, and other usual names. */
const interestingName = fc.constantFrom('id', 'owner', 'record_id', 'string2', 'bytes32', 'mapping', 'stringy', 'asc', 'desc', 'x', '_', '$x');

export const name: fc.Arbitrary<string> = fc.oneof({ weight: 3, arbitrary: randomName }, { weight: 1, arbitrary: interestingName });

function identifier(value: string): Identifier {
  return { kind: 'identifier', name: value, span };
}

const identifierArb = name.map(identifier);

/** After a dot and as an object key any word is a name, keywords included (`x.if`, `{ map: 1 }`). */
const propertyName = fc.oneof({ weight: 4, arbitrary: name }, { weight: 1, arbitrary: fc.constantFrom('if', 'map', 'delete', 'new', 'this', 'string', 'constructor') });
const propertyIdentifier = propertyName.map(identifier);

// ---------------------------------------------------------------------------------------------
// Types

const primitiveType = fc
  .constantFrom<PrimitiveTypeName>('string', 'number', 'boolean', 'bytes')
  .map((n): TypeNode => ({ kind: 'primitiveType', name: n, span }));
const publicKeyType = fc.constant<TypeNode>({ kind: 'publicKeyType', span });
const referenceType = name.map((n): TypeNode => ({ kind: 'referenceType', collection: identifier(n), span }));
const arrayType = fc
  .oneof(primitiveType, publicKeyType, referenceType)
  .map((element): TypeNode => ({ kind: 'arrayType', element, span }));
const mapKeyType = fc
  .constantFrom<PrimitiveTypeName>('string', 'number')
  .map((n): TypeNode => ({ kind: 'primitiveType', name: n, span }));

function typeArb(depth: number): fc.Arbitrary<TypeNode> {
  const leaves = [primitiveType, publicKeyType, referenceType, arrayType];
  if (depth <= 0) return fc.oneof(...leaves);
  const inner = typeArb(depth - 1);
  const mapType = fc.record({ key: mapKeyType, value: inner }).map(({ key, value }): TypeNode => ({ kind: 'mapType', key, value, span }));
  const objectType = fieldsArb(inner, 0, 3).map((fields): TypeNode => ({ kind: 'objectType', fields, span }));
  return fc.oneof({ weight: 4, arbitrary: fc.oneof(...leaves) }, { weight: 1, arbitrary: mapType }, { weight: 1, arbitrary: objectType });
}

const decoratorArb: fc.Arbitrary<Decorator> = fc
  .record({
    name: fc.constantFrom<DecoratorName>('public', 'read', 'call', 'delegate'),
    arguments: fc.option(fc.array(identifierArb, { maxLength: 3 }), { nil: null }),
  })
  .map((d) => ({ kind: 'decorator', ...d, span }));

function fieldsArb(type: fc.Arbitrary<TypeNode>, minLength: number, maxLength: number): fc.Arbitrary<FieldDeclaration[]> {
  return fc
    .uniqueArray(
      fc.record({
        name,
        optional: fc.boolean(),
        type,
        decorators: fc.array(decoratorArb, { maxLength: 2 }),
      }),
      { minLength, maxLength, selector: (f) => f.name },
    )
    .map((fields) => fields.map((f): FieldDeclaration => ({ kind: 'field', ...f, name: identifier(f.name), span })));
}

// ---------------------------------------------------------------------------------------------
// Expressions

const numberArb = fc.oneof(
  fc.nat({ max: 1000 }),
  fc.double({ min: 0, noNaN: true, noDefaultInfinity: true }).filter((n) => !Object.is(n, -0) && Number.isFinite(n)),
  fc.constantFrom(1e21, 5e-7, 0.1, 123456789012345680000, Number.MAX_VALUE, Number.MIN_VALUE),
);

/** Strings with quotes, backslashes, control characters, line separators and lone surrogates. */
const stringArb = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 6 }).map((codes) => String.fromCharCode(...codes)),
  fc.constantFrom("it's", 'a\\b', 'line\nbreak', '"', '\0', '\u2028', '\ud800', '\udc00x', '😀', '${x}', '`'),
);

/** Variables and globals a body may mention; `undefined` is an identifier, not a literal. */
const variableName = fc.oneof({ weight: 3, arbitrary: name }, { weight: 1, arbitrary: fc.constantFrom('undefined', 'ctx', '$auth', 'error', 'Math', 'selfdestruct') });

const leafExpression: fc.Arbitrary<Expression> = fc.oneof(
  numberArb.map((value): Expression => ({ kind: 'number', value, span })),
  stringArb.map((value): Expression => ({ kind: 'string', value, span })),
  fc.boolean().map((value): Expression => ({ kind: 'boolean', value, span })),
  fc.constant<Expression>({ kind: 'null', span }),
  variableName.map((n): Expression => ({ kind: 'identifierExpression', name: n, span })),
  fc.constant<Expression>({ kind: 'this', span }),
);

const BINARY_OPERATORS: BinaryOperator[] = [
  '+', '-', '*', '/', '%', '**', '==', '!=', '===', '!==', '<', '<=', '>', '>=', '&', '|', '^', '<<', '>>', '>>>',
];
const LOGICAL_OPERATORS: LogicalOperator[] = ['&&', '||', '??'];
const ASSIGNMENT_OPERATORS: AssignmentOperator[] = ['=', '+=', '-=', '*=', '/=', '%=', '**='];

const expressionCache = new Map<number, fc.Arbitrary<Expression>>();

export function expressionArb(depth: number): fc.Arbitrary<Expression> {
  const cached = expressionCache.get(depth);
  if (cached) return cached;
  const built = depth <= 0 ? leafExpression : compoundExpression(depth);
  expressionCache.set(depth, built);
  return built;
}

type Target = AssignmentExpression['target'];

function targetArb(inner: fc.Arbitrary<Expression>): fc.Arbitrary<Target> {
  return fc.oneof(
    name.map((n): Target => ({ kind: 'identifierExpression', name: n, span })),
    fc.record({ object: inner, property: propertyIdentifier }).map((m): Target => ({ kind: 'member', ...m, span })),
    fc.record({ object: inner, index: inner }).map((m): Target => ({ kind: 'index', ...m, span })),
  );
}

function compoundExpression(depth: number): fc.Arbitrary<Expression> {
  const inner = expressionArb(depth - 1);
  const target = targetArb(inner);
  const compound: fc.Arbitrary<Expression>[] = [
    fc.array(inner, { maxLength: 3 }).map((elements): Expression => ({ kind: 'arrayLiteral', elements, span })),
    fc
      .uniqueArray(fc.record({ key: propertyName, value: inner }), { maxLength: 3, selector: (p) => p.key })
      .map((ps): Expression => ({
        kind: 'objectLiteral',
        properties: ps.map((p) => ({ kind: 'property', key: identifier(p.key), value: p.value, span })),
        span,
      })),
    fc.record({ object: inner, property: propertyIdentifier }).map((m): Expression => ({ kind: 'member', ...m, span })),
    fc.record({ object: inner, index: inner }).map((m): Expression => ({ kind: 'index', ...m, span })),
    fc.record({ callee: inner, arguments: fc.array(inner, { maxLength: 3 }) }).map((c): Expression => ({ kind: 'call', ...c, span })),
    fc
      .record({ operator: fc.constantFrom<UnaryOperator>('!', '-', '+', '~'), argument: inner })
      .map((u): Expression => ({ kind: 'unary', ...u, span })),
    // `delete` of a plain name is a syntax error in strict code: only members and indexes.
    target
      .filter((t) => t.kind !== 'identifierExpression')
      .map((argument): Expression => ({ kind: 'unary', operator: 'delete', argument, span })),
    fc
      .record({ operator: fc.constantFrom<'++' | '--'>('++', '--'), prefix: fc.boolean(), argument: target })
      .map((u): Expression => ({ kind: 'update', ...u, span })),
    fc
      .record({ operator: fc.constantFrom(...BINARY_OPERATORS), left: inner, right: inner })
      .map((b): Expression => ({ kind: 'binary', ...b, span })),
    fc
      .record({ operator: fc.constantFrom(...LOGICAL_OPERATORS), left: inner, right: inner })
      .map((b): Expression => ({ kind: 'logical', ...b, span })),
    fc
      .record({ test: inner, consequent: inner, alternate: inner })
      .map((c): Expression => ({ kind: 'conditional', ...c, span })),
    fc
      .record({ operator: fc.constantFrom(...ASSIGNMENT_OPERATORS), target, value: inner })
      .map((a): Expression => ({ kind: 'assignment', ...a, span })),
  ];
  return fc.oneof({ weight: 1, arbitrary: leafExpression }, { weight: 3, arbitrary: fc.oneof(...compound) });
}

// ---------------------------------------------------------------------------------------------
// Statements

const expression = expressionArb(3);
const smallExpression = expressionArb(2);

/** Statements allowed as the unbraced body of `if`/`while`/`for` (no declarations, no nested `if`). */
function simpleStatement(inLoop: boolean): fc.Arbitrary<Statement> {
  const options: fc.Arbitrary<Statement>[] = [
    expression.map((e): Statement => ({ kind: 'expressionStatement', expression: e, span })),
    fc.option(smallExpression, { nil: null }).map((argument): Statement => ({ kind: 'return', argument, span })),
    smallExpression.map((argument): Statement => ({ kind: 'throw', argument, span })),
  ];
  if (inLoop) {
    options.push(fc.constant<Statement>({ kind: 'break', span }), fc.constant<Statement>({ kind: 'continue', span }));
  }
  return fc.oneof(...options);
}

const declarationKind = fc.constantFrom<'let' | 'const'>('let', 'const');

// Declared names are replaced afterwards (see `renameDeclarations`), so the placeholder is fixed.
const variableDeclaration: fc.Arbitrary<VariableDeclaration> = fc
  .record({ declarationKind, init: fc.option(smallExpression, { nil: null }) })
  .map(({ declarationKind: k, init }) => ({
    kind: 'variable',
    declarationKind: k,
    name: identifier('_'),
    // `const` needs an initialiser.
    init: k === 'const' && init === null ? { kind: 'number', value: 0, span } : init,
    span,
  }));

const statementCache = new Map<string, fc.Arbitrary<Statement>>();

function statementArb(depth: number, inLoop: boolean): fc.Arbitrary<Statement> {
  const key = `${depth}/${inLoop}`;
  const cached = statementCache.get(key);
  if (cached) return cached;
  const built = depth <= 0 ? fc.oneof(simpleStatement(inLoop), variableDeclaration) : compoundStatement(depth, inLoop);
  statementCache.set(key, built);
  return built;
}

function blockArb(depth: number, inLoop: boolean): fc.Arbitrary<BlockStatement> {
  return fc.array(statementArb(depth, inLoop), { maxLength: 3 }).map((body) => ({ kind: 'block', body, span }));
}

function bodyArb(depth: number, inLoop: boolean): fc.Arbitrary<Statement> {
  return fc.oneof({ weight: 2, arbitrary: blockArb(depth, inLoop) }, { weight: 1, arbitrary: simpleStatement(inLoop) });
}

function ifArb(depth: number, inLoop: boolean): fc.Arbitrary<Statement> {
  const elseIf: fc.Arbitrary<Statement> =
    depth > 1 ? ifArb(depth - 1, inLoop) : blockArb(depth - 1, inLoop);
  return fc
    .record({
      test: smallExpression,
      consequent: bodyArb(depth - 1, inLoop),
      alternate: fc.option(fc.oneof(bodyArb(depth - 1, inLoop), elseIf), { nil: null }),
    })
    .map((s): Statement => ({ kind: 'if', ...s, span }));
}

function compoundStatement(depth: number, inLoop: boolean): fc.Arbitrary<Statement> {
  const loopBody = bodyArb(depth - 1, true);
  const options: fc.Arbitrary<Statement>[] = [
    statementArb(0, inLoop),
    blockArb(depth - 1, inLoop),
    ifArb(depth, inLoop),
    fc.record({ test: smallExpression, body: loopBody }).map((s): Statement => ({ kind: 'while', ...s, span })),
    fc
      .record({
        init: fc.option(fc.oneof(variableDeclaration, smallExpression), { nil: null }),
        test: fc.option(smallExpression, { nil: null }),
        update: fc.option(smallExpression, { nil: null }),
        body: loopBody,
      })
      .map((s): Statement => ({ kind: 'for', ...s, span })),
    fc
      .record({ declarationKind, iterable: smallExpression, body: loopBody })
      .map((s): Statement => ({ kind: 'forOf', ...s, name: identifier('_'), span })),
  ];
  return fc.oneof(...options);
}

/**
 * Gives every declared variable a name of its own (`v0`, `v1`, ...) that no parameter uses:
 * JavaScript rejects a `let` that redeclares a name in the same scope or a parameter.
 */
function renameDeclarations(body: BlockStatement, parameterNames: Set<string>): BlockStatement {
  let counter = 0;
  const fresh = (): Identifier => {
    let candidate = `v${counter++}`;
    while (parameterNames.has(candidate)) candidate = `v${counter++}`;
    return identifier(candidate);
  };
  const visit = (statement: Statement): Statement => {
    switch (statement.kind) {
      case 'block':
        return { ...statement, body: statement.body.map(visit) };
      case 'variable':
        return { ...statement, name: fresh() };
      case 'if':
        return {
          ...statement,
          consequent: visit(statement.consequent),
          alternate: statement.alternate && visit(statement.alternate),
        };
      case 'while':
        return { ...statement, body: visit(statement.body) };
      case 'for':
        return {
          ...statement,
          init: statement.init?.kind === 'variable' ? { ...statement.init, name: fresh() } : statement.init,
          body: visit(statement.body),
        };
      case 'forOf':
        return { ...statement, name: fresh(), body: visit(statement.body) };
      default:
        return statement;
    }
  };
  return { ...body, body: body.body.map(visit) };
}

// ---------------------------------------------------------------------------------------------
// Schema structure

const parameterType = fc.oneof(
  typeArb(1).filter((t) => t.kind !== 'objectType'),
  fc.constant<TypeNode>({ kind: 'recordType', span }),
);

const parametersArb: fc.Arbitrary<Parameter[]> = fc
  .uniqueArray(fc.record({ name, optional: fc.boolean(), type: parameterType }), { maxLength: 3, selector: (p) => p.name })
  .map((ps) => ps.map((p): Parameter => ({ kind: 'parameter', ...p, name: identifier(p.name), span })));

const functionArb = (functionName: string): fc.Arbitrary<FunctionDeclaration> =>
  fc
    .record({
      decorators: fc.array(decoratorArb, { maxLength: 2 }),
      functionKeyword: fc.boolean(),
      parameters: parametersArb,
      returnType: fc.option(typeArb(1), { nil: null }),
      body: blockArb(2, false),
    })
    .map((f) => ({
      kind: 'function',
      name: identifier(functionName),
      ...f,
      body: renameDeclarations(f.body, new Set(f.parameters.map((p) => p.name.name))),
      bodyTextSpan: span,
      span,
    }));

const indexFieldArb: fc.Arbitrary<IndexField> = fc
  .record({
    path: fc.array(identifierArb, { minLength: 1, maxLength: 3 }),
    bracketed: fc.boolean(),
    direction: fc.constantFrom<'asc' | 'desc'>('asc', 'desc'),
  })
  .map((f) => ({ kind: 'indexField', ...f, direction: f.bracketed ? f.direction : 'asc', span }));

const indexArb: fc.Arbitrary<IndexDeclaration> = fc
  .array(indexFieldArb, { maxLength: 3 })
  .map((fields) => ({ kind: 'index', fields, span }));

type ItemKind = 'field' | 'function' | 'index';

/** Items with distinct names (fields and functions share one namespace), in any order. */
const collectionItemsArb: fc.Arbitrary<CollectionItem[]> = fc
  .record({
    kinds: fc.array(fc.constantFrom<ItemKind>('field', 'field', 'function', 'index'), { maxLength: 6 }),
    names: fc.uniqueArray(fc.oneof({ weight: 5, arbitrary: name }, { weight: 1, arbitrary: fc.constant('constructor') }), {
      minLength: 6,
      maxLength: 6,
    }),
  })
  .chain(({ kinds, names }) =>
    fc.tuple(
      ...kinds.map((kind, i): fc.Arbitrary<CollectionItem> => {
        const itemName = names[i]!;
        if (kind === 'function') return functionArb(itemName);
        if (kind === 'index') return indexArb;
        return fieldsArb(typeArb(2), 1, 1).map((fields) => ({ ...fields[0]!, name: identifier(itemName) }));
      }),
    ),
  );

const collectionArb = (collectionName: string): fc.Arbitrary<Collection> =>
  fc
    .record({ decorators: fc.array(decoratorArb, { maxLength: 2 }), items: collectionItemsArb })
    .map((c) => ({ kind: 'collection', name: identifier(collectionName), ...c, span }));

export const programArb: fc.Arbitrary<Program> = fc
  .uniqueArray(name, { maxLength: 3 })
  .chain((names) => fc.tuple(...names.map(collectionArb)))
  .map((collections) => ({ kind: 'program', collections, span }));
