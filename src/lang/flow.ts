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
  const expression = (node: Expression): void => {
    switch (node.kind) {
      case 'arrayLiteral':
        for (const element of node.elements) expression(element);
        return;
      case 'objectLiteral':
        for (const property of node.properties) expression(property.value);
        return;
      case 'member':
        expression(node.object);
        return;
      case 'index':
        expression(node.object);
        expression(node.index);
        return;
      case 'call':
        expression(node.callee);
        for (const argument of node.arguments) expression(argument);
        return;
      case 'unary':
      case 'update':
        expression(node.argument);
        return;
      case 'binary':
      case 'logical':
        expression(node.left);
        expression(node.right);
        return;
      case 'conditional':
        expression(node.test);
        expression(node.consequent);
        expression(node.alternate);
        return;
      case 'assignment':
        if (node.target.kind === 'member' && node.target.object.kind === 'this') fields.add(node.target.property.name);
        expression(node.target);
        expression(node.value);
        return;
      default:
        return;
    }
  };
  const statement = (node: Statement): void => {
    switch (node.kind) {
      case 'block':
        for (const inner of node.body) statement(inner);
        return;
      case 'variable':
        if (node.init) expression(node.init);
        return;
      case 'expressionStatement':
        expression(node.expression);
        return;
      case 'if':
        expression(node.test);
        statement(node.consequent);
        if (node.alternate) statement(node.alternate);
        return;
      case 'while':
        expression(node.test);
        statement(node.body);
        return;
      case 'for':
        if (node.init?.kind === 'variable') statement(node.init);
        else if (node.init) expression(node.init);
        if (node.test) expression(node.test);
        if (node.update) expression(node.update);
        statement(node.body);
        return;
      case 'forOf':
        expression(node.iterable);
        statement(node.body);
        return;
      case 'return':
        if (node.argument) expression(node.argument);
        return;
      case 'throw':
        expression(node.argument);
        return;
      default:
        return;
    }
  };
  statement(body);
  return fields;
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
