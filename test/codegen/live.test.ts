// A generated client against a live server: `vellum serve`'s startServer on a temporary SQLite folder with
// fixtures/codegen/shop.polylang installed, every request through the generated code and vellum/client, signed
// with ethPersonalSigner. The same signer also drives the unchanged @polybase/client.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Polybase } from '@polybase/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publicKeyOf } from '../../src/auth/index.ts';
import { bytesFromBase64, ethPersonalSigner, VellumError, type HexPublicKey } from '../../src/client/index.ts';
import { startServer, type RunningServer } from '../../src/service/index.ts';
import { generateFor, moduleFolder, ROOT, writeInto } from './support.ts';

// The generated module's types, for this test (it is imported at run time from a temporary folder).
type ShopModule = typeof import('../../fixtures/codegen/shop.client.ts');

const KEYS = { alice: `0x${'11'.repeat(32)}`, bob: `0x${'22'.repeat(32)}` } as const;
const jwkOf = (key: string) => publicKeyOf(key).toJwk();

let server: RunningServer;
let shop: ShopModule;
let alice: ReturnType<ShopModule['createClient']>;
let bob: ReturnType<ShopModule['createClient']>;
let anonymous: ReturnType<ShopModule['createClient']>;

beforeAll(async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'vellum-codegen-live-'));
  server = await startServer({
    port: 0,
    host: '127.0.0.1',
    dataDir,
    schemaFiles: [join(ROOT, 'fixtures/codegen/shop.polylang')],
    namespace: 'shop',
    log: () => {},
  });
  const dir = moduleFolder('vellum-codegen-client-');
  shop = (await import(pathToFileURL(writeInto(dir, 'shop.ts', generateFor(['fixtures/codegen/shop.polylang']))).href)) as ShopModule;
  const baseURL = `${server.url}/v0`;
  alice = shop.createClient({ baseURL, namespace: 'shop', signer: ethPersonalSigner(KEYS.alice) });
  bob = shop.createClient({ baseURL, namespace: 'shop', signer: ethPersonalSigner(KEYS.bob) });
  anonymous = shop.createClient({ baseURL, namespace: 'shop' });
});
afterAll(() => server?.close());

describe('a generated client against vellum serve', () => {
  it('creates records signed by the signer: ctx.publicKey is its key, bytes go as Uint8Array and come back as base64', async () => {
    const seller = await alice.Seller.create('acme', 'Acme');
    expect(seller).toEqual({ id: 'acme', name: 'Acme', owner: jwkOf(KEYS.alice) });

    const lamp = await alice.Product.create('lamp', 'Lamp', 25, alice.Seller.ref('acme'), ['light'], new Uint8Array([1, 2, 250]));
    expect(lamp).toMatchObject({ id: 'lamp', price: 25, inStock: true, seller: { collectionId: 'shop/Seller', id: 'acme' }, tags: ['light'] });
    expect(lamp.owner).toEqual(jwkOf(KEYS.alice));
    expect(lamp.picture).toBe('AQL6');
    expect(Array.from(bytesFromBase64(lamp.picture!))).toEqual([1, 2, 250]);

    // A reference given as { id } alone: the service fills in the collection. An optional parameter left out.
    const chair = await alice.Product.create('chair', 'Chair', 40, { id: 'acme' }, []);
    expect(chair.seller).toEqual({ collectionId: 'shop/Seller', id: 'acme' });
    expect('picture' in chair).toBe(false);
    await bob.Seller.create('bobs', "Bob's");
    await bob.Product.create('desk', 'Desk', 120, bob.Seller.ref('bobs'), []);
    await bob.Product.create('stool', 'Stool', 15, bob.Seller.ref('bobs'), []);
  });

  it('calls functions with typed arguments, the owner check applying to the signer', async () => {
    const lamp = alice.Product.record('lamp');
    expect(await lamp.call('setPrice', 30)).toMatchObject({ id: 'lamp', price: 30 });
    expect(await lamp.call('describe', 'red', 2)).toMatchObject({ details: { colour: 'red', weight: 2 } });
    await expect(bob.Product.record('lamp').call('setPrice', 1)).rejects.toMatchObject({ status: 403, code: 'permission-denied', reason: 'unauthorized' });
    await expect(anonymous.Product.record('lamp').call('setPrice', 1)).rejects.toBeInstanceOf(VellumError);

    // A PublicKey argument in its hex form.
    const rater = publicKeyOf(KEYS.bob).toHex() as HexPublicKey;
    expect((await bob.Product.record('lamp').call('rate', rater, 5))?.ratings).toEqual({ [rater]: 5 });

    // The function's own error, with its message.
    await expect(lamp.call('setPrice', -1)).rejects.toMatchObject({ status: 400, reason: 'function/collection-error', message: expect.stringContaining('price must not be negative') });
    expect((await alice.Product.get('lamp')).price).toBe(30);
  });

  it('lists with typed where and sort, on single-field, compound and nested indexes, and pages with cursors', async () => {
    const ids = (page: { records: { id: string }[] }) => page.records.map((r) => r.id);
    expect(ids(await anonymous.Product.sort('price', 'desc').get())).toEqual(['desk', 'chair', 'lamp', 'stool']);
    expect(ids(await anonymous.Product.where('price', '>=', 20).where('price', '<', 100).get())).toEqual(['lamp', 'chair']);
    // Compound index (seller, [price, desc]).
    expect(ids(await anonymous.Product.where('seller', '==', anonymous.Seller.ref('bobs')).sort('price', 'desc').get())).toEqual(['desk', 'stool']);
    // Nested index (details.colour); a where object as the wire has it.
    expect(ids(await anonymous.Product.list({ where: { 'details.colour': 'red' } }))).toEqual(['lamp']);
    expect(ids(await anonymous.Product.list({ where: { owner: jwkOf(KEYS.bob) }, sort: [['id', 'asc']] }))).toEqual(['desk', 'stool']);
    expect(ids(await anonymous.Product.where('owner', '==', publicKeyOf(KEYS.alice).toHex() as HexPublicKey).get())).toEqual(['chair', 'lamp']);

    const first = await anonymous.Product.sort('price').limit(3).get();
    expect(ids(first)).toEqual(['stool', 'lamp', 'chair']);
    const second = await anonymous.Product.query().after(first.cursor.after!).get();
    expect(ids(second)).toEqual(['desk']);
    const back = await anonymous.Product.query().before(second.cursor.before!).get();
    expect(ids(back)).toEqual(['stool', 'lamp', 'chair']);

    // A combination no index serves: the service's error, naming the index to add.
    await expect(anonymous.Product.where('title', '==', 'Lamp').sort('price', 'desc').get()).rejects.toMatchObject({
      status: 400,
      reason: 'indexer/missing-index',
      message: expect.stringContaining('@index(title, [price, desc])'),
    });
  });

  it('waits for changes with the page timestamp (long-poll), and gets null when nothing changed', async () => {
    const page = await anonymous.Product.list();
    expect(page.timestamp).toMatch(/^\d+(\.\d+)?$/);
    expect(await anonymous.Product.waitForList(page.timestamp!, { waitFor: '100ms' })).toBeNull();
    const waiting = anonymous.Product.waitForList(page.timestamp!, { waitFor: '10s', where: { price: { $lt: 20 } } });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await bob.Product.record('stool').call('setPrice', 10);
    const changed = await waiting;
    expect(changed?.records.map((r) => [r.id, r.price])).toEqual([['stool', 10]]);
    expect(await anonymous.Product.record('stool').waitForChange(changed!.timestamp!, '100ms')).toBeNull();
  });

  it('a function that deletes its record answers null, and then the record is not found', async () => {
    expect(await bob.Product.record('stool').call('remove')).toBeNull();
    await expect(anonymous.Product.get('stool')).rejects.toMatchObject({ status: 404, code: 'not-found', reason: 'record/not-found' });
  });

  it('ethPersonalSigner is a signer for the unchanged @polybase/client too', async () => {
    const db = new Polybase({ baseURL: `${server.url}/v0`, defaultNamespace: 'shop', signer: ethPersonalSigner(KEYS.bob) });
    const created = await db.collection('Seller').create(['polybase', 'Made by @polybase/client']);
    expect(created.data).toEqual({ id: 'polybase', name: 'Made by @polybase/client', owner: jwkOf(KEYS.bob) });
    expect(await alice.Seller.get('polybase')).toEqual(created.data);
  });
});
