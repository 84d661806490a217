// A migration (`@migrate`, docs/checker.md) run over one stored record: the function the new schema declares for
// what a cast cannot express (split a field, embed a reference, fill a field from others). `this` starts as the
// record cast to the new schema (castDropping: a new required field holds its default, a value that cannot be cast
// is dropped), `old` is the stored record as it is, typed by the fields the migration's parameter declares. The
// result must be a valid record of the new schema with the same id; the run is limited in gas like a call.
//
// A record that already has the new schema's exact form is left alone: that is what makes the pass resumable (the
// store runs `conform` over every record again after a crash, docs/store.md) and what a read may apply: a migrated
// record is never migrated twice.

import { typeText, type FieldDeclaration, type FunctionDeclaration, type ObjectTypeNode } from '../lang/index.ts';
import { castStoredRecord } from './cast-record.ts';
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
}

/** The collection's `@migrate` function, if it declares one (the checker allows at most one). */
export function migrationOf(collection: CompiledCollection): Migration | undefined {
  for (const [name, fn] of collection.functions) {
    if (!isMigration(fn.declaration)) continue;
    const type = fn.declaration.parameters[0]?.type;
    return { name, declaration: fn.declaration, reads: type?.kind === 'objectType' ? (type as ObjectTypeNode).fields : [] };
  }
  return undefined;
}

export type MigrationOutcome =
  /** The record already has the new schema's form: the migration does not run over it. */
  | { readonly kind: 'fits' }
  | { readonly kind: 'migrated'; readonly record: WireRecord; readonly gasUsed: number }
  /** The migration failed over this record (an error, an assertion, out of gas, an invalid result). */
  | { readonly kind: 'failed'; readonly message: string };

/** Runs the migration over one stored record (see the top of the file). Pure: nothing is written. */
export function migrateRecord(
  collection: CompiledCollection,
  migration: Migration,
  record: { readonly [key: string]: unknown },
  limits?: Partial<ExecutionLimits>,
): MigrationOutcome {
  const fits = castStoredRecord(collection, record);
  if (fits.ok && !fits.changed) return { kind: 'fits' };
  const start = castDropping(collection, record);
  if (!start.ok) return { kind: 'failed', message: start.message };
  const result = executeFunction(collection, migration.name, start.record, [record], {}, limits, true);
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
  const fields = new Map(stored.map((f) => [f.name.name, f]));
  for (const read of migration.reads) {
    const name = read.name.name;
    const field = fields.get(name);
    const declared = `${typeText(read.type)}${read.optional ? '?' : ''}`;
    if (!field) {
      const known = [...fields.keys()].map((n) => `"${n}"`).join(', ');
      return `migration "${migration.name}" reads field "${name}", which the stored schema does not declare (its fields: ${known})`;
    }
    if (typeText(field.type) !== typeText(read.type)) {
      return `migration "${migration.name}" declares field "${name}" as ${declared}, but the stored schema has ${typeText(field.type)}${field.optional ? '?' : ''}`;
    }
    if (field.optional && !read.optional) {
      return `migration "${migration.name}" declares field "${name}" as required, but it is optional in the stored schema: declare it "${name}?: ${typeText(read.type)}"`;
    }
  }
  return null;
}
