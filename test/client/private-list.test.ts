// A user of vellum/client lists its own records of a private collection (docs/service.md "Private records in
// lists"): its key's public key, from publicKeyHex, pins the where; a list and a count of the signer's records
// are served (a subscription takes the same where), and a list that is not pinned is a VellumError saying what to add.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publicKeyOf } from '../../src/auth/index.ts';
import { Client, ethPersonalSigner, publicKeyHex, VellumError, type CollectionSchema } from '../../src/client/index.ts';
import { KEYS, startTestServer, type TestServer } from '../service/support.ts';

const SCHEMA = `
collection Note {
  id: string;
  @read owner: PublicKey;
  text: string;
  @index(owner, text);
  constructor (id: string, text: string) { this.id = id; this.owner = ctx.publicKey; this.text = text; }
}
`;

interface NoteSchema extends CollectionSchema {
  name: 'Note';
  record: { id: string; owner: unknown; text: string };
  constructorArgs: [id: string, text: string];
  functions: Record<string, never>;
  queryFields: { id: string; owner: `0x${string}`; text: string };
}

describe('a private collection through vellum/client', () => {
  let s: TestServer;
  const notes = (key: string) => new Client({ baseURL: `${s.url}/v0`, namespace: 'pc', signer: ethPersonalSigner(key) }).collection<NoteSchema>('Note', { signReads: true });
  beforeAll(async () => {
    s = await startTestServer();
    await s.createCollection('pc/Note', SCHEMA);
    await notes(KEYS.alice).create('a1', 'one');
    await notes(KEYS.alice).create('a2', 'two');
    await notes(KEYS.bob).create('b1', 'three');
  });
  afterAll(() => s.close());

  it("publicKeyHex is the signer's public key as a where takes it", () => {
    expect(publicKeyHex(KEYS.alice)).toBe(publicKeyOf(KEYS.alice).toHex());
    expect(() => publicKeyHex('0x12')).toThrow('a private key must be "0x" followed by 64 hex digits');
  });

  it("lists and counts the signer's own records, pinned by publicKeyHex", async () => {
    const alice = notes(KEYS.alice);
    const mine = alice.where('owner', '==', publicKeyHex(KEYS.alice)).sort('text', 'desc');
    expect((await mine.get()).records.map((r) => r.id)).toEqual(['a2', 'a1']);
    expect(await alice.where('owner', '==', publicKeyHex(KEYS.alice)).count()).toBe(2);
  });

  it('refuses a list that is not pinned, saying what to add', async () => {
    const refusal = await notes(KEYS.bob).query().get().catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(VellumError);
    expect(refusal).toMatchObject({ status: 403, reason: 'permission/unconfined-query', message: expect.stringContaining('add a where on "owner" equal to your public key') });
  });
});
