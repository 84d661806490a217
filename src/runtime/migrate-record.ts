// A migration (`@migrate`, docs/checker.md) run over one stored record: the function the new schema declares for
// what a cast cannot express (split a field, embed a reference, fill a field from others). `this` starts as the
// record cast to the new schema (castDropping: a new required field holds its default, a value that cannot be cast
// is dropped), `old` is the stored record as it is, typed by the fields the migration's parameter declares. The
// result must be a valid record of the new schema with the same id; the run is limited in gas like a call.
//
// A record that already has the new schema's exact form is left alone: that is what makes the pass resumable (the
// store runs `conform` over every record again after a crash, docs/store.md) and what a read may apply: a migrated
// record is never migrated twice.
//
// A migration may also load the records its stored record's references point to (a reference turned into an
// embedded object): each parameter after `old` is named as a reference field of `old` and typed by its collection,
// and receives that record as a call's record argument does (`{collectionId, id, data}`, `owner.name`). The caller
// reads them first (`referencesToLoad`, in their collection's current form) and passes them in: the run itself
// stays pure and gas-limited, and loads at most one record per such parameter.

import { typeText, type FieldDeclaration, type FunctionDeclaration, type ObjectTypeNode } from '../lang/index.ts';
import { castStoredRecord } from './cast-record.ts';
import { argumentCollection } from './references.ts';
import type { CompiledCollection } from './collection.ts';
import { executeFunction, isMigration } from './execute.ts';
import type { ExecutionLimits } from './limits.ts';
import { castDropping } from './schema-change.ts';
import type { WireRecord } from './wire.ts';

/** The collection's migration: its name and the fields of the stored records it reads. */
export interface Migration {
  readonly name: string;
  readonly declaration: FunctionDeclaration;
  /** The parameter's declared fields (the shape of the records under the previous schema, as far as it reads them). */
  readonly reads: readonly FieldDeclaration[];
  /** The referenced records it loads: one per parameter after `old`, named as the reference field it follows. */
  readonly loads: readonly LoadedReference[];
}

/** A parameter of a migration that receives the record a reference field of the stored record points to. */
export interface LoadedReference {
  /** The parameter's name, which is the reference field's. */
  readonly field: string;
  /** The collection's name as the schema declares it (`User`). */
  readonly collection: string;
}

/** A record a migration loads: where the reference points. */
export interface ReferenceTarget {
  readonly collectionId: string;
  readonly id: string;
}

/**
 * The referenced records loaded for a migration, by `referenceKey`: the record in its collection's current form,
 * or null when there is no such record.
 */
export type ReferencedRecords = ReadonlyMap<string, WireRecord | null>;

export function referenceKey(target: ReferenceTarget): string {
  return `${target.collectionId}\u0000${target.id}`;
}

/** The collection's `@migrate` function, if it declares one (the checker allows at most one). */
export function migrationOf(collection: CompiledCollection): Migration | undefined {
  for (const [name, fn] of collection.functions) {
    if (!isMigration(fn.declaration)) continue;
    const [old, ...more] = fn.declaration.parameters;
    const reads = old?.type.kind === 'objectType' ? (old.type as ObjectTypeNode).fields : [];
    const loads = more.flatMap((p) => (p.type.kind === 'referenceType' ? [{ field: p.name.name, collection: p.type.collection.name }] : []));
    return { name, declaration: fn.declaration, reads, loads };
  }
  return undefined;
}

export type MigrationOutcome =
  /** The record already has the new schema's form: the migration does not run over it. */
  | { readonly kind: 'fits' }
  | { readonly kind: 'migrated'; readonly record: WireRecord; readonly gasUsed: number }
  /** The migration failed over this record (an error, an assertion, out of gas, an invalid result). */
  | { readonly kind: 'failed'; readonly message: string };

/**
 * The records the migration loads for this stored record (the targets of its loaded reference fields), or none when
 * it does not run over it (the record already has the new schema's form). A field without a reference, or with one
 * the run will refuse, needs no load.
 */
export function referencesToLoad(collection: CompiledCollection, migration: Migration, record: { readonly [key: string]: unknown }): ReferenceTarget[] {
  if (migration.loads.length === 0) return [];
  const fits = castStoredRecord(collection, record);
  if (fits.ok && !fits.changed) return [];
  return migration.loads.flatMap((load) => {
    const target = referenceTarget(collection, load, record[load.field]);
    return target.kind === 'target' ? [target.target] : [];
  });
}

type TargetOf = { kind: 'none' } | { kind: 'target'; target: ReferenceTarget } | { kind: 'invalid'; message: string };

/** Where the stored value of a loaded reference field points (none: no value). */
function referenceTarget(collection: CompiledCollection, load: LoadedReference, value: unknown): TargetOf {
  if (value === undefined || value === null) return { kind: 'none' };
  const invalid = (detail: string): TargetOf => ({ kind: 'invalid', message: `field "${load.field}" ${detail}` });
  if (typeof value !== 'object' || Array.isArray(value)) return invalid(`holds ${JSON.stringify(value)}, not a reference to a record of "${load.collection}"`);
  const { collectionId, id } = value as { collectionId?: unknown; id?: unknown };
  if (typeof id !== 'string' || (collectionId !== undefined && typeof collectionId !== 'string')) {
    return invalid(`holds ${JSON.stringify(value)}, not a reference to a record of "${load.collection}"`);
  }
  if (id === '') return invalid('holds the empty reference (the default of a new required field): it points to no record to load');
  const where = argumentCollection(collection, load.collection, collectionId);
  if (!where.ok) return invalid(`holds a reference the migration cannot load: ${where.problem}`);
  return { kind: 'target', target: { collectionId: where.collectionId, id } };
}

/**
 * Runs the migration over one stored record (see the top of the file). Pure: nothing is written. `referenced`
 * holds the records `referencesToLoad` named, as loaded; a referenced record that does not exist fails the record,
 * naming the field and the record it points to.
 */
export function migrateRecord(
  collection: CompiledCollection,
  migration: Migration,
  record: { readonly [key: string]: unknown },
  limits?: Partial<ExecutionLimits>,
  referenced: ReferencedRecords = new Map(),
): MigrationOutcome {
  const fits = castStoredRecord(collection, record);
  if (fits.ok && !fits.changed) return { kind: 'fits' };
  const start = castDropping(collection, record);
  if (!start.ok) return { kind: 'failed', message: start.message };
  const args: unknown[] = [record];
  for (const load of migration.loads) {
    const target = referenceTarget(collection, load, record[load.field]);
    if (target.kind === 'invalid') return { kind: 'failed', message: target.message };
    if (target.kind === 'none') {
      args.push(undefined);
      continue;
    }
    const { collectionId, id } = target.target;
    const data = referenced.get(referenceKey(target.target));
    const points = `field "${load.field}" references record ${JSON.stringify(id)} of ${collectionId}`;
    if (data === undefined) return { kind: 'failed', message: `${points}, which was not loaded for the migration` };
    if (data === null) return { kind: 'failed', message: `${points}, which does not exist` };
    args.push({ collectionId, id, data });
  }
  const result = executeFunction(collection, migration.name, start.record, args, {}, limits, true);
  if (!result.ok) {
    const where = result.error.line === undefined ? '' : ` (line ${result.error.line}, column ${result.error.column})`;
    return { kind: 'failed', message: `${result.error.reason}: ${result.error.message}${where}` };
  }
  const { record: migrated, deleted, gasUsed } = result.transition;
  if (deleted || migrated === null) return { kind: 'failed', message: 'a migration cannot delete a record (selfdestruct)' };
  return { kind: 'migrated', record: migrated, gasUsed };
}

/**
 * Whether the migration's declared fields are fields of the stored schema (`stored`), with the same type, and
 * optional where the stored field is: null when they are, otherwise what differs, naming the field.
 */
export function migrationShapeProblem(migration: Migration, stored: readonly FieldDeclaration[]): string | null {
  return shapeProblem(migration.reads, stored, (problem) => `migration "${migration.name}" ${problem}`, 'the stored schema');
}

/**
 * Whether the fields the migration's schema declares for a collection it loads records of (`declared`) are fields
 * of that collection's stored schema (`stored`, null when there is no such collection), with the same type, and
 * optional where the stored field is: the loaded records come in the stored schema's form. Null when they are.
 */
export function loadedShapeProblem(migration: Migration, load: LoadedReference, collectionId: string, declared: readonly FieldDeclaration[], stored: readonly FieldDeclaration[] | null): string | null {
  const intro = `migration "${migration.name}" loads the records field "${load.field}" points to`;
  if (stored === null) return `${intro}, but there is no collection ${collectionId}`;
  return shapeProblem(declared, stored, (problem) => `${intro}, whose schema here ${problem}`, `the stored schema of ${collectionId}`);
}

function shapeProblem(reads: readonly FieldDeclaration[], stored: readonly FieldDeclaration[], say: (problem: string) => string, storedName: string): string | null {
  const fields = new Map(stored.map((f) => [f.name.name, f]));
  for (const read of reads) {
    const name = read.name.name;
    const field = fields.get(name);
    const declared = `${typeText(read.type)}${read.optional ? '?' : ''}`;
    if (!field) {
      const known = [...fields.keys()].map((n) => `"${n}"`).join(', ');
      return say(`reads field "${name}", which ${storedName} does not declare (its fields: ${known})`);
    }
    if (typeText(field.type) !== typeText(read.type)) {
      return say(`declares field "${name}" as ${declared}, but ${storedName} has ${typeText(field.type)}${field.optional ? '?' : ''}`);
    }
    if (field.optional && !read.optional) {
      return say(`declares field "${name}" as required, but it is optional in ${storedName}: declare it "${name}?: ${typeText(read.type)}"`);
    }
  }
  return null;
}
