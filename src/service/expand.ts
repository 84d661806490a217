// Expanding references (`expand=owner,team.lead` on a get, a list or a stream): beside each record's `data`, an
// `expand` object holds, for each path asked, the record its reference points to, as `{"data": record}` (with its
// own `expand` for a second level), or null. The reference in `data` stays as it is, so an answer without
// `expand` is Polybase's, byte for byte, and a client that does not know `expand` reads the rest unchanged.
//
// An expanded record is checked for the caller's read permission like a get: one it may not read, one that does
// not exist (or whose collection does not), and an unset field are all null, so the answer never tells whether a
// record the caller may not read exists. The paths are checked against the schemas before anything is read: each
// segment must be a field holding a reference or an array of references (then `expand` holds an array, element by
// element), at most two levels. One answer (a get, a list page, a stream event) loads at most
// MAX_EXPANDED_RECORDS distinct records; their permission checks share one budget of delegate loads.

import type { TypeNode } from '../lang/index.ts';
import type { JsonObject } from '../store/index.ts';
import { ServiceError, invalidArgument } from './errors.ts';
import type { RecordService } from './records.ts';
import type { Caller } from './signature.ts';

/** The most paths one `expand` parameter names. */
export const MAX_EXPAND_PATHS = 10;
/** The most levels of a path (`team.lead` is two). */
export const MAX_EXPAND_LEVELS = 2;
/** The most distinct records one answer expands (each read once, and checked once). */
export const MAX_EXPANDED_RECORDS = 1000;

/** One field to expand, with the fields to expand in the records it points to. */
export interface ExpandNode {
  readonly field: string;
  /** The collection its references point to. */
  readonly collectionId: string;
  /** Whether the field is an array of references. */
  readonly array: boolean;
  readonly children: readonly ExpandNode[];
}

/** `expand` as the query string gives it: paths of field names (`team.lead` is `["team", "lead"]`). */
export function parseExpand(text: string | undefined): string[][] | undefined {
  if (text === undefined || text === '') return undefined;
  const paths = text.split(',').map((path) => path.trim());
  if (paths.length > MAX_EXPAND_PATHS) {
    throw invalidArgument('request/invalid-query', `query parameter "expand" names ${paths.length} paths; at most ${MAX_EXPAND_PATHS} are allowed`);
  }
  return paths.map((path) => {
    const segments = path.split('.');
    if (segments.some((segment) => segment === '')) {
      throw invalidArgument('request/invalid-query', `query parameter "expand": ${JSON.stringify(path.slice(0, 100))} is not a field path; expected field or field.field, separated by commas`);
    }
    if (segments.length > MAX_EXPAND_LEVELS) {
      throw invalidArgument('request/invalid-query', `query parameter "expand": "${path.slice(0, 100)}" has ${segments.length} levels; at most ${MAX_EXPAND_LEVELS} (field.field) are expanded`);
    }
    return segments;
  });
}

/**
 * The fields to expand, checked against the schemas: every segment a field of its collection holding a reference
 * or an array of references. Every problem is a 400 naming the path and the field.
 */
export async function planExpand(service: RecordService, collectionId: string, paths: readonly string[][]): Promise<ExpandNode[]> {
  interface Draft {
    field: string;
    collectionId: string;
    array: boolean;
    children: Draft[];
  }
  const roots: Draft[] = [];
  for (const path of paths) {
    let level = roots;
    let at = collectionId;
    for (const [depth, field] of path.entries()) {
      let node = level.find((n) => n.field === field);
      if (!node) {
        const target = await referenceOf(service, at, field, path.slice(0, depth + 1).join('.'), depth === 0);
        node = { field, collectionId: target.collectionId, array: target.array, children: [] };
        level.push(node);
      }
      level = node.children;
      at = node.collectionId;
    }
  }
  return roots;
}

/** The collection a field's references point to; `top`: the field is the asked collection's own (a 404 stays one). */
async function referenceOf(service: RecordService, collectionId: string, field: string, path: string, top: boolean): Promise<{ collectionId: string; array: boolean }> {
  const bad = (why: string) => invalidArgument('request/invalid-query', `query parameter "expand": "${path}": ${why}`);
  let collection;
  try {
    collection = await service.collections.resolve(collectionId);
  } catch (error) {
    if (!top && error instanceof ServiceError && error.reason === 'collection/not-found') {
      throw bad(`collection "${collectionId}", which the references point to, does not exist, so it has no field "${field}" to expand`);
    }
    throw error;
  }
  const fields = collection.kind === 'user' ? collection.compiled.fields : collection.node.items.filter((item) => item.kind === 'field');
  const declaration = fields.find((f) => f.name.name === field);
  if (!declaration) throw bad(`collection "${collectionId}" has no field "${field}"`);
  const type = declaration.type;
  const element = type.kind === 'arrayType' ? type.element : type;
  if (element.kind !== 'referenceType') throw bad(`field "${field}" of collection "${collectionId}" is ${describe(type)}, not a reference to a record (or an array of them)`);
  const name = element.collection.name;
  const target = collection.kind === 'user' ? collection.compiled.conversion.collectionIdOf(name) : name;
  return { collectionId: target, array: type.kind === 'arrayType' };
}

function describe(type: TypeNode): string {
  switch (type.kind) {
    case 'primitiveType':
      return `a ${type.name}`;
    case 'publicKeyType':
      return 'a PublicKey';
    case 'arrayType':
      return `an array of ${describe(type.element).replace(/^an? /, '')}`;
    case 'mapType':
      return 'a map';
    case 'objectType':
      return 'an object';
    default:
      return `a ${type.kind.replace(/Type$/, '')}`;
  }
}

/** The expansion of one answer: each distinct record read and checked once, at most MAX_EXPANDED_RECORDS. */
export class Expander {
  readonly #read: (collectionId: string, id: string) => Promise<JsonObject | null>;
  readonly #records = new Map<string, Promise<JsonObject | null>>();

  constructor(service: RecordService, caller: Caller) {
    this.#read = service.expansionReader(caller);
  }

  /** The `expand` object of one record: for each node, its entry (or array of entries), or null. */
  async expand(record: JsonObject, nodes: readonly ExpandNode[]): Promise<Record<string, unknown>> {
    const out: Record<string, unknown> = {};
    for (const node of nodes) {
      const value = record[node.field];
      if (node.array) out[node.field] = Array.isArray(value) ? await Promise.all(value.map((item) => this.#entry(item, node))) : null;
      else out[node.field] = await this.#entry(value, node);
    }
    return out;
  }

  async #entry(reference: unknown, node: ExpandNode): Promise<{ data: JsonObject; expand?: Record<string, unknown> } | null> {
    if (typeof reference !== 'object' || reference === null) return null;
    const { collectionId, id } = reference as { collectionId?: unknown; id?: unknown };
    // A reference holds its collection; one to another collection than the field's type is not followed.
    if (collectionId !== node.collectionId || typeof id !== 'string') return null;
    const key = JSON.stringify([collectionId, id]);
    let loaded = this.#records.get(key);
    if (!loaded) {
      if (this.#records.size >= MAX_EXPANDED_RECORDS) {
        throw new ServiceError(
          'invalid-argument',
          'request/too-many-expansions',
          `this answer would expand more than ${MAX_EXPANDED_RECORDS} records; ask for fewer records (limit) or fewer fields in "expand"`,
        );
      }
      loaded = this.#read(collectionId, id);
      this.#records.set(key, loaded);
    }
    const data = await loaded;
    if (!data) return null;
    return node.children.length === 0 ? { data } : { data, expand: await this.expand(data, node.children) };
  }
}
