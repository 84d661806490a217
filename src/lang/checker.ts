// The checker: schema rules (schema-rules.ts), then every function body (check-body.ts). Returns
// the checked program even when there are errors, so tools can show everything at once.

import type { Program } from './ast.ts';
import { checkFunctionBody, trackedFieldsOf } from './check-body.ts';
import { resolveProgram } from './resolver.ts';
import { checkSchemaRules } from './schema-rules.ts';
import type { CheckedProgram } from './checked.ts';
import { type Diagnostic, diagnostic, hasErrors } from './diagnostics.ts';
import { parse } from './parse.ts';
import type { SourceFile } from './source.ts';

export interface CheckResult {
  checked: CheckedProgram;
  diagnostics: Diagnostic[];
}

export function check(program: Program): CheckResult {
  const diagnostics: Diagnostic[] = [];
  const { collections, collectionsByName } = checkSchemaRules(program, diagnostics);
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
  for (const collection of collections) {
    const tracked = trackedFieldsOf(collection);
    for (const fn of collection.functions) {
      const { assignsId, idMissingAt } = checkFunctionBody(collectionsByName, collection, fn, tracked, checked, diagnostics);
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
  }
  diagnostics.sort((a, b) => a.span.start - b.span.start || a.span.end - b.span.end);
  return { checked, diagnostics };
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
  const all = [...parsed.diagnostics, ...diagnostics].sort((a, b) => a.span.start - b.span.start);
  return { program: parsed.program, checked, diagnostics: all, source: parsed.source };
}
