// The checker: schema rules (schema-rules.ts), then every function body (check-body.ts). Returns
// the checked program even when there are errors, so tools can show everything at once.

import type { Collection, Program } from './ast.ts';
import { checkFunctionBody, trackedFieldsOf } from './check-body.ts';
import { resolveProgram } from './resolver.ts';
import { checkSchemaRules } from './schema-rules.ts';
import type { CheckedCollection, CheckedProgram } from './checked.ts';
import { type Diagnostic, diagnostic, hasErrors } from './diagnostics.ts';
import { parse } from './parse.ts';
import type { SourceFile } from './source.ts';

export interface CheckResult {
  checked: CheckedProgram;
  diagnostics: Diagnostic[];
}

export function check(program: Program): CheckResult {
  const { checked, schemaDiagnostics, bodyDiagnostics } = checkParts(program);
  // Joined by loops, not spread and flatMap: most checks find nothing, and the copies cost more than the rest.
  const diagnostics = schemaDiagnostics;
  for (const collection of checked.collections) for (const found of bodyDiagnostics.get(collection.node)!) diagnostics.push(found);
  return { checked, diagnostics: sortChecked(diagnostics) };
}

/** What check() finds, kept apart: the schema rules' diagnostics, and each collection's bodies' (an editor
 *  re-checks only the bodies an edit can have changed, see src/lsp/incremental.ts). */
export interface CheckParts {
  checked: CheckedProgram;
  schemaDiagnostics: Diagnostic[];
  /** By collection, for every collection the schema rules kept (a repeated name is not checked). */
  bodyDiagnostics: Map<Collection, Diagnostic[]>;
}

export function checkParts(program: Program): CheckParts {
  const schemaDiagnostics: Diagnostic[] = [];
  const { collections, collectionsByName } = checkSchemaRules(program, schemaDiagnostics);
  const checked: CheckedProgram = {
    program,
    collections,
    collectionsByName,
    resolution: resolveProgram(program),
    types: new Map(),
    bindings: new Map(),
    calls: new Map(),
    properties: new Map(),
  };
  const bodyDiagnostics = new Map<Collection, Diagnostic[]>();
  for (const collection of collections) bodyDiagnostics.set(collection.node, checkBodies(collection, checked));
  return { checked, schemaDiagnostics, bodyDiagnostics };
}

/** Checks the function bodies of one collection, recording into the program's side tables. */
export function checkBodies(collection: CheckedCollection, checked: CheckedProgram): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const tracked = trackedFieldsOf(collection);
  for (const fn of collection.functions) {
    const { assignsId, idMissingAt } = checkFunctionBody(checked.collectionsByName, collection, fn, tracked, checked, diagnostics);
    // Without an id field, V2003 already says what is wrong.
    if (fn.name !== 'constructor' || !collection.fieldsByName.has('id')) continue;
    if (!assignsId) {
      diagnostics.push(diagnostic('constructorMissingId', fn.node.name.span, [collection.name]));
    } else if (idMissingAt) {
      // A warning, not an error: the rule is that the constructor assigns this.id somewhere, and
      // the runtime rejects a run that did not (constructor/no-id-assigned).
      diagnostics.push(diagnostic('constructorIdOnSomePaths', idMissingAt, [collection.name]));
    }
  }
  return diagnostics;
}

/** The checker's order: by place (a stable sort, so equal places keep the order they were found in). */
export function sortChecked(diagnostics: Diagnostic[]): Diagnostic[] {
  return diagnostics.length < 2 ? diagnostics : diagnostics.sort(byPlace);
}

function byPlace(a: Diagnostic, b: Diagnostic): number {
  return a.span.start - b.span.start || a.span.end - b.span.end;
}

/** The parser's diagnostics and the checker's (already sorted), in one list by place. */
export function withParseDiagnostics(parsed: readonly Diagnostic[], checked: readonly Diagnostic[]): Diagnostic[] {
  return [...parsed, ...checked].sort((a, b) => a.span.start - b.span.start);
}

export interface CheckSchemaResult {
  program?: Program;
  checked?: CheckedProgram;
  diagnostics: Diagnostic[];
  source: SourceFile;
}

/**
 * Parse and check schema text. A program with syntax errors is not checked: its bodies may be
 * incomplete, and errors about them would be noise.
 */
export function checkSchema(text: string, fileName?: string): CheckSchemaResult {
  const parsed = parse(text, fileName);
  if (!parsed.program || hasErrors(parsed.diagnostics)) {
    return { program: parsed.program, diagnostics: parsed.diagnostics, source: parsed.source };
  }
  const { checked, diagnostics } = check(parsed.program);
  // The parser's warnings, if any, among the checker's (a fresh list either way).
  const all = parsed.diagnostics.length === 0 ? diagnostics : withParseDiagnostics(parsed.diagnostics, diagnostics);
  return { program: parsed.program, checked, diagnostics: all, source: parsed.source };
}
