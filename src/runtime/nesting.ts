// How deeply a function body nests, for the runtime's nesting budget (limits.ts). The compiled closures nest
// as the tree does, so the host stack a call uses grows with the tree depth of the code running, summed over
// the calls in progress. Counting it in tree levels makes the limit a property of the program and its inputs,
// the same on every machine, rather than of the host's stack size.

import type { BlockStatement, CallExpression } from '../lang/index.ts';

/**
 * Levels a call node counts for (any call: of a built-in, a method or a collection function): evaluating one
 * takes about three times the stack of an operator or a statement (measured under node --stack-size=500).
 */
export const CALL_NODE_LEVELS = 3;

export interface Nesting {
  /** The depth of the deepest node of the body, in levels (the body's block is level 1; a call counts 3). */
  depth: number;
  /** The depth of each `this.f(…)` call in the body, in levels (its own included). */
  callSites: Map<CallExpression, number>;
}

/** Walks the body once. The parser bounds its depth (MAX_TREE_DEPTH), so recursion here is safe. */
export function nestingOf(body: BlockStatement): Nesting {
  const nesting: Nesting = { depth: 0, callSites: new Map() };
  visit(body, 0, nesting);
  return nesting;
}

/** `outer`: the levels of the node's ancestors. */
function visit(node: object, outer: number, nesting: Nesting): void {
  const call = node as Partial<CallExpression>;
  const depth = outer + (call.kind === 'call' ? CALL_NODE_LEVELS : 1);
  if (depth > nesting.depth) nesting.depth = depth;
  if (call.kind === 'call' && call.callee?.kind === 'member' && call.callee.object.kind === 'this') {
    nesting.callSites.set(node as CallExpression, depth);
  }
  for (const [key, value] of Object.entries(node)) {
    if (key === 'span' || typeof value !== 'object' || value === null) continue;
    if (Array.isArray(value)) {
      for (const item of value) if (isNode(item)) visit(item, depth, nesting);
    } else if (isNode(value)) {
      visit(value, depth, nesting);
    }
  }
}

function isNode(value: unknown): value is object {
  return typeof value === 'object' && value !== null && typeof (value as { kind?: unknown }).kind === 'string';
}
