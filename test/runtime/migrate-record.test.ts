// A migration (`@migrate`) over one stored record: `this` starts as the record cast to the new schema, `old` is
// the stored record, the result is a record of the new schema; a record already in the new form is left alone
// (so a pass run again after a crash never migrates a record twice), and a failure names its cause.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { execute, loadedShapeProblem, migrateRecord, migrationOf, migrationShapeProblem, referenceKey, referencesToLoad, type CompiledCollection, type WireRecord } from '../../src/runtime/index.ts';
import { parse } from '../../src/lang/index.ts';
import { load } from './helpers.ts';

const USER = `collection User {
  id: string;
  first: string;
  last: string;
  age?: number;
  constructor (id: string) { this.id = id; }
  @migrate
  splitName (old: { name: string; }) {
    const space = old.name.indexOf(' ');
    if (space < 0) { this.first = old.name; return; }
    this.first = old.name.slice(0, space);
    this.last = old.name.slice(space + 1);
    assert(this.first != 'boom', 'no boom');
  }
}`;

function migrate(collection: CompiledCollection, record: Record<string, unknown>, gas?: number) {
  return migrateRecord(collection, migrationOf(collection)!, record, gas === undefined ? undefined : { gas });
}

describe('migrateRecord', () => {
  const user = load(USER, 'User');

  it('runs over the stored record with `this` cast to the new schema', () => {
    expect(migrate(user, { id: 'u1', name: 'Ada Lovelace', age: 36 })).toMatchObject({
      kind: 'migrated',
      record: { id: 'u1', first: 'Ada', last: 'Lovelace', age: 36 },
    });
    // `last` starts as its default and keeps it when the migration leaves it.
    expect(migrate(user, { id: 'u2', name: 'Plato' })).toMatchObject({ kind: 'migrated', record: { id: 'u2', first: 'Plato', last: '' } });
  });

  it('leaves a record already in the new form alone, so migrating twice changes nothing', () => {
    const once = migrate(user, { id: 'u1', name: 'Ada Lovelace' });
    if (once.kind !== 'migrated') throw new Error('expected a migration');
    expect(migrate(user, once.record)).toEqual({ kind: 'fits' });
  });

  it('fails on one record with the reason: an assertion, a missing old field, out of gas', () => {
    expect(migrate(user, { id: 'u3', name: 'boom x' })).toMatchObject({ kind: 'failed', message: expect.stringContaining('no boom') });
    expect(migrate(user, { id: 'u4' })).toMatchObject({ kind: 'failed', message: expect.stringMatching(/parameter "old".*name/) });
    const looping = load(USER.replace("const space = old.name.indexOf(' ');", "let n = 0; while (true) { n += 1; } const space = 0;"), 'User');
    expect(migrate(looping, { id: 'u5', name: 'a b' }, 100_000)).toMatchObject({ kind: 'failed', message: expect.stringContaining('gas') });
  });

  it('cannot be called as a function', () => {
    const result = execute(user, 'splitName', { id: 'u1', first: '', last: '' }, [{ name: 'x y' }]);
    expect(result).toMatchObject({ ok: false, error: { reason: 'function/not-found', message: expect.stringContaining('is a migration') } });
  });

  it('turns a reference into an embedded object and fills a field from others', () => {
    const holder = load(
      `collection Holder {
        id: string;
        owner: { collectionId: string; id: string; };
        total: number;
        @migrate
        embed (old: { owner: User; a: number; b: number; }) {
          this.owner = { collectionId: old.owner.collectionId, id: old.owner.id };
          this.total = old.a + old.b;
        }
      }
      collection User { id: string; }`,
      'Holder',
    );
    expect(migrate(holder, { id: 'h', owner: { collectionId: 'ns/User', id: 'u1' }, a: 2, b: 3 })).toMatchObject({
      kind: 'migrated',
      record: { id: 'h', owner: { collectionId: 'ns/User', id: 'u1' }, total: 5 },
    });
  });
});

describe('a migration that loads referenced records', () => {
  const holder = load(
    `collection Holder {
      id: string;
      owner?: { name: string; since: number; };
      @migrate
      embed (old: { owner?: Owner; }, owner?: Owner) {
        if (owner) this.owner = { name: owner.name, since: owner.since };
      }
    }
    collection Owner { id: string; name: string; since: number; }`,
    'Holder',
  );
  const migration = migrationOf(holder)!;
  const ref = { collectionId: 'ns/Owner', id: 'o1' };
  const loaded = (data: WireRecord | null) => new Map([[referenceKey(ref), data]]);

  it('names the records to load, and none for a record already migrated or holding no reference', () => {
    expect(migration.loads).toEqual([{ field: 'owner', collection: 'Owner' }]);
    expect(referencesToLoad(holder, migration, { id: 'h1', owner: ref })).toEqual([ref]);
    expect(referencesToLoad(holder, migration, { id: 'h2' })).toEqual([]);
    expect(referencesToLoad(holder, migration, { id: 'h3', owner: { name: 'Ann', since: 1 } })).toEqual([]);
  });

  it('gets the loaded record as a record argument: its fields, in the form loaded', () => {
    expect(migrateRecord(holder, migration, { id: 'h1', owner: ref }, undefined, loaded({ id: 'o1', name: 'Ann', since: 2020 }))).toMatchObject({
      kind: 'migrated',
      record: { id: 'h1', owner: { name: 'Ann', since: 2020 } },
    });
    // No reference: the optional parameter is undefined (and the reference, which the new type has no room for, goes).
    expect(migrateRecord(holder, migration, { id: 'h2', owner: null, extra: 1 })).toMatchObject({ kind: 'migrated', record: { id: 'h2' } });
  });

  it('fails a record whose reference points to no record, naming the field and the record', () => {
    expect(migrateRecord(holder, migration, { id: 'h1', owner: ref }, undefined, loaded(null))).toEqual({
      kind: 'failed',
      message: 'field "owner" references record "o1" of ns/Owner, which does not exist',
    });
    expect(migrateRecord(holder, migration, { id: 'h1', owner: ref })).toMatchObject({ kind: 'failed', message: expect.stringContaining('which was not loaded') });
    expect(migrateRecord(holder, migration, { id: 'h1', owner: { collectionId: 'other/Owner', id: 'o1' } })).toMatchObject({
      kind: 'failed',
      message: expect.stringMatching(/^field "owner" holds a reference the migration cannot load/),
    });
    expect(migrateRecord(holder, migration, { id: 'h1', owner: { collectionId: '', id: '' } })).toMatchObject({ kind: 'failed', message: expect.stringContaining('empty reference') });
  });

  it('is limited in gas like a call, loaded record and all', () => {
    const looping = load(
      `collection Holder {
        id: string;
        owner?: { name: string; };
        @migrate
        embed (old: { owner: Owner; }, owner: Owner) { let n = 0; while (true) { n += owner.name.length; } }
      }
      collection Owner { id: string; name: string; }`,
      'Holder',
    );
    expect(migrateRecord(looping, migrationOf(looping)!, { id: 'h1', owner: ref }, { gas: 100_000 }, loaded({ id: 'o1', name: 'Ann' }))).toMatchObject({
      kind: 'failed',
      message: expect.stringContaining('gas'),
    });
  });

  it('checks the loaded collection as the schema declares it against its stored schema', () => {
    const owner = (code: string) => parse(code).program!.collections[0]!.items.filter((item) => item.kind === 'field');
    const declared = holder.sibling('Owner')!.fields;
    const problem = (stored: string | null) => loadedShapeProblem(migration, migration.loads[0]!, 'ns/Owner', declared, stored === null ? null : owner(stored));
    expect(problem('collection Owner { id: string; name: string; since: number; age?: number; }')).toBeNull();
    expect(problem('collection Owner { id: string; name: string; }')).toBe(
      'migration "embed" loads the records field "owner" points to, whose schema here reads field "since", which the stored schema of ns/Owner does not declare (its fields: "id", "name")',
    );
    expect(problem('collection Owner { id: string; name: string; since?: number; }')).toMatch(/declares field "since" as required, but it is optional in the stored schema of ns\/Owner/);
    expect(problem(null)).toBe('migration "embed" loads the records field "owner" points to, but there is no collection ns/Owner');
  });
});

describe('migrateRecord over random stored records', () => {
  const user = load(USER, 'User');
  it('gives a record of the new schema that keeps the name, and a second run leaves it alone', () => {
    const word = fc.string({ minLength: 0, maxLength: 6 }).filter((w) => !w.includes(' '));
    fc.assert(
      fc.property(word.filter((w) => w !== 'boom'), fc.option(word, { nil: undefined }), fc.option(fc.integer(), { nil: undefined }), (first, last, age) => {
        const name = last === undefined ? first : `${first} ${last}`;
        const stored: Record<string, unknown> = { id: 'r', name };
        if (age !== undefined) stored.age = age;
        const once = migrate(user, stored);
        if (once.kind !== 'migrated') throw new Error(`expected a migration, got ${JSON.stringify(once)}`);
        expect(once.record).toEqual({ id: 'r', first, last: last ?? '', ...(age === undefined ? {} : { age }) });
        expect(migrate(user, once.record)).toEqual({ kind: 'fits' });
      }),
      { numRuns: 300, seed: 22 },
    );
  });
});

describe('migrationShapeProblem', () => {
  const user = load(USER, 'User');
  const storedFields = (code: string) => {
    const collection = parse(code).program!.collections[0]!;
    return collection.items.filter((item) => item.kind === 'field');
  };

  it('accepts a shape the stored schema has, and names the field that differs', () => {
    const migration = migrationOf(user)!;
    expect(migrationShapeProblem(migration, storedFields('collection User { id: string; name: string; }'))).toBeNull();
    expect(migrationShapeProblem(migration, storedFields('collection User { id: string; fullName: string; }'))).toMatch(/reads field "name", which the stored schema does not declare \(its fields: "id", "fullName"\)/);
    expect(migrationShapeProblem(migration, storedFields('collection User { id: string; name: number; }'))).toMatch(/declares field "name" as string, but the stored schema has number/);
    expect(migrationShapeProblem(migration, storedFields('collection User { id: string; name?: string; }'))).toMatch(/"name" as required, but it is optional in the stored schema: declare it "name\?: string"/);
  });
});
