// `@migrate` (Vellum's migrations, issue 22): a function the new schema declares, run over each stored record when
// the schema is installed. The checker types its body against the new schema (`this`) and the fields its parameter
// declares from the previous one (`old`), and holds its header to the rules below. `migrate` stays a name.
import { describe, expect, it } from 'vitest';
import { checkSchema, parse, toStableAst } from '../../src/lang/index.ts';
import { reported } from './check-helpers.ts';

const user = (migration: string, extra = '') => `collection User {
  id: string;
  first: string;
  last: string;
  constructor (id: string) { this.id = id; }
  ${migration}
  ${extra}
}`;

const SPLIT = `@migrate
  splitName (old: { name: string; age?: number; }) {
    const space = old.name.indexOf(' ');
    this.first = old.name.slice(0, space);
    this.last = old.name.slice(space + 1);
  }`;

describe('@migrate', () => {
  it('types its body against the new schema and the old shape', () => {
    expect(reported(user(SPLIT))).toEqual([]);
    expect(checkSchema(user(SPLIT)).checked!.collections[0]!.functionsByName.get('splitName')!.migration).toBe(true);
    expect(reported(user(SPLIT.replace('this.last = old.name.slice(space + 1);', 'this.last = old.age;')))).toMatchObject([{ code: 'V3006' }]);
    expect(reported(user(SPLIT.replace('old.name.indexOf', 'old.fullName.indexOf')))).toMatchObject([{ code: 'V3003' }]);
    expect(reported(user(SPLIT.replace('this.first =', 'this.nickname =')))).toMatchObject([{ code: 'V3002' }]);
  });

  it('holds the header to one object-typed parameter, no return type, no other decorator', () => {
    const shape = (migration: string) => reported(user(migration)).map((d) => `${d.code} ${d.message}`);
    expect(shape('@migrate m (old: string) {}')).toEqual([
      'V2031 migration "m": a migration takes one parameter typed with the fields it reads from the stored records, as `(old: { name: string; })`',
    ]);
    expect(shape('@migrate m () {}')).toMatchObject([expect.stringMatching(/^V2031 migration "m": a migration takes one parameter/)]);
    expect(shape('@migrate m (old: { name: string; }, x: number) {}')).toEqual([
      'V2031 migration "m": a parameter after `old` loads the record that a reference field of the stored record points to: "x" is no field of `old` typed by a collection (declare it there, as `(old: { x: User; }, x: User)`)',
    ]);
    expect(shape('@migrate m (old: { name: string; }): number { return 1; }')).toEqual(['V2031 migration "m": a migration returns nothing: it sets the fields of `this`']);
    expect(shape('@migrate @call m (old: { name: string; }) {}')).toEqual(['V2031 migration "m": @call has no meaning on a migration: nobody calls it']);
    expect(shape('@migrate(first) m (old: { name: string; }) {}')).toEqual(['V2031 migration "m": @migrate takes no arguments']);
    expect(shape('@migrate a (old: { x: string; }) {} @migrate b (old: { y: string; }) {}')).toEqual([
      'V2032 collection "User" declares more than one migration; one schema change runs one migration',
    ]);
  });

  it('loads a referenced record through a parameter named as the reference field, typed by its collection', () => {
    const holder = (migration: string) => `collection Holder {
      id: string;
      owner?: { name: string; };
      constructor (id: string) { this.id = id; }
      ${migration}
    }
    collection Owner { id: string; name: string; }`;
    const shape = (migration: string) => reported(holder(migration)).map((d) => `${d.code} ${d.message}`);
    // The loaded record is typed as any record argument: its fields are the collection's, `.id` its id.
    expect(shape('@migrate embed (old: { owner?: Owner; }, owner?: Owner) { if (owner) this.owner = { name: owner.name }; }')).toEqual([]);
    expect(shape('@migrate embed (old: { owner: Owner; }, owner: Owner) { this.owner = { name: owner.name + owner.id }; }')).toEqual([]);
    expect(shape('@migrate embed (old: { owner: Owner; }, owner: Owner) { this.owner = { name: owner.nick }; }')).toEqual(['V3002 collection "Owner" has no field "nick"']);
    expect(shape('@migrate embed (old: { owner: Owner; }, owner: Owner) { this.owner = { name: owner.id.length }; }')).toMatchObject([expect.stringMatching(/^V3006/)]);
    expect(shape('@migrate embed (old: { owner?: Owner; }, owner: Owner) {}')).toEqual([
      'V2031 migration "embed": field "owner" is optional, so the record it points to may be absent: declare the parameter "owner?: Owner"',
    ]);
    expect(shape('@migrate embed (old: { owner: Owner; }, owner: Holder) {}')).toEqual([
      'V2031 migration "embed": parameter "owner" loads the record that field "owner" points to: type it "Owner", as the field is',
    ]);
    expect(shape('@migrate embed (old: { owner: Owner; }, boss: Owner) {}')).toMatchObject([expect.stringMatching(/^V2031 .*"boss" is no field of `old` typed by a collection/)]);
    expect(shape('@migrate embed (old: { parent: Holder; }, parent: Holder) {}')).toEqual([
      'V2031 migration "embed": parameter "parent" would load a record of "Holder", whose records this migration rewrites: a migration loads records of other collections only',
    ]);
  });

  it('belongs on a function, and is never called', () => {
    expect(reported(`@migrate ${user('')}`)).toMatchObject([{ code: 'V2030' }]);
    expect(reported(user('', '@migrate nick: string;'))).toMatchObject([{ code: 'V2030' }]);
    expect(reported(user(SPLIT, 'again () { this.splitName({ name: "a b" }); }'))).toMatchObject([
      { code: 'V3032', message: '"splitName" is a migration: it runs over the stored records when its schema is installed, and cannot be called' },
    ]);
  });

  it('leaves `migrate` an ordinary name of fields, functions, parameters and collections', () => {
    const text = `collection migrate {
      id: string;
      migrate: string;
      constructor (id: string, migrate: string) { this.id = id; this.migrate = migrate; }
      function setMigrate (migrate: string) { this.migrate = migrate; }
    }`;
    expect(reported(text)).toEqual([]);
  });

  it('is kept in the stable AST as a method with a migrate directive (the Polybase client skips what it does not use)', () => {
    const parsed = parse(user(SPLIT));
    const method = toStableAst(parsed.program!, parsed.source, 'ns')[0]!.attributes.find((a) => a.kind === 'method' && a.name === 'splitName');
    expect(method).toMatchObject({
      kind: 'method',
      attributes: [
        { kind: 'parameter', name: 'old', type: { kind: 'object', fields: [{ name: 'name', required: true }, { name: 'age', required: false }] }, required: true },
        { kind: 'directive', name: 'migrate', arguments: [] },
      ],
    });
  });
});
