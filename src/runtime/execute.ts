// execute(collection, function, snapshot, args, ctx, limits) → transition, as a pure function: the
// snapshot and the arguments are never modified (they are converted into fresh runtime values), and
// any failure returns a typed error and no changes.

import { typeText, type FunctionDeclaration, type Parameter } from '../lang/index.ts';
import type { CompiledCollection } from './collection.ts';
import { invoke } from './frame.ts';
import { argumentCollection } from './references.ts';
import { RuntimeFault, invalidArgs, limitFault, type RuntimeError } from './errors.ts';
import { resolveLimits, type ExecutionLimits } from './limits.ts';
import { ExecState } from './state.ts';
import { PublicKey, deepFreeze, newObject, publicKeyFrom, recordCollectionOf, tagRecord, type RuntimeObject } from './values.ts';
import {
  ConversionError,
  fieldsFromWire,
  fieldsToWire,
  genericFromWire,
  genericToWire,
  jsonLongerThan,
  valueFromWire,
  valueToWire,
  wireEquals,
  type JsonValue,
  type WireRecord,
} from './wire.ts';

/** What the caller knows about the request. */
export interface ExecutionContext {
  /** The signer's key (a PublicKey, its JWK or its `0x` hex form); absent on an unsigned request. */
  publicKey?: PublicKey | object | string | undefined;
}

/**
 * A record argument as the caller (the service) passes it: the reference the client sent, with the
 * record it loaded. `recordArguments()` lists which references a call needs.
 */
export interface RecordArgument {
  collectionId: string;
  id: string;
  data: WireRecord;
}

export interface ChangedRecord {
  collectionId: string;
  id: string;
  record: WireRecord;
}

export interface Transition {
  /** The record after the call, in wire form; null when the call deleted it (`selfdestruct()`). */
  record: WireRecord | null;
  deleted: boolean;
  /** Other records of this collection that the call changed (record arguments), in wire form. */
  changed: ChangedRecord[];
  /** The function's return value in wire form; undefined when it returned nothing. */
  returnValue: JsonValue | undefined;
  gasUsed: number;
  /** The lines the function logged with `log(...)`, when it logged any: never part of the record. */
  logs?: string[];
}

export type ExecuteResult =
  | { ok: true; transition: Transition }
  | { ok: false; error: RuntimeError; gasUsed: number; logs?: string[] };

const MAX_ARGUMENTS = 1000;

export function execute(
  collection: CompiledCollection,
  functionName: string,
  snapshot: WireRecord | null | undefined,
  args: readonly unknown[],
  ctx: ExecutionContext = {},
  limits?: Partial<ExecutionLimits>,
): ExecuteResult {
  return executeFunction(collection, functionName, snapshot, args, ctx, limits, false);
}

/**
 * `execute`, or (`migration` true, for migrate-record.ts only) the run of a `@migrate` function, which `execute`
 * refuses: a migration is never called, it runs over each stored record when its schema is installed.
 */
export function executeFunction(
  collection: CompiledCollection,
  functionName: string,
  snapshot: WireRecord | null | undefined,
  args: readonly unknown[],
  ctx: ExecutionContext,
  limits: Partial<ExecutionLimits> | undefined,
  migration: boolean,
): ExecuteResult {
  let st: ExecState | undefined;
  try {
    st = new ExecState(resolveLimits(limits), runtimeContext(ctx), collection.spans);
    return { ok: true, transition: run(collection, functionName, snapshot, args, st, migration) };
  } catch (error) {
    const failed: ExecuteResult = { ok: false, error: toRuntimeError(error, collection, st), gasUsed: st ? st.gasUsed : 0 };
    if (st?.logs) failed.logs = st.logs;
    return failed;
  }
}

function runtimeContext(ctx: ExecutionContext): RuntimeObject {
  const object = newObject();
  if (ctx.publicKey !== undefined && ctx.publicKey !== null) {
    try {
      object.publicKey = publicKeyFrom(ctx.publicKey);
    } catch (error) {
      throw invalidArgs(`invalid ctx.publicKey: ${(error as Error).message}`);
    }
  }
  return Object.freeze(object);
}

function run(
  collection: CompiledCollection,
  functionName: string,
  snapshot: WireRecord | null | undefined,
  args: readonly unknown[],
  st: ExecState,
  migration: boolean,
): Transition {
  const fn = collection.functions.get(functionName);
  if (!fn) {
    throw new RuntimeFault('function/not-found', `method "${functionName}" not found in collection "${collection.collectionId}"`);
  }
  if (isMigration(fn.declaration) !== migration) {
    throw new RuntimeFault(
      'function/not-found',
      migration
        ? `method "${functionName}" of collection "${collection.collectionId}" is not a migration`
        : `method "${functionName}" of collection "${collection.collectionId}" is a migration: it runs over the stored records when its schema is installed, and cannot be called`,
    );
  }
  const isConstructor = functionName === 'constructor';
  if (!isConstructor && (snapshot === null || snapshot === undefined)) {
    throw new RuntimeFault('record/not-found', `method "${functionName}" needs the record it runs on, and none was given`);
  }
  if (!Array.isArray(args)) throw invalidArgs(`method ${functionName} args invalid, expected an array of arguments`);

  // `this`: empty for a constructor, otherwise a fresh copy of the snapshot.
  const self = tagRecord(isConstructor ? newObject() : recordFromSnapshot(collection, snapshot!), collection.collectionId);
  const originalId = isConstructor ? undefined : (snapshot as WireRecord).id;

  const records = new RecordArguments(collection, self, isConstructor ? undefined : (originalId as string));
  const values = argumentValues(collection, functionName, fn.declaration.parameters, args, records);

  const result = invoke(st, self, fn, values);

  let record: WireRecord | null = null;
  if (!st.selfdestructed) {
    if (isConstructor) {
      if (self.id === undefined || self.id === null) {
        throw new RuntimeFault('constructor/no-id-assigned', 'constructor must assign id');
      }
    } else if (self.id !== originalId) {
      throw new RuntimeFault('record/id-modified', 'record ID was modified');
    }
    record = recordToWire(collection, self, '');
    checkSize(record, 'record', st);
  }
  const changed = records.changed();
  for (const other of changed) checkSize(other.record, `record "${other.id}"`, st);
  const returnValue = returnToWire(collection, fn.declaration.returnType, result);
  checkSize(returnValue, 'return value', st);
  const transition: Transition = { record, deleted: st.selfdestructed, changed, returnValue, gasUsed: st.gasUsed };
  if (st.logs) transition.logs = st.logs;
  return transition;
}

/** Whether the function is a migration (`@migrate`, docs/checker.md). */
export function isMigration(fn: FunctionDeclaration): boolean {
  return fn.decorators.some((d) => d.name === 'migrate');
}

// ---------------------------------------------------------------------------------------------
// Records

/** A result is refused before anything serialises it when its JSON text would be longer than the limit. */
function checkSize(value: JsonValue | undefined, what: string, st: ExecState): void {
  const limit = st.limits.maxRecordSize;
  if (jsonLongerThan(value, limit)) throw limitFault(`${what} too large: its JSON text would be longer than the limit of ${limit} characters`);
}

function recordFromSnapshot(collection: CompiledCollection, snapshot: WireRecord): RuntimeObject {
  if (typeof snapshot !== 'object' || snapshot === null || Array.isArray(snapshot)) {
    throw new RuntimeFault('record/invalid-field', 'the record snapshot must be an object');
  }
  if (typeof snapshot.id !== 'string') {
    throw new RuntimeFault('record/invalid-field', `value at field "id" does not match the schema type, expected type: string, got value: ${JSON.stringify(snapshot.id) ?? 'undefined'}`);
  }
  try {
    return fieldsFromWire(collection.fields, snapshot, '', collection.storedConversion);
  } catch (error) {
    throw recordFault(error);
  }
}

function recordToWire(collection: CompiledCollection, record: RuntimeObject, prefix: string): WireRecord {
  try {
    return fieldsToWire(collection.fields, record, prefix, collection.conversion);
  } catch (error) {
    throw recordFault(error);
  }
}

function recordFault(error: unknown): unknown {
  if (!(error instanceof ConversionError)) return error;
  if (error.kind === 'missing') return new RuntimeFault('record/missing-field', `record is missing field "${error.path}"`);
  const detail = error.detail.startsWith('expected type:')
    ? `value at field "${error.path}" does not match the schema type, ${error.detail}`
    : `value at field "${error.path}" is invalid: ${error.detail}`;
  return new RuntimeFault('record/invalid-field', detail);
}

/** The record arguments of one call: same-collection ones are shared by id (and with `this`) and may change. */
class RecordArguments {
  private readonly own = new Map<string, { value: RuntimeObject; input: WireRecord }>();

  constructor(
    private readonly collection: CompiledCollection,
    private readonly self: RuntimeObject,
    private readonly selfId: string | undefined,
  ) {}

  load(parameter: string, expected: string, argument: unknown): RuntimeObject {
    const fail = (detail: string) => invalidArgs(`invalid argument type for parameter "${parameter}": ${detail}`);
    if (typeof argument !== 'object' || argument === null || Array.isArray(argument)) {
      throw fail(`expected a record of "${expected}" as { collectionId, id, data }`);
    }
    const { collectionId, id, data } = argument as Partial<RecordArgument>;
    if (id === undefined) throw fail('record reference missing "id" field');
    if (typeof id !== 'string') throw fail('record reference has invalid field type');
    const target = argumentCollection(this.collection, expected, typeof collectionId === 'string' ? collectionId : undefined);
    if (!target.ok) throw fail(target.problem);
    const { collectionId: fullId, sameCollection } = target;
    if (typeof data !== 'object' || data === null || Array.isArray(data)) {
      throw fail(`the record "${id}" of "${fullId}" was not loaded (pass { collectionId, id, data })`);
    }
    if (data.id !== id) throw fail(`the loaded record's id ${JSON.stringify(data.id)} is not the referenced id ${JSON.stringify(id)}`);

    if (sameCollection) {
      if (id === this.selfId) return this.self;
      const seen = this.own.get(id);
      if (seen) return seen.value;
      const value = tagRecord(this.convert(this.collection, data, parameter, fail), fullId);
      this.own.set(id, { value, input: data });
      return value;
    }
    const schema = this.collection.sibling(expected);
    const value = schema ? this.convert(schema, data, parameter, fail) : (this.generic(data, fail) as RuntimeObject);
    return deepFreeze(tagRecord(value, fullId));
  }

  private generic(data: WireRecord, fail: (d: string) => Error): unknown {
    try {
      return genericFromWire(data);
    } catch (error) {
      if (error instanceof ConversionError) throw fail(error.detail);
      throw error;
    }
  }

  private convert(schema: CompiledCollection, data: WireRecord, parameter: string, fail: (d: string) => Error): RuntimeObject {
    try {
      return fieldsFromWire(schema.fields, data, '', schema.storedConversion);
    } catch (error) {
      if (error instanceof ConversionError) throw fail(`${error.detail} (at "${parameter}.${error.path}")`);
      throw error;
    }
  }

  /** The same-collection records the call changed, in wire form. */
  changed(): ChangedRecord[] {
    const changed: ChangedRecord[] = [];
    for (const [id, { value, input }] of this.own) {
      if (value.id !== id) throw new RuntimeFault('record/id-modified', `record ID was modified (record argument "${id}")`);
      const record = recordToWire(this.collection, value, '');
      if (!wireEquals(record, input)) changed.push({ collectionId: recordCollectionOf(value)!, id, record });
    }
    return changed;
  }
}

// ---------------------------------------------------------------------------------------------
// Arguments

function argumentValues(
  collection: CompiledCollection,
  functionName: string,
  parameters: readonly Parameter[],
  args: readonly unknown[],
  records: RecordArguments,
): unknown[] {
  const required = parameters.filter((p) => !p.optional).length;
  if (args.length < required) throw invalidArgs(`method ${functionName} args invalid, expected ${required} got ${args.length}`);
  if (args.length > parameters.length || args.length > MAX_ARGUMENTS) {
    throw invalidArgs(`method ${functionName} args invalid, expected ${parameters.length} got ${args.length}`);
  }
  return parameters.map((parameter, i) => {
    const name = parameter.name.name;
    const value = args[i];
    if (value === undefined || value === null) {
      if (parameter.optional) return undefined;
      throw invalidArgs(`invalid argument type for parameter "${name}": expected type: ${describeType(parameter)}, got value: ${String(value)}`);
    }
    const type = parameter.type;
    if (type.kind === 'recordType') return records.load(name, collection.name, value);
    if (type.kind === 'referenceType') return records.load(name, type.collection.name, value);
    try {
      return valueFromWire(type, value, name, collection.conversion);
    } catch (error) {
      if (!(error instanceof ConversionError)) throw error;
      const where = error.path === name ? '' : ` (at "${error.path}")`;
      throw invalidArgs(`invalid argument type for parameter "${name}": ${error.detail}${where}`);
    }
  });
}

function describeType(parameter: Parameter): string {
  return typeText(parameter.type);
}

function returnToWire(collection: CompiledCollection, returnType: Parameter['type'] | null, value: unknown): JsonValue | undefined {
  if (value === undefined) return undefined;
  try {
    return returnType ? valueToWire(returnType, value, 'return value', collection.conversion) : genericToWire(value);
  } catch (error) {
    if (!(error instanceof ConversionError)) throw error;
    if (!returnType) throw new RuntimeFault('function/invalid-return', `the return value cannot be returned: ${error.detail}`);
    throw new RuntimeFault('function/invalid-return', `the return value does not match the declared type ${typeText(returnType)}: ${error.detail}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Errors

function toRuntimeError(error: unknown, collection: CompiledCollection, st: ExecState | undefined): RuntimeError {
  let result: RuntimeError;
  let inBody = false;
  if (error instanceof RuntimeFault) {
    result = error.toError();
    inBody = error.reason.startsWith('function/') && error.reason !== 'function/not-found' && error.reason !== 'function/invalid-args' && error.reason !== 'function/invalid-return';
  } else if (error instanceof RangeError && /call stack/i.test(error.message)) {
    result = { reason: 'function/limit-exceeded', message: 'stack overflow: the function nests too deeply' };
    inBody = true;
  } else if (error instanceof RangeError && /limit (gas|max)/.test(error.message)) {
    result = { reason: 'function/invalid-args', message: error.message };
  } else if (error instanceof TypeError && /read[- ]only|not extensible|Cannot (add|delete|assign to|define) property/i.test(error.message)) {
    // Records of other collections are frozen: the engine refuses every write to them.
    result = { reason: 'function/javascript-exception', message: 'JavaScript exception error: Cannot change a read-only value (a record of another collection)' };
    inBody = true;
  } else if (error instanceof Error) {
    result = { reason: 'function/javascript-exception', message: `JavaScript exception error: ${error.message}` };
    inBody = true;
  } else {
    result = { reason: 'function/javascript-exception', message: `JavaScript exception error: ${String(error)}` };
    inBody = true;
  }
  if (inBody && st?.span) {
    result.span = st.span;
    if (collection.source) {
      const position = collection.source.position(st.span.start);
      result.line = position.line;
      result.column = position.column;
    }
  }
  return result;
}
