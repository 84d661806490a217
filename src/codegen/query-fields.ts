// The fields a list may filter and sort on, and the type of value a filter on each takes. A path is queryable
// when an index starts with it or holds it (the store's layout, src/store/layout.ts): `id`, every top-level field
// of an indexable type (each has an automatic index) and every path of an `@index(...)`. An indexed array of
// indexable values is a query field typed as its array (`string[]`): the client's types give it only `$contains`
// of one element, and no sort (src/client/where.ts). A path that may be absent (declared optional, or inside an
// optional object) is an optional property (`score?: number`): only those take `$exists`. Queries that combine
// fields need a compound `@index`; the service answers `indexer/missing-index` naming the one to add, since
// which combinations an index serves depends on the order of equalities, the range and the sort.
import { isIndexable, objectField, stringType, type CheckedCollection, type Type } from '../lang/index.ts';
import { typeText } from './type-text.ts';

export interface QueryField {
  /** The dotted path, as the wire's where and sort name it. */
  path: string;
  /** The TypeScript type of a value a filter on the path takes (an array field's: its array type). */
  valueType: string;
  /** The field, or an object it lies in, is optional: records may lack it (`$exists` applies). */
  optional: boolean;
}

export function queryFields(collection: CheckedCollection): QueryField[] {
  const fields = new Map<string, QueryField>();
  const add = (path: string, found: { type: Type; optional: boolean } | undefined, arrays: boolean) => {
    if (found === undefined || fields.has(path)) return;
    const { type, optional } = found;
    if (isIndexable(type)) fields.set(path, { path, valueType: whereValueType(type), optional });
    else if (arrays && type.kind === 'array' && isIndexable(type.element)) fields.set(path, { path, valueType: `${whereValueType(type.element)}[]`, optional });
  };
  add('id', { type: collection.fieldsByName.get('id')?.type ?? stringType, optional: false }, false);
  // Arrays get no automatic index: only an `@index` naming one makes it a query field.
  for (const field of collection.fields) add(field.name, { type: field.type, optional: field.optional }, false);
  for (const index of collection.indexes) {
    for (const field of index.fields) add(field.path.join('.'), typeAtPath(collection, field.path), true);
  }
  return [...fields.values()];
}

/** What a where compares with: a key in either form, a reference with both its parts (the store compares both). */
function whereValueType(type: Type): string {
  return typeText(type, type.kind === 'publicKey' ? 'argument' : 'record');
}

/** The type at a dotted path, and whether it or an object it lies in is optional. */
function typeAtPath(collection: CheckedCollection, path: readonly string[]): { type: Type; optional: boolean } | undefined {
  const first = collection.fieldsByName.get(path[0]!);
  if (!first) return undefined;
  let type: Type = first.type;
  let optional = first.optional;
  for (const segment of path.slice(1)) {
    if (type.kind !== 'object') return undefined;
    const field = objectField(type, segment);
    if (!field) return undefined;
    type = field.type;
    optional ||= field.optional;
  }
  return { type, optional };
}
