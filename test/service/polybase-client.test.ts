// Compatibility: the unchanged Polybase JS client (@polybase/client 0.6.x) against a Vellum server, with a
// signer built on Vellum's signRequest helper.
import { Polybase, type Signer } from '@polybase/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signRequest } from '../../src/auth/index.ts';
import { KEYS, jwkOf, startTestServer, type TestServer } from './support.ts';

const SCHEMA = `
@public
collection City {
  id: string;
  name: string;
  population: number;
  mayor?: PublicKey;
  picture?: bytes;

  constructor (id: string, name: string, population: number) {
    this.id = id;
    this.name = name;
    this.population = population;
    this.mayor = ctx.publicKey;
  }

  grow (by: number) {
    if (this.mayor != ctx.publicKey) {
      throw error('only the mayor');
    }
    this.population = this.population + by;
  }

  setPicture (picture: bytes) {
    this.picture = picture;
  }
}

collection Secret {
  id: string;
  @read
  owner: PublicKey;
  text: string;

  constructor (id: string, text: string) {
    this.id = id;
    this.owner = ctx.publicKey;
    this.text = text;
  }
}
`;

/** The Polybase client's signer contract: sign `<t>.<body>`, answer {h, sig}. */
function signerFor(privateKey: string): Signer {
  return (data: string) => {
    const dot = data.indexOf('.');
    const t = Number(data.slice(0, dot));
    const header = signRequest(privateKey, data.slice(dot + 1), t);
    const sig = /sig=(0x[0-9a-f]+)/.exec(header)![1]!;
    return { h: 'eth-personal-sign', sig };
  };
}

let s: TestServer;
let db: Polybase;
beforeAll(async () => {
  s = await startTestServer();
  db = new Polybase({ baseURL: `${s.url}/v0`, defaultNamespace: 'compat', signer: signerFor(KEYS.alice) });
});
afterAll(() => s.close());

describe('@polybase/client 0.6', () => {
  it('applySchema creates the collections, and applies an update the second time', async () => {
    const collections = await db.applySchema(SCHEMA);
    expect(collections.map((c) => c.id).sort()).toEqual(['compat/City', 'compat/Secret']);
    const again = await db.applySchema(`${SCHEMA}\n`);
    expect(again.length).toBe(2);
    expect((await s.record('Collection', 'compat/City')).json.data.code).toBe(`${SCHEMA}\n`);
  });

  it('creates, reads and updates records, with ctx.publicKey from the signer', async () => {
    const cities = db.collection('City');
    const created = await cities.create(['london', 'London', 8_000_000]);
    expect(created.data).toMatchObject({ id: 'london', name: 'London', population: 8_000_000 });
    expect(created.data.mayor).toEqual(jwkOf(KEYS.alice));
    await cities.create(['paris', 'Paris', 2_100_000]);
    await cities.create(['rome', 'Rome', 2_800_000]);
    await cities.create(['oslo', 'Oslo', 700_000]);

    const grown = await cities.record('london').call('grow', [1]);
    expect(grown.data.population).toBe(8_000_001);
    const read = await cities.record('london').get();
    expect(read.data.population).toBe(8_000_001);
    expect(read.exists()).toBe(true);
    const missing = await cities.record('nowhere').get();
    expect(missing.exists()).toBe(false);
  });

  it('bytes travel as base64 and come back as Uint8Array', async () => {
    const cities = db.collection('City');
    const updated = await cities.record('oslo').call('setPicture', [new Uint8Array([1, 2, 3, 250])]);
    expect(Array.from(updated.data.picture as Uint8Array)).toEqual([1, 2, 3, 250]);
  });

  it('a function error surfaces as PolybaseError with the reason', async () => {
    const other = new Polybase({ baseURL: `${s.url}/v0`, defaultNamespace: 'compat', signer: signerFor(KEYS.bob) });
    await expect(other.collection('City').record('london').call('grow', [1])).rejects.toMatchObject({
      reason: 'function/collection-error',
      code: 'failed-precondition',
      statusCode: 400,
    });
  });

  it('queries with where and sort, and pages with cursors', async () => {
    const cities = db.collection('City');
    const big = await cities.where('population', '>', 1_000_000).sort('population', 'desc').get();
    expect(big.data.map((r) => r.data.id)).toEqual(['london', 'rome', 'paris']);
    const named = await cities.where('name', '==', 'Oslo').get();
    expect(named.data.map((r) => r.data.id)).toEqual(['oslo']);

    const first = await cities.limit(2).get();
    expect(first.data.map((r) => r.data.id)).toEqual(['london', 'oslo']);
    // QueryResponse has next() and previous() at run time; the 0.6.1 typings leave them out.
    const second = await (first as any).next();
    expect(second.data.map((r: any) => r.data.id)).toEqual(['paris', 'rome']);
    const back = await second.previous();
    expect(back.data.map((r: any) => r.data.id)).toEqual(['london', 'oslo']);
  });

  it('reads a private collection with a signed read', async () => {
    const secrets = db.collection('Secret');
    await secrets.create(['s1', 'hidden']);
    const read = await secrets.record('s1').get();
    expect(read.data.text).toBe('hidden');
    const stranger = new Polybase({ baseURL: `${s.url}/v0`, defaultNamespace: 'compat', signer: signerFor(KEYS.bob) });
    await expect(stranger.collection('Secret').record('s1').get()).rejects.toMatchObject({ reason: 'unauthorized' });
    // A list of a private collection must be limited by its where to the caller's records (docs/service.md
    // "Private records in lists"): the owner's is, through the client's where with the key's JWK; the stranger's
    // is refused, where Polybase answered [] (as Vellum does under privateLists: 'filtered', below).
    const mine = await secrets.where('owner', '==', jwkOf(KEYS.alice) as never).get();
    expect(mine.data.map((r) => r.data.id)).toEqual(['s1']);
    await expect(stranger.collection('Secret').get()).rejects.toMatchObject({ reason: 'permission/unconfined-query' });
    const filtered = await startTestServer({ privateLists: 'filtered' });
    try {
      const owner = new Polybase({ baseURL: `${filtered.url}/v0`, defaultNamespace: 'compat', signer: signerFor(KEYS.alice) });
      await owner.applySchema(SCHEMA);
      await owner.collection('Secret').create(['s1', 'hidden']);
      const other = new Polybase({ baseURL: `${filtered.url}/v0`, defaultNamespace: 'compat', signer: signerFor(KEYS.bob) });
      expect((await other.collection('Secret').get()).data).toEqual([]);
    } finally {
      await filtered.close();
    }
  });

  it('receives a change through onSnapshot (long-poll)', async () => {
    const cities = db.collection('City');
    const seen: number[] = [];
    let resolveChange: () => void;
    const changed = new Promise<void>((resolve) => (resolveChange = resolve));
    const stop = cities.record('paris').onSnapshot((snapshot) => {
      seen.push(snapshot.data.population);
      if (snapshot.data.population === 2_100_005) resolveChange();
    });
    const listSeen: number[] = [];
    const stopList = cities.onSnapshot((snapshot) => listSeen.push(snapshot.data.length));
    await new Promise((resolve) => setTimeout(resolve, 500));
    await cities.record('paris').call('grow', [5]);
    await changed;
    stop();
    stopList();
    expect(seen[0]).toBe(2_100_000);
    expect(seen.at(-1)).toBe(2_100_005);
    expect(listSeen.length).toBeGreaterThanOrEqual(1);
  });
});
