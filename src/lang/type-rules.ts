// The typing rules of operators and stores, as pure functions over semantic types: which values fit
// where, what `+` gives, which operands compare. The body checker (check-body.ts) applies them.

import {
  type Type,
  anyType,
  isAssignable,
  isNullish,
  numberType,
  sizedNumber,
  stringType,
  typeToString,
  typesEqual,
} from './types.ts';
import { arithmeticSize } from './sized-numbers.ts';
import type { SizedNumberName } from './words.ts';

export function fits(found: Type, target: Type, nullable: boolean): boolean {
  if (found.kind === 'any' || found.kind === 'never' || target.kind === 'any') return true;
  if (isNullish(found)) return nullable;
  return isAssignable(found, target);
}

export function isNumeric(type: Type): boolean {
  return type.kind === 'number' || type.kind === 'any' || type.kind === 'never';
}

export function isKeyLike(type: Type): boolean {
  return type.kind === 'string' || isNumeric(type);
}

/** Values a string concatenates without surprises (no "[object Object]", no "undefined"). */
export function isTextLike(type: Type): boolean {
  return type.kind === 'string' || type.kind === 'boolean' || isNumeric(type);
}

export function plusResult(left: Type, right: Type): Type | undefined {
  if (left.kind === 'string' && isTextLike(right)) return stringType;
  if (right.kind === 'string' && isTextLike(left)) return stringType;
  if (left.kind === 'number' && right.kind === 'number') return arithmeticResult(left, right);
  // With an unknown side the result may be a number or a string.
  if ((left.kind === 'any' && isTextLike(right)) || (right.kind === 'any' && isTextLike(left))) return anyType;
  return undefined;
}

/** The type of sized arithmetic (`+ - * / % **`) on two numbers; undefined when two different sized types meet. */
export function arithmeticResult(left: Type, right: Type): Type | undefined {
  const size = arithmeticSize(sizeOf(left), sizeOf(right));
  if (size === 'mixed') return undefined;
  return size === undefined ? numberType : sizedNumber(size);
}

/** The sized type of a number type, if it has one. */
export function sizeOf(type: Type): SizedNumberName | undefined {
  return type.kind === 'number' ? type.size : undefined;
}

export function plusAssignable(target: Type, value: Type): boolean {
  if (target.kind === 'string') return isTextLike(value);
  if (target.kind === 'any') return isTextLike(value);
  return isNumeric(target) && isNumeric(value) && arithmeticSize(sizeOf(target), sizeOf(value)) !== 'mixed';
}

export function orderable(left: Type, right: Type): boolean {
  if (left.kind === 'any' || right.kind === 'any') return isTextLike(left) && isTextLike(right);
  return (left.kind === 'number' && right.kind === 'number') || (left.kind === 'string' && right.kind === 'string');
}

/** Whether `==` between the two can ever be true (JavaScript compares objects by identity and
 *  loosely converts primitives; both hide bugs, so values of different types are rejected). */
export function comparable(left: Type, right: Type): boolean {
  if (left.kind === 'any' || right.kind === 'any' || left.kind === 'never' || right.kind === 'never') return true;
  if (isNullish(left) || isNullish(right)) return true;
  const a = collectionOf(left);
  const b = collectionOf(right);
  if (a !== undefined || b !== undefined) return a === b;
  return left.kind === right.kind;
}

function collectionOf(type: Type): string | undefined {
  return type.kind === 'reference' || type.kind === 'record' ? type.collection : undefined;
}

/**
 * The type of `a || b`, `a ?? b`, `c ? a : b`: the common type, else anything. Where the value is
 * stored (`expected`), a side that cannot be stored there is the result, so that the store reports it
 * (`this.name = ok ? s : 1` stores a number on some paths).
 */
export function eitherOf(left: Type, right: Type, expected?: Type): Type {
  if (expected && expected.kind !== 'any') {
    for (const side of [left, right]) {
      if (!isNullish(side) && side.kind !== 'any' && side.kind !== 'never' && !isAssignable(side, expected)) return side;
    }
  }
  if (typesEqual(left, right)) return left;
  if (isNullish(left) || left.kind === 'never') return right;
  if (isNullish(right) || right.kind === 'never') return left;
  if (left.kind === 'array' && right.kind === 'array') {
    if (right.element.kind === 'any') return left;
    if (left.element.kind === 'any') return right;
  }
  return anyType;
}

/** A `let` initialised with nothing, null or undefined can later hold anything. */
export function variableType(init: Type): Type {
  if (isNullish(init) || init.kind === 'void' || init.kind === 'never') return anyType;
  return init;
}

export function hasUnboundParameters(type: Type, bindings: ReadonlyMap<string, Type>): boolean {
  switch (type.kind) {
    case 'typeParameter':
      return !bindings.has(type.name);
    case 'array':
      return hasUnboundParameters(type.element, bindings);
    case 'map':
      return hasUnboundParameters(type.key, bindings) || hasUnboundParameters(type.value, bindings);
    default:
      return false;
  }
}

export function describe(type: Type): string {
  return type.kind === 'namespace' ? type.name : typeToString(type);
}

export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
