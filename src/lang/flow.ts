// Small pieces of the body checker's flow analysis: what a test proves, sets of facts, loop exits.

import type { BlockStatement, Expression, Statement } from './ast.ts';

/** What a condition proves about some subjects (optional parameters): when it holds, when it does not. */
export interface Facts<S> {
  whenTrue: Set<S>;
  whenFalse: Set<S>;
}

/**
 * The facts a test establishes about the subjects `subject` recognises: `x` and `x != null` prove `x`
 * present when true, `!x` and `x == undefined` when false; `&&`, `||` and `!` combine them.
 */
export function testFacts<S>(test: Expression, subject: (expression: Expression) => S | undefined): Facts<S> {
  const none = (): Facts<S> => ({ whenTrue: new Set(), whenFalse: new Set() });
  switch (test.kind) {
    case 'unary': {
      if (test.operator !== '!') return none();
      const inner = testFacts(test.argument, subject);
      return { whenTrue: inner.whenFalse, whenFalse: inner.whenTrue };
    }
    case 'binary': {
      if (!['==', '!=', '===', '!=='].includes(test.operator)) return none();
      const s = isNullishLiteral(test.right) ? subject(test.left) : isNullishLiteral(test.left) ? subject(test.right) : undefined;
      if (s === undefined) return none();
      return test.operator.startsWith('!') ? { whenTrue: new Set([s]), whenFalse: new Set() } : { whenTrue: new Set(), whenFalse: new Set([s]) };
    }
    case 'logical': {
      const left = testFacts(test.left, subject);
      const right = testFacts(test.right, subject);
      if (test.operator === '&&') return { whenTrue: union(left.whenTrue, right.whenTrue), whenFalse: intersection(left.whenFalse, right.whenFalse) };
      if (test.operator === '||') return { whenTrue: intersection(left.whenTrue, right.whenTrue), whenFalse: union(left.whenFalse, right.whenFalse) };
      return none();
    }
    default: {
      const s = subject(test);
      return s === undefined ? none() : { whenTrue: new Set([s]), whenFalse: new Set() };
    }
  }
}

/** The fields `this.<name> = …` (or `+=`, …) assigns anywhere in a body, on any path. */
export function assignedFields(body: BlockStatement): Set<string> {
  const fields = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) visit(item);
      return;
    }
    if (!node || typeof node !== 'object') return;
    const record = node as { kind?: string; target?: Expression };
    if (record.kind === 'assignment' && record.target?.kind === 'member' && record.target.object.kind === 'this') {
      fields.add(record.target.property.name);
    }
    for (const [key, value] of Object.entries(record)) if (key !== 'span') visit(value);
  };
  visit(body);
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
