// A collection's full-text search index in its layout: the string fields `@search(...)` names, and an id derived
// from them (a different field list is a different index, built anew for the stored records and the old one
// dropped, as an `@index` change is).

import { createHash } from 'node:crypto';
import type { Collection, SearchDeclaration } from '../lang/index.ts';
import { StoreError } from './errors.ts';
import type { FieldInfo } from './layout.ts';

export interface SearchDefinition {
  /** 16 hex digits derived from the fields: the index's name (ids of `@index`es never collide with it). */
  readonly id: string;
  /** The searched top-level string fields, in the order declared. */
  readonly fields: readonly string[];
}

/** The collection's search index, or undefined when it declares none; bad declarations are `collection/invalid-schema`. */
export function searchOf(collection: Collection, fields: ReadonlyMap<string, FieldInfo>): SearchDefinition | undefined {
  const declarations = collection.items.filter((item): item is SearchDeclaration => item.kind === 'search');
  if (declarations.length === 0) return undefined;
  if (declarations.length > 1) throw invalidSchema('a collection may declare at most one @search');
  const names = declarations[0]!.fields.map((field) => field.name);
  if (names.length === 0) throw invalidSchema('@search needs at least one field');
  for (const [i, name] of names.entries()) {
    const info = fields.get(name);
    if (!info) throw invalidSchema(`search field "${name}" not found in schema`);
    if (info.indexable?.kind !== 'string') throw invalidSchema(`cannot search field "${name}" of type ${info.typeText}; only string fields can be searched`);
    if (names.indexOf(name) !== i) throw invalidSchema(`field "${name}" is listed twice in @search`);
  }
  const id = createHash('sha256').update(JSON.stringify(['search', names])).digest('hex').slice(0, 16);
  return { id, fields: names };
}

/**
 * The name of the collection's search index in the backend (a table name suffix: letters and digits): the
 * collection and the index id hashed, so that a collection deleted and made again, or another collection, never
 * finds its rows.
 */
export function searchTableId(collectionId: string, search: SearchDefinition): string {
  return createHash('sha256').update(`${collectionId}\0${search.id}`).digest('hex').slice(0, 16);
}

function invalidSchema(message: string): StoreError {
  return new StoreError('invalid-argument', 'collection/invalid-schema', message);
}
