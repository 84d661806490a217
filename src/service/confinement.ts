// Lists of a private collection must be confined (docs/service.md "Private records in lists"): on a collection
// that is not readable by everyone, a list, a count or a list stream runs only when the index ranges its plan
// reads fix, in every range, a read-granting field (a `@read` or `@delegate` field, as canRead has them) to a
// value that grants the caller read. Then it reads only records the caller may read, and its answer (records,
// cursors, timing, where a scan bound stops) cannot depend on any other record. Any other query is refused
// before an entry is read: a read filter applied while scanning, however its page is shaped, lets a caller
// learn about records it may not read (by bisection on a range, by planting records to reach the scan bound,
// by timing), so it is served only under the `privateLists: 'filtered'` option.
//
// The decision is made from the schema, the plan and the caller, and, for a reference, the one referenced
// record's @delegate fields (the same walk canRead makes, within the request's load budget).

import type { PublicKey } from '../auth/index.ts';
import type { FieldDeclaration } from '../lang/index.ts';
import { delegatesTo, readGrantingFields, type PermissionLoader } from '../runtime/index.ts';
import { publicKeyBytes, type FixedField, type JsonObject, type KeyValue, type ScanBounds, type ScanCheck } from '../store/index.ts';
import type { ResolvedCollection } from './collections.ts';
import { ServiceError } from './errors.ts';

/** The reason of the 403 a list, count or stream gets when it is not confined. */
export const UNCONFINED_REASON = 'permission/unconfined-query';

/** The confinement of one list, count or stream. */
export interface Confinement {
  /** Given to the store, which calls it once the query is planned and before it reads anything. */
  readonly check: ScanCheck;
  /**
   * Whether the record holds, in a read-granting field, a value the check found grants the caller read: true of
   * every record the confined query reads. The read filter asks this before walking the record's other fields,
   * whose references may lead through records the caller may not read and spend the request's budget of loads
   * there: then which of the caller's records a page held would depend on those records.
   */
  readonly proves: (record: JsonObject) => boolean;
}

/**
 * The confinement a list, count or stream of `collection` must pass; undefined when every record is readable by
 * everyone.
 */
export function confinementOf(collection: ResolvedCollection, publicKey: PublicKey | undefined, loader: PermissionLoader, operation: 'list' | 'count'): Confinement | undefined {
  if (collection.publicRead) return undefined;
  const fields = readGrantingFields(collection.kind === 'user' ? collection.compiled : collection.node);
  const granting = new Set(fields.map((field) => field.name.name));
  const refuse = (detail: string) =>
    new ServiceError('permission-denied', UNCONFINED_REASON, `${operation} of "${collection.collectionId}" must be limited to records you may read${detail}`);
  const granted: FixedField[] = [];
  const check = async (bounds: ScanBounds) => {
    if (fields.length === 0) {
      throw refuse(': no record of it can be listed, as it is not @public and has no @read or @delegate field; get a record by its id instead');
    }
    if (!publicKey) throw refuse(`, and an unsigned request may read none: sign the request and add ${hint(fields)}`);
    const key = publicKey.toUncompressed().subarray(1);
    const delegated = new Map<string, Promise<boolean>>();
    const grants = (fixed: FixedField): Promise<boolean> | boolean => {
      if (!granting.has(fixed.path)) return false;
      return grantsRead(fixed.value, key, (reference) => {
        const id = JSON.stringify([reference.collectionId, reference.id]);
        let answer = delegated.get(id);
        if (!answer) delegated.set(id, (answer = delegatesTo(reference, publicKey, loader)));
        return answer;
      });
    };
    const alternatives = new Set(bounds.ranges.map((range) => range.branch)).size;
    for (const range of bounds.ranges) {
      let confined = false;
      for (const fixed of range.fixed) {
        if ((confined = await grants(fixed))) {
          granted.push(fixed);
          break;
        }
      }
      if (confined) continue;
      // Which part of the where is not confined: its $or alternative, and a pin whose value does not grant read.
      const parts: string[] = [];
      if (alternatives > 1 || range.branch > 0) parts.push(`alternative ${range.branch + 1} of the where's $or is not`);
      const pin = range.fixed.find((fixed) => granting.has(fixed.path));
      if (pin) parts.push(deniedPin(pin, fields));
      throw refuse(`${parts.length > 0 ? ` (${parts.join('; ')})` : ''}: add ${hint(fields)}`);
    }
  };
  return { check, proves: (record) => granted.some((fixed) => holds(record[fixed.path], fixed.value)) };
}

/** Whether a record's field value is (or, for an array, has an element that is) the granting value. */
function holds(fieldValue: unknown, granting: KeyValue): boolean {
  const items = Array.isArray(fieldValue) ? fieldValue : [fieldValue];
  return items.some((item) => {
    if (granting.kind === 'publicKey') {
      const bytes = publicKeyBytes(item);
      return bytes !== undefined && Buffer.from(bytes).equals(granting.value);
    }
    if (granting.kind !== 'reference' || typeof item !== 'object' || item === null) return false;
    const { collectionId, id } = item as { collectionId?: unknown; id?: unknown };
    return collectionId === granting.collectionId && id === granting.id;
  });
}

function grantsRead(value: KeyValue, key: Uint8Array, delegates: (reference: { collectionId: string; id: string }) => Promise<boolean>): Promise<boolean> | boolean {
  if (value.kind === 'publicKey') return Buffer.from(value.value).equals(key);
  if (value.kind === 'reference') return delegates({ collectionId: value.collectionId, id: value.id });
  return false;
}

/** Why a pin on a read-granting field confines nothing: its value does not grant the caller read. */
function deniedPin(pin: FixedField, fields: readonly FieldDeclaration[]): string {
  const field = fields.find((f) => f.name.name === pin.path);
  const how = field?.type.kind === 'arrayType' ? 'containing' : 'equal to';
  if (pin.value.kind === 'publicKey') return `"${pin.path}" ${how} 0x${Buffer.from(pin.value.value).toString('hex')} is not your public key`;
  if (pin.value.kind === 'reference') {
    const reference = JSON.stringify({ collectionId: pin.value.collectionId, id: pin.value.id });
    return `"${pin.path}" ${how} ${reference}: that record does not exist or its @delegate fields do not hold your key`;
  }
  return `"${pin.path}" does not grant you read`;
}

/** What to add to the where: one way per read-granting field, then the fields' names. */
function hint(fields: readonly FieldDeclaration[]): string {
  const ways = fields.map((field) => {
    const name = JSON.stringify(field.name.name);
    const element = field.type.kind === 'arrayType' ? field.type.element : field.type;
    const value = element.kind === 'publicKeyType' ? 'your public key' : 'a record ({"collectionId", "id"}) whose @delegate fields hold your key';
    return field.type.kind === 'arrayType' ? `on ${name} with {"$contains": ${value}}` : `on ${name} equal to ${value}`;
  });
  return `a where ${ways.join(', or ')} (fields that grant read: ${fields.map((field) => field.name.name).join(', ')})`;
}
