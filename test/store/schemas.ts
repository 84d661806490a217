// Collection ASTs for the store tests, built by hand from a compact description (the store needs only the
// fields and the @index declarations of a checked schema).

import type { Collection, FieldDeclaration, IndexField, TypeNode } from '../../src/lang/index.ts';
import { layoutOf, type Layout } from '../../src/store/index.ts';

export type TypeSpec =
  | 'string'
  | 'number'
  | 'boolean'
  | 'bytes'
  | 'PublicKey'
  | 'string[]'
  | 'map<string, number>'
  | { readonly ref: string }
  | { readonly object: Readonly<Record<string, TypeSpec>> };

const span = { start: 0, end: 0 };
const ident = (name: string) => ({ kind: 'identifier' as const, name, span });

function typeNode(spec: TypeSpec): TypeNode {
  if (typeof spec === 'object') {
    if ('ref' in spec) return { kind: 'referenceType', collection: ident(spec.ref), span };
    return { kind: 'objectType', fields: fieldNodes(spec.object), span };
  }
  switch (spec) {
    case 'PublicKey':
      return { kind: 'publicKeyType', span };
    case 'string[]':
      return { kind: 'arrayType', element: typeNode('string'), span };
    case 'map<string, number>':
      return { kind: 'mapType', key: typeNode('string'), value: typeNode('number'), span };
    default:
      return { kind: 'primitiveType', name: spec, span };
  }
}

/** Field names ending in `?` are optional. */
function fieldNodes(fields: Readonly<Record<string, TypeSpec>>): FieldDeclaration[] {
  return Object.entries(fields).map(([name, spec]) => ({
    kind: 'field',
    name: ident(name.replace(/\?$/, '')),
    optional: name.endsWith('?'),
    type: typeNode(spec),
    decorators: [],
    span,
  }));
}

/** Each index is a list of entries: `path` (ascending) or `path desc`. */
export function collection(name: string, fields: Readonly<Record<string, TypeSpec>>, indexes: readonly (readonly string[])[] = []): Collection {
  return {
    kind: 'collection',
    name: ident(name),
    decorators: [],
    span,
    items: [
      ...fieldNodes(fields),
      ...indexes.map((entries) => ({
        kind: 'index' as const,
        span,
        fields: entries.map((entry): IndexField => {
          const [path, direction] = entry.split(' ');
          return {
            kind: 'indexField',
            path: path!.split('.').map(ident),
            direction: direction === 'desc' ? 'desc' : 'asc',
            bracketed: direction !== undefined,
            span,
          };
        }),
      })),
    ],
  };
}

/** People: every kind of indexable field, a nested object, and two declared indexes. */
export const personSchema = collection(
  'Person',
  {
    id: 'string',
    name: 'string',
    'age?': 'number',
    'active?': 'boolean',
    'owner?': 'PublicKey',
    'boss?': { ref: 'Person' },
    'info?': { object: { city: 'string', 'zip?': 'number' } },
    'tags?': 'string[]',
    'photo?': 'bytes',
  },
  [['name', 'age desc'], ['info.city', 'age']],
);

export const personLayout: Layout = layoutOf(personSchema);

/** Items: the shapes the property tests page through. */
export const itemSchema = collection(
  'Item',
  { id: 'string', group: 'string', 'score?': 'number', 'flag?': 'boolean' },
  [['group', 'score'], ['group', 'score desc'], ['flag', 'group', 'score']],
);

export const itemLayout: Layout = layoutOf(itemSchema);
