// The schema-change migration rows of `npm run bench -- store` (issue 22): casting every stored record of a
// collection to a changed schema (`defineCollection` with `conform`, as the service's update runs it: each record
// through the runtime's cast, rewritten with its index entries and a change-log entry, 500 records a transaction)
// against writing the same records, already in the new form, fresh into an empty collection of the new schema
// (`store.commit` of 500 records a commit) in the same run. Memory: the heap's growth over its size before the
// pass, at its largest (sampled after each batch), for the full size and for a quarter of it: a pass holds one
// batch at a time, so it should not grow with the collection.

import { join } from 'node:path';
import { checkSchema } from '../src/lang/index.ts';
import { castDropping, compileCollection } from '../src/runtime/index.ts';
import { layoutOf, openSqliteStore, type JsonObject, type RecordStore } from '../src/store/index.ts';
import { row, type BenchRow } from './harness.ts';

const SUITE = 'store';
const COLLECTION = 'bench/Member';
export const MIGRATION_RECORDS = Number(process.env.VELLUM_BENCH_MIGRATION_RECORDS ?? 100_000);
const BATCH = 500;

const schema = (age: 'number' | 'string') => `@public collection Member { id: string; name: string; city: string; age: ${age}; @index(city, [age, desc]); }`;

function compiled(age: 'number' | 'string') {
  const checked = checkSchema(schema(age), 'Member');
  if (!checked.program || !checked.checked) throw new Error('the bench schema does not check');
  const node = checked.program.collections[0]!;
  return { layout: layoutOf(node), collection: compileCollection(checked.checked, 'Member', { collectionId: COLLECTION }) };
}

function member(n: number, age: (n: number) => number | string): JsonObject {
  return { id: `m${String(n).padStart(8, '0')}`, name: `name ${(n * 7919) % 100_003}`, city: `city${n % 100}`, age: age((n * 31) % 97) };
}

async function write(store: RecordStore, count: number, age: (n: number) => number | string): Promise<void> {
  for (let start = 0; start < count; start += BATCH) {
    const writes = [];
    for (let n = start; n < Math.min(count, start + BATCH); n++) writes.push({ kind: 'put' as const, collectionId: COLLECTION, record: member(n, age) });
    await store.commit({ writes });
  }
}

/** Seconds to write `count` records of the new form fresh, and to migrate as many from the old form; the heap's peak growth (MB) during the migration. */
async function measure(dir: string, count: number): Promise<{ fresh: number; migrate: number; heapGrowthMb: number }> {
  const before = compiled('number');
  const after = compiled('string');
  const fresh = openSqliteStore(join(dir, `fresh-${count}.db`));
  await fresh.defineCollection(COLLECTION, after.layout);
  let started = performance.now();
  await write(fresh, count, String);
  const freshSeconds = (performance.now() - started) / 1000;
  await fresh.close();

  const store = openSqliteStore(join(dir, `migrate-${count}.db`));
  await store.defineCollection(COLLECTION, before.layout);
  await write(store, count, (age) => age);
  globalThis.gc?.();
  const base = process.memoryUsage().heapUsed;
  let peak = base;
  started = performance.now();
  const result = await store.defineCollection(COLLECTION, after.layout, {
    batchSize: BATCH,
    conform: (record) => {
      const cast = castDropping(after.collection, record);
      return cast.ok && cast.changed ? (cast.record as JsonObject) : null;
    },
    onProgress: () => {
      peak = Math.max(peak, process.memoryUsage().heapUsed);
    },
  });
  const migrateSeconds = (performance.now() - started) / 1000;
  const sample = await store.get(COLLECTION, member(1, String).id as string);
  if (result.rebuilt !== count || sample.record?.age !== String((31 % 97))) throw new Error(`the migration did not cast every record (${result.rebuilt} of ${count})`);
  await store.close();
  return { fresh: freshSeconds, migrate: migrateSeconds, heapGrowthMb: (peak - base) / 1024 / 1024 };
}

export async function migrationRows(dir: string): Promise<BenchRow[]> {
  const quarter = await measure(dir, Math.floor(MIGRATION_RECORDS / 4));
  const full = await measure(dir, MIGRATION_RECORDS);
  const name = MIGRATION_RECORDS.toLocaleString('en-US');
  return [
    row(SUITE, `migration: cast ${name} records to a changed schema`, {
      value: MIGRATION_RECORDS / full.migrate,
      unit: 'records/s',
      baseline: MIGRATION_RECORDS / full.fresh,
      ratio: full.migrate / full.fresh,
      goal: `<= 2x the time of writing the same records fresh (${full.migrate.toFixed(1)} s against ${full.fresh.toFixed(1)} s; the ratio is of times)`,
    }),
    row(SUITE, `migration: heap growth during the pass, ${name} records`, {
      value: full.heapGrowthMb,
      unit: 'MB',
      baseline: quarter.heapGrowthMb,
      ratio: null,
      goal: `does not grow with the collection (baseline: the same pass over ${Math.floor(MIGRATION_RECORDS / 4).toLocaleString('en-US')} records)`,
    }),
  ];
}
