// Generated clients type-check under `strict` with NodeNext modules, for every fixture schema; and their types
// refuse wrong uses: each `// @ts-expect-error` line of the usage file below is needed (the compiler reports no
// unused directive), and without the directives exactly those lines are errors.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateClient } from '../../src/codegen/index.ts';
import { CLIENT_MODULE, generateFor, moduleFolder, ROOT, typeCheck, writeInto } from './support.ts';

const FIXTURE_FOLDERS = ['fixtures/schemas', 'fixtures/extensions', 'fixtures/codegen'];

// A program using the client of fixtures/codegen/shop.polylang. Every line after a directive is a mistake a user
// could make; the rest are right uses, with their types pinned by `same<…>()`.
const USAGE = `
import * as vellum from 'CLIENT';
import { createClient, type ProductRecord, type SellerRecord } from './shop.ts';

type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function same<A, B>(proof: Same<A, B>): void {
  void proof;
}

export async function use(privateKey: string): Promise<void> {
  const db = createClient({ baseURL: 'http://localhost:8080/v0', namespace: 'shop', signer: vellum.ethPersonalSigner(privateKey) });
  const seller = await db.Seller.create('acme', 'Acme');
  same<typeof seller, SellerRecord>(true);
  same<typeof seller.owner, vellum.PublicKeyJwk>(true);

  const product = await db.Product.create('p1', 'Lamp', 25, db.Seller.ref('acme'), ['light'], new Uint8Array([1, 2]));
  await db.Product.create('p2', 'Chair', 40, { id: 'acme' }, []);
  same<typeof product.picture, string | undefined>(true);
  same<typeof product.seller, vellum.RecordReference<'Seller'>>(true);

  const after = await db.Product.record('p1').call('describe', 'red', 2);
  same<typeof after, ProductRecord | null>(true);
  await db.Product.record('p1').call('describe', 'blue');
  await db.Product.record('p1').call('rate', '0x' + '00'.repeat(64) as vellum.HexPublicKey, 5);
  await db.Product.record('p1').call('remove');

  const page = await db.Product.where('seller', '==', db.Seller.ref('acme')).sort('price', 'desc').limit(10).get();
  same<typeof page.records, ProductRecord[]>(true);
  await db.Product.list({ where: { price: { $gte: 10, $lt: 100 }, inStock: true }, sort: [['price', 'asc']] });
  await db.Product.list({ where: { 'details.colour': 'red' } });
  await db.Product.where('owner', '==', seller.owner).get();

  // The operators beyond Polybase's, $or, count and push updates.
  await db.Product.where('price', '!=', 10).where('price', 'not-in', [3, 4]).sort('price').get();
  await db.Product.where('title', 'in', ['Lamp', 'Desk']).get();
  await db.Product.where('tags', 'array-contains', 'light').get();
  await db.Product.list({ where: { tags: { $contains: 'light' }, price: { $nin: [1], $lt: 50 }, title: { $ne: 'x' } } });
  await db.Product.list({ where: { $or: [{ price: { $lt: 10 } }, { 'details.colour': 'red', $or: [{ inStock: true }] }], inStock: true } });
  const count = await db.Product.or({ tags: { $contains: 'light' } }, { title: { $in: ['Desk'] } }).count();
  same<typeof count, number>(true);
  same<Awaited<ReturnType<typeof db.Seller.count>>, number>(true);
  const subscription = db.Product.where('price', '>', 10).subscribe((event) => {
    if (event.type === 'put') same<typeof event.record, ProductRecord>(true);
    if (event.type === 'ready') same<typeof event.timestamp, string>(true);
  });
  same<typeof subscription.records, Map<string, ProductRecord>>(true);
  subscription.close();
  db.Seller.record('acme').subscribe((event) => void event, { since: '1.5', onError: (error) => same<typeof error, vellum.VellumError>(true) }).close();

  // $exists on optional fields, $startsWith on strings.
  await db.Product.list({ where: { 'details.weight': { $exists: false } } });
  await db.Product.where('details.weight', 'exists', true).where('details.weight', '>', 1).get();
  await db.Product.list({ where: { title: { $startsWith: 'La' }, 'details.weight': { $exists: true, $lt: 5 } } });
  await db.Product.where('title', 'starts-with', 'La').get();

  // Aggregates: number fields only, and the answer has the fields asked for.
  const totals = await db.Product.aggregate({ sum: ['price'], max: ['price', 'details.weight'] }, { inStock: true });
  same<typeof totals.count, number>(true);
  same<typeof totals.sum.price, number>(true);
  same<(typeof totals.max)['details.weight'], number | null>(true);
  await db.Product.where('price', '>', 1).aggregate({ avg: ['price'] });
  // Any number field, indexed or not (details.depth has no index, so it is no query field).
  const depth = await db.Product.aggregate({ min: ['details.depth'] });
  same<(typeof depth.min)['details.depth'], number | null>(true);

  // expand: the paths are the reference fields, and the answer is typed by them.
  const expanded = await db.Product.record('p1').getExpanded(['seller']);
  same<typeof expanded.record, ProductRecord>(true);
  same<typeof expanded.expand, { seller: { data: SellerRecord } | null }>(true);
  const expandedPage = await db.Product.listExpanded(['seller'], { where: { price: { $lt: 50 } }, limit: 5 });
  db.Product.where('price', '>', 1).subscribe((event) => {
    if (event.type === 'put') same<typeof event.expand, { seller: { data: SellerRecord } | null } | undefined>(true);
  }, { expand: ['seller'] }).close();
  db.Product.record('p1').subscribe((event) => event.type === 'put' && same<typeof event.expand, { seller: { data: SellerRecord } | null } | undefined>(true), { expand: ['seller'] }).close();
  same<typeof expandedPage.records, { record: ProductRecord; expand: { seller: { data: SellerRecord } | null } }[]>(true);

  // @ts-expect-error: price is a number
  await db.Product.create('p3', 'Desk', '30', db.Seller.ref('acme'), []);
  // @ts-expect-error: a required parameter is missing
  await db.Product.create('p3', 'Desk', 30);
  // @ts-expect-error: the seller is a reference to a Seller, not to a Product
  await db.Product.create('p3', 'Desk', 30, db.Product.ref('p1'), []);
  // @ts-expect-error: setPrice takes a number
  await db.Product.record('p1').call('setPrice', 'cheap');
  // @ts-expect-error: there is no such function
  await db.Product.record('p1').call('setName', 'x');
  // @ts-expect-error: remove takes no argument
  await db.Product.record('p1').call('remove', 1);
  // @ts-expect-error: ratings has no index, so a where cannot use it
  await db.Product.where('ratings', '==', 'light').get();
  // @ts-expect-error: the price is a number
  await db.Product.where('price', '>', '10').get();
  // @ts-expect-error: ratings has no index, so a sort cannot use it
  await db.Product.sort('ratings').get();
  // @ts-expect-error: a where object also takes only indexed fields
  await db.Product.list({ where: { title: 'Lamp', tags: ['light'] } });
  // @ts-expect-error: an operator's value has the field's type
  await db.Product.list({ where: { price: { $gte: 'ten' } } });
  // @ts-expect-error: tags is an array: it takes only array-contains
  await db.Product.where('tags', '==', 'light').get();
  // @ts-expect-error: an element of tags is a string
  await db.Product.where('tags', 'array-contains', 5).get();
  // @ts-expect-error: $contains is for array fields, and price is a number
  await db.Product.list({ where: { price: { $contains: 5 } } });
  // @ts-expect-error: array-contains is for array fields
  await db.Product.where('title', 'array-contains', 'L').get();
  // @ts-expect-error: $contains takes one element, not a list
  await db.Product.list({ where: { tags: { $contains: ['light'] } } });
  // @ts-expect-error: in takes a list of the field's values
  await db.Product.where('price', 'in', 5).get();
  // @ts-expect-error: $nin's values have the field's type
  await db.Product.list({ where: { price: { $nin: ['cheap'] } } });
  // @ts-expect-error: an $or alternative is typed like any where
  await db.Product.or({ price: 'cheap' });
  // @ts-expect-error: an array field has no place in an order
  await db.Product.sort('tags').get();
  // @ts-expect-error: a put's record is a Product
  db.Product.subscribe((event) => event.type === 'put' && event.record.name);
  // @ts-expect-error: title is not a reference field: there is nothing to expand
  await db.Product.record('p1').getExpanded(['title']);
  // @ts-expect-error: a Seller has no reference field for a second level
  await db.Product.listExpanded(['seller.owner']);
  // @ts-expect-error: title is required: every record has it, so $exists does not apply
  await db.Product.list({ where: { title: { $exists: true } } });
  // @ts-expect-error: exists is for optional fields
  await db.Product.where('price', 'exists', true).get();
  // @ts-expect-error: $startsWith is for string fields, and price is a number
  await db.Product.list({ where: { price: { $startsWith: '1' } } });
  // @ts-expect-error: starts-with takes a string
  await db.Product.where('title', 'starts-with', 5).get();
  // @ts-expect-error: $exists takes true or false
  await db.Product.list({ where: { 'details.weight': { $exists: 1 } } });
  // @ts-expect-error: sum takes number fields, and title is a string
  await db.Product.aggregate({ sum: ['title'] });
  // @ts-expect-error: details is an object, not a number field
  await db.Product.aggregate({ max: ['details'] });
  // @ts-expect-error: only the kinds asked for are in the answer
  void totals.avg.price;
  // @ts-expect-error: a subscription expands reference fields only
  db.Product.subscribe(() => {}, { expand: ['title'] });
  // @ts-expect-error: records are typed: a Product has no name
  void product.name;
}
`;

let dir: string;
beforeAll(() => {
  dir = moduleFolder('vellum-codegen-types-');
});

describe('generated clients type-check', () => {
  it('for every fixture schema, under strict NodeNext, against the runtime built for browsers (no Node types)', () => {
    const files: string[] = [];
    for (const folder of FIXTURE_FOLDERS) {
      for (const name of readdirSync(folder).filter((n) => n.endsWith('.polylang')).sort()) {
        // A file with no collection has no client: generation says so (tested in generate.test.ts).
        if (name === 'comments-only.polylang') continue;
        const code = generateFor([join(folder, name)]);
        files.push(writeInto(join(dir, folder.replace('/', '-')), name.replace(/\.polylang$/, '.ts'), code));
      }
    }
    expect(files.length).toBe(94); // every fixture but comments-only
    expect(typeCheck(files)).toEqual([]);
  });

  it('and refuse wrong arguments, unknown functions, unindexed where/sort fields and misused operators at compile time', () => {
    writeInto(dir, 'shop.ts', generateFor(['fixtures/codegen/shop.polylang']));
    const usage = USAGE.replace("'CLIENT'", JSON.stringify(CLIENT_MODULE));
    const lines = usage.split('\n');
    const mistakes = lines.flatMap((line, i) => (line.trim().startsWith('// @ts-expect-error') ? [i + 2] : []));
    expect(mistakes.length).toBe(33);

    // With the directives: no error at all, so each directive suppresses one (an unused one is TS2578).
    expect(typeCheck([writeInto(dir, 'usage.ts', usage)])).toEqual([]);

    // Without them: an error on exactly the lines after the directives, and nowhere else.
    const bare = usage.replaceAll('// @ts-expect-error', '// mistake');
    const errors = typeCheck([writeInto(dir, 'usage-bare.ts', bare)]);
    const errorLines = [...new Set(errors.map((e) => Number(/^usage-bare\.ts:(\d+):/.exec(e)?.[1])))];
    expect(errorLines, errors.join('\n')).toEqual(mistakes);
  });

  it('and the examples of README.md and docs/codegen.md compile as written', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    // The README's worked example schema, and the TypeScript of its Typed clients section.
    const schema = /A worked example[\s\S]*?```\n([\s\S]*?)```/.exec(readme)![1]!;
    const readmeUsage = /## Typed clients[\s\S]*?```ts\n([\s\S]*?)```/.exec(readme)![1]!;
    const docs = readFileSync(join(ROOT, 'docs/codegen.md'), 'utf8');
    const docsUsage = /## Using a generated client[\s\S]*?```ts\n([\s\S]*?)```/.exec(docs)![1]!;

    const account = generateClient([{ file: 'account.polylang', text: schema }], { clientImport: CLIENT_MODULE });
    expect(account.errors).toEqual([]);
    writeInto(dir, 'client.ts', account.code!);
    writeInto(dir, 'shop-client.ts', generateFor(['fixtures/codegen/shop.polylang']));
    const example = (text: string, declarations: string) =>
      `${declarations}\n${text.replaceAll("'vellum/client'", JSON.stringify(CLIENT_MODULE))}\nexport {};\n`;
    const files = [
      writeInto(dir, 'readme-example.ts', example(readmeUsage, 'declare const key: string;')),
      writeInto(dir, 'docs-example.ts', example(docsUsage, 'declare const privateKey: string;')),
    ];
    expect(typeCheck(files)).toEqual([]);
  });
});
