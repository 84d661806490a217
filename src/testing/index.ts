// Property-testing collection functions with fast-check. Arbitraries are derived from the schema's
// types (fields and parameters), in wire form, so what a property sees is exactly what `execute`
// takes and returns:
//
//   propertyTest(schemaText, 'Account.withdraw', ({ args, result }) => { … return true; });
//
// Everything runs through the same pure runtime API (`execute`) the record service uses.

import fc from 'fast-check';
import { publicKeyOf } from '../auth/index.ts';
import { checkSchema, hasErrors, renderText, SIZED_NUMBER_RANGES, type FieldDeclaration, type Parameter, type SizedNumberName, type TypeNode } from '../lang/index.ts';
import {
  compileCollection,
  execute,
  type CompiledCollection,
  type ExecuteResult,
  type ExecutionLimits,
  type JsonValue,
  type PublicKey,
  type WireRecord,
} from '../runtime/index.ts';

export interface ArbitraryOptions {
  /** Longest strings, arrays and maps generated (default 8). */
  maxLength?: number;
  /** How many distinct public keys to draw from (default 4). */
  keys?: number;
}

const keyPools = new Map<number, PublicKey[]>();

/** A fixed pool of distinct keys (derived from private keys 1…n), so that equal keys occur often. */
export function testKeys(count = 4): PublicKey[] {
  let pool = keyPools.get(count);
  if (!pool) {
    pool = Array.from({ length: count }, (_, i) => {
      const privateKey = new Uint8Array(32);
      privateKey[31] = i + 1;
      return publicKeyOf(privateKey);
    });
    keyPools.set(count, pool);
  }
  return pool;
}

function lengthOptions(options: ArbitraryOptions): { maxLength: number } {
  return { maxLength: options.maxLength ?? 8 };
}

/** Values of a schema type, in wire form (bytes as base64, keys as JWK, references as {collectionId, id}). */
export function arbitraryOf(type: TypeNode, collection: CompiledCollection, options: ArbitraryOptions = {}): fc.Arbitrary<JsonValue> {
  const sized = lengthOptions(options);
  switch (type.kind) {
    case 'primitiveType':
      switch (type.name) {
        case 'string':
          return fc.string(sized);
        case 'number':
          return fc.oneof(fc.integer({ min: -1_000_000, max: 1_000_000 }), fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e9, max: 1e9 }));
        case 'boolean':
          return fc.boolean();
        case 'bytes':
          return fc.uint8Array(sized).map((bytes) => Buffer.from(bytes).toString('base64'));
      }
      break;
    case 'sizedNumberType':
      return sizedNumberArbitrary(type.name);
    case 'publicKeyType':
      return fc.constantFrom(...testKeys(options.keys)).map((key) => key.toJwk() as unknown as JsonValue);
    case 'arrayType':
      return fc.array(arbitraryOf(type.element, collection, options), sized);
    case 'mapType': {
      const numericKeys = type.key.kind === 'primitiveType' && type.key.name === 'number';
      const key =
        type.key.kind === 'sizedNumberType'
          ? sizedNumberArbitrary(type.key.name).map(String)
          : numericKeys
            ? fc.integer({ min: -1000, max: 1000 }).map(String)
            : fc.string(sized);
      return fc.dictionary(key, arbitraryOf(type.value, collection, options), { maxKeys: sized.maxLength });
    }
    case 'objectType':
      return fieldsArbitrary(type.fields, collection, options);
    case 'referenceType':
      return fc.string({ minLength: 1, maxLength: 8 }).map((id) => ({ collectionId: collection.conversion.collectionIdOf(type.collection.name), id }));
    case 'recordType':
      return recordArgumentOf(collection, options);
  }
  throw new TypeError(`no arbitrary for type ${JSON.stringify(type)}`);
}

/**
 * Values of a sized numeric type: its whole range, with its ends and zero often (where overflow and sign
 * bugs live). 64-bit integers stay within ±(2^53−1), as Vellum limits them; f32 within f32's finite range.
 */
export function sizedNumberArbitrary(name: SizedNumberName): fc.Arbitrary<number> {
  const { integer, min, max } = SIZED_NUMBER_RANGES[name];
  const edges = fc.constantFrom(min, max, 0, integer ? 1 : 0.5);
  const any = integer ? fc.integer({ min, max }) : fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
  // -0 is stored as 0: generate the value as it comes back.
  return fc.oneof(edges, any).map((value) => (value === 0 ? 0 : value));
}

function fieldsArbitrary(fields: readonly FieldDeclaration[], collection: CompiledCollection, options: ArbitraryOptions): fc.Arbitrary<{ [key: string]: JsonValue }> {
  const shape: Record<string, fc.Arbitrary<JsonValue>> = {};
  const requiredKeys: string[] = [];
  for (const field of fields) {
    shape[field.name.name] = arbitraryOf(field.type, collection, options);
    if (!field.optional) requiredKeys.push(field.name.name);
  }
  return fc.record(shape, { requiredKeys }) as fc.Arbitrary<{ [key: string]: JsonValue }>;
}

/** Records of a collection, in wire form (the snapshot `execute` takes). */
export function recordOf(collection: CompiledCollection, options: ArbitraryOptions = {}): fc.Arbitrary<WireRecord> {
  const others = collection.fields.filter((f) => f.name.name !== 'id');
  return fc
    .tuple(fc.string({ minLength: 1, maxLength: 12 }), fieldsArbitrary(others, collection, options))
    .map(([id, fields]) => ({ ...fields, id }));
}

/** A record argument as execute takes it: the reference and the loaded record. */
function recordArgumentOf(collection: CompiledCollection, options: ArbitraryOptions): fc.Arbitrary<JsonValue> {
  return recordOf(collection, options).map((data) => ({ collectionId: collection.collectionId, id: data.id as string, data }));
}

function parameterArbitrary(parameter: Parameter, collection: CompiledCollection, options: ArbitraryOptions): fc.Arbitrary<JsonValue | undefined> {
  const type = parameter.type;
  let arbitrary: fc.Arbitrary<JsonValue>;
  if (type.kind === 'referenceType') {
    // A parameter typed with a collection name receives a whole record of that collection.
    const other = collection.sibling(type.collection.name);
    arbitrary = other
      ? recordArgumentOf(other, options)
      : fc.string({ minLength: 1, maxLength: 8 }).map((id) => ({ collectionId: collection.conversion.collectionIdOf(type.collection.name), id, data: { id } }));
  } else {
    arbitrary = arbitraryOf(type, collection, options);
  }
  return parameter.optional ? fc.option(arbitrary, { nil: undefined }) : arbitrary;
}

/** Argument lists for a function, each argument of its parameter's type (optional ones sometimes left out). */
export function argumentsOf(collection: CompiledCollection, functionName: string, options: ArbitraryOptions = {}): fc.Arbitrary<JsonValue[]> {
  const fn = collection.functions.get(functionName);
  if (!fn) throw new Error(`collection ${collection.name} has no function ${functionName}`);
  const parameters = fn.declaration.parameters.map((p) => parameterArbitrary(p, collection, options));
  return fc.tuple(...parameters).map((values) => {
    const args = [...values];
    while (args.length > 0 && args[args.length - 1] === undefined) args.pop();
    return args.map((value) => (value === undefined ? null : value)) as JsonValue[];
  });
}

/** Compiles a collection of schema text, refusing a schema with errors (the diagnostics are in the message). */
export function compileSchema(schemaText: string, collectionName: string, collectionId = `test/${collectionName}`): CompiledCollection {
  const checked = checkSchema(schemaText, 'schema.polylang');
  if (!checked.program || hasErrors(checked.diagnostics)) {
    throw new Error(`the schema has errors:\n${checked.diagnostics.map((d) => renderText(d, checked.source)).join('\n')}`);
  }
  return compileCollection(checked, collectionName, { collectionId });
}

export interface PropertyInput {
  /** The record the function ran on (null for a constructor). */
  record: WireRecord | null;
  args: JsonValue[];
  /** The signer's key, when the run was signed. */
  publicKey: PublicKey | undefined;
  result: ExecuteResult;
}

export interface PropertyTestOptions extends ArbitraryOptions {
  /** Runs of the property (fast-check's numRuns; default 100). */
  numRuns?: number;
  seed?: number;
  /** Records to run on, instead of ones derived from the fields. */
  record?: fc.Arbitrary<WireRecord>;
  /** Argument lists, instead of ones derived from the parameters. */
  args?: fc.Arbitrary<JsonValue[]>;
  /** Whether calls are signed: always, never, or sometimes (default) with a key of `testKeys()`. */
  signed?: boolean;
  limits?: Partial<ExecutionLimits>;
  collectionId?: string;
}

/**
 * Checks `property` for generated calls of `Collection.function` of the schema: for each run it draws
 * a record (none for a constructor), arguments and a signer, executes the call, and hands all of it
 * with the result to the property, which returns false or throws to fail. Throws fast-check's report
 * (with the counterexample) when the property fails.
 */
export function propertyTest(
  schemaText: string,
  target: string,
  property: (input: PropertyInput) => boolean | void,
  options: PropertyTestOptions = {},
): void {
  const [collectionName, functionName] = target.split('.') as [string, string | undefined];
  if (!functionName) throw new Error(`the target must be Collection.function, got ${JSON.stringify(target)}`);
  const collection = compileSchema(schemaText, collectionName, options.collectionId);
  const isConstructor = functionName === 'constructor';
  const record: fc.Arbitrary<WireRecord | null> = isConstructor ? fc.constant(null) : (options.record ?? recordOf(collection, options));
  const args = options.args ?? argumentsOf(collection, functionName, options);
  const keys = fc.constantFrom(...testKeys(options.keys));
  const signer: fc.Arbitrary<PublicKey | undefined> =
    options.signed === true ? keys : options.signed === false ? fc.constant(undefined) : fc.option(keys, { nil: undefined });

  fc.assert(
    fc.property(record, args, signer, (snapshot, values, publicKey) => {
      const result = execute(collection, functionName, snapshot, values, { publicKey }, options.limits);
      return property({ record: snapshot, args: values, publicKey, result }) !== false;
    }),
    { numRuns: options.numRuns ?? 100, seed: options.seed },
  );
}
