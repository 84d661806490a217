// Polylang 0.6's "stable AST": the JSON that `@polybase/polylang@0.6.0`'s `parse(code, namespace)`
// returns as its second value and that Polybase stores in a `Collection` record's `ast` field. The
// Polybase client reads it to decide when to sign requests and how to decode `bytes`, so the output
// must match Polylang's byte for byte once serialised: the objects below are built with their keys
// in Polylang's order.

import type {
  Collection,
  Decorator,
  FieldDeclaration,
  FunctionDeclaration,
  IndexDeclaration,
  PrimitiveTypeName,
  Program,
  SizedNumberName,
  TypeNode,
} from './ast.ts';
import type { SourceFile } from './source.ts';

export type StableType =
  | { kind: 'primitive'; value: PrimitiveTypeName | SizedNumberName }
  | { kind: 'publickey' }
  | { kind: 'array'; value: StableType }
  | { kind: 'map'; key: StableType; value: StableType }
  | { kind: 'object'; fields: { name: string; type: StableType; required: boolean }[] }
  | { kind: 'record' }
  | { kind: 'foreignrecord'; collection: string };

export interface StableFieldReference {
  kind: 'fieldreference';
  path: string[];
}

export interface StableCollection {
  kind: 'collection';
  namespace: { kind: 'namespace'; value: string };
  name: string;
  attributes: StableCollectionAttribute[];
}

export type StableCollectionAttribute =
  | {
      kind: 'property';
      name: string;
      type: StableType;
      /** Property directives are the one place Polylang writes no `kind`. */
      directives: { name: string; arguments: StableFieldReference[] }[];
      required: boolean;
    }
  | { kind: 'method'; name: string; attributes: StableMethodAttribute[]; code: string }
  | { kind: 'index'; fields: { direction: 'asc' | 'desc'; fieldPath: string[] }[] }
  | StableDirective;

export interface StableDirective {
  kind: 'directive';
  name: string;
  arguments: StableFieldReference[];
}

export type StableMethodAttribute =
  | { kind: 'parameter'; name: string; type: StableType; required: boolean }
  | { kind: 'returnvalue'; name: '_'; type: StableType }
  | StableDirective;

/** The stable AST of every collection in `program`; `source` is the text it was parsed from. */
export function toStableAst(program: Program, source: SourceFile | string, namespace: string): StableCollection[] {
  const text = typeof source === 'string' ? source : source.text;
  return program.collections.map((collection) => stableCollection(collection, text, namespace));
}

function stableCollection(collection: Collection, text: string, namespace: string): StableCollection {
  // `@search` is Vellum's: Polylang 0.6's format has no place for it (the Polybase client reads only fields and
  // methods), so the stable AST leaves it out; the schema text keeps it.
  const attributes: StableCollectionAttribute[] = collection.items.flatMap((item): StableCollectionAttribute[] => {
    switch (item.kind) {
      case 'field':
        return [stableProperty(item)];
      case 'function':
        return [stableMethod(item, text)];
      case 'index':
        return [stableIndex(item)];
      case 'search':
        return [];
    }
  });
  // Collection decorators come after every field, method and index.
  attributes.push(...collection.decorators.map(stableDirective));
  return {
    kind: 'collection',
    namespace: { kind: 'namespace', value: namespace },
    name: collection.name.name,
    attributes,
  };
}

function stableProperty(field: FieldDeclaration): StableCollectionAttribute {
  return {
    kind: 'property',
    name: field.name.name,
    type: stableType(field.type),
    directives: field.decorators.map((d) => ({ name: d.name, arguments: stableArguments(d) })),
    required: !field.optional,
  };
}

function stableMethod(fn: FunctionDeclaration, text: string): StableCollectionAttribute {
  const attributes: StableMethodAttribute[] = fn.parameters.map((parameter) => ({
    kind: 'parameter',
    name: parameter.name.name,
    type: stableType(parameter.type),
    required: !parameter.optional,
  }));
  if (fn.returnType) attributes.push({ kind: 'returnvalue', name: '_', type: stableType(fn.returnType) });
  attributes.push(...fn.decorators.map(stableDirective));
  return { kind: 'method', name: fn.name.name, attributes, code: methodCode(fn, text) };
}

/**
 * Polylang's `code`: from the first statement's first character to the last statement's last one
 * (comments before and after are dropped, comments between statements kept); with no statements,
 * the whole text between the braces, untouched.
 */
export function methodCode(fn: FunctionDeclaration, text: string): string {
  const statements = fn.body.body;
  if (statements.length === 0) return text.slice(fn.bodyTextSpan.start, fn.bodyTextSpan.end);
  return text.slice(statements[0]!.span.start, statements[statements.length - 1]!.span.end);
}

function stableIndex(index: IndexDeclaration): StableCollectionAttribute {
  return {
    kind: 'index',
    fields: index.fields.map((field) => ({
      direction: field.direction,
      fieldPath: field.path.map((segment) => segment.name),
    })),
  };
}

function stableDirective(decorator: Decorator): StableDirective {
  return { kind: 'directive', name: decorator.name, arguments: stableArguments(decorator) };
}

function stableArguments(decorator: Decorator): StableFieldReference[] {
  return (decorator.arguments ?? []).map((argument) => ({ kind: 'fieldreference', path: [argument.name] }));
}

export function stableType(type: TypeNode): StableType {
  switch (type.kind) {
    case 'primitiveType':
    // Later Polylang's stable AST writes a sized type as a primitive of that name; Polylang 0.6 (whose
    // format this is) had none, and the Polybase client treats any primitive but bytes alike.
    case 'sizedNumberType':
      return { kind: 'primitive', value: type.name };
    case 'publicKeyType':
      return { kind: 'publickey' };
    case 'arrayType':
      return { kind: 'array', value: stableType(type.element) };
    case 'mapType':
      return { kind: 'map', key: stableType(type.key), value: stableType(type.value) };
    case 'objectType':
      // Decorators on the fields of an object type are dropped, as Polylang does.
      return {
        kind: 'object',
        fields: type.fields.map((f) => ({ name: f.name.name, type: stableType(f.type), required: !f.optional })),
      };
    case 'recordType':
      return { kind: 'record' };
    case 'referenceType':
      return { kind: 'foreignrecord', collection: type.collection.name };
  }
}
