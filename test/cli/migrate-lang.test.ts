// `vellum migrate` with a migration written in the schema language (`@migrate`): the plan names it with its
// counts, apply prints its progress, and a process killed (SIGKILL) half-way leaves the collection marked; the next
// apply finishes the pass, migrating only the records left (a migrated record is never migrated twice); the same
// for a migration that loads the records its records reference (test/service/migration-references.test.ts covers
// it without a kill). Both backends, small record counts (migrate.test.ts covers the cast pass at 20,000).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyKilledHalfWay, migrateBackends, storedCollection, vellumMigrate, withStore } from '../support/migrate-backends.ts';
import { startTestPostgres, type TestPostgres } from '../support/postgres.ts';
import { putRecords } from '../support/put-records.ts';

const dir = mkdtempSync(join(tmpdir(), 'vellum-migrate-lang-'));
const v1 = join(dir, 'v1.polylang');
const v2 = join(dir, 'v2.polylang');
writeFileSync(v1, '@public collection Person { id: string; name: string; constructor (id: string, name: string) { this.id = id; this.name = name; } }\n');
writeFileSync(
  v2,
  `@public collection Person {
  id: string;
  first: string;
  last: string;
  constructor (id: string, first: string, last: string) { this.id = id; this.first = first; this.last = last; }
  @migrate
  splitName (old: { name: string; }) {
    const space = old.name.indexOf(' ');
    this.first = old.name.slice(0, space);
    this.last = old.name.slice(space + 1);
  }
}
`,
);

// A reference turned into an embedded object: the migration loads the Target each Holder's `x` points to.
const TARGET = '@public collection Target { id: string; name: string; constructor (id: string, name: string) { this.id = id; this.name = name; } }';
const r1 = join(dir, 'r1.polylang');
const r2 = join(dir, 'r2.polylang');
writeFileSync(r1, `${TARGET}\n@public collection Holder { id: string; x?: Target; constructor (id: string, x: Target) { this.id = id; this.x = x; } }\n`);
writeFileSync(
  r2,
  `${TARGET}
@public collection Holder {
  id: string;
  x?: { name: string; };
  constructor (id: string) { this.id = id; }
  @migrate
  embed (old: { x?: Target; }, x?: Target) {
    if (x) this.x = { name: x.name + ' (' + x.id + ')' };
  }
}
`,
);

let server: TestPostgres;
beforeAll(async () => {
  server = await startTestPostgres();
}, 120_000);
afterAll(() => server?.stop(), 60_000);

const vellum = vellumMigrate;
const backends = migrateBackends(dir, () => server, 'migrate_lang');

const N = 4_000;
const idOf = (i: number) => `p${String(i).padStart(5, '0')}`;

describe.each(backends)('a @migrate migration on %s', (_name, prepare) => {
  it('is planned with its counts; killed half-way, the next apply finishes it, every record migrated once', async () => {
    const { where, open } = await prepare();
    expect(vellum('apply', v1, ...where).status).toBe(0);
    await withStore(open, (store) => putRecords(store, 'app/Person', N, (i) => ({ id: idOf(i), name: `F${i} L${i}` })));

    const planned = vellum('plan', v2, ...where);
    expect(planned.status, planned.stderr).toBe(0);
    expect(planned.stdout).toBe(
      [
        `collection app/Person: ${N} stored records`,
        `  field "name" removed (string): ${N} records hold a value, ${N} read by the migration`,
        `  field "first" added (string): ${N} records given a value by the migration`,
        `  field "last" added (string): ${N} records given a value by the migration`,
        '  index built: (first)',
        '  index built: (last)',
        '  index dropped: (name)',
        `  migration splitName (reads "name"): runs over ${N} records`,
        '',
      ].join('\n'),
    );

    // Killed once the schema is committed and the migration's pass is under way.
    await applyKilledHalfWay(v2, where, open, 'app/Person');
    const killed = await storedCollection(open, 'app/Person');
    expect(killed.conforming).toBe(true);
    expect(killed.records.filter((r) => r.first !== undefined).length).toBeLessThan(N);

    const again = vellum('apply', v2, ...where);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toContain('app/Person unchanged');
    expect(again.stdout).toContain(`  app/Person: 0 of ${N.toLocaleString('en-US')} records migrated by splitName, cast and indexed\n`);
    expect(again.stdout).toContain(`  app/Person: ${N.toLocaleString('en-US')} of ${N.toLocaleString('en-US')} records migrated by splitName, cast and indexed\n`);
    const finished = await storedCollection(open, 'app/Person');
    expect(finished.conforming).toBe(false);
    expect(finished.records).toHaveLength(N);
    for (const record of finished.records) {
      const i = Number(String(record.id).slice(1));
      expect(record).toEqual({ id: idOf(i), first: `F${i}`, last: `L${i}` });
    }
    const history = JSON.parse(vellum('history', 'Person', '--json', ...where).stdout);
    expect(history.at(-1).plan.migration).toMatchObject({ name: 'splitName', runs: true, records: N });
    expect(vellum('history', 'Person', ...where).stdout).toMatch(
      new RegExp(`\\n2 {2}\\S+ {2}\\(operator or unsigned\\) {2}name removed, first added, last added, \\+index \\(first\\), \\+index \\(last\\), -index \\(name\\), migration splitName ran over ${N} records\\n$`),
    );
  }, 240_000);
});

describe.each(backends)('a @migrate migration that loads referenced records on %s', (_name, prepare) => {
  it('killed half-way, the next apply finishes it, every record migrated once with the record it references', async () => {
    const { where, open } = await prepare();
    expect(vellum('apply', r1, ...where).status).toBe(0);
    await withStore(open, async (store) => {
      await store.commit({ writes: Array.from({ length: 10 }, (_, t) => ({ kind: 'put' as const, collectionId: 'app/Target', record: { id: `t${t}`, name: `T${t}` } })) });
      await putRecords(store, 'app/Holder', N, (i) => ({ id: idOf(i), x: { collectionId: 'app/Target', id: `t${i % 10}` } }));
    });
    const planned = vellum('plan', r2, ...where);
    expect(planned.status, planned.stderr).toBe(0);
    expect(planned.stdout).toContain(`  migration embed (reads "x"): runs over ${N} records`);

    await applyKilledHalfWay(r2, where, open, 'app/Holder');
    const killed = await storedCollection(open, 'app/Holder');
    expect(killed.conforming).toBe(true);
    expect(killed.records.filter((r) => r.x !== undefined && 'name' in (r.x as object)).length).toBeLessThan(N);

    const again = vellum('apply', r2, ...where);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toContain('app/Holder unchanged');
    expect(again.stdout).toContain(`  app/Holder: ${N.toLocaleString('en-US')} of ${N.toLocaleString('en-US')} records migrated by embed, cast and indexed\n`);
    const finished = await storedCollection(open, 'app/Holder');
    expect(finished.conforming).toBe(false);
    expect(finished.records).toHaveLength(N);
    for (const record of finished.records) {
      const t = Number(String(record.id).slice(1)) % 10;
      expect(record).toEqual({ id: record.id, x: { name: `T${t} (t${t})` } });
    }
    // The records it loaded are as they were.
    expect((await withStore(open, (store) => store.get('app/Target', 't3'))).record).toEqual({ id: 't3', name: 'T3' });
  }, 240_000);
});
