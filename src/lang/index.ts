// The public face of src/lang: parsing, checking, diagnostics, types and the built-ins catalogue.

export type * from './ast.ts';
export { fieldsOf, functionsOf, indexesOf } from './ast.ts';
export * from './diagnostics.ts';
export { parse, type ParseResult } from './parse.ts';
export { MAX_NESTING_DEPTH } from './nesting.ts';
export { MAX_TREE_DEPTH } from './body.ts';
export { SourceFile, type Position } from './source.ts';
export { renderText, toJson, type DiagnosticJson, type RenderOptions } from './render.ts';
export { formatSchema, type FormatResult } from './format.ts';
export { print, printType, printExpression, printStatement, typeText } from './printer.ts';
export { toStableAst, type StableCollection, type StableCollectionAttribute, type StableType } from './stable-ast.ts';
export * from './types.ts';
export * from './words.ts';
export * from './sized-numbers.ts';
export * from './builtins.ts';
export {
  check,
  checkSchema,
  checkParts,
  checkBodies,
  sortChecked,
  withParseDiagnostics,
  type CheckParts,
  type CheckResult,
  type CheckSchemaResult,
} from './checker.ts';
export { checkSchemaRules } from './schema-rules.ts';
export type * from './checked.ts';
export { didYouMean } from './suggest.ts';
export { resolveFunction, resolveProgram, resolveCollectionInto, typeReferencesOf, fieldReferencesOf, type FunctionResolution, type Local, type ProgramResolution, type Resolved } from './resolver.ts';
