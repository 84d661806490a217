// The checker: schema rules (schema-rules.ts), then every function body (check-body.ts). Returns
// the checked program even when there are errors, so tools can show everything at once.

import type { Collection, IdentifierExpression, Program } from './ast.ts';
import { checkFunctionBody, trackedFieldsOf, type SideTables } from './check-body.ts';
import { resolveProgram, type ProgramResolution } from './resolver.ts';
import { checkSchemaRules } from './schema-rules.ts';
import type { Binding, CheckedCollection, CheckedProgram } from './checked.ts';
import { type Diagnostic, diagnostic, hasErrors } from './diagnostics.ts';
import { parse } from './parse.ts';
import type { SourceFile } from './source.ts';

export interface CheckResult {
  checked: CheckedProgram;
  diagnostics: Diagnostic[];
}

export function check(program: Program): CheckResult {
  const { checked, schemaDiagnostics, bodyDiagnostics } = checkParts(program, false);
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

/** With `tablesNow` false, the side tables that only the language server reads (`types`, `calls`, `properties`) are
 *  filled when first read (see TablesOnDemand), so that a check whose caller wants only diagnostics does not pay for
 *  them; they hold the same either way. */
export function checkParts(program: Program, tablesNow = true): CheckParts {
  const schemaDiagnostics: Diagnostic[] = [];
  const { collections, collectionsByName } = checkSchemaRules(program, schemaDiagnostics);
  const resolution = resolveProgram(program);
  const checked: CheckedProgram = tablesNow
    ? { program, collections, collectionsByName, resolution, types: new Map(), bindings: new Map(), calls: new Map(), properties: new Map() }
    : new TablesOnDemand(program, collections, collectionsByName, resolution);
  const tables: SideTables = tablesNow
    ? checked
    : { partial: true, resolution, bindings: checked.bindings, types: NOT_FILLED, calls: NOT_FILLED, properties: NOT_FILLED };
  const bodyDiagnostics = new Map<Collection, Diagnostic[]>();
  for (const collection of collections) bodyDiagnostics.set(collection.node, bodiesOf(collection, collectionsByName, tables));
  return { checked, schemaDiagnostics, bodyDiagnostics };
}

/** The tables a partial check leaves alone (see SideTables): empty, and never written. */
const NOT_FILLED = new Map<never, never>();

/** A checked program whose `types`, `calls` and `properties` are filled on first read, by checking every body once
 *  more with recording on (the diagnostics of that pass are the ones already found, and are dropped). As with
 *  ProgramTables' getters, a copy by spread (`{ ...checked }`) does not carry them: src/lsp/incremental.ts copies only
 *  what checkParts fills at once. (Own getters made by Object.defineProperties per program cost more than the tables.) */
class TablesOnDemand implements CheckedProgram {
  readonly bindings = new Map<IdentifierExpression, Binding>();
  #filled: Pick<CheckedProgram, 'types' | 'calls' | 'properties'> | undefined = undefined;

  constructor(
    readonly program: Program,
    readonly collections: CheckedCollection[],
    readonly collectionsByName: Map<string, CheckedCollection>,
    readonly resolution: ProgramResolution,
  ) {}

  get types(): CheckedProgram['types'] {
    return this.#fill().types;
  }

  get calls(): CheckedProgram['calls'] {
    return this.#fill().calls;
  }

  get properties(): CheckedProgram['properties'] {
    return this.#fill().properties;
  }

  #fill(): Pick<CheckedProgram, 'types' | 'calls' | 'properties'> {
    if (this.#filled === undefined) {
      // Bindings of their own: the program's were filled by the check and stay as they are.
      const tables: SideTables = { resolution: this.resolution, bindings: new Map(), types: new Map(), calls: new Map(), properties: new Map() };
      for (const collection of this.collections) bodiesOf(collection, this.collectionsByName, tables);
      this.#filled = tables;
    }
    return this.#filled;
  }
}

/** Checks the function bodies of one collection, recording into the program's side tables. */
export function checkBodies(collection: CheckedCollection, checked: CheckedProgram): Diagnostic[] {
  return bodiesOf(collection, checked.collectionsByName, checked);
}

function bodiesOf(collection: CheckedCollection, collectionsByName: ReadonlyMap<string, CheckedCollection>, tables: SideTables): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const tracked = trackedFieldsOf(collection);
  for (const fn of collection.functions) {
    const { assignsId, idMissingAt } = checkFunctionBody(collectionsByName, collection, fn, tracked, tables, diagnostics);
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
