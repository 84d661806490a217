// Schema rules: what must hold of collections, fields, types, indexes, decorators and function
// headers, independent of function bodies. Resolves every declared type to a semantic type and
// builds the `CheckedCollection`s the body checker and later phases use.

import {
  type Collection,
  type Decorator,
  type FieldDeclaration,
  type FunctionDeclaration,
  type IndexDeclaration,
  type Parameter,
  type Program,
  type Span,
  type TypeNode,
  fieldsOf,
  functionsOf,
  indexesOf,
} from './ast.ts';
import type {
  CheckedCollection,
  CheckedField,
  CheckedFunction,
  CheckedIndex,
  CheckedIndexField,
  CheckedParameter,
} from './checked.ts';
import { type Diagnostic, diagnostic } from './diagnostics.ts';
import { didYouMean } from './suggest.ts';
import {
  type ObjectField,
  type Type,
  anyType,
  arrayOf,
  booleanType,
  bytesType,
  isAuthenticable,
  isIndexable,
  mapOf,
  numberType,
  objectOf,
  publicKeyType,
  recordOf,
  referenceTo,
  stringType,
  typeToString,
  sizedNumber,
} from './types.ts';
import { BUILT_IN_TYPE_NAMES } from './words.ts';

/** A switch, not a lookup in an object: a name cut from the source is not an internalised string, and a keyed load
 *  with one looks it up in the string table. */
function primitiveType(name: 'string' | 'number' | 'boolean' | 'bytes'): Type {
  switch (name) {
    case 'string':
      return stringType;
    case 'number':
      return numberType;
    case 'boolean':
      return booleanType;
    case 'bytes':
      return bytesType;
  }
}

/** Where a type is written: parameters get whole records for collection names. */
type TypeRole = 'field' | 'parameter' | 'return';


/** The type names that are not collections, for suggestions when a reference names no declared collection. */
export interface SchemaResult {
  collections: CheckedCollection[];
  collectionsByName: Map<string, CheckedCollection>;
}

export function checkSchemaRules(program: Program, diagnostics: Diagnostic[]): SchemaResult {
  const declared = new Set<string>();
  for (const collection of program.collections) declared.add(collection.name.name);
  const warnedCollections = new Set<string>();
  const collections: CheckedCollection[] = [];
  const collectionsByName = new Map<string, CheckedCollection>();

  for (const node of program.collections) {
    const name = node.name.name;
    const first = collectionsByName.get(name);
    if (first) {
      diagnostics.push(
        diagnostic('duplicateCollection', node.name.span, [name], [
          { message: `"${name}" is first declared here`, span: first.node.name.span },
        ]),
      );
      continue;
    }
    const checker = new CollectionRules(node, declared, warnedCollections, diagnostics);
    const checked = checker.check();
    collections.push(checked);
    collectionsByName.set(name, checked);
  }
  return { collections, collectionsByName };
}

class CollectionRules {
  private readonly name: string;

  constructor(
    private readonly node: Collection,
    private readonly declared: ReadonlySet<string>,
    private readonly warnedCollections: Set<string>,
    private readonly diagnostics: Diagnostic[],
  ) {
    this.name = node.name.name;
  }

  check(): CheckedCollection {
    if (this.name.startsWith('$')) this.report(diagnostic('dollarCollectionName', this.node.name.span, [this.name]));
    const permissions = this.collectionDecorators(this.node.decorators);
    const { fields, fieldsByName } = this.fields(fieldsOf(this.node));
    this.idField(fieldsByName);
    const { functions, functionsByName } = this.functions(functionsOf(this.node), fieldsByName);
    const indexes = indexesOf(this.node).map((index) => this.index(index, fieldsByName));
    this.searches(fieldsByName);
    return {
      name: this.name,
      permissions,
      fields,
      fieldsByName,
      functions,
      functionsByName,
      constructorFunction: functionsByName.get('constructor'),
      indexes,
      node: this.node,
    };
  }

  private report(d: Diagnostic): void {
    this.diagnostics.push(d);
  }

  // --- decorators ---------------------------------------------------------------------------

  private collectionDecorators(decorators: Decorator[]): CheckedCollection['permissions'] {
    const permissions = { public: false, read: false, call: false };
    let privateDecorator: Decorator | undefined;
    for (const decorator of decorators) {
      if (decorator.name === 'delegate') {
        this.report(diagnostic('delegateOnCollection', decorator.span));
        continue;
      }
      if ((decorator.arguments && decorator.arguments.length > 0) || decorator.keys) {
        this.report(diagnostic('collectionDecoratorArguments', decorator.span, [decorator.name]));
      }
      if (decorator.name === 'migrate') {
        this.report(diagnostic('migrateMisplaced', decorator.span, ['collection']));
        continue;
      }
      // @private grants nothing: it is what no decorator means (Polylang after 0.6 needed it to close a contract).
      // A switch, not `permissions[decorator.name]`: a name cut from the source is not an internalised string, and
      // a keyed store with one looks it up in the string table.
      switch (decorator.name) {
        case 'private':
          privateDecorator ??= decorator;
          break;
        case 'public':
          permissions.public = true;
          break;
        case 'read':
          permissions.read = true;
          break;
        case 'call':
          permissions.call = true;
          break;
      }
    }
    const granted = permissions.public ? 'public' : permissions.read ? 'read' : permissions.call ? 'call' : undefined;
    if (privateDecorator && granted) this.report(diagnostic('privateWithPermission', privateDecorator.span, [granted]));
    if (this.node.contractKeyword && !privateDecorator && !granted) {
      this.report(diagnostic('undecoratedContract', this.node.name.span, [this.name]));
    }
    return permissions;
  }

  private fieldDecorators(field: FieldDeclaration, type: Type): Pick<CheckedField, 'read' | 'delegate' | 'call'> {
    const flags = { read: false, delegate: false, call: false };
    for (const decorator of field.decorators) {
      if (decorator.name === 'private') {
        this.report(diagnostic('privateOnMember', decorator.span, ['field']));
        continue;
      }
      if (decorator.name === 'migrate') {
        this.report(diagnostic('migrateMisplaced', decorator.span, ['field']));
        continue;
      }
      if (decorator.name === 'public') {
        this.report(diagnostic('decoratorIgnored', decorator.span, ['@public on a field']));
        continue;
      }
      if (!isAuthenticable(type)) {
        this.report(
          diagnostic('decoratorNotAuthenticable', decorator.span, [`@${decorator.name}`, field.name.name, typeToString(type)]),
        );
        continue;
      }
      if (decorator.name === 'read') flags.read = true;
      else if (decorator.name === 'delegate') flags.delegate = true;
      else flags.call = true;
      if ((decorator.arguments && decorator.arguments.length > 0) || decorator.keys) {
        this.report(diagnostic('decoratorIgnored', decorator.span, [`the argument list of @${decorator.name} on a field`]));
      }
    }
    return flags;
  }

  private functionDecorators(fn: FunctionDeclaration, fieldsByName: Map<string, CheckedField>): CheckedFunction['call'] {
    const call = { decorated: false, fields: [] as string[] };
    for (const decorator of fn.decorators) {
      if (decorator.name === 'private') {
        this.report(diagnostic('privateOnMember', decorator.span, ['function']));
        continue;
      }
      if (decorator.name === 'migrate') continue; // see migration()
      if (decorator.name !== 'call') {
        this.report(diagnostic('decoratorIgnored', decorator.span, [`@${decorator.name} on a function`]));
        continue;
      }
      call.decorated = true;
      for (const argument of decorator.arguments ?? []) {
        const field = fieldsByName.get(argument.name);
        if (!field) {
          this.report(diagnostic('decoratorUnknownField', argument.span, [argument.name, this.name]));
        } else if (!isAuthenticable(field.type)) {
          this.report(diagnostic('decoratorNotAuthenticable', argument.span, ['@call', argument.name, typeToString(field.type)]));
        } else if (!call.fields.includes(argument.name)) {
          call.fields.push(argument.name);
        }
      }
    }
    return call;
  }

  // --- fields --------------------------------------------------------------------------------

  private fields(nodes: FieldDeclaration[]): Pick<CheckedCollection, 'fields' | 'fieldsByName'> {
    const fields: CheckedField[] = [];
    const fieldsByName = new Map<string, CheckedField>();
    for (const node of nodes) {
      const name = node.name.name;
      const type = this.resolveType(node.type, 'field', true);
      const first = fieldsByName.get(name);
      if (first) {
        this.report(
          diagnostic('duplicateField', node.name.span, [name, `collection "${this.name}"`], [
            { message: `"${name}" is first declared here`, span: first.node.name.span },
          ]),
        );
        continue;
      }
      const { read, delegate, call } = this.fieldDecorators(node, type);
      const field: CheckedField = { name, optional: node.optional, type, read, delegate, call, node };
      fields.push(field);
      fieldsByName.set(name, field);
    }
    return { fields, fieldsByName };
  }

  private idField(fieldsByName: Map<string, CheckedField>): void {
    const id = fieldsByName.get('id');
    if (!id) {
      this.report(diagnostic('missingId', this.node.name.span, [this.name]));
      return;
    }
    if (id.type.kind !== 'string') this.report(diagnostic('idNotString', id.node.type.span, [typeToString(id.type)]));
    if (id.optional) this.report(diagnostic('optionalId', id.node.name.span));
  }

  // --- functions -----------------------------------------------------------------------------

  private functions(
    nodes: FunctionDeclaration[],
    fieldsByName: Map<string, CheckedField>,
  ): Pick<CheckedCollection, 'functions' | 'functionsByName'> {
    const functions: CheckedFunction[] = [];
    const functionsByName = new Map<string, CheckedFunction>();
    for (const node of nodes) {
      const name = node.name.name;
      const migration = this.migration(node, functions);
      const parameters = this.parameters(node, migration);
      const returnType = node.returnType ? this.resolveType(node.returnType, 'return', true) : null;
      const call = this.functionDecorators(node, fieldsByName);
      // Written out, not `...(migration ? { migration: true } : {})`: on Node 20 a spread followed by more
      // properties costs tens of microseconds an object.
      const checked: CheckedFunction = migration
        ? { name, parameters, returnType, call, migration: true, node }
        : { name, parameters, returnType, call, node };
      const first = functionsByName.get(name);
      if (first) {
        this.report(
          diagnostic('duplicateFunction', node.name.span, [name, this.name], [
            { message: `"${name}" is first declared here`, span: first.node.name.span },
          ]),
        );
        continue;
      }
      if (fieldsByName.has(name)) {
        this.report(
          diagnostic('functionFieldClash', node.name.span, [name, this.name], [
            { message: `the field "${name}" is declared here`, span: fieldsByName.get(name)!.node.name.span },
          ]),
        );
      }
      functions.push(checked);
      functionsByName.set(name, checked);
    }
    return { functions, functionsByName };
  }

  /**
   * Whether the function is a migration (`@migrate`), and its header's rules: one required parameter typed by an
   * inline object type (the fields of the stored records it reads, under the previous schema), then one parameter
   * per referenced record it loads (loadedRecordProblem), no return type, no other decorator, not the constructor,
   * one per collection.
   */
  private migration(fn: FunctionDeclaration, earlier: readonly CheckedFunction[]): boolean {
    const decorator = fn.decorators.find((d) => d.name === 'migrate');
    if (!decorator) return false;
    const name = fn.name.name;
    const shape = (span: Span, problem: string) => this.report(diagnostic('migrationShape', span, [name, problem]));
    if ((decorator.arguments && decorator.arguments.length > 0) || decorator.keys) shape(decorator.span, '@migrate takes no arguments');
    if (name === 'constructor') shape(fn.name.span, 'the constructor cannot be a migration');
    const [old, ...more] = fn.parameters;
    if (!old || old.type.kind !== 'objectType' || old.optional) {
      shape(
        old?.span ?? fn.name.span,
        'a migration takes one parameter typed with the fields it reads from the stored records, as `(old: { name: string; })`',
      );
    }
    const oldFields = old?.type.kind === 'objectType' ? old.type.fields : [];
    for (const extra of more) {
      const problem = this.loadedRecordProblem(extra, oldFields);
      if (problem) shape(extra.span, problem);
    }
    if (fn.returnType) shape(fn.returnType.span, 'a migration returns nothing: it sets the fields of `this`');
    for (const other of fn.decorators) {
      if (other !== decorator) shape(other.span, `@${other.name} has no meaning on a migration: nobody calls it`);
    }
    if (earlier.some((f) => f.migration)) this.report(diagnostic('duplicateMigration', decorator.span, [this.name]));
    return true;
  }

  /**
   * Why a migration's parameter after `old` cannot be one: each loads the record a reference field of the stored
   * record points to, so it is named as that field of `old`, typed by the same collection (another than this one,
   * whose records the migration is rewriting), and optional when the field is.
   */
  private loadedRecordProblem(parameter: Parameter, oldFields: readonly FieldDeclaration[]): string | null {
    const name = parameter.name.name;
    const example = `as \`(old: { ${name}: User; }, ${name}: User)\``;
    const field = oldFields.find((f) => f.name.name === name);
    if (field?.type.kind !== 'referenceType') {
      return `a parameter after \`old\` loads the record that a reference field of the stored record points to: "${name}" is no field of \`old\` typed by a collection (declare it there, ${example})`;
    }
    const collection = field.type.collection.name;
    if (parameter.type.kind !== 'referenceType' || parameter.type.collection.name !== collection) {
      return `parameter "${name}" loads the record that field "${name}" points to: type it "${collection}", as the field is`;
    }
    if (collection === this.name) {
      return `parameter "${name}" would load a record of "${collection}", whose records this migration rewrites: a migration loads records of other collections only`;
    }
    if (field.optional && !parameter.optional) {
      return `field "${name}" is optional, so the record it points to may be absent: declare the parameter "${name}?: ${collection}"`;
    }
    return null;
  }

  private parameters(fn: FunctionDeclaration, migration = false): CheckedParameter[] {
    const parameters: CheckedParameter[] = [];
    const seen = new Set<string>();
    let firstOptional: string | undefined;
    for (const node of fn.parameters) {
      const name = node.name.name;
      if (seen.has(name)) this.report(diagnostic('duplicateParameter', node.name.span, [name]));
      seen.add(name);
      if (node.optional) firstOptional ??= name;
      else if (firstOptional !== undefined) {
        this.report(diagnostic('optionalParameterOrder', node.name.span, [name, firstOptional]));
      }
      // A migration's parameter is the one place for an object type: the shape of the stored records it reads.
      if (node.type.kind === 'objectType' && !migration) this.report(diagnostic('objectTypeParameter', node.type.span, [name]));
      parameters.push({ name, optional: node.optional, type: this.resolveType(node.type, 'parameter', true), node });
    }
    return parameters;
  }

  // --- indexes -------------------------------------------------------------------------------

  private index(node: IndexDeclaration, fieldsByName: Map<string, CheckedField>): CheckedIndex {
    let arrayPath: string | undefined;
    const fields: CheckedIndexField[] = [];
    for (const indexField of node.fields) {
      const names = indexField.path.map((segment) => segment.name);
      fields.push({ path: names, direction: indexField.direction });
      const type = this.typeAtPath(names, fieldsByName);
      // An array's index has one entry per element: two arrays would make one per pair.
      if (type?.kind === 'array' && isIndexable(type.element)) {
        if (arrayPath !== undefined) this.report(diagnostic('indexTwoArrays', indexField.span, [arrayPath, names.join('.')]));
        arrayPath ??= names.join('.');
      }
      if (!type) this.report(diagnostic('indexPathNotFound', indexField.span, [names.join('.')]));
      // An array of indexable values is indexed element by element (queried with `$contains`).
      else if (!isIndexable(type) && !(type.kind === 'array' && isIndexable(type.element))) this.report(diagnostic('unindexableField', indexField.span, [names.join('.'), typeToString(type)]));
    }
    return { fields, node };
  }

  /** `@search(...)`: at most one per collection, naming distinct top-level string fields (optional ones too). */
  private searches(fieldsByName: Map<string, CheckedField>): void {
    let searches = 0;
    for (const search of this.node.items) {
      if (search.kind !== 'search') continue;
      if (searches++ > 0) this.report(diagnostic('searchTwice', search.span, [this.name]));
      if (search.fields.length === 0) this.report(diagnostic('searchEmpty', search.span));
      const seen = new Set<string>();
      for (const field of search.fields) {
        const type = fieldsByName.get(field.name)?.type;
        if (seen.has(field.name)) this.report(diagnostic('searchDuplicateField', field.span, [field.name]));
        else if (!type) this.report(diagnostic('searchFieldNotFound', field.span, [field.name, this.name]));
        else if (type.kind !== 'string') this.report(diagnostic('searchFieldNotString', field.span, [field.name, typeToString(type)]));
        seen.add(field.name);
      }
    }
  }

  private typeAtPath(path: string[], fieldsByName: Map<string, CheckedField>): Type | undefined {
    let type = fieldsByName.get(path[0] ?? '')?.type;
    for (let i = 1; i < path.length; i++) {
      if (type?.kind !== 'object') return undefined;
      const segment = path[i];
      type = type.fields.find((f) => f.name === segment)?.type;
    }
    return type;
  }

  // --- types ---------------------------------------------------------------------------------

  /** `topLevel` is false inside arrays, maps and objects (where a collection name is a stored reference). */
  private resolveType(node: TypeNode, role: TypeRole, topLevel: boolean): Type {
    switch (node.kind) {
      case 'primitiveType':
        return primitiveType(node.name);
      case 'sizedNumberType':
        return sizedNumber(node.name);
      case 'publicKeyType':
        return publicKeyType;
      case 'arrayType':
        return arrayOf(this.resolveType(node.element, role, false));
      case 'mapType': {
        const key = this.resolveType(node.key, role, false);
        if (key.kind !== 'string' && key.kind !== 'number') {
          this.report(diagnostic('badMapKey', node.key.span, [typeToString(key)]));
        }
        return mapOf(key, this.resolveType(node.value, role, false));
      }
      case 'objectType': {
        const fields: ObjectField[] = [];
        const names = new Set<string>();
        for (const field of node.fields) {
          const name = field.name.name;
          if (names.has(name)) {
            this.report(diagnostic('duplicateField', field.name.span, [name, 'object type']));
            continue;
          }
          names.add(name);
          fields.push({ name, optional: field.optional, type: this.resolveType(field.type, role, false) });
        }
        return objectOf(fields);
      }
      case 'referenceType': {
        const collection = node.collection.name;
        // A name close to a built-in type and to no declared collection is a misspelt type (`strng`), not a
        // collection of another schema: an error, and a type that raises no further errors where it is used.
        const builtIn = this.declared.has(collection) ? '' : didYouMean(collection, BUILT_IN_TYPE_NAMES);
        if (builtIn !== '' && didYouMean(collection, this.declared) === '') {
          this.report(diagnostic('misspeltType', node.collection.span, [collection, builtIn]));
          return anyType;
        }
        if (!this.declared.has(collection) && !this.warnedCollections.has(collection)) {
          this.warnedCollections.add(collection);
          // A misspelt type name (`strin`) reads as a reference to a collection: suggest what was likely meant.
          const suggestion = didYouMean(collection, [...BUILT_IN_TYPE_NAMES, ...this.declared]);
          this.report(diagnostic('unknownCollection', node.collection.span, [collection, suggestion]));
        }
        return role === 'parameter' && topLevel ? recordOf(collection) : referenceTo(collection);
      }
      case 'recordType':
        if (role === 'parameter' && topLevel) return recordOf(this.name);
        this.report(diagnostic('recordAsFieldType', node.span, [this.name]));
        return referenceTo(this.name);
    }
  }
}
