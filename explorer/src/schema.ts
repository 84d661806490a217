// What the explorer needs to know about a collection, read from its `Collection` record's `ast` (Polylang 0.6's
// stable AST, the same JSON the Polybase client reads): fields, functions with their parameter types, and the
// indexes a where/sort can use (docs/store.md "Indexes and the planner").

import { searchFieldsOf } from './search-fields.ts';
import type { StableType } from '../../src/lang/index.ts';

export type { StableType };

interface StableDirective {
  kind: 'directive';
  name: string;
  arguments: { kind: 'fieldreference'; path: string[] }[];
}

type StableAttribute =
  | { kind: 'property'; name: string; type: StableType; required: boolean; directives: { name: string }[] }
  | { kind: 'method'; name: string; attributes: StableMethodAttribute[] }
  | { kind: 'index'; fields: { direction: 'asc' | 'desc'; fieldPath: string[] }[] }
  | StableDirective;

type StableMethodAttribute = { kind: 'parameter'; name: string; type: StableType; required: boolean } | { kind: 'returnvalue' } | StableDirective;

interface StableCollection {
  kind: 'collection';
  namespace: { value: string };
  name: string;
  attributes: StableAttribute[];
}

export interface Parameter {
  name: string;
  type: StableType;
  required: boolean;
}

export interface FunctionInfo {
  name: string;
  parameters: Parameter[];
}

export interface IndexField {
  path: string;
  direction: 'asc' | 'desc';
  type: StableType;
  /** Records may lack the field (it, or an object it lies in, is optional): `$exists` applies. */
  optional?: true;
}

export interface CollectionInfo {
  id: string;
  namespace: string;
  name: string;
  fields: Parameter[];
  constructorParameters: Parameter[];
  functions: FunctionInfo[];
  /** `[id]` first, then each `@index(...)` in source order, then the automatic single-field ones. */
  indexes: IndexField[][];
  /** `@public` or a collection-level `@read`: anyone may list it. */
  publicRead: boolean;
  /**
   * The fields that grant read of a record: `@read` or `@delegate` fields of a PublicKey or record type, or an array
   * of them. A list of a collection not readable by everyone must fix one of them to the caller (docs/service.md,
   * "Private records in lists").
   */
  readFields: ReadField[];
  /** The fields `@search(...)` covers (empty without one): the records view then has a search box. */
  searchFields: string[];
}

export interface ReadField {
  name: string;
  /** The field's type, or its element's for an array. */
  element: StableType;
  array: boolean;
}

const INDEXABLE = new Set(['string', 'number', 'boolean']);

function indexable(type: StableType): boolean {
  return (type.kind === 'primitive' && INDEXABLE.has(type.value)) || type.kind === 'publickey' || type.kind === 'foreignrecord';
}

/**
 * The collection `id` (`ns/Name`) described by a Collection record's `ast` text (and its schema `code`, for the
 * `@search` the ast leaves out); throws when it is not there.
 */
export function collectionInfo(id: string, astText: string, code = ''): CollectionInfo {
  const collections = JSON.parse(astText) as StableCollection[];
  const name = id.slice(id.lastIndexOf('/') + 1);
  const collection = collections.find((c) => c.kind === 'collection' && c.name === name);
  if (!collection) throw new Error(`the schema of ${id} does not define collection ${name}`);
  const fields: Parameter[] = [];
  const readFields: ReadField[] = [];
  const functions: FunctionInfo[] = [];
  const explicit: { direction: 'asc' | 'desc'; fieldPath: string[] }[][] = [];
  let publicRead = false;
  for (const attribute of collection.attributes) {
    if (attribute.kind === 'property') {
      fields.push({ name: attribute.name, type: attribute.type, required: attribute.required });
      const array = attribute.type.kind === 'array';
      const element = attribute.type.kind === 'array' ? attribute.type.value : attribute.type;
      const grants = attribute.directives.some((d) => d.name === 'read' || d.name === 'delegate');
      if (grants && (element.kind === 'publickey' || element.kind === 'foreignrecord')) readFields.push({ name: attribute.name, element, array });
    }
    else if (attribute.kind === 'method') {
      const parameters = attribute.attributes.filter((a): a is Extract<StableMethodAttribute, { kind: 'parameter' }> => a.kind === 'parameter');
      functions.push({ name: attribute.name, parameters: parameters.map(({ name, type, required }) => ({ name, type, required })) });
    } else if (attribute.kind === 'index') explicit.push(attribute.fields);
    else if (attribute.kind === 'directive' && (attribute.name === 'public' || (attribute.name === 'read' && attribute.arguments.length === 0))) publicRead = true;
  }
  const typeOf = (path: string[]): StableType => fieldType(fields, path) ?? { kind: 'primitive', value: 'string' };
  // As the store lays them out (src/store/layout.ts): `[id]` (the records' own order), each `@index` (a trailing
  // `id asc` is implied, so it is left out here), then `[field]` for each indexable top-level field but `id`
  // that no single-field `@index` covers.
  const indexes: IndexField[][] = [[{ path: 'id', direction: 'asc', type: { kind: 'primitive', value: 'string' } }]];
  const add = (index: IndexField[]) => {
    if (index.length > 0 && !indexes.some((other) => indexLabel(other) === indexLabel(index))) indexes.push(index);
  };
  for (const declared of explicit) {
    const index = declared.map((field) => ({
      path: field.fieldPath.join('.'),
      direction: field.direction,
      type: typeOf(field.fieldPath),
      ...(mayBeAbsent(fields, field.fieldPath) ? { optional: true as const } : {}),
    }));
    if (index.length > 1 && index.at(-1)!.path === 'id' && index.at(-1)!.direction === 'asc') index.pop();
    add(index);
  }
  const singleField = new Set(indexes.filter((index) => index.length === 1).map((index) => index[0]!.path));
  for (const field of fields) {
    if (field.name !== 'id' && indexable(field.type) && !singleField.has(field.name)) add([{ path: field.name, direction: 'asc', type: field.type, ...(field.required ? {} : { optional: true as const }) }]);
  }
  const constructor = functions.find((f) => f.name === 'constructor');
  return {
    id,
    namespace: collection.namespace.value,
    name,
    fields,
    constructorParameters: constructor?.parameters ?? [],
    functions: functions.filter((f) => f.name !== 'constructor'),
    indexes,
    publicRead,
    readFields,
    searchFields: searchFieldsOf(code, name),
  };
}

/** Whether a field, or an object it lies in, is optional. */
function mayBeAbsent(fields: readonly Parameter[], path: readonly string[]): boolean {
  type Level = readonly { name: string; type: StableType; required: boolean }[];
  let level: Level | undefined = fields;
  for (const part of path) {
    const field: Level[number] | undefined = level?.find((f) => f.name === part);
    if (!field) return false;
    if (!field.required) return true;
    level = field.type.kind === 'object' ? field.type.fields : undefined;
  }
  return false;
}

function fieldType(fields: readonly Parameter[], path: readonly string[]): StableType | undefined {
  let type: StableType | undefined = fields.find((f) => f.name === path[0])?.type;
  for (const part of path.slice(1)) type = type?.kind === 'object' ? type.fields.find((f) => f.name === part)?.type : undefined;
  return type;
}

/** The type as a schema writes it: `string`, `map<string, number>`, `Account`, `{ a: string; b?: number; }`. */
export function typeText(type: StableType): string {
  switch (type.kind) {
    case 'primitive':
      return type.value;
    case 'publickey':
      return 'PublicKey';
    case 'array':
      return `${typeText(type.value)}[]`;
    case 'map':
      return `map<${typeText(type.key)}, ${typeText(type.value)}>`;
    case 'object':
      return `{ ${type.fields.map((f) => `${f.name}${f.required ? '' : '?'}: ${typeText(f.type)};`).join(' ')} }`;
    case 'record':
      return 'record';
    case 'foreignrecord':
      return type.collection;
  }
}

/** `Account` in namespace `app` is `app/Account`: a reference's `collectionId`. */
export function referencedCollectionId(info: CollectionInfo, collection: string): string {
  return collection.includes('/') ? collection : `${info.namespace}/${collection}`;
}

/** `done, priority desc`: an index as its `@index(...)` would list it. */
export function indexLabel(index: readonly IndexField[]): string {
  return index.map((field) => `${field.path}${field.direction === 'desc' ? ' desc' : ''}`).join(', ');
}
