// Which records a call needs loaded: parameters typed `record` or with a collection name receive a
// whole record, but the client sends only a reference (`{id}` or `{collectionId, id}`). The service
// asks this helper what to load, loads it (checking read permission), and passes
// `{ collectionId, id, data }` to `execute`.

import type { CompiledCollection } from './collection.ts';
import type { RuntimeError } from './errors.ts';
import { lastSegment, otherCollection } from './wire.ts';

export interface RecordArgumentRequest {
  /** Position of the argument and name of its parameter. */
  index: number;
  parameter: string;
  collectionId: string;
  id: string;
  /** Whether the record belongs to the called collection (the call may change it). */
  sameCollection: boolean;
}

/**
 * The collection a record argument of type `expected` is in: `given` (the reference's own `collectionId`), or the
 * schema's collection of that name when absent; and whether it is the called collection. Or why it may not be:
 * only the schema's own collection of that name passes (`ns/User`, not `other/User`, which anyone can create).
 */
export function argumentCollection(
  collection: CompiledCollection,
  expected: string,
  given: string | undefined,
): { ok: true; collectionId: string; sameCollection: boolean } | { ok: false; problem: string } {
  const sameCollection = expected === collection.name;
  const expectedId = sameCollection ? collection.collectionId : collection.conversion.collectionIdOf(expected);
  const collectionId = given ?? expectedId;
  if (lastSegment(collectionId) !== expected) {
    return { ok: false, problem: `foreign record reference has incorrect collection id, expected: "${expected}", got: "${lastSegment(collectionId)}"` };
  }
  if (collectionId !== expectedId) return { ok: false, problem: otherCollection(collectionId, expectedId) };
  return { ok: true, collectionId, sameCollection };
}

export function recordArguments(
  collection: CompiledCollection,
  functionName: string,
  args: readonly unknown[],
): { ok: true; records: RecordArgumentRequest[] } | { ok: false; error: RuntimeError } {
  const fn = collection.functions.get(functionName);
  if (!fn) {
    return { ok: false, error: { reason: 'function/not-found', message: `method "${functionName}" not found in collection "${collection.collectionId}"` } };
  }
  const records: RecordArgumentRequest[] = [];
  const parameters = fn.declaration.parameters;
  for (let index = 0; index < parameters.length && index < args.length; index++) {
    const parameter = parameters[index]!;
    const type = parameter.type;
    if (type.kind !== 'recordType' && type.kind !== 'referenceType') continue;
    const value = args[index];
    if (value === undefined || value === null) continue;
    const name = parameter.name.name;
    const fail = (detail: string) =>
      ({ ok: false, error: { reason: 'function/invalid-args', message: `invalid argument type for parameter "${name}": ${detail}` } }) as const;
    const expected = type.kind === 'recordType' ? collection.name : type.collection.name;
    if (typeof value !== 'object' || Array.isArray(value)) return fail(`expected a reference to a record of "${expected}" ({ collectionId, id })`);
    const { collectionId, id } = value as { collectionId?: unknown; id?: unknown };
    if (id === undefined) return fail('record reference missing "id" field');
    if (typeof id !== 'string' || (collectionId !== undefined && typeof collectionId !== 'string')) {
      return fail('record reference has invalid field type');
    }
    const target = argumentCollection(collection, expected, collectionId);
    if (!target.ok) return fail(target.problem);
    records.push({ index, parameter: name, collectionId: target.collectionId, id, sameCollection: target.sameCollection });
  }
  return { ok: true, records };
}
