// Diagnostics are data: a stable code, a message, a span and optional notes. Presentation (text with
// a code frame, or JSON) is separate and lives in render.ts. Every diagnostic the language front end
// can produce is declared once in `catalogue` below, so codes are stable and greppable.

import type { Span } from './ast.ts';

export type Severity = 'error' | 'warning';

export interface DiagnosticNote {
  message: string;
  span?: Span;
}

export interface Diagnostic {
  code: string;
  severity: Severity;
  message: string;
  span: Span;
  notes: DiagnosticNote[];
}

export interface DiagnosticTemplate {
  code: string;
  severity: Severity;
  /** Message with `{0}`, `{1}`… placeholders filled by `diagnostic()`. */
  message: string;
}

// Codes: V1xxx syntax (lexer and parser), V2xxx schema rules (collections, fields, indexes,
// decorators, functions), V3xxx names and types in function bodies.
// Keep each section sorted by code; never reuse or renumber a code once it has shipped.
export const catalogue = {
  // --- V1xxx: syntax ---------------------------------------------------------------------------
  invalidCharacter: { code: 'V1001', severity: 'error', message: 'invalid character {0}' },
  unterminatedString: { code: 'V1002', severity: 'error', message: 'unterminated string literal' },
  unterminatedComment: { code: 'V1003', severity: 'error', message: 'unterminated block comment' },
  unexpectedToken: { code: 'V1004', severity: 'error', message: 'unexpected {0}, expected {1}' },
  unexpectedEndOfFile: { code: 'V1005', severity: 'error', message: 'unexpected end of file, expected {0}' },
  unknownDecorator: {
    code: 'V1006',
    severity: 'error',
    message: 'unknown decorator @{0}; expected one of @public, @read, @call, @delegate, @private',
  },
  rootFunction: {
    code: 'V1007',
    severity: 'error',
    message: 'functions are not supported at the root level; declare {0} inside a collection',
  },
  bodySyntaxError: { code: 'V1008', severity: 'error', message: '{0}' },
  unsupportedConstruct: {
    code: 'V1009',
    severity: 'error',
    message: 'not supported in collection functions: {0}',
  },
  invalidAssignmentTarget: {
    code: 'V1010',
    severity: 'error',
    message: 'invalid assignment target: only variables, fields and elements can be assigned',
  },
  nestingTooDeep: { code: 'V1011', severity: 'error', message: 'nesting too deep: at most {0} levels of {1}' },
  invalidKeyLiteral: { code: 'V1012', severity: 'error', message: 'invalid public key literal: {0}' },
  missingToken: { code: 'V1013', severity: 'error', message: '{0} expected' },
  // (parser: add further V10xx codes here)

  // --- V2xxx: schema rules ---------------------------------------------------------------------
  duplicateCollection: { code: 'V2001', severity: 'error', message: 'duplicate collection "{0}"' },
  dollarCollectionName: { code: 'V2002', severity: 'error', message: "collection name cannot start with '$': {0}" },
  missingId: { code: 'V2003', severity: 'error', message: "collection \"{0}\" must have an 'id' field of type string" },
  idNotString: { code: 'V2004', severity: 'error', message: "collection 'id' field must be a string, found {0}" },
  optionalId: { code: 'V2005', severity: 'error', message: "collection 'id' field cannot be optional" },
  duplicateField: { code: 'V2006', severity: 'error', message: 'duplicate field "{0}" in {1}' },
  duplicateFunction: { code: 'V2007', severity: 'error', message: 'duplicate function "{0}" in collection "{1}"' },
  functionFieldClash: {
    code: 'V2008',
    severity: 'error',
    message: 'function "{0}" has the same name as a field of collection "{1}"',
  },
  duplicateParameter: { code: 'V2009', severity: 'error', message: 'duplicate parameter "{0}"' },
  optionalParameterOrder: {
    code: 'V2010',
    severity: 'error',
    message: 'required parameter "{0}" cannot follow optional parameter "{1}"',
  },
  recordAsFieldType: {
    code: 'V2011',
    severity: 'error',
    message: '`record` is only allowed as a parameter type; use the collection name ({0}) to store a reference',
  },
  objectTypeParameter: {
    code: 'V2012',
    severity: 'error',
    message: 'object type not allowed for parameter "{0}"; use a map or a collection',
  },
  badMapKey: { code: 'V2013', severity: 'error', message: 'map keys must be string or number, found {0}' },
  unknownCollection: {
    code: 'V2014',
    severity: 'warning',
    message: 'collection "{0}" is not declared in this schema; it must exist in the same namespace{1}',
  },
  indexPathNotFound: { code: 'V2015', severity: 'error', message: 'index field "{0}" not found in schema' },
  unindexableField: {
    code: 'V2016',
    severity: 'error',
    message: 'cannot index field "{0}" of type {1}; only string, number, boolean, PublicKey and collection reference fields, and arrays of them, can be indexed',
  },
  collectionDecoratorArguments: {
    code: 'V2017',
    severity: 'error',
    message: 'collection directive "{0}" cannot have arguments',
  },
  delegateOnCollection: {
    code: 'V2018',
    severity: 'error',
    message: '@delegate is not allowed on a collection; put it on a PublicKey or collection reference field',
  },
  decoratorNotAuthenticable: {
    code: 'V2019',
    severity: 'error',
    message: '{0} needs a PublicKey or collection reference field (or an array of those), but "{1}" is {2}',
  },
  decoratorUnknownField: { code: 'V2020', severity: 'error', message: '@call argument "{0}" is not a field of collection "{1}"' },
  decoratorIgnored: { code: 'V2021', severity: 'warning', message: '{0} has no effect' },
  constructorMissingId: {
    code: 'V2022',
    severity: 'error',
    message: 'constructor must assign id: collection "{0}" needs `this.id = ...` in its constructor',
  },
  idAssignedOutsideConstructor: {
    code: 'V2023',
    severity: 'error',
    message: 'the id can only be assigned in the constructor: a record\'s id never changes',
  },
  constructorIdOnSomePaths: {
    code: 'V2024',
    severity: 'warning',
    message: 'the constructor of "{0}" can finish here without assigning this.id; creating a record this way fails',
  },
  indexTwoArrays: {
    code: 'V2025',
    severity: 'error',
    message: 'an index may hold at most one array field, but "{0}" and "{1}" are both arrays',
  },
  privateWithPermission: {
    code: 'V2026',
    severity: 'error',
    message: '@private contradicts @{0} on the same collection: @private means no collection-wide read or call',
  },
  undecoratedContract: {
    code: 'V2027',
    severity: 'warning',
    message:
      'contract "{0}" has no permission decorator: the Polylang compiler after 0.6 made such a contract public, but Vellum keeps it private as Polybase did; write @public to open it to everyone, or @private to say it is private',
  },
  privateOnMember: {
    code: 'V2028',
    severity: 'error',
    message: '@private belongs on a collection or contract; on a {0} it would hide nothing (a field is read by whoever may read the record)',
  },
  misspeltType: {
    code: 'V2029',
    severity: 'error',
    message: 'unknown type "{0}"{1}',
  },
  migrateMisplaced: {
    code: 'V2030',
    severity: 'error',
    message: '@migrate belongs on a function (the migration of the stored records); on a {0} it means nothing',
  },
  migrationShape: {
    code: 'V2031',
    severity: 'error',
    message: 'migration "{0}": {1}',
  },
  duplicateMigration: {
    code: 'V2032',
    severity: 'error',
    message: 'collection "{0}" declares more than one migration; one schema change runs one migration',
  },
  searchFieldNotFound: { code: 'V2033', severity: 'error', message: 'search field "{0}" is not a field of collection "{1}"' },
  searchFieldNotString: {
    code: 'V2034',
    severity: 'error',
    message: 'cannot search field "{0}" of type {1}; @search covers top-level string fields only',
  },
  searchDuplicateField: { code: 'V2035', severity: 'error', message: 'field "{0}" is listed twice in @search' },
  searchTwice: {
    code: 'V2036',
    severity: 'error',
    message: 'collection "{0}" declares more than one @search; list every searched field in one @search(...)',
  },
  searchEmpty: { code: 'V2037', severity: 'error', message: '@search needs at least one field' },
  // (checker: add V2xxx codes here)

  // --- V3xxx: names and types ------------------------------------------------------------------
  unknownName: { code: 'V3001', severity: 'error', message: 'cannot find name "{0}"{1}' },
  unknownField: { code: 'V3002', severity: 'error', message: 'collection "{1}" has no field "{0}"{2}' },
  unknownMember: { code: 'V3003', severity: 'error', message: '{1} has no property "{0}"{2}' },
  unknownMethod: { code: 'V3004', severity: 'error', message: '{1} has no function "{0}"{2}' },
  arrayMapUnsupported: {
    code: 'V3005',
    severity: 'error',
    message: 'array method "{0}" needs a callback, and collection functions have no function values; use a for…of loop',
  },
  typeMismatchAssignment: { code: 'V3006', severity: 'error', message: 'cannot assign {0} to {1}' },
  typeMismatchArgument: { code: 'V3007', severity: 'error', message: 'argument {0} of {1} must be {2}, found {3}' },
  typeMismatchReturn: { code: 'V3008', severity: 'error', message: 'cannot return {0} from "{1}", whose return type is {2}' },
  missingReturnValue: { code: 'V3009', severity: 'error', message: '"{0}" must return a value of type {1}' },
  wrongArgumentCount: { code: 'V3010', severity: 'error', message: '{0} expects {1}, found {2}' },
  nullNotAllowed: {
    code: 'V3011',
    severity: 'error',
    message: 'cannot assign {0} to {1}: only optional fields, optional parameters and variables can hold null or undefined',
  },
  badOperand: { code: 'V3012', severity: 'error', message: 'operator {0} cannot be applied to {1}' },
  incomparableTypes: {
    code: 'V3013',
    severity: 'error',
    message: 'cannot compare {0} with {1}: values of different types are never equal',
  },
  foreignRecordReadOnly: {
    code: 'V3014',
    severity: 'error',
    message: 'cannot modify a record of collection "{0}": records of other collections are read-only',
  },
  readOnlyTarget: { code: 'V3015', severity: 'error', message: 'cannot assign to {0}' },
  constantAssignment: { code: 'V3016', severity: 'error', message: 'cannot assign to "{0}" because it is a constant' },
  duplicateVariable: { code: 'V3017', severity: 'error', message: '"{0}" is already declared in this scope' },
  constWithoutInitializer: { code: 'V3018', severity: 'error', message: 'const "{0}" must be initialised' },
  breakOutsideLoop: { code: 'V3019', severity: 'error', message: '"{0}" can only be used inside a loop' },
  notIterable: { code: 'V3020', severity: 'error', message: 'for…of needs an array or a map, found {0}' },
  invalidDelete: { code: 'V3021', severity: 'error', message: 'delete needs a map entry or an optional field, found {0}' },
  mixedArrayElements: { code: 'V3022', severity: 'error', message: 'array elements must have one type: found {0} and {1}' },
  missingProperty: { code: 'V3023', severity: 'error', message: 'missing required property "{0}" of {1}' },
  unknownProperty: { code: 'V3024', severity: 'error', message: 'unknown property "{0}": {1} has no such field' },
  notCallable: { code: 'V3025', severity: 'error', message: '{0} is not a function' },
  notAValue: { code: 'V3026', severity: 'error', message: '{0} cannot be used as a value{1}' },
  invalidIndex: { code: 'V3027', severity: 'error', message: 'cannot index {0} with {1}' },
  foreignFunctionCall: {
    code: 'V3028',
    severity: 'error',
    message: 'cannot call function "{0}" on {1}: collection functions are called as this.{0}(...)',
  },
  usedBeforeDeclaration: { code: 'V3029', severity: 'error', message: '"{0}" is used before its declaration' },
  missingReturn: {
    code: 'V3030',
    severity: 'error',
    message: '"{0}" can end without returning a value, but its return type is {1}',
  },
  sizedNumberValue: { code: 'V3031', severity: 'error', message: '{0}' },
  migrationCalled: {
    code: 'V3032',
    severity: 'error',
    message: '"{0}" is a migration: it runs over the stored records when its schema is installed, and cannot be called',
  },
  // (checker: add V3xxx codes here)
} as const satisfies Record<string, DiagnosticTemplate>;

export type DiagnosticKind = keyof typeof catalogue;

export function diagnostic(
  kind: DiagnosticKind,
  span: Span,
  args: readonly (string | number)[] = [],
  notes: DiagnosticNote[] = [],
): Diagnostic {
  const template: DiagnosticTemplate = catalogue[kind];
  const message = template.message.replace(/\{(\d+)\}/g, (_, index: string) => String(args[Number(index)] ?? ''));
  return { code: template.code, severity: template.severity, message, span, notes };
}

export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === 'error');
}
