// The plan of a schema change, computed against the stored records before anything is written: per field, what
// is added (with the default filled in), removed, or cast (how many records keep their value in a new form, how
// many lose it, with an example), the indexes built and dropped, and the permission decorators that change. A
// change that loses a stored value is refused unless the request names every such field (`acceptDataLoss`),
// as Prisma's `--accept-data-loss`; a change some record cannot follow at all is refused whatever it accepts.

import type { Collection, Decorator, FieldDeclaration } from '../lang/index.ts';
import {
  SchemaChange,
  followMigrated,
  followRecord,
  loadedShapeProblem,
  migrateRecord,
  migrationOf,
  migrationShapeProblem,
  referencesToLoad,
  type CompiledCollection,
  type FieldChange,
  type JsonValue,
  type Migration,
  type RecordFollow,
  type ReferencedRecords,
  type ReferenceTarget,
} from '../runtime/index.ts';
import { MAX_INDEXED_ARRAY_ELEMENTS, overfullArrayFieldsCheck, type IndexDefinition, type JsonObject, type Layout, type RecordStore } from '../store/index.ts';
import { ServiceError, invalidArgument } from './errors.ts';
import type { CheckedCollection } from './meta-collection.ts';

/** What the change does to one top-level field. */
export interface FieldPlan extends FieldChange {
  /** Records that held a value in it (the old field). */
  readonly holding: number;
  /** Records whose value changes form without loss (number ↔ text that round-trips, a field made optional…). */
  readonly cast: number;
  /** Records whose value is lost (dropped, or cast to a form it cannot be read back from). */
  readonly lost: number;
  /** The first record losing a value: its id, where, and the value. */
  readonly example?: { readonly id: string; readonly path: string; readonly value: JsonValue };
  /** Records given the new required field's default, and that default. */
  readonly filled: number;
  readonly default?: JsonValue;
  /** Records whose value in it the migration read (it declares the field in its parameter): the migration keeps it. */
  readonly migrated?: number;
  /** Records the migration gave a value in it where they had none (instead of the default). */
  readonly written?: number;
}

/** What the new schema's migration (`@migrate`) does with this change. */
export interface MigrationPlan {
  readonly name: string;
  /** The fields of the stored records it reads (its parameter's fields). */
  readonly reads: readonly string[];
  /**
   * Whether it runs with this change. Not when the collection is created (no stored records), nor when the stored
   * schema already declares the same migration, unchanged: it ran when that schema was installed (the history says so).
   */
  readonly runs: boolean;
  /** Why it does not run (or, when it `runs`, why the change is refused). */
  readonly reason?: string;
  /**
   * Set when the change installs the schema already stored, whose migration's pass was cut short (a crash): the
   * migration runs over the records not migrated yet, and the others count as `fit`.
   */
  readonly resumed?: true;
  /** Records it runs over (when `runs`). */
  readonly records: number;
  /** Records left alone: they already have the new schema's exact form (a migration never runs twice over a record). */
  readonly fit: number;
  /** Records it fails over (an error, an assertion, out of gas, an invalid result): the change is then refused. */
  readonly failed: number;
  /** The first record it fails over, and why. */
  readonly failure?: { readonly id: string; readonly message: string };
}

export interface PermissionChange {
  /** `collection`, `field x` or `function f`. */
  readonly on: string;
  readonly from: readonly string[];
  readonly to: readonly string[];
}

export interface SchemaPlan {
  readonly collectionId: string;
  /** False when the collection does not exist yet (nothing to plan against). */
  readonly exists: boolean;
  /** How many stored records the plan was computed against. */
  readonly records: number;
  readonly fields: readonly FieldPlan[];
  /** Indexes built for the stored records and dropped, as `(city, age desc)`. */
  readonly indexes: { readonly built: readonly string[]; readonly dropped: readonly string[] };
  readonly permissions: readonly PermissionChange[];
  /** The fields losing stored values: a request must name each of them in `acceptDataLoss`. */
  readonly dataLoss: readonly string[];
  /** What no consent can allow (a new required field without a default, an over-full indexed array, a migration that fails). */
  readonly blocked: readonly string[];
  /** The new schema's migration, when it declares one. */
  readonly migration?: MigrationPlan;
  /** The collection's change stamp when the records were read: the change commits only if it is still this. */
  readonly stamp: number;
}

/** How the plan reaches the records a migration loads through references, and their collections' stored schemas. */
export interface MigrationReferences {
  /** The records, each in its collection's current form (null: no such record), as the pass will read them. */
  load(targets: readonly ReferenceTarget[]): Promise<ReferencedRecords>;
  /** The fields of the collection's stored schema; null when there is no such collection. */
  fields(collectionId: string): Promise<readonly FieldDeclaration[] | null>;
}

/** Computes the plan of replacing the collection's schema `old` (null: none stored) by `next`. Writes nothing. */
export async function planSchemaChange(
  store: RecordStore,
  old: { readonly node: Collection; readonly compiled: CompiledCollection } | null,
  next: { readonly checked: CheckedCollection; readonly compiled: CompiledCollection },
  options: { readonly resumingMigration?: boolean; readonly references?: MigrationReferences } = {},
): Promise<SchemaPlan> {
  const collectionId = next.checked.collectionId;
  const oldLayout = await store.getLayout(collectionId);
  const stamp = await store.changes.lastChange({ collectionId });
  const exists = oldLayout !== null;
  const change = new SchemaChange(old?.compiled.fields ?? [], next.compiled.fields);
  const fields = new Map<string, MutableFieldPlan>(change.changes.map((c) => [c.field, { ...c, holding: 0, cast: 0, lost: 0, filled: 0 }]));
  const entry = (field: string): MutableFieldPlan => {
    let plan = fields.get(field);
    if (!plan) {
      // A value in a field neither schema declares (written by hand into the store): it is dropped too.
      plan = { field, change: 'removed', holding: 0, cast: 0, lost: 0, filled: 0 };
      fields.set(field, plan);
    }
    return plan;
  };
  const unfillable = new BrokenFields();
  const tooManyValues = new BrokenFields();
  const overfull = overfullArrayFieldsCheck(collectionId, next.checked.layout);
  const migration = migrationOf(next.compiled);
  const migrationPlan = migration ? await planMigration(migration, old?.compiled ?? null, next.compiled, options.resumingMigration === true, options.references) : undefined;
  const runs = migration && migrationPlan?.runs && migrationPlan.reason === undefined ? migration : undefined;
  const reads = new Set(migration?.reads.map((f) => f.name.name) ?? []);
  const references = options.references;
  let records = 0;
  if (exists) {
    await store.forEachRecordBatch(collectionId, async (batch) => {
      // The records the migration loads through references, read for the batch as the pass will read them.
      const loading = runs && runs.loads.length > 0 && references;
      const referenced = loading ? await references.load(batch.flatMap((record) => referencesToLoad(next.compiled, runs, record))) : undefined;
      for (const record of batch) {
        records++;
        planRecord(record, referenced);
      }
    });
  }

  /** The record under the new schema: migrated when the migration runs over it, cast otherwise (undefined: it failed). */
  function follow(record: JsonObject, id: string, referenced: ReferencedRecords | undefined): { follow: RecordFollow; migrated: boolean } | undefined {
    if (!runs || !migrationPlan) return { follow: followRecord(change, next.compiled, record), migrated: false };
    const outcome = migrateRecord(next.compiled, runs, record, undefined, referenced);
    if (outcome.kind === 'fits') {
      migrationPlan.fit++;
      return { follow: followRecord(change, next.compiled, record), migrated: false };
    }
    if (outcome.kind === 'failed') {
      migrationPlan.failed++;
      migrationPlan.failure ??= { id, message: outcome.message };
      return undefined;
    }
    migrationPlan.records++;
    for (const field of reads) {
      const plan = fields.get(field);
      if (plan && record[field] !== undefined && record[field] !== null) plan.migrated = (plan.migrated ?? 0) + 1;
    }
    return { follow: followMigrated(change, record, outcome.record, reads), migrated: true };
  }

  function planRecord(record: JsonObject, referenced: ReferencedRecords | undefined): void {
    const id = String(record.id);
    const followed = follow(record, id, referenced);
    if (followed) planFollowed(record, id, followed.follow, followed.migrated);
  }

  function planFollowed(record: JsonObject, id: string, follow: RecordFollow, migrated: boolean): void {
    if (follow.ok) for (const field of follow.lost.keys()) entry(field);
    for (const [field, value] of Object.entries(record)) if (value !== null && value !== undefined && fields.has(field)) fields.get(field)!.holding++;
    if (!follow.ok) {
      unfillable.add(follow.path, `record ${JSON.stringify(id)}: ${follow.message}`);
      return;
    }
    for (const [field, lost] of follow.lost) {
      const plan = entry(field);
      plan.lost++;
      plan.example ??= { id, path: lost.path, value: lost.value };
    }
    for (const field of follow.cast) entry(field).cast++;
    for (const plan of fields.values()) {
      if (plan.change === 'removed') continue;
      const before = record[plan.field];
      const after = follow.record[plan.field];
      if ((before === undefined || before === null) && after !== undefined && after !== null) {
        // A migrated record's new values are the migration's, not defaults.
        if (migrated) plan.written = (plan.written ?? 0) + 1;
        else {
          plan.filled++;
          plan.default ??= after;
        }
      }
    }
    const full = overfull(follow.record as JsonObject)[0];
    if (full) tooManyValues.add(full.path, `record ${JSON.stringify(id)} holds ${full.values} distinct values`);
  }

  const oldIndexes = new Map((oldLayout?.indexes ?? []).filter((i) => !i.primary).map((i) => [i.id, i]));
  const newIndexes = new Map(next.checked.layout.indexes.filter((i) => !i.primary).map((i) => [i.id, i]));
  const built = [...newIndexes].filter(([id]) => !oldIndexes.has(id)).map(([, index]) => indexText(index));
  const dropped = exists ? [...oldIndexes].filter(([id]) => !newIndexes.has(id)).map(([, index]) => indexText(index)) : [];
  // The full-text search index is built and dropped as an index is (its id follows its fields).
  const oldSearch = oldLayout?.search;
  const newSearch = next.checked.layout.search;
  if (newSearch && newSearch.id !== oldSearch?.id) built.push(`@search(${newSearch.fields.join(', ')})`);
  if (exists && oldSearch && oldSearch.id !== newSearch?.id) dropped.push(`@search(${oldSearch.fields.join(', ')})`);
  const fieldPlans = [...fields.values()].filter((plan) => plan.change !== 'removed' || plan.from !== undefined || plan.lost > 0);
  return {
    collectionId,
    exists,
    records,
    fields: fieldPlans,
    indexes: { built: exists ? built : [], dropped },
    permissions: old ? permissionChanges(old.node, next.checked.node) : [],
    dataLoss: fieldPlans.filter((plan) => plan.lost > 0).map((plan) => plan.field),
    blocked: [...blockedText(unfillable, tooManyValues), ...migrationBlocked(migrationPlan)],
    stamp,
    ...(migrationPlan ? { migration: migrationPlan } : {}),
  };
}

/**
 * Whether the migration runs with this change (see MigrationPlan.runs), and, when it would, whether the fields it
 * declares are the stored schema's (`reason` then says which is not: the change is refused).
 */
async function planMigration(
  migration: Migration,
  old: CompiledCollection | null,
  next: CompiledCollection,
  resuming: boolean,
  references: MigrationReferences | undefined,
): Promise<MutableMigrationPlan> {
  const plan: MutableMigrationPlan = { name: migration.name, reads: migration.reads.map((f) => f.name.name), runs: false, records: 0, fit: 0, failed: 0 };
  if (old === null) return { ...plan, reason: 'the collection is created: there are no stored records to migrate' };
  // Its shape was checked against the schema before it when its change was planned.
  if (resuming) return { ...plan, runs: true, resumed: true };
  const before = migrationOf(old);
  if (before && functionText(old, before) === functionText(next, migration)) {
    return { ...plan, reason: `the stored schema declares the same migration: it ran when that schema was installed` };
  }
  const problem = migrationShapeProblem(migration, old.fields) ?? (await loadedShapesProblem(migration, next, references));
  return problem === null ? { ...plan, runs: true } : { ...plan, runs: true, reason: problem };
}

/**
 * Whether each collection the migration loads records of is stored with the fields the new schema declares for
 * it (the records come in that stored schema's form): null when it is, otherwise what differs.
 */
async function loadedShapesProblem(migration: Migration, next: CompiledCollection, references: MigrationReferences | undefined): Promise<string | null> {
  for (const load of migration.loads) {
    const collectionId = next.conversion.collectionIdOf(load.collection);
    const declared = next.sibling(load.collection)?.fields ?? [];
    const stored = references ? await references.fields(collectionId) : null;
    const problem = loadedShapeProblem(migration, load, collectionId, declared, stored);
    if (problem !== null) return problem;
  }
  return null;
}

/** The migration's declaration as written (decorators, header and body). */
function functionText(collection: CompiledCollection, migration: Migration): string {
  const { start, end } = migration.declaration.span;
  return collection.source?.text.slice(start, end) ?? JSON.stringify(migration.declaration);
}

function migrationBlocked(plan: MigrationPlan | undefined): string[] {
  if (!plan?.runs) return [];
  if (plan.reason !== undefined) return [`${plan.reason}; nothing was changed`];
  if (plan.failed === 0) return [];
  return [
    `migration "${plan.name}" fails on ${plural(plan.failed, 'stored record')} (record ${JSON.stringify(plan.failure!.id)}: ${plan.failure!.message}); nothing was changed`,
  ];
}

type MutableMigrationPlan = { -readonly [K in keyof MigrationPlan]: MigrationPlan[K] };

function blockedText(unfillable: BrokenFields, tooManyValues: BrokenFields): string[] {
  const problems: string[] = [];
  if (unfillable.total > 0) problems.push(`${plural(unfillable.total, 'stored record')} cannot be cast to the new schema; ${unfillable.describe()}`);
  if (tooManyValues.total > 0) {
    problems.push(
      `${plural(tooManyValues.total, 'stored record')} ${tooManyValues.total === 1 ? 'holds' : 'hold'} more than ${MAX_INDEXED_ARRAY_ELEMENTS} distinct values in an indexed array field (an index holds at most ${MAX_INDEXED_ARRAY_ELEMENTS} per record); ${tooManyValues.describe()}`,
    );
  }
  return problems;
}

type MutableFieldPlan = { -readonly [K in keyof FieldPlan]: FieldPlan[K] };

/** Refuses the plan unless every field losing data is named in `accepted`, and nothing is blocked. */
export function checkPlan(plan: SchemaPlan, accepted: readonly string[]): void {
  const known = new Set(plan.fields.map((f) => f.field));
  const unknown = accepted.filter((field) => !known.has(field));
  if (unknown.length > 0) {
    throw invalidArgument(
      'request/invalid-body',
      `acceptDataLoss names ${unknown.map((f) => `"${f}"`).join(', ')}, which ${unknown.length === 1 ? 'is not a field' : 'are not fields'} this change adds, removes or retypes${known.size > 0 ? ` (those are: ${[...known].map((f) => `"${f}"`).join(', ')})` : ''}`,
    );
  }
  if (plan.blocked.length > 0) {
    throw new ServiceError('invalid-argument', 'collection/invalid-schema', `cannot update collection ${plan.collectionId}: ${plan.blocked.join('; ')}`);
  }
  const refused = plan.fields.filter((f) => f.lost > 0 && !accepted.includes(f.field));
  if (refused.length === 0) return;
  const described = refused.map((f) => `${fieldText(f)}: ${plural(f.lost, 'record')} would lose ${f.lost === 1 ? 'its value' : 'their values'} (record ${JSON.stringify(f.example!.id)}: ${f.example!.path} = ${preview(f.example!.value)})`);
  throw new ServiceError(
    'invalid-argument',
    'collection/data-loss',
    `cannot update collection ${plan.collectionId} without losing stored data: ${described.join('; ')}. Nothing was changed; to accept the loss, name the fields in acceptDataLoss: ${JSON.stringify(refused.map((f) => f.field))}`,
  );
}

/** The plan as lines of text (the CLI's `vellum migrate plan`). */
export function describePlan(plan: SchemaPlan): string[] {
  if (!plan.exists) return [`collection ${plan.collectionId} does not exist yet: it is created, no stored record changes`];
  const lines = [`collection ${plan.collectionId}: ${plural(plan.records, 'stored record')}`];
  if (plan.fields.length === 0) lines.push('  fields: no change');
  for (const f of plan.fields) {
    const parts: string[] = [];
    if (f.change === 'added' && f.written) parts.push(`${plural(f.written, 'record')} given a value by the migration`);
    if (f.change === 'added' && (f.filled > 0 || !f.written)) parts.push(f.filled > 0 ? `${plural(f.filled, 'record')} given the default ${preview(f.default ?? null)}` : 'no record changes');
    if (f.change !== 'added') parts.push(`${plural(f.holding, 'record')} hold a value`);
    if (f.cast > 0) parts.push(`${f.cast} cast without loss`);
    if (f.migrated) parts.push(`${f.migrated} read by the migration`);
    if (f.change === 'retyped' && f.filled > 0) parts.push(`${f.filled} given the default ${preview(f.default ?? null)}`);
    if (f.change === 'retyped' && f.written) parts.push(`${f.written} given a value by the migration`);
    if (f.lost > 0) parts.push(`${f.lost} LOSE their value (e.g. record ${JSON.stringify(f.example!.id)}: ${f.example!.path} = ${preview(f.example!.value)})`);
    lines.push(`  ${fieldText(f)}: ${parts.join(', ')}`);
  }
  // The same fields in both lists: the index of a field whose type changed (its id follows the types).
  const rebuilt = plan.indexes.built.filter((index) => plan.indexes.dropped.includes(index));
  for (const index of rebuilt) lines.push(`  index rebuilt: ${index} (a field's type changed)`);
  for (const index of plan.indexes.built) if (!rebuilt.includes(index)) lines.push(`  index built: ${index}`);
  for (const index of plan.indexes.dropped) if (!rebuilt.includes(index)) lines.push(`  index dropped: ${index}`);
  for (const p of plan.permissions) lines.push(`  permissions of ${p.on}: ${p.from.join(' ') || '(none)'} → ${p.to.join(' ') || '(none)'}`);
  const m = plan.migration;
  if (m) {
    if (!m.runs) lines.push(`  migration ${m.name}: does not run (${m.reason})`);
    else if (m.reason === undefined) {
      const parts = [`${m.resumed ? 'resumes its unfinished pass: ' : ''}runs over ${plural(m.records, 'record')}`];
      if (m.fit > 0) parts.push(`${m.fit} already in the new form, left alone`);
      if (m.failed > 0) parts.push(`FAILS on ${m.failed}`);
      lines.push(`  migration ${m.name} (reads ${m.reads.map((f) => `"${f}"`).join(', ') || 'nothing'}): ${parts.join(', ')}`);
    }
  }
  for (const b of plan.blocked) lines.push(`  BLOCKED: ${b}`);
  if (plan.dataLoss.length > 0) lines.push(`  data loss: refused unless accepted for ${JSON.stringify(plan.dataLoss)}`);
  return lines;
}

function fieldText(f: FieldPlan): string {
  if (f.change === 'added') return `field "${f.field}" added (${f.to})`;
  if (f.change === 'removed') return `field "${f.field}" removed${f.from ? ` (${f.from})` : ' (not declared)'}`;
  return `field "${f.field}" ${f.from} → ${f.to}`;
}

function indexText(index: IndexDefinition): string {
  const fields = index.fields.slice(0, -1).map((f) => (f.direction === 'desc' ? `${f.path} desc` : f.path));
  return `(${fields.join(', ')})`;
}

/** The permission decorators of the collection, its fields and its functions that differ between the schemas. */
function permissionChanges(old: Collection, next: Collection): PermissionChange[] {
  const targets = (collection: Collection): Map<string, string[]> => {
    const map = new Map<string, string[]>([['collection', permissionDecorators(collection.decorators)]]);
    for (const item of collection.items) {
      if (item.kind === 'field') map.set(`field ${item.name.name}`, permissionDecorators(item.decorators));
      else if (item.kind === 'function') map.set(`function ${item.name.name}`, permissionDecorators(item.decorators));
    }
    return map;
  };
  const before = targets(old);
  const after = targets(next);
  const changes: PermissionChange[] = [];
  for (const on of new Set([...before.keys(), ...after.keys()])) {
    const from = before.get(on) ?? [];
    const to = after.get(on) ?? [];
    if (from.join(' ') !== to.join(' ')) changes.push({ on, from, to });
  }
  return changes;
}

/** The decorators that grant or restrict access (`@migrate` marks a migration, which nobody calls). */
function permissionDecorators(decorators: readonly Decorator[]): string[] {
  return decorators.filter((d) => d.name !== 'migrate').map(decoratorText);
}

function decoratorText(d: Decorator): string {
  return d.arguments === null ? `@${d.name}` : `@${d.name}(${d.arguments.map((a) => a.name).join(', ')})`;
}

/** How many fields a refused change's message names. */
const MAX_FIELDS_NAMED = 10;

/**
 * Stored records that cannot follow a change, by field: each field with its count and first record, at most
 * MAX_FIELDS_NAMED of them (a map's entries each have a path of their own), the records of any others only counted.
 */
class BrokenFields {
  readonly #named = new Map<string, { records: number; example: string }>();
  #elsewhere = 0;
  total = 0;

  add(path: string, example: string): void {
    const field = path.replace(/\[\d+\]/g, '[]');
    this.total++;
    const entry = this.#named.get(field);
    if (entry) entry.records++;
    else if (this.#named.size < MAX_FIELDS_NAMED) this.#named.set(field, { records: 1, example });
    else this.#elsewhere++;
  }

  describe(): string {
    const fields = [...this.#named].map(([field, { records, example }]) => `field "${field}": ${plural(records, 'record')} (${example})`);
    if (this.#elsewhere > 0) fields.push(`other fields: ${plural(this.#elsewhere, 'record')}`);
    return fields.join('; ');
  }
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

function preview(value: JsonValue): string {
  const text = JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
