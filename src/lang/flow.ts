// Small pieces of the body checker's flow analysis: what a test proves, sets of facts, loop exits.

import type { BlockStatement, Expression, Statement } from './ast.ts';

/** What a condition proves about some subjects (optional parameters): when it holds, when it does not. */
export interface Facts<S> {
  whenTrue: ReadonlySet<S>;
  whenFalse: ReadonlySet<S>;
}

const EQUALITY = new Set<string>(['==', '!=', '===', '!==']);
const NOTHING: ReadonlySet<never> = new Set();
/** Most tests prove nothing: one shared, never modified answer for them. */
const NO_FACTS: Facts<never> = { whenTrue: NOTHING, whenFalse: NOTHING };

/**
 * The facts a test establishes about the subjects `subject` recognises: `x` and `x != null` prove `x`
 * present when true, `!x` and `x == undefined` when false; `&&`, `||` and `!` combine them.
 */
export function testFacts<S>(test: Expression, subject: (expression: Expression) => S | undefined): Facts<S> {
  switch (test.kind) {
    case 'unary': {
      if (test.operator !== '!') return NO_FACTS;
      const inner = testFacts(test.argument, subject);
      return { whenTrue: inner.whenFalse, whenFalse: inner.whenTrue };
    }
    case 'binary': {
      if (!EQUALITY.has(test.operator)) return NO_FACTS;
      const s = isNullishLiteral(test.right) ? subject(test.left) : isNullishLiteral(test.left) ? subject(test.right) : undefined;
      if (s === undefined) return NO_FACTS;
      return test.operator.startsWith('!') ? { whenTrue: new Set([s]), whenFalse: new Set() } : { whenTrue: new Set(), whenFalse: new Set([s]) };
    }
    case 'logical': {
      const left = testFacts(test.left, subject);
      const right = testFacts(test.right, subject);
      if (test.operator === '&&') return { whenTrue: union(left.whenTrue, right.whenTrue), whenFalse: intersection(left.whenFalse, right.whenFalse) };
      if (test.operator === '||') return { whenTrue: intersection(left.whenTrue, right.whenTrue), whenFalse: union(left.whenFalse, right.whenFalse) };
      return NO_FACTS;
    }
    default: {
      const s = subject(test);
      return s === undefined ? NO_FACTS : { whenTrue: new Set([s]), whenFalse: new Set() };
    }
  }
}

/**
 * The fields `this.<name> = …` (or `+=`, …) assigns anywhere in a body, on any path. One typed walk
 * over the body (the checker runs it once per collection, on the constructor).
 */
export function assignedFields(body: BlockStatement): Set<string> {
  const fields = new Set<string>();
  assignedInStatement(body, fields);
  return fields;
}

// The walk of assignedFields, as functions of their own rather than closures made per call: under tsx (esbuild's
// keepNames) every closure made costs a call that names it.

function assignedInExpression(node: Expression, fields: Set<string>): void {
  switch (node.kind) {
    case 'arrayLiteral':
      for (const element of node.elements) assignedInExpression(element, fields);
      return;
    case 'objectLiteral':
      for (const property of node.properties) assignedInExpression(property.value, fields);
      return;
    case 'member':
      assignedInExpression(node.object, fields);
      return;
    case 'index':
      assignedInExpression(node.object, fields);
      assignedInExpression(node.index, fields);
      return;
    case 'call':
      assignedInExpression(node.callee, fields);
      for (const argument of node.arguments) assignedInExpression(argument, fields);
      return;
    case 'unary':
    case 'update':
      assignedInExpression(node.argument, fields);
      return;
    case 'binary':
    case 'logical':
      assignedInExpression(node.left, fields);
      assignedInExpression(node.right, fields);
      return;
    case 'conditional':
      assignedInExpression(node.test, fields);
      assignedInExpression(node.consequent, fields);
      assignedInExpression(node.alternate, fields);
      return;
    case 'assignment':
      if (node.target.kind === 'member' && node.target.object.kind === 'this') fields.add(node.target.property.name);
      assignedInExpression(node.target, fields);
      assignedInExpression(node.value, fields);
      return;
    default:
      return;
  }
}

function assignedInStatement(node: Statement, fields: Set<string>): void {
  switch (node.kind) {
    case 'block':
      for (const inner of node.body) assignedInStatement(inner, fields);
      return;
    case 'variable':
      if (node.init) assignedInExpression(node.init, fields);
      return;
    case 'expressionStatement':
      assignedInExpression(node.expression, fields);
      return;
    case 'if':
      assignedInExpression(node.test, fields);
      assignedInStatement(node.consequent, fields);
      if (node.alternate) assignedInStatement(node.alternate, fields);
      return;
    case 'while':
      assignedInExpression(node.test, fields);
      assignedInStatement(node.body, fields);
      return;
    case 'for':
      if (node.init?.kind === 'variable') assignedInStatement(node.init, fields);
      else if (node.init) assignedInExpression(node.init, fields);
      if (node.test) assignedInExpression(node.test, fields);
      if (node.update) assignedInExpression(node.update, fields);
      assignedInStatement(node.body, fields);
      return;
    case 'forOf':
      assignedInExpression(node.iterable, fields);
      assignedInStatement(node.body, fields);
      return;
    case 'return':
      if (node.argument) assignedInExpression(node.argument, fields);
      return;
    case 'throw':
      assignedInExpression(node.argument, fields);
      return;
    default:
      return;
  }
}

function isNullishLiteral(expression: Expression): boolean {
  return expression.kind === 'null' || (expression.kind === 'identifierExpression' && expression.name === 'undefined');
}

export function union<T>(a: ReadonlySet<T>, b: ReadonlySet<T>): Set<T> {
  return new Set([...a, ...b]);
}

export function intersection<T>(a: ReadonlySet<T>, b: ReadonlySet<T>): Set<T> {
  return new Set([...a].filter((x) => b.has(x)));
}

/** Whether a loop body contains a `break` that leaves this loop (not one of a nested loop). */
export function breaksOut(statement: Statement): boolean {
  switch (statement.kind) {
    case 'break':
      return true;
    case 'block':
      return statement.body.some(breaksOut);
    case 'if':
      return breaksOut(statement.consequent) || (statement.alternate !== null && breaksOut(statement.alternate));
    default:
      return false;
  }
}
