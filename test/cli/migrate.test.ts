// `vellum migrate plan|apply`, run as a user runs it, against a data folder (SQLite) and a PostgreSQL database
// seeded through the service: the plan names what the change does to the stored records and writes nothing;
// apply refuses a loss (exit 1, the records unchanged) until --accept-data-loss names the fields.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer } from '../service/support.ts';
import { applyKilledHalfWay, migrateBackends, storedCollection, vellumMigrate, withStore } from '../support/migrate-backends.ts';
import { startTestPostgres, type TestPostgres } from '../support/postgres.ts';
import { putRecords } from '../support/put-records.ts';

const dir = mkdtempSync(join(tmpdir(), 'vellum-migrate-'));
const v1 = join(dir, 'v1.polylang');
const v2 = join(dir, 'v2.polylang');
writeFileSync(v1, '@public collection Person { id: string; age?: string; nick?: string; constructor (id: string, age: string, nick: string) { this.id = id; this.age = age; this.nick = nick; } }\n');
writeFileSync(v2, '@public collection Person { id: string; age?: number; score: number; @index(age); constructor (id: string) { this.id = id; this.score = 0; } }\n');

let server: TestPostgres;
beforeAll(async () => {
  server = await startTestPostgres();
}, 120_000);
afterAll(() => server?.stop(), 60_000);

const vellum = vellumMigrate;
const backends = migrateBackends(dir, () => server, 'migrate');

describe.each(backends)('on %s', (_name, prepare) => {
  it('plans, refuses the loss, and applies it once the fields are named', async () => {
    const { where, open } = await prepare();
    const created = vellum('apply', v1, ...where);
    expect(created.stderr).toBe('');
    expect(created.stdout).toBe('collection app/Person does not exist yet: it is created, no stored record changes\napp/Person created (from ' + v1 + ')\n');
    const s = await startTestServer({ store: await open() });
    try {
      for (const args of [['a', '31', 'x'], ['b', '1.50', 'y'], ['c', '7', '']]) expect((await s.create('app/Person', args)).status).toBe(200);
    } finally {
      await s.close();
    }

    const planned = vellum('plan', v2, ...where);
    expect(planned.status, planned.stderr).toBe(0);
    expect(planned.stdout).toBe(
      [
        'collection app/Person: 3 stored records',
        '  field "age" string? → number?: 3 records hold a value, 2 cast without loss, 1 LOSE their value (e.g. record "b": age = "1.50")',
        '  field "nick" removed (string?): 3 records hold a value, 3 LOSE their value (e.g. record "a": nick = "x")',
        '  field "score" added (number): 3 records given the default 0',
        '  index rebuilt: (age) (a field\'s type changed)',
        '  index built: (score)',
        '  index dropped: (nick)',
        '  data loss: refused unless accepted for ["age","nick"]',
        '',
      ].join('\n'),
    );
    const json = JSON.parse(vellum('plan', v2, ...where, '--json').stdout);
    expect(json[0]).toMatchObject({ collectionId: 'app/Person', records: 3, dataLoss: ['age', 'nick'] });

    const refused = vellum('apply', v2, ...where, '--accept-data-loss', 'Person.nick');
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('cannot update collection app/Person without losing stored data: field "age" string? → number?: 1 record would lose its value (record "b": age = "1.50")');
    expect(refused.stderr).toContain('(to accept the loss: --accept-data-loss Person.age)');
    expect((await withStore(open, (store) => store.get('app/Person', 'b'))).record).toEqual({ id: 'b', age: '1.50', nick: 'y' });

    const applied = vellum('apply', v2, ...where, '--accept-data-loss', 'Person.age', 'Person.nick');
    expect(applied.status, applied.stderr).toBe(0);
    expect(applied.stdout).toMatch(/app\/Person updated \(from .*v2\.polylang\)\n$/);
    const { records } = await withStore(open, (store) => store.list('app/Person', { sort: [['age', 'asc']] }));
    expect(records).toEqual([
      { id: 'b', age: 1.5, score: 0 },
      { id: 'c', age: 7, score: 0 },
      { id: 'a', age: 31, score: 0 },
    ]);
    expect(vellum('plan', v2, ...where).stdout).toBe('collection app/Person: 3 stored records\n  fields: no change\n');
  }, 180_000);

  it('history lists every version; revert goes back as a planned change, refused until its loss is accepted', async () => {
    const { where, open } = await prepare();
    expect(vellum('apply', v1, ...where).status).toBe(0);
    const s = await startTestServer({ store: await open() });
    try {
      expect((await s.create('app/Person', ['a', '31', 'x'])).status).toBe(200);
    } finally {
      await s.close();
    }
    expect(vellum('apply', v2, ...where, '--accept-data-loss', 'Person.nick').status).toBe(0);
    const history = vellum('history', 'Person', ...where);
    expect(history.status, history.stderr).toBe(0);
    expect(history.stdout).toMatch(/^1 {2}\d{4}-\d\d-\d\dT[\d:.]+Z {2}\(operator or unsigned\) {2}created\n2 {2}\S+ {2}\(operator or unsigned\) {2}age retyped, nick removed \(1 lost\), score added, \+index \(age\), \+index \(score\), -index \(age\), -index \(nick\)\n$/);

    // Back to version 1: age 31 → "31" round-trips, but score's value would be lost.
    const dry = vellum('revert', 'Person', '--to', '1', '--dry-run', ...where);
    expect(dry.status, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('  field "score" removed (number): 1 record hold a value, 1 LOSE their value (e.g. record "a": score = 0)');
    const refused = vellum('revert', 'Person', '--to', '1', ...where);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('field "score" removed (number): 1 record would lose its value');
    const back = vellum('revert', 'Person', '--to', '1', '--accept-data-loss', 'score', ...where);
    expect(back.status, back.stderr).toBe(0);
    expect(back.stdout).toMatch(/app\/Person updated \(back to version 1\)\n$/);
    const versions = JSON.parse(vellum('history', 'Person', '--json', ...where).stdout);
    expect(versions.map((v: { version: number }) => v.version)).toEqual([1, 2, 3]);
    expect(versions[2].code).toBe(versions[0].code);
    expect((await withStore(open, (store) => store.get('app/Person', 'a'))).record).toEqual({ id: 'a', age: '31' });
    const missing = vellum('revert', 'Person', '--to', '9', ...where);
    expect(missing.stderr).toBe('vellum migrate revert: collection app/Person has no version 9 (see vellum migrate history Person)\n');
  }, 240_000);

  it('bad usage: a --accept-data-loss entry that is not Name.field, or names no collection of the files', async () => {
    const { where } = await prepare();
    const bad = vellum('apply', v2, ...where, '--accept-data-loss', 'age');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('expected Name.field');
    const stray = vellum('apply', v2, ...where, '--accept-data-loss', 'Other.age');
    expect(stray.status).toBe(1);
    expect(stray.stderr).toBe('vellum migrate apply: --accept-data-loss names "Other.age": no collection of that name in the files\n');
  }, 120_000);
});

describe.each(backends)('a migration killed half-way on %s', (_name, prepare) => {
  it('SIGKILL during the cast pass leaves the mark; the next apply finishes it, every record in the new form', async () => {
    const { where, open } = await prepare();
    const n = 20_000;
    expect(vellum('apply', v1, ...where).status).toBe(0);
    await withStore(open, (store) => putRecords(store, 'app/Person', n, (i) => ({ id: `p${String(i).padStart(6, '0')}`, age: String(i % 90) })));
    // Killed once the schema is committed and the pass over 20,000 records is under way.
    await applyKilledHalfWay(v2, where, open, 'app/Person');
    const killed = await storedCollection(open, 'app/Person');
    expect(killed.conforming).toBe(true);
    expect(killed.records.filter((r) => typeof r.age === 'number').length).toBeLessThan(n);

    const again = vellum('apply', v2, ...where);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toContain('app/Person unchanged');
    // The pass's progress, about every tenth, through its end.
    expect(again.stdout).toContain('  app/Person: 0 of 20,000 records cast and indexed\n');
    expect(again.stdout).toContain('  app/Person: 20,000 of 20,000 records cast and indexed\n');
    const finished = await storedCollection(open, 'app/Person');
    expect(finished.conforming).toBe(false);
    expect(finished.records).toHaveLength(n);
    for (const record of finished.records) expect(record).toEqual({ id: record.id, age: Number(String(record.id).slice(1)) % 90, score: 0 });
    const aged89 = await withStore(open, (store) => store.list('app/Person', { where: { age: 89 }, limit: 1000 }));
    expect(aged89.records).toHaveLength(Math.floor(n / 90));
  }, 300_000);
});
