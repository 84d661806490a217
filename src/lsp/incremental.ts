// Checking a schema again after an edit, doing only the work the edit can have changed: the language server's
// answer to "diagnostics as you type" on a large schema.
//
// An edit that lies inside one collection (its first and last character untouched) re-parses only that
// collection; the others keep their nodes, those after it moved by the edit's length. The schema rules run again
// over the whole program (they are cheap and see across collections), but function bodies are checked again only
// in the changed collection and, when its outline (the text outside its function bodies) changed, in every
// collection that names it, directly or through collections that do. The other collections keep their body
// diagnostics and their entries in the side tables (types, bindings, resolution), which are keyed by their
// nodes. Any other edit, or a version with syntax errors before or after, is parsed and checked in full.
//
// The result equals a full `checkSchema` of the new text (test/lsp/incremental.property.test.ts checks this
// over random edit sequences). The previous version's program and tables are reused in place: only the latest
// result of a document may be read.
import {
  checkBodies,
  checkParts,
  checkSchemaRules,
  fieldReferencesOf,
  hasErrors,
  parse,
  resolveCollectionInto,
  sortChecked,
  SourceFile,
  typeReferencesOf,
  withParseDiagnostics,
  type CheckedProgram,
  type CheckSchemaResult,
  type Collection,
  type Diagnostic,
  type Program,
} from '../lang/index.ts';

export interface IncrementalResult extends CheckSchemaResult {
  text: string;
  /** What the next edit can reuse; absent when the text did not parse or check cleanly enough. */
  reusable?: Reusable;
}

interface Reusable {
  program: Program;
  checked: CheckedProgram;
  /** The parser's diagnostics (warnings only), not sharing spans with the tree. */
  parseDiagnostics: Diagnostic[];
  /** Each checked collection's body diagnostics, not sharing spans with the tree. */
  bodyDiagnostics: Map<Collection, Diagnostic[]>;
}

/** The result of checking `text`, reusing what `previous` (the document's last result) found where it can. */
export function checkIncrementally(previous: IncrementalResult | undefined, text: string, fileName?: string): IncrementalResult {
  return (previous?.reusable && edited(previous.reusable, previous.text, text, fileName)) ?? checkedInFull(text, fileName);
}

function checkedInFull(text: string, fileName: string | undefined): IncrementalResult {
  const parsed = parse(text, fileName);
  const { program, source } = parsed;
  if (!program || hasErrors(parsed.diagnostics)) return { program, diagnostics: parsed.diagnostics, source, text };
  const parseDiagnostics = parsed.diagnostics.map((d) => copy(d));
  const { checked, schemaDiagnostics, bodyDiagnostics } = checkParts(program);
  for (const [collection, diagnostics] of bodyDiagnostics) bodyDiagnostics.set(collection, diagnostics.map((d) => copy(d)));
  return finish({ program, checked, parseDiagnostics, bodyDiagnostics }, schemaDiagnostics, text, source);
}

function finish(reusable: Reusable, schemaDiagnostics: Diagnostic[], text: string, source: SourceFile): IncrementalResult {
  const { checked, bodyDiagnostics } = reusable;
  const found = sortChecked([...schemaDiagnostics, ...checked.collections.flatMap((c) => bodyDiagnostics.get(c.node)!)]);
  const diagnostics = withParseDiagnostics(reusable.parseDiagnostics, found);
  return { program: reusable.program, checked, diagnostics, source, text, reusable };
}

/** The edit as one replaced range: [start, oldEnd) of the old text became [start, start + oldEnd - start + delta). */
interface Change {
  start: number;
  oldEnd: number;
  delta: number;
}

function changeBetween(before: string, after: string): Change {
  const shorter = Math.min(before.length, after.length);
  let start = 0;
  while (start < shorter && before.charCodeAt(start) === after.charCodeAt(start)) start++;
  let common = 0;
  while (common < shorter - start && before.charCodeAt(before.length - 1 - common) === after.charCodeAt(after.length - 1 - common)) common++;
  return { start, oldEnd: before.length - common, delta: after.length - before.length };
}

/** Where an offset of the old text is in the new one: after the replaced range it moves (at an insertion's
 *  place it stays, with the text before it). */
function moved(offset: number, change: Change): number {
  return offset >= change.oldEnd && offset > change.start ? offset + change.delta : offset;
}

/** The new result when the edit lies inside one collection and the text still parses; otherwise undefined. */
function edited(old: Reusable, before: string, text: string, fileName: string | undefined): IncrementalResult | undefined {
  const change = changeBetween(before, text);
  const collections = old.program.collections;
  const index = collections.findIndex((c) => c.span.start < change.start && change.oldEnd < c.span.end);
  if (index < 0) return undefined;
  const replaced = collections[index]!;

  // The collection re-parsed alone, after the comments and space before it (its doc comment) and in its place.
  const gapStart = index > 0 ? collections[index - 1]!.span.end : 0;
  const end = replaced.span.end + change.delta;
  const parsed = parse(' '.repeat(gapStart) + text.slice(gapStart, end), fileName);
  if (!parsed.program || parsed.program.collections.length !== 1 || hasErrors(parsed.diagnostics)) return undefined;
  const collection = parsed.program.collections[0]!;

  // The parser's warnings: the old ones outside the collection (moved), and the new collection's.
  const parseDiagnostics = [
    ...old.parseDiagnostics.filter((d) => d.span.start < gapStart || d.span.start >= replaced.span.end).map((d) => copy(d, change)),
    ...parsed.diagnostics.map((d) => copy(d)),
  ].sort((a, b) => a.span.start - b.span.start);

  // The tree: the collections after it move by the edit's length (in place, so that the side tables keyed by
  // their nodes stay valid).
  const after = collections.slice(index + 1);
  if (change.delta !== 0) for (const later of after) moveSpans(later, change.delta);
  const program: Program = { kind: 'program', collections: [...collections.slice(0, index), collection, ...after], span: { start: 0, end: text.length } };
  const source = new SourceFile(fileName ?? '<schema>', text);
  // A collection renamed changes what every name means: check everything again.
  if (collection.name.name !== replaced.name.name) return checkedAgain(program, parseDiagnostics, text, source);

  // Whose bodies to check again: the changed collection's, and when its outline changed, those that name it.
  const again = new Set<Collection>([collection]);
  if (outline(replaced, before) !== outline(collection, text)) for (const dependent of dependentsOf(program, collection, text)) again.add(dependent);

  const schemaDiagnostics: Diagnostic[] = [];
  const { collections: checkedCollections, collectionsByName } = checkSchemaRules(program, schemaDiagnostics);
  const tables = old.checked;
  for (const gone of [replaced, ...[...again].filter((c) => c !== collection)]) forget(gone, tables);
  const resolution = tables.resolution;
  for (const c of program.collections) if (again.has(c)) resolveCollectionInto(resolution, c);
  const checked: CheckedProgram = {
    ...tables,
    program,
    collections: checkedCollections,
    collectionsByName,
    resolution: { ...resolution, typeReferences: typeReferencesOf(program, resolution.functions), fieldReferences: fieldReferencesOf(program) },
  };
  const bodyDiagnostics = new Map<Collection, Diagnostic[]>();
  for (const c of checkedCollections) {
    const kept = old.bodyDiagnostics.get(c.node);
    if (again.has(c.node) || kept === undefined) bodyDiagnostics.set(c.node, checkBodies(c, checked).map((d) => copy(d)));
    else bodyDiagnostics.set(c.node, change.delta === 0 || c.node.span.start < collection.span.start ? kept : kept.map((d) => copy(d, change)));
  }
  return finish({ program, checked, parseDiagnostics, bodyDiagnostics }, schemaDiagnostics, text, source);
}

function checkedAgain(program: Program, parseDiagnostics: Diagnostic[], text: string, source: SourceFile): IncrementalResult {
  const { checked, schemaDiagnostics, bodyDiagnostics } = checkParts(program);
  for (const [collection, diagnostics] of bodyDiagnostics) bodyDiagnostics.set(collection, diagnostics.map((d) => copy(d)));
  return finish({ program, checked, parseDiagnostics, bodyDiagnostics }, schemaDiagnostics, text, source);
}

/** A collection's text without its function bodies: what other collections can see of it. */
function outline(collection: Collection, text: string): string {
  let result = '';
  let at = collection.span.start;
  for (const item of collection.items) {
    if (item.kind !== 'function') continue;
    result += text.slice(at, item.body.span.start);
    at = item.body.span.end;
  }
  return result + text.slice(at, collection.span.end);
}

/** The collections that name `changed`, or name one that does, and so on (a field typed with a collection can
 *  reach that collection's fields in turn). */
function dependentsOf(program: Program, changed: Collection, text: string): Collection[] {
  const names = new Set([changed.name.name]);
  const dependents: Collection[] = [];
  const rest = program.collections.filter((c) => c !== changed);
  for (let grew = true; grew; ) {
    grew = false;
    for (const c of rest) {
      if (dependents.includes(c) || !namesOneOf(wordsOf(c, text), names)) continue;
      dependents.push(c);
      names.add(c.name.name);
      grew = true;
    }
  }
  return dependents;
}

const words = new WeakMap<Collection, Set<string>>();

/** The names a collection's text uses (computed once per collection node). */
function wordsOf(collection: Collection, text: string): Set<string> {
  let found = words.get(collection);
  if (found === undefined) {
    found = new Set(text.slice(collection.span.start, collection.span.end).match(/[A-Za-z_$][\w$]*/g) ?? []);
    words.set(collection, found);
  }
  return found;
}

function namesOneOf(used: Set<string>, names: Set<string>): boolean {
  for (const name of names) if (used.has(name)) return true;
  return false;
}

/** Removes every entry of a collection's nodes from the program's side tables. */
function forget(collection: Collection, checked: CheckedProgram): void {
  const { types, bindings, calls, properties, resolution } = checked;
  const maps: Map<object, unknown>[] = [types, bindings, calls, properties, resolution.declared, resolution.uses, resolution.visibleAt, resolution.members, resolution.functions];
  walk(collection, (node) => {
    for (const map of maps) map.delete(node);
  });
}

/** Moves every span of a collection's tree by `delta` (a span object shared by two nodes moves once). */
function moveSpans(collection: Collection, delta: number): void {
  const seen = new Set<object>();
  walk(collection, (node) => {
    for (const key of SPAN_KEYS) {
      const span = (node as Record<string, { start: number; end: number } | undefined>)[key];
      if (span === undefined || seen.has(span)) continue;
      seen.add(span);
      span.start += delta;
      span.end += delta;
    }
  });
}

/** The properties of syntax nodes that hold places in the text (ast.ts). */
const SPAN_KEYS = ['span', 'bodyTextSpan'];

/** Visits every object of a syntax tree (nodes, and the arrays and plain objects between them). */
function walk(node: object, visit: (node: object) => void): void {
  visit(node);
  for (const key in node) {
    if (SPAN_KEYS.includes(key)) continue;
    const value = (node as Record<string, unknown>)[key];
    if (typeof value !== 'object' || value === null) continue;
    if (Array.isArray(value)) {
      for (const element of value) if (typeof element === 'object' && element !== null) walk(element, visit);
    } else walk(value, visit);
  }
}

/** A diagnostic with spans of its own (the tree's spans move in place), moved by an edit when given. */
function copy(d: Diagnostic, change?: Change): Diagnostic {
  const at = (span: { start: number; end: number }) =>
    change ? { start: moved(span.start, change), end: moved(span.end, change) } : { start: span.start, end: span.end };
  return { ...d, span: at(d.span), notes: d.notes.map((note) => (note.span ? { ...note, span: at(note.span) } : note)) };
}
