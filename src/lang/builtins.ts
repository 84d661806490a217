// The built-ins catalogue: every method, property, function and constant a collection function can
// use, as data. The checker reads the signatures; the runtime implements each entry by its `id` and
// charges its `gas`. Everything here is deterministic: no randomness, no clock, no host objects.
//
// Signatures are generic over the receiver where needed: in an array method `T` is the element
// type, so `array.push` is `(...items: T[]) => number` for any `T[]`. Global functions bind their
// type parameters from their arguments (`Object.values(m: map<K, V>): V[]`).

import {
  type Type,
  anyType,
  arrayOf,
  booleanType,
  bytesType,
  mapOf,
  neverType,
  numberType,
  publicKeyType,
  sizedNumber,
  stringType,
  typeParameter,
  typeToString,
  voidType,
} from './types.ts';
import type { SizedNumberName } from './words.ts';

/** What a built-in hangs off: a value of some type, a namespace, or nothing (a global). */
export type BuiltinReceiver = 'string' | 'number' | 'array' | 'publicKey' | 'Math' | 'Object' | 'Number' | 'ctx' | 'global';

/** `method`/`function` are called; `property`/`constant` are read. */
export type BuiltinKind = 'method' | 'property' | 'function' | 'constant';

export interface BuiltinParameter {
  name: string;
  type: Type;
  optional?: boolean;
  /** Takes any number of further arguments, each of `type`. Always last. */
  rest?: boolean;
}

/**
 * Sizes a per-unit gas cost is proportional to. Lengths of strings count UTF-16 code units, lengths
 * of arrays count elements.
 *  - `receiver length`: the string or array the method is called on;
 *  - `result length`: the string or array the call returns;
 *  - `argument length`: the first argument (a string or an array or a map's entries);
 *  - `argument count`: how many arguments were passed.
 */
export type GasUnit = 'receiver length' | 'result length' | 'argument length' | 'argument count';

/** Gas of one use: `base + perUnit × size(unit)`. */
export interface GasCost {
  base: number;
  perUnit?: number;
  unit?: GasUnit;
}

export interface Builtin {
  /** Stable identifier, `<receiver>.<name>`: the runtime's key for the implementation. */
  id: string;
  receiver: BuiltinReceiver;
  name: string;
  kind: BuiltinKind;
  parameters: BuiltinParameter[];
  /** The type of the result (for properties and constants, of the value). */
  returns: Type;
  /** Whether the call changes its receiver (the runtime copies on write; the checker forbids it on
   *  read-only records). */
  mutates: boolean;
  gas: GasCost;
  description: string;
  /** A method of one sized number type only (`wrappingAdd` on a `u32`). */
  receiverSize?: SizedNumberName;
}

// ---------------------------------------------------------------------------------------------
// The table

const T = typeParameter('T');
const K = typeParameter('K');
const V = typeParameter('V');
const TArray = arrayOf(T);

type Spec = Omit<Builtin, 'id' | 'receiver' | 'mutates' | 'parameters'> & {
  parameters?: BuiltinParameter[];
  mutates?: boolean;
};

function entries(receiver: BuiltinReceiver, specs: Spec[]): Builtin[] {
  return specs.map((spec) => ({
    id: `${receiver}.${spec.name}`,
    receiver,
    name: spec.name,
    kind: spec.kind,
    parameters: spec.parameters ?? [],
    returns: spec.returns,
    mutates: spec.mutates ?? false,
    gas: spec.gas,
    description: spec.description,
    ...(spec.receiverSize ? { receiverSize: spec.receiverSize } : {}),
  }));
}

function param(name: string, type: Type, options: { optional?: boolean; rest?: boolean } = {}): BuiltinParameter {
  return { name, type, ...options };
}

const linear = (base: number, unit: GasUnit, perUnit = 1): GasCost => ({ base, perUnit, unit });
const fixed = (base: number): GasCost => ({ base });

const stringMethods = entries('string', [
  { name: 'length', kind: 'property', returns: numberType, gas: fixed(1), description: 'Number of UTF-16 code units.' },
  { name: 'toUpperCase', kind: 'method', returns: stringType, gas: linear(5, 'receiver length'), description: 'Upper-case copy (locale-independent).' },
  { name: 'toLowerCase', kind: 'method', returns: stringType, gas: linear(5, 'receiver length'), description: 'Lower-case copy (locale-independent).' },
  { name: 'trim', kind: 'method', returns: stringType, gas: linear(5, 'receiver length'), description: 'Copy without leading and trailing white space.' },
  { name: 'trimStart', kind: 'method', returns: stringType, gas: linear(5, 'receiver length'), description: 'Copy without leading white space.' },
  { name: 'trimEnd', kind: 'method', returns: stringType, gas: linear(5, 'receiver length'), description: 'Copy without trailing white space.' },
  {
    name: 'startsWith', kind: 'method', returns: booleanType, gas: linear(5, 'argument length'),
    parameters: [param('search', stringType), param('position', numberType, { optional: true })],
    description: 'Whether the string starts with `search` (at `position`).',
  },
  {
    name: 'endsWith', kind: 'method', returns: booleanType, gas: linear(5, 'argument length'),
    parameters: [param('search', stringType), param('endPosition', numberType, { optional: true })],
    description: 'Whether the string ends with `search` (before `endPosition`).',
  },
  {
    name: 'includes', kind: 'method', returns: booleanType, gas: linear(5, 'receiver length'),
    parameters: [param('search', stringType), param('position', numberType, { optional: true })],
    description: 'Whether `search` occurs in the string.',
  },
  {
    name: 'indexOf', kind: 'method', returns: numberType, gas: linear(5, 'receiver length'),
    parameters: [param('search', stringType), param('position', numberType, { optional: true })],
    description: 'First index of `search`, or -1.',
  },
  {
    name: 'lastIndexOf', kind: 'method', returns: numberType, gas: linear(5, 'receiver length'),
    parameters: [param('search', stringType), param('position', numberType, { optional: true })],
    description: 'Last index of `search`, or -1.',
  },
  {
    name: 'slice', kind: 'method', returns: stringType, gas: linear(5, 'result length'),
    parameters: [param('start', numberType, { optional: true }), param('end', numberType, { optional: true })],
    description: 'Substring from `start` to `end` (negative counts from the end).',
  },
  {
    name: 'substring', kind: 'method', returns: stringType, gas: linear(5, 'result length'),
    parameters: [param('start', numberType), param('end', numberType, { optional: true })],
    description: 'Substring between two indexes (negative is 0; swapped if reversed).',
  },
  {
    name: 'split', kind: 'method', returns: arrayOf(stringType), gas: linear(10, 'receiver length', 2),
    parameters: [param('separator', stringType), param('limit', numberType, { optional: true })],
    description: 'Pieces between occurrences of `separator` (a string, not a pattern).',
  },
  {
    name: 'replace', kind: 'method', returns: stringType, gas: linear(10, 'receiver length', 2),
    parameters: [param('pattern', stringType), param('replacement', stringType)],
    description: 'Copy with the first occurrence of `pattern` (a string) replaced; `$` in `replacement` is literal.',
  },
  {
    name: 'replaceAll', kind: 'method', returns: stringType, gas: linear(10, 'receiver length', 2),
    parameters: [param('pattern', stringType), param('replacement', stringType)],
    description: 'Copy with every occurrence of `pattern` (a string) replaced; `$` in `replacement` is literal.',
  },
  {
    name: 'repeat', kind: 'method', returns: stringType, gas: linear(5, 'result length'),
    parameters: [param('count', numberType)],
    description: 'The string repeated `count` times.',
  },
  {
    name: 'padStart', kind: 'method', returns: stringType, gas: linear(5, 'result length'),
    parameters: [param('targetLength', numberType), param('padString', stringType, { optional: true })],
    description: 'Padded at the start to `targetLength`.',
  },
  {
    name: 'padEnd', kind: 'method', returns: stringType, gas: linear(5, 'result length'),
    parameters: [param('targetLength', numberType), param('padString', stringType, { optional: true })],
    description: 'Padded at the end to `targetLength`.',
  },
  {
    name: 'charAt', kind: 'method', returns: stringType, gas: fixed(3),
    parameters: [param('index', numberType)],
    description: 'The code unit at `index` as a string ("" when out of range).',
  },
  {
    name: 'charCodeAt', kind: 'method', returns: numberType, gas: fixed(3),
    parameters: [param('index', numberType)],
    description: 'The UTF-16 code unit at `index` (NaN when out of range).',
  },
  {
    name: 'concat', kind: 'method', returns: stringType, gas: linear(5, 'result length'),
    parameters: [param('strings', stringType, { rest: true })],
    description: 'The string followed by the arguments.',
  },
  {
    name: 'at', kind: 'method', returns: stringType, gas: fixed(3),
    parameters: [param('index', numberType)],
    description: 'The code unit at `index` (negative counts from the end); undefined when out of range.',
  },
]);

const numberMethods = entries('number', [
  {
    name: 'toString', kind: 'method', returns: stringType, gas: fixed(10),
    parameters: [param('radix', numberType, { optional: true })],
    description: 'The number as text, in base `radix` (2–36, default 10).',
  },
  {
    name: 'toFixed', kind: 'method', returns: stringType, gas: fixed(10),
    parameters: [param('digits', numberType, { optional: true })],
    description: 'The number with `digits` (0–100) digits after the point.',
  },
  {
    name: 'wrappingAdd', kind: 'method', receiverSize: 'u32', returns: sizedNumber('u32'), gas: fixed(2),
    parameters: [param('other', sizedNumber('u32'))],
    description: 'On a `u32`: the sum modulo 2^32 (wraps instead of failing on overflow; Polylang after 0.6).',
  },
]);

const arrayMethods = entries('array', [
  { name: 'length', kind: 'property', returns: numberType, gas: fixed(1), description: 'Number of elements.' },
  {
    name: 'push', kind: 'method', mutates: true, returns: numberType, gas: linear(3, 'argument count'),
    parameters: [param('items', T, { rest: true })],
    description: 'Appends the items; returns the new length.',
  },
  { name: 'pop', kind: 'method', mutates: true, returns: T, gas: fixed(3), description: 'Removes and returns the last element (undefined when empty).' },
  { name: 'shift', kind: 'method', mutates: true, returns: T, gas: linear(3, 'receiver length'), description: 'Removes and returns the first element (undefined when empty).' },
  {
    name: 'unshift', kind: 'method', mutates: true, returns: numberType, gas: linear(3, 'receiver length'),
    parameters: [param('items', T, { rest: true })],
    description: 'Inserts the items at the start; returns the new length.',
  },
  {
    name: 'splice', kind: 'method', mutates: true, returns: TArray, gas: linear(5, 'receiver length'),
    parameters: [param('start', numberType), param('deleteCount', numberType, { optional: true }), param('items', T, { rest: true })],
    description: 'Removes `deleteCount` elements at `start` (all when omitted), inserts the items there; returns the removed elements.',
  },
  {
    name: 'slice', kind: 'method', returns: TArray, gas: linear(5, 'result length'),
    parameters: [param('start', numberType, { optional: true }), param('end', numberType, { optional: true })],
    description: 'Copy of the elements from `start` to `end` (negative counts from the end).',
  },
  {
    name: 'indexOf', kind: 'method', returns: numberType, gas: linear(5, 'receiver length'),
    parameters: [param('search', T), param('fromIndex', numberType, { optional: true })],
    description: 'First index of an element equal to `search`, or -1.',
  },
  {
    name: 'lastIndexOf', kind: 'method', returns: numberType, gas: linear(5, 'receiver length'),
    parameters: [param('search', T), param('fromIndex', numberType, { optional: true })],
    description: 'Last index of an element equal to `search`, or -1.',
  },
  {
    name: 'includes', kind: 'method', returns: booleanType, gas: linear(5, 'receiver length'),
    parameters: [param('search', T), param('fromIndex', numberType, { optional: true })],
    description: 'Whether an element equals `search`.',
  },
  {
    name: 'concat', kind: 'method', returns: TArray, gas: linear(5, 'result length'),
    parameters: [param('arrays', TArray, { rest: true })],
    description: 'A new array: the elements followed by those of each argument array.',
  },
  {
    name: 'join', kind: 'method', returns: stringType, gas: linear(5, 'result length'),
    parameters: [param('separator', stringType, { optional: true })],
    description: 'The elements as text joined by `separator` (default ",").',
  },
  {
    name: 'reverse', kind: 'method', mutates: true, returns: TArray, gas: linear(3, 'receiver length'),
    description: 'Reverses the elements in place; returns the array.',
  },
  {
    name: 'at', kind: 'method', returns: T, gas: fixed(3),
    parameters: [param('index', numberType)],
    description: 'The element at `index` (negative counts from the end); undefined when out of range.',
  },
  {
    name: 'fill', kind: 'method', mutates: true, returns: TArray, gas: linear(3, 'receiver length'),
    parameters: [param('value', T), param('start', numberType, { optional: true }), param('end', numberType, { optional: true })],
    description: 'Sets the elements from `start` to `end` to `value`; returns the array.',
  },
]);

const publicKeyMethods = entries('publicKey', [
  {
    name: 'toHex', kind: 'method', returns: stringType, gas: fixed(20),
    description: '"0x" and the 64-byte uncompressed key (without the 04 prefix) as 128 lowercase hex digits.',
  },
]);

const unaryMath = (name: string, description: string): Spec => ({
  name, kind: 'function', returns: numberType, gas: fixed(5), parameters: [param('x', numberType)], description,
});
const mathConstant = (name: string, description: string): Spec => ({
  name, kind: 'constant', returns: numberType, gas: fixed(1), description,
});

// Math functions follow ECMAScript; the transcendental ones are computed by V8's portable fdlibm
// port, so they give the same bits on every machine.
const mathFunctions = entries('Math', [
  unaryMath('abs', 'Absolute value.'),
  unaryMath('ceil', 'Smallest integer ≥ x.'),
  unaryMath('floor', 'Largest integer ≤ x.'),
  unaryMath('round', 'Nearest integer (halves round up).'),
  unaryMath('trunc', 'Integer part of x.'),
  unaryMath('sign', '-1, 0 or 1 (or -0, NaN) by the sign of x.'),
  unaryMath('sqrt', 'Square root.'),
  unaryMath('cbrt', 'Cube root.'),
  unaryMath('exp', 'e to the power x.'),
  unaryMath('log', 'Natural logarithm.'),
  unaryMath('log2', 'Base-2 logarithm.'),
  unaryMath('log10', 'Base-10 logarithm.'),
  unaryMath('sin', 'Sine (radians).'),
  unaryMath('cos', 'Cosine (radians).'),
  unaryMath('tan', 'Tangent (radians).'),
  unaryMath('asin', 'Arcsine.'),
  unaryMath('acos', 'Arccosine.'),
  unaryMath('atan', 'Arctangent.'),
  {
    name: 'atan2', kind: 'function', returns: numberType, gas: fixed(5),
    parameters: [param('y', numberType), param('x', numberType)],
    description: 'Angle of the point (x, y) from the x axis.',
  },
  {
    name: 'pow', kind: 'function', returns: numberType, gas: fixed(5),
    parameters: [param('base', numberType), param('exponent', numberType)],
    description: 'base to the power exponent (same as `**`).',
  },
  {
    name: 'min', kind: 'function', returns: numberType, gas: linear(3, 'argument count'),
    parameters: [param('values', numberType, { rest: true })],
    description: 'Smallest argument (Infinity with none).',
  },
  {
    name: 'max', kind: 'function', returns: numberType, gas: linear(3, 'argument count'),
    parameters: [param('values', numberType, { rest: true })],
    description: 'Largest argument (-Infinity with none).',
  },
  {
    name: 'hypot', kind: 'function', returns: numberType, gas: linear(5, 'argument count'),
    parameters: [param('values', numberType, { rest: true })],
    description: 'Square root of the sum of squares.',
  },
  mathConstant('PI', 'π.'),
  mathConstant('E', "Euler's number e."),
  mathConstant('LN2', 'Natural logarithm of 2.'),
  mathConstant('LN10', 'Natural logarithm of 10.'),
  mathConstant('LOG2E', 'Base-2 logarithm of e.'),
  mathConstant('LOG10E', 'Base-10 logarithm of e.'),
  mathConstant('SQRT2', 'Square root of 2.'),
  mathConstant('SQRT1_2', 'Square root of 1/2.'),
]);

const objectFunctions = entries('Object', [
  {
    name: 'keys', kind: 'function', returns: arrayOf(stringType), gas: linear(5, 'result length', 2),
    parameters: [param('map', mapOf(K, V))],
    description: "The map's keys as strings (number keys as their text), in insertion order.",
  },
  {
    name: 'values', kind: 'function', returns: arrayOf(V), gas: linear(5, 'result length'),
    parameters: [param('map', mapOf(K, V))],
    description: "The map's values, in key order.",
  },
]);

const numberNamespace = entries('Number', [
  {
    name: 'isInteger', kind: 'function', returns: booleanType, gas: fixed(2),
    parameters: [param('x', numberType)],
    description: 'Whether x is a finite integer.',
  },
  { name: 'MAX_SAFE_INTEGER', kind: 'constant', returns: numberType, gas: fixed(1), description: '2^53 - 1.' },
  { name: 'MIN_SAFE_INTEGER', kind: 'constant', returns: numberType, gas: fixed(1), description: '-(2^53 - 1).' },
]);

const contextProperties = entries('ctx', [
  {
    name: 'publicKey', kind: 'property', returns: publicKeyType, gas: fixed(1),
    description: "The caller's key (also `$auth.publicKey`); absent on an unsigned request.",
  },
]);

const globalFunctions = entries('global', [
  {
    name: 'error', kind: 'function', returns: neverType, gas: linear(5, 'argument length'),
    parameters: [param('message', stringType)],
    description: 'Stops the function with a collection error carrying `message`; nothing is changed.',
  },
  {
    name: 'selfdestruct', kind: 'function', returns: voidType, gas: fixed(5),
    description: 'Deletes the record when the function ends successfully.',
  },
  {
    name: 'Number', kind: 'function', returns: numberType, gas: linear(5, 'argument length'),
    parameters: [param('value', anyType)],
    description: 'The value converted to a number (JavaScript rules; NaN when not numeric).',
  },
  {
    name: 'String', kind: 'function', returns: stringType, gas: linear(5, 'result length'),
    parameters: [param('value', anyType)],
    description: 'The value converted to a string (JavaScript rules).',
  },
  {
    name: 'parseInt', kind: 'function', returns: numberType, gas: linear(5, 'argument length'),
    parameters: [param('text', stringType), param('radix', numberType, { optional: true })],
    description: 'Integer parsed from the start of `text` in base `radix` (NaN when none).',
  },
  {
    name: 'parseFloat', kind: 'function', returns: numberType, gas: linear(5, 'argument length'),
    parameters: [param('text', stringType)],
    description: 'Number parsed from the start of `text` (NaN when none).',
  },
  {
    name: 'isNaN', kind: 'function', returns: booleanType, gas: fixed(2),
    parameters: [param('x', numberType)],
    description: 'Whether x is NaN.',
  },
  {
    name: 'isFinite', kind: 'function', returns: booleanType, gas: fixed(2),
    parameters: [param('x', numberType)],
    description: 'Whether x is neither NaN nor ±Infinity.',
  },
  {
    name: 'assert', kind: 'function', returns: voidType, gas: linear(5, 'argument count'),
    parameters: [param('condition', anyType), param('message', stringType, { optional: true })],
    description: 'Stops the function with a collection error carrying `message` when `condition` is falsy (`if (!condition) error(message)`; Polylang after 0.6).',
  },
  {
    name: 'log', kind: 'function', returns: voidType, gas: linear(5, 'argument count'),
    parameters: [param('values', anyType, { rest: true })],
    description: 'Adds a line of the values (text as it is, others as JSON-like text) to the call\'s log: shown by `vellum call` and in the service\'s debug log, never stored; 1 more gas per 16 characters.',
  },
  {
    name: 'hashSHA256', kind: 'function', returns: bytesType, gas: linear(20, 'argument length'),
    parameters: [param('data', anyType)],
    description: 'The SHA-256 digest (32 bytes) of `data`: `bytes`, or a string as its UTF-8 bytes (Polylang after 0.6).',
  },
  {
    name: 'hashBlake3', kind: 'function', returns: bytesType, gas: linear(20, 'argument length'),
    parameters: [param('data', anyType)],
    description: 'The BLAKE3 digest (32 bytes) of `data`: `bytes`, or a string as its UTF-8 bytes (Polylang after 0.6).',
  },
  {
    name: 'uint32WrappingSub', kind: 'function', returns: sizedNumber('u32'), gas: fixed(2),
    parameters: [param('a', sizedNumber('u32')), param('b', sizedNumber('u32'))],
    description: '`a - b` modulo 2^32 for two `u32` (wraps instead of failing below 0; Polylang after 0.6).',
  },
  {
    name: 'uint32WrappingMul', kind: 'function', returns: sizedNumber('u32'), gas: fixed(2),
    parameters: [param('a', sizedNumber('u32')), param('b', sizedNumber('u32'))],
    description: '`a * b` modulo 2^32 for two `u32` (wraps instead of failing on overflow; Polylang after 0.6).',
  },
  { name: 'NaN', kind: 'constant', returns: numberType, gas: fixed(1), description: 'Not-a-number.' },
  { name: 'Infinity', kind: 'constant', returns: numberType, gas: fixed(1), description: 'Positive infinity.' },
]);

export const builtins: readonly Builtin[] = [
  ...stringMethods,
  ...numberMethods,
  ...arrayMethods,
  ...publicKeyMethods,
  ...mathFunctions,
  ...objectFunctions,
  ...numberNamespace,
  ...contextProperties,
  ...globalFunctions,
];

const byId = new Map(builtins.map((b) => [b.id, b]));

/** The members of each receiver by name: lookups in bodies need no `<receiver>.<name>` string. */
const byReceiver = new Map<BuiltinReceiver, Map<string, Builtin>>();
for (const builtin of builtins) {
  let members = byReceiver.get(builtin.receiver);
  if (!members) byReceiver.set(builtin.receiver, (members = new Map()));
  members.set(builtin.name, builtin);
}

export function builtinById(id: string): Builtin | undefined {
  return byId.get(id);
}

// ---------------------------------------------------------------------------------------------
// Lookup

/** Identifiers that name a namespace; `$auth` is Polybase's alias of `ctx`. */
const namespaces: ReadonlyMap<string, BuiltinReceiver> = new Map<string, BuiltinReceiver>([
  ['Math', 'Math'],
  ['Object', 'Object'],
  ['Number', 'Number'],
  ['ctx', 'ctx'],
  ['$auth', 'ctx'],
]);

/** The namespace an identifier names (`Math`, `ctx`, `$auth`…), if any. */
export function lookupNamespace(name: string): BuiltinReceiver | undefined {
  return namespaces.get(name);
}

/** A global function or constant (`error`, `parseInt`, `NaN`…). */
export function lookupGlobal(name: string): Builtin | undefined {
  return byReceiver.get('global')?.get(name);
}

/** The receiver kind whose members apply to values of this type, if any. */
export function receiverOf(type: Type): BuiltinReceiver | undefined {
  switch (type.kind) {
    case 'string':
    case 'number':
    case 'array':
    case 'publicKey':
      return type.kind;
    case 'namespace':
      return namespaces.get(type.name);
    default:
      return undefined;
  }
}

/** The method or property `name` of a value of `receiverType` (or of a namespace type). */
export function lookupMethod(receiverType: Type, name: string): Builtin | undefined {
  const receiver = receiverOf(receiverType);
  if (!receiver || receiver === 'global') return undefined;
  const builtin = byReceiver.get(receiver)?.get(name);
  return builtin && fitsReceiver(builtin, receiverType) ? builtin : undefined;
}

function fitsReceiver(builtin: Builtin, receiverType: Type): boolean {
  return builtin.receiverSize === undefined || (receiverType.kind === 'number' && receiverType.size === builtin.receiverSize);
}

/** All members of a receiver type: for "did you mean" suggestions. */
export function membersOf(receiverType: Type): Builtin[] {
  const receiver = receiverOf(receiverType);
  return receiver ? builtins.filter((b) => b.receiver === receiver && fitsReceiver(b, receiverType)) : [];
}

/** The type parameters a receiver binds: `T` for arrays. */
export function receiverBindings(receiverType: Type): Map<string, Type> {
  const bindings = new Map<string, Type>();
  if (receiverType.kind === 'array') bindings.set('T', receiverType.element);
  return bindings;
}

/** Fewest arguments a call needs and most it accepts (`Infinity` with a rest parameter). */
export function arity(builtin: Builtin): { min: number; max: number } {
  let min = 0;
  let max = builtin.parameters.length;
  for (const parameter of builtin.parameters) {
    if (parameter.rest) max = Infinity;
    else if (!parameter.optional) min++;
  }
  return { min, max };
}

// ---------------------------------------------------------------------------------------------
// Documentation

const receiverLabel: Record<BuiltinReceiver, string> = {
  string: 'string',
  number: 'number',
  array: 'T[]',
  publicKey: 'PublicKey',
  Math: 'Math',
  Object: 'Object',
  Number: 'Number',
  ctx: 'ctx',
  global: '',
};

/** `push(...items: T[]): number`, `length: number`, `Math.floor(x: number): number`. */
export function signatureOf(builtin: Builtin): string {
  const prefix = builtin.receiver === 'global' ? '' : `${receiverLabel[builtin.receiver]}.`;
  if (builtin.kind === 'property' || builtin.kind === 'constant') {
    return `${prefix}${builtin.name}: ${typeToString(builtin.returns)}`;
  }
  const params = builtin.parameters.map((p) => {
    if (p.rest) return `...${p.name}: ${typeToString(arrayOf(p.type))}`;
    return `${p.name}${p.optional ? '?' : ''}: ${typeToString(p.type)}`;
  });
  return `${prefix}${builtin.name}(${params.join(', ')}): ${typeToString(builtin.returns)}`;
}

const unitPhrase: Record<GasUnit, string> = {
  'receiver length': 'per element or character of the receiver',
  'result length': 'per element or character of the result',
  'argument length': 'per element or character of the first argument',
  'argument count': 'per argument',
};

export function gasToString(gas: GasCost): string {
  if (!gas.perUnit || !gas.unit) return String(gas.base);
  return `${gas.base} + ${gas.perUnit} ${unitPhrase[gas.unit]}`;
}

function escapeCell(text: string): string {
  return text.replace(/\|/g, '\\|');
}

/** The catalogue as a Markdown table (docs/builtins.md embeds it). */
export function renderBuiltinsTable(): string {
  const rows = builtins.map(
    (b) =>
      `| \`${b.id}\` | \`${escapeCell(signatureOf(b))}\` | ${gasToString(b.gas)} | ${b.mutates ? 'yes' : ''} | ${escapeCell(b.description)} |`,
  );
  return ['| id | signature | gas | mutates | description |', '| --- | --- | --- | --- | --- |', ...rows].join('\n') + '\n';
}
