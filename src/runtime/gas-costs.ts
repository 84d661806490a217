// The static gas of expressions: what a statement pays on entry for the nodes in it (docs/runtime.md's
// schedule, pinned by test/runtime/gas-schedule.test.ts). Built-ins' costs are data in the catalogue.

import type { Expression } from '../lang/index.ts';
import { runtimeBuiltins } from './builtins.ts';
import { GAS } from './limits.ts';

/** The gas of an expression's nodes: one per node, plus per element of array literals and key of object literals. */
export function nodes(e: Expression | null): number {
  if (e === null) return 0;
  switch (e.kind) {
    case 'number':
    case 'string':
    case 'boolean':
    case 'null':
    case 'identifierExpression':
    case 'this':
      return GAS.node;
    case 'arrayLiteral':
      return GAS.node + e.elements.length * GAS.element + e.elements.reduce((sum, x) => sum + nodes(x), 0);
    case 'objectLiteral':
      return GAS.node + e.properties.length * GAS.key + e.properties.reduce((sum, p) => sum + nodes(p.value), 0);
    case 'member':
      return GAS.node + nodes(e.object);
    case 'index':
      return GAS.node + nodes(e.object) + nodes(e.index);
    case 'call':
      return GAS.node + nodes(e.callee) + e.arguments.reduce((sum, x) => sum + nodes(x), 0);
    case 'unary':
    case 'update':
      return GAS.node + nodes(e.argument);
    case 'binary':
    case 'logical':
      return GAS.node + nodes(e.left) + nodes(e.right);
    case 'conditional':
      return GAS.node + nodes(e.test) + nodes(e.consequent) + nodes(e.alternate);
    case 'assignment':
      return GAS.node + nodes(e.target) + nodes(e.value);
  }
}

/** The gas of `push` with one item, from the catalogue. */
export function pushGas(): number {
  const gas = runtimeBuiltins.get('array.push')!.entry.gas;
  return gas.base + (gas.perUnit ?? 0);
}

/**
 * The gas of `splice` as the catalogue gives it: a base and an amount per element of the receiver, or null
 * if the catalogue ever charges it by another measure (the compiler then keeps the general call).
 */
export function spliceGas(): { base: number; perElement: number } | null {
  const gas = runtimeBuiltins.get('array.splice')!.entry.gas;
  if (gas.perUnit !== undefined && gas.unit !== 'receiver length') return null;
  return { base: gas.base, perElement: gas.perUnit ?? 0 };
}

/**
 * The gas of a string's `slice` as the catalogue gives it: a base and an amount per character of the result, or
 * null if the catalogue ever charges it by another measure (the compiler then keeps the general call).
 */
export function stringSliceGas(): { base: number; perChar: number } | null {
  const gas = runtimeBuiltins.get('string.slice')!.entry.gas;
  if (gas.perUnit !== undefined && gas.unit !== 'result length') return null;
  return { base: gas.base, perChar: gas.perUnit ?? 0 };
}
