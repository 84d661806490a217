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
import { bytesFromBase64, ethPersonalSigner, VellumError, type HexPublicKey, type StreamEvent as AnyStreamEvent } from '../../src/client/index.ts';
import { startServer, type RunningServer } from '../../src/service/index.ts';
import { generateFor, moduleFolder, ROOT, writeInto } from './support.ts';

// The generated module's types, for this test (it is imported at run time from a temporary folder).
type ShopModule = typeof import('../../fixtures/codegen/shop.client.ts');

type StreamEvent = AnyStreamEvent<{ id: string }>;

/** An event as `put <id>`, `remove <id>`, `reset` or `ready`. */
const brief = (event: StreamEvent) => ('id' in event ? `${event.type} ${event.id}` : event.type);

/** Waits until `check` holds (events arrive as the service commits), failing after 5 s. */
async function until(check: () => boolean): Promise<void> {
  for (let tries = 0; !check(); tries++) {
    if (tries === 200) throw new Error(`still waiting for ${check}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

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

    // Aggregates over a number field with no index (details.depth: typed by aggregateFields, not queryFields).
    expect(await anonymous.Product.aggregate({ sum: ['price'], max: ['details.depth', 'details.weight'] })).toEqual({
      count: 4,
      sum: { price: 205 },
      max: { 'details.depth': null, 'details.weight': 2 },
    });

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

  it('lists with $ne, $in, $nin, $contains and $or, and counts', async () => {
    await alice.Product.create('shade', 'Shade', 12, alice.Seller.ref('acme'), ['light', 'soft']);
    const ids = (page: { records: { id: string }[] }) => page.records.map((r) => r.id);
    // Now: shade 12, lamp 30 (tags light), chair 40, desk 120.
    expect(ids(await anonymous.Product.where('price', '!=', 30).sort('price').get())).toEqual(['shade', 'chair', 'desk']);
    expect(ids(await anonymous.Product.where('price', 'in', [30, 120, 7]).sort('price').get())).toEqual(['lamp', 'desk']);
    expect(ids(await anonymous.Product.where('price', 'not-in', [30, 40]).sort('price', 'desc').get())).toEqual(['desk', 'shade']);
    expect(ids(await anonymous.Product.where('tags', 'array-contains', 'light').get())).toEqual(['lamp', 'shade']);
    expect(ids(await anonymous.Product.list({ where: { tags: { $contains: 'soft' } } }))).toEqual(['shade']);
    const either = anonymous.Product.or({ title: 'Chair' }, { tags: { $contains: 'soft' } });
    expect(ids(await either.get())).toEqual(['chair', 'shade']);

    expect(await anonymous.Product.count()).toBe(4);
    expect(await anonymous.Product.where('tags', 'array-contains', 'light').count()).toBe(2);
    expect(await either.count()).toBe(2);
    expect(await anonymous.Product.count({ price: { $nin: [12, 30] } })).toBe(2);
    expect(() => either.limit(1).count()).toThrow('count: a query with limit has no count');

    // Branches in different orders (a range on price, an array's entries by id): the index to add is named.
    await expect(anonymous.Product.or({ price: { $gt: 100 } }, { tags: { $contains: 'soft' } }).get()).rejects.toMatchObject({ status: 400, reason: 'indexer/missing-index' });
  });

  it('subscribes to a query: the result, then each change as it commits; a dropped connection resumes from Last-Event-ID', async () => {
    // A fetch whose stream connections the test can cut, and which records the Last-Event-ID each one sent.
    // New connections wait for `gate`, so a change can be made while the stream is down.
    const connections: { lastEventId: string | null; cut: () => void }[] = [];
    let gate = Promise.resolve();
    const cuttable: typeof fetch = async (input, init) => {
      await gate;
      const cut = new AbortController();
      connections.push({ lastEventId: new Headers(init?.headers).get('last-event-id'), cut: () => cut.abort() });
      return fetch(input, { ...init, signal: AbortSignal.any([cut.signal, ...(init?.signal ? [init.signal] : [])]) });
    };
    const watcher = shop.createClient({ baseURL: `${server.url}/v0`, namespace: 'shop', fetch: cuttable });
    const events: StreamEvent[] = [];
    const subscription = watcher.Product.where('price', '<', 50).subscribe((event) => events.push(event), { retryDelay: 50 });
    await until(() => events.some((e) => e.type === 'ready'));
    expect(events.map(brief)).toEqual(['put shade', 'put lamp', 'put chair', 'ready']);

    events.length = 0;
    await alice.Product.record('chair').call('setPrice', 60);
    await until(() => events.length > 0);
    await alice.Product.record('shade').call('setPrice', 5);
    await until(() => events.length > 1);
    expect(events.map(brief)).toEqual(['remove chair', 'put shade']);
    expect([...subscription.records.keys()].sort()).toEqual(['lamp', 'shade']);
    expect(subscription.records.get('shade')?.price).toBe(5);

    // Cut the connection, change the result while it is down: the reconnection gets only that change.
    const resumeFrom = subscription.lastEventId;
    expect(resumeFrom).toMatch(/^\d+(\.\d+)?$/);
    events.length = 0;
    let reopen = () => {};
    gate = new Promise((resolve) => (reopen = resolve));
    connections[0]!.cut();
    await alice.Product.record('chair').call('setPrice', 35);
    reopen();
    await until(() => events.some((e) => e.type === 'ready'));
    expect(connections.map((c) => c.lastEventId)).toEqual([null, resumeFrom]);
    expect(events.map(brief)).toEqual(['put chair', 'ready']);
    expect([...subscription.records.keys()].sort()).toEqual(['chair', 'lamp', 'shade']);

    subscription.close();
    await subscription.done;
    expect(subscription.closed).toBe(true);
  });

  it('subscribes to a record, and a stream the service refuses ends with its error', async () => {
    const events: StreamEvent[] = [];
    const subscription = anonymous.Product.record('lamp').subscribe((event) => events.push(event));
    await until(() => events.some((e) => e.type === 'ready'));
    await alice.Product.record('lamp').call('describe', 'blue');
    await until(() => events.length > 2);
    await alice.Product.record('lamp').call('remove');
    await until(() => events.length > 3);
    expect(events.map(brief)).toEqual(['put lamp', 'ready', 'put lamp', 'remove lamp']);
    expect(events[2]).toMatchObject({ record: { details: { colour: 'blue' } } });
    subscription.close();

    let refused: VellumError | undefined;
    const unserved = anonymous.Product.where('title', '==', 'Lamp').sort('price', 'desc').subscribe(() => {}, { onError: (error) => (refused = error) });
    await unserved.done;
    expect(refused).toMatchObject({ status: 400, reason: 'indexer/missing-index' });
    expect(unserved.closed).toBe(true);
  });

  it('ethPersonalSigner is a signer for the unchanged @polybase/client too', async () => {
    const db = new Polybase({ baseURL: `${server.url}/v0`, defaultNamespace: 'shop', signer: ethPersonalSigner(KEYS.bob) });
    const created = await db.collection('Seller').create(['polybase', 'Made by @polybase/client']);
    expect(created.data).toEqual({ id: 'polybase', name: 'Made by @polybase/client', owner: jwkOf(KEYS.bob) });
    expect(await alice.Seller.get('polybase')).toEqual(created.data);
  });
});
