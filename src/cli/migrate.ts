// `vellum migrate plan|apply <file…>`: a schema change against the stored records of a data folder (`--data`,
// SQLite) or a PostgreSQL database (`--db`), each collection of the files as `<namespace>/<Name>`, as
// `vellum serve --schema` would install it. `plan` prints what the change does to the stored data (per field:
// added with its default, removed, cast without loss, lost with an example; indexes built and dropped;
// permission changes) and writes nothing. `apply` plans the same and installs the schema unless it would lose a
// stored value in a field not named in `--accept-data-loss Name.field …`. Exit 1 when a change is refused.
// `history <Name>` lists every schema the collection had (version, time, signer, what its change did);
// `revert <Name> --to <version>` goes back to that version's code as a planned change under the same rules.
import { InvalidArgumentError, Option, type Command } from 'commander';
import {
  checkCollectionSchema,
  checkPlan,
  describePlan,
  openStore,
  readSchemaFiles,
  RecordService,
  type SchemaFileCollection,
  type SchemaPlan,
  type SchemaVersion,
} from '../service/index.ts';
import type { RebuildProgress, RecordStore } from '../store/index.ts';

interface MigrateFlags {
  data: string;
  db?: string;
  namespace: string;
  json?: boolean;
  acceptDataLoss?: string[];
}

function databaseUrl(text: string): string {
  if (!/^postgres(ql)?:\/\//.test(text)) throw new InvalidArgumentError('expected a postgres:// or postgresql:// URL, such as postgres://user:password@host:5432/database');
  return text;
}

function namespace(text: string): string {
  if (text === '' || text.split('/').some((part) => part === '')) {
    throw new InvalidArgumentError('expected a namespace of one or more non-empty parts separated by "/", such as app or org/app');
  }
  return text;
}

function qualifiedField(text: string, previous: string[] | undefined): string[] {
  if (!/^[^.]+\.[^.]+$/.test(text)) throw new InvalidArgumentError(`expected Name.field (a collection of the files and one of its fields), got "${text}"`);
  return [...(previous ?? []), text];
}

export function registerMigrate(program: Command): void {
  const migrate = program.command('migrate').description('plan and apply schema changes against the stored records');
  const common = (command: Command) =>
    command
      .argument('<file...>', 'schema files (each collection as <namespace>/<Name>)')
      .option('--data <dir>', 'folder of the embedded SQLite database', './data')
      .addOption(new Option('--db <url>', 'a postgres:// URL: the PostgreSQL database instead').argParser(databaseUrl).conflicts('data'))
      .option('--namespace <ns>', 'namespace of the collections', namespace, 'app');
  common(migrate.command('plan').description('print what the change does to the stored records; writes nothing'))
    .option('--json', 'print the plans as JSON')
    .action(async (files: string[], flags: MigrateFlags) => {
      process.exitCode = await run(files, flags, 'plan');
    });
  const store = (command: Command) =>
    command
      .option('--data <dir>', 'folder of the embedded SQLite database', './data')
      .addOption(new Option('--db <url>', 'a postgres:// URL: the PostgreSQL database instead').argParser(databaseUrl).conflicts('data'))
      .option('--namespace <ns>', 'namespace of the collection', namespace, 'app');
  store(migrate.command('history').description("list every schema the collection had, oldest first").argument('<Name>', 'the collection'))
    .option('--json', 'print the versions as JSON (with their code and plans)')
    .action(async (name: string, flags: MigrateFlags) => {
      process.exitCode = await withService(flags, 'history', async (service, out) => {
        const versions = await service.schemaHistory(`${flags.namespace}/${name}`);
        if (versions.length === 0) throw new Error(`collection ${flags.namespace}/${name} has no schema history (it does not exist)`);
        if (flags.json) return out(JSON.stringify(versions, null, 2));
        for (const v of versions) out(historyLine(v));
      });
    });
  store(migrate.command('revert').description("go back to an earlier version's schema: a planned change under the same rules").argument('<Name>', 'the collection'))
    .requiredOption('--to <version>', 'the version to go back to (see vellum migrate history)', versionNumber)
    .option('--accept-data-loss <field...>', 'fields whose stored values going back may lose')
    .option('--dry-run', 'print the plan only')
    .action(async (name: string, flags: MigrateFlags & { to: number; dryRun?: boolean }) => {
      process.exitCode = await withService(flags, 'revert', async (service, out) => {
        const id = `${flags.namespace}/${name}`;
        const target = (await service.schemaHistory(id)).find((v) => v.version === flags.to);
        if (!target) throw new Error(`collection ${id} has no version ${flags.to} (see vellum migrate history ${name})`);
        const planned = await service.planChange(checkCollectionSchema(id, target.code));
        const plan = planned.plan;
        for (const line of describePlan(plan)) out(line);
        if (flags.dryRun) return;
        const accepted = flags.acceptDataLoss ?? [];
        checkPlan(plan, accepted);
        const migrating = await migrationRunning(service, id, target.code, plan);
        out(`${id} ${await service.installSchema(id, target.code, accepted, progressPrinter(out, migrating), planned)} (back to version ${flags.to})`);
      });
    });
  common(migrate.command('apply').description('apply the change; refused (exit 1) if it loses stored values not accepted'))
    .option('--accept-data-loss <Name.field...>', 'fields whose stored values the change may lose', qualifiedField)
    .action(async (files: string[], flags: MigrateFlags) => {
      process.exitCode = await run(files, flags, 'apply');
    });
}

/**
 * The name of the migration the install of `code` runs (`@migrate`): the plan's, when it runs with this change, or
 * the last version's, when that is this code and its pass was cut short (the next install finishes it).
 */
async function migrationRunning(service: RecordService, id: string, code: string, plan: SchemaPlan): Promise<string | undefined> {
  if (plan.migration?.runs && plan.migration.reason === undefined) return plan.migration.name;
  const last = (await service.schemaHistory(id)).at(-1);
  return last?.code === code && last.plan.migration?.runs ? last.plan.migration.name : undefined;
}

/** Prints the layout pass's progress: about every tenth of the records, and the end. */
function progressPrinter(out: (line: string) => void, migration?: string): (progress: RebuildProgress) => void {
  let next = 0;
  const what = migration ? `migrated by ${migration}, cast and indexed` : 'cast and indexed';
  return ({ collectionId, done, total }) => {
    if (total === 0 || (done < next && done < total)) return;
    next = done + Math.max(1, Math.ceil(total / 10));
    out(`  ${collectionId}: ${done.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} records ${what}`);
  };
}

function versionNumber(text: string): number {
  if (!/^[1-9]\d{0,8}$/.test(text)) throw new InvalidArgumentError('expected a version number (1, 2, …)');
  return Number(text);
}

function historyLine(v: SchemaVersion): string {
  const p = v.plan;
  const what = !p.exists
    ? 'created'
    : [
        ...p.fields.map((f) => `${f.field} ${f.change}${f.lost > 0 ? ` (${f.lost} lost)` : ''}`),
        ...p.indexes.built.map((i) => `+index ${i}`),
        ...p.indexes.dropped.map((i) => `-index ${i}`),
        ...(p.permissions.length > 0 ? ['permissions changed'] : []),
        ...(p.migration?.runs && p.migration.reason === undefined ? [`migration ${p.migration.name} ran over ${p.migration.records} records`] : []),
      ].join(', ') || 'functions only';
  return `${v.version}  ${new Date(v.appliedAt).toISOString()}  ${v.signer ?? '(operator or unsigned)'}  ${what}`;
}

/** Opens the store and the service, runs `body`, closes; an error is one line on stderr and exit 1. */
async function withService(flags: MigrateFlags, command: string, body: (service: RecordService, out: (line: string) => void) => Promise<void>): Promise<number> {
  let store: RecordStore;
  try {
    store = await openStore({ dataDir: flags.data, databaseUrl: flags.db });
  } catch (error) {
    process.stderr.write(`vellum migrate ${command}: ${(error as Error).message}\n`);
    return 1;
  }
  try {
    const service = new RecordService(store);
    await service.initialise();
    await body(service, (line) => process.stdout.write(`${line}\n`));
    return 0;
  } catch (error) {
    process.stderr.write(`vellum migrate ${command}: ${(error as Error).message}\n`);
    return 1;
  } finally {
    await store.close();
  }
}

async function run(files: readonly string[], flags: MigrateFlags, mode: 'plan' | 'apply'): Promise<number> {
  const out = (line: string) => process.stdout.write(`${line}\n`);
  const fail = (message: string) => {
    process.stderr.write(`vellum migrate ${mode}: ${message}\n`);
    return 1;
  };
  let schemas: SchemaFileCollection[];
  try {
    schemas = readSchemaFiles(files, flags.namespace);
  } catch (error) {
    return fail((error as Error).message);
  }
  const accepted = flags.acceptDataLoss ?? [];
  const names = new Set(schemas.map((s) => s.name));
  const stray = accepted.filter((entry) => !names.has(entry.split('.')[0]!));
  if (stray.length > 0) return fail(`--accept-data-loss names ${stray.map((s) => `"${s}"`).join(', ')}: no collection of that name in the files`);

  let store: RecordStore;
  try {
    store = await openStore({ dataDir: flags.data, databaseUrl: flags.db });
  } catch (error) {
    return fail((error as Error).message);
  }
  try {
    const service = new RecordService(store);
    await service.initialise();
    const plans: SchemaPlan[] = [];
    for (const { id, name, code, file, checked } of schemas) {
      const planned = await service.planChange(checked);
      const plan = planned.plan;
      plans.push(plan);
      if (mode === 'plan') {
        if (!flags.json) for (const line of describePlan(plan)) out(line);
        continue;
      }
      const acceptedHere = accepted.filter((entry) => entry.startsWith(`${name}.`)).map((entry) => entry.slice(name.length + 1));
      for (const line of describePlan(plan)) out(line);
      try {
        checkPlan(plan, acceptedHere);
        const migrating = await migrationRunning(service, id, code, plan);
        // Applied with the plan just shown (planned again only if the schema or the records changed since).
        out(`${id} ${await service.installSchema(id, code, acceptedHere, progressPrinter(out, migrating), planned)} (from ${file})`);
      } catch (error) {
        const refused = fail(`${file}: collection ${id}: ${(error as Error).message}`);
        const missing = plan.dataLoss.filter((field) => !acceptedHere.includes(field));
        if (missing.length > 0) process.stderr.write(`(to accept the loss: --accept-data-loss ${missing.map((field) => `${name}.${field}`).join(' ')})\n`);
        return refused;
      }
    }
    if (mode === 'plan' && flags.json) out(JSON.stringify(plans, null, 2));
    return 0;
  } catch (error) {
    return fail((error as Error).message);
  } finally {
    await store.close();
  }
}

