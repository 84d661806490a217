// Permission evaluation over Polybase DB's permission scenarios (its auth.rs tests and the token-gated chat tutorial).
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { publicKeyOf } from '../../src/auth/index.ts';
import { callableByEveryone, canCall, canRead, type LoadedRecord, type PermissionLoader, type WireRecord } from '../../src/runtime/index.ts';
import { load } from './helpers.ts';

const [owner, manager, stranger, m1, m2, m3] = [1, 2, 3, 4, 5, 6].map((n) => publicKeyOf(new Uint8Array(32).fill(n)));
const ref = (collection: string, id: string) => ({ collectionId: `ns/${collection}`, id });

/** A loader over an in-memory set of records; counts its loads. */
function store(schema: string, records: Record<string, WireRecord>): PermissionLoader & { loads: number } {
  const loader = (async (collectionId: string, id: string): Promise<LoadedRecord | null> => {
    loader.loads++;
    const name = collectionId.slice(collectionId.lastIndexOf('/') + 1);
    const record = records[`${name}/${id}`];
    return record ? { collection: load(schema, name, { check: false }), record } : null;
  }) as PermissionLoader & { loads: number };
  loader.loads = 0;
  return loader;
}

const nothing: PermissionLoader = async () => null;

describe('collection decorators', () => {
  it('a collection without decorators is private', async () => {
    const t = load(`collection T { id: string; f () {} }`, 'T');
    expect(await canRead(t, { id: 'a' }, owner, nothing)).toBe(false);
    expect(await canCall(t, 'f', { id: 'a' }, owner, nothing)).toEqual({ allowed: false, reason: 'unauthorized', message: 'unauthorized read' });
    expect(await canCall(t, 'constructor', null, undefined, nothing)).toEqual({ allowed: true });
  });

  it('@public: anyone reads and calls', async () => {
    const t = load(`@public collection T { id: string; f () {} }`, 'T');
    expect(await canRead(t, { id: 'a' }, undefined, nothing)).toBe(true);
    expect(await canCall(t, 'f', { id: 'a' }, undefined, nothing)).toEqual({ allowed: true });
  });

  it('21: @read: anyone reads, nobody calls', async () => {
    const t = load(`@read collection Account { id: string; balance?: number; reset () { this.balance = 0; } }`, 'Account');
    expect(await canRead(t, { id: 'a' }, undefined, nothing)).toBe(true);
    expect(await canCall(t, 'reset', { id: 'a' }, owner, nothing)).toMatchObject({ allowed: false, message: 'you do not have permission to call this function' });
  });

  it('22: @call: readers call functions without their own @call', async () => {
    const t = load(
      `@call collection Account { id: string; balance?: number; @read owner: PublicKey; @read manager: PublicKey;
        @call(manager) reset () { this.balance = 0; } setBalanceToOne () { this.balance = 1; } }`,
      'Account',
    );
    const record = { id: 'a', owner: owner.toJwk(), manager: manager.toJwk() } as unknown as WireRecord;
    expect(await canCall(t, 'setBalanceToOne', record, undefined, nothing)).toMatchObject({ allowed: false, message: 'unauthorized read' });
    expect(await canCall(t, 'setBalanceToOne', record, owner, nothing)).toEqual({ allowed: true });
    expect(await canCall(t, 'reset', record, owner, nothing)).toMatchObject({ allowed: false, message: 'you do not have permission to call this function' });
    expect(await canCall(t, 'reset', record, manager, nothing)).toEqual({ allowed: true });
    expect(await canCall(t, 'setBalanceToOne', record, manager, nothing)).toEqual({ allowed: true });
  });
});

describe('callableByEveryone: the calls canCall allows for anyone, without reading anything', () => {
  it('agrees with canCall for an unsigned caller of a record with no keys, over every kind of collection and function', async () => {
    const schemas = [
      `collection T { id: string; f () {} }`,
      `@public collection T { id: string; owner?: PublicKey; f () {} @call(owner) g () {} }`,
      `@read collection T { id: string; f () {} }`,
      `@call collection T { id: string; f () {} }`,
      `@public collection T { id: string; @call admin?: PublicKey; f () {} }`,
      `@call @read collection T { id: string; manager?: PublicKey; f () {} @call(manager) g () {} }`,
    ];
    const seen: boolean[] = [];
    for (const schema of schemas) {
      const t = load(schema, 'T');
      for (const name of ['constructor', 'f', 'g']) {
        if (name === 'g' && !schema.includes(' g ()')) continue;
        const everyone = callableByEveryone(t, name);
        seen.push(everyone);
        // The same answer twice: the rule is worked out once per function and kept.
        expect(callableByEveryone(t, name)).toBe(everyone);
        if (everyone) expect(await canCall(t, name, name === 'constructor' ? null : { id: 'a' }, undefined, nothing)).toEqual({ allowed: true });
      }
    }
    expect(seen).toEqual([true, false, true, true, false, true, false, true, false, true, true, true, true, false]);
  });

  it('keeps nothing for names the schema does not declare: an embedder passing callers\' names cannot grow the heap', async () => {
    // Test-only: a collectable heap measurement needs gc(), which node gives to a context made after the flag is set.
    v8.setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const t = load(`@public collection T { id: string; f () {} }`, 'T');
    // Flat strings (repeat and + make ropes that share their parts): 4 KB of heap each.
    const name = (i: number) => Buffer.alloc(4000, String(i).padStart(8, '0')).toString('latin1');
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 10_000; i++) {
      expect(callableByEveryone(t, name(i))).toBe(true);
      expect(await canCall(t, name(i), { id: 'a' }, undefined, nothing)).toEqual({ allowed: true });
    }
    gc();
    // 10,000 names of 4 KB are 40 MB if kept; nothing kept leaves the heap where it was, give or take a few MB.
    const grown = process.memoryUsage().heapUsed - before;
    // The collection still in use, as a server's cached schema is (else all it holds could be collected anyway).
    expect(callableByEveryone(t, 'f')).toBe(true);
    expect(grown).toBeLessThan(8 * 1024 * 1024);
  });
});

describe('field decorators and keys', () => {
  it('17: a @read key field', async () => {
    const t = load(`collection Account { id: string; balance: number; @read owner: PublicKey; }`, 'Account');
    const record = { id: 'a', balance: 1, owner: owner.toJwk() } as unknown as WireRecord;
    expect(await canRead(t, record, owner, nothing)).toBe(true);
    expect(await canRead(t, record, stranger, nothing)).toBe(false);
    expect(await canRead(t, record, undefined, nothing)).toBe(false);
    // Keys stored in the hex form match too.
    expect(await canRead(t, { ...record, owner: owner.toHex() }, owner, nothing)).toBe(true);
  });

  it('18: a @read array of keys', async () => {
    const t = load(`collection T { id: string; @read owners: PublicKey[]; }`, 'T');
    const record = { id: 'a', owners: [owner.toJwk(), manager.toJwk()] } as unknown as WireRecord;
    expect(await canRead(t, record, manager, nothing)).toBe(true);
    expect(await canRead(t, record, stranger, nothing)).toBe(false);
  });

  it('19: @call(manager) on a function; read is checked first', async () => {
    const t = load(
      `collection Account { id: string; balance: number; @read manager: PublicKey; @read owner: PublicKey; @call(manager) reset () { this.balance = 0; } }`,
      'Account',
    );
    const record = { id: 'a', balance: 1, owner: owner.toJwk(), manager: manager.toJwk() } as unknown as WireRecord;
    expect(await canCall(t, 'reset', record, manager, nothing)).toEqual({ allowed: true });
    expect(await canCall(t, 'reset', record, owner, nothing)).toMatchObject({ message: 'you do not have permission to call this function' });
    expect(await canCall(t, 'reset', record, stranger, nothing)).toMatchObject({ message: 'unauthorized read' });
    expect(await canCall(t, 'reset', record, undefined, nothing)).toMatchObject({ message: 'unauthorized read' });
  });

  it('a field-level @call grants every function', async () => {
    const t = load(`collection T { id: string; @read @call admin: PublicKey; f () {} }`, 'T');
    expect(await canCall(t, 'f', { id: 'a', admin: owner.toJwk() } as unknown as WireRecord, owner, nothing)).toEqual({ allowed: true });
  });
});

describe('delegation', () => {
  const schema20 = `
    collection Account { id: string; balance?: number; @read owner: User; @read reader: User; @call(owner) reset () { this.balance = 0; } }
    @read collection User { id: string; name: string; @delegate pk: PublicKey; }`;

  it('20: through a @delegate field of a referenced record', async () => {
    const records = { 'User/o': { id: 'o', name: 'O', pk: owner.toJwk() }, 'User/r': { id: 'r', name: 'R', pk: manager.toJwk() } } as unknown as Record<string, WireRecord>;
    const account = load(schema20, 'Account');
    const record = { id: 'a', owner: ref('User', 'o'), reader: ref('User', 'r') } as unknown as WireRecord;
    expect(await canCall(account, 'reset', record, owner, store(schema20, records))).toEqual({ allowed: true });
    expect(await canRead(account, record, manager, store(schema20, records))).toBe(true);
    expect(await canCall(account, 'reset', record, manager, store(schema20, records))).toMatchObject({ message: 'you do not have permission to call this function' });
    expect(await canRead(account, record, stranger, store(schema20, records))).toBe(false);
  });

  it('23: an array of delegating references; missing records are skipped', async () => {
    const schema = `collection Account { id: string; @read managers: Manager[]; }
      @read collection Manager { id: string; @delegate publicKey: PublicKey; }`;
    const records = { 'Manager/1': { id: '1', publicKey: m1.toJwk() }, 'Manager/2': { id: '2', publicKey: m2.toJwk() } } as unknown as Record<string, WireRecord>;
    const account = load(schema, 'Account');
    const record = { id: 'a', managers: [ref('Manager', 'gone'), ref('Manager', '1'), ref('Manager', '2')] } as unknown as WireRecord;
    expect(await canRead(account, record, m1, store(schema, records))).toBe(true);
    expect(await canRead(account, record, m2, store(schema, records))).toBe(true);
    expect(await canRead(account, record, m3, store(schema, records))).toBe(false);
    expect(await canRead(account, record, undefined, store(schema, records))).toBe(false);
  });

  it('24: @call(owner) through a field without decorators, delegating from a public collection', async () => {
    const schema = `@public collection User { id: string; @delegate pk: PublicKey; }
      @read collection Org { id: string; owner: User; @call(owner) onlyOwner () {} }`;
    const records = { 'User/u': { id: 'u', pk: owner.toJwk() } } as unknown as Record<string, WireRecord>;
    const org = load(schema, 'Org');
    const record = { id: 'o', owner: ref('User', 'u') } as unknown as WireRecord;
    expect(await canCall(org, 'onlyOwner', record, owner, store(schema, records))).toEqual({ allowed: true });
    expect(await canCall(org, 'onlyOwner', record, stranger, store(schema, records))).toMatchObject({ allowed: false });
  });

  const chat = `
    collection User { id: string; @delegate @read publicKey: PublicKey; }
    collection NFT { id: string; @delegate owner: User; }
    collection Chat { id: string; @delegate @read members: NFT[]; @call(members) addMember (nft: NFT) { this.members.push(nft); } }
    collection Message { id: string; @read chat: Chat; }`;

  it('38: token-gated chat, a chain Message → Chat → NFT → User → key', async () => {
    const records = {
      'User/u1': { id: 'u1', publicKey: m1.toJwk() },
      'User/u2': { id: 'u2', publicKey: m2.toJwk() },
      'NFT/n1': { id: 'n1', owner: ref('User', 'u1') },
      'NFT/n2': { id: 'n2', owner: ref('User', 'u2') },
      'Chat/c': { id: 'c', members: [ref('NFT', 'n1'), ref('NFT', 'n2')] },
    } as unknown as Record<string, WireRecord>;
    const message = load(chat, 'Message', { check: false });
    const record = { id: 'm', chat: ref('Chat', 'c') } as unknown as WireRecord;
    expect(await canRead(message, record, m1, store(chat, records))).toBe(true);
    expect(await canRead(message, record, m2, store(chat, records))).toBe(true);
    expect(await canRead(message, record, m3, store(chat, records))).toBe(false);
    const chatCollection = load(chat, 'Chat', { check: false });
    expect(await canCall(chatCollection, 'addMember', records['Chat/c']!, m2, store(chat, records))).toEqual({ allowed: true });
    expect(await canCall(chatCollection, 'addMember', records['Chat/c']!, m3, store(chat, records))).toMatchObject({ message: 'unauthorized read' });
  });

  it('cycles are walked once and end', async () => {
    const schema = `collection A { id: string; @read @delegate next: A; }`;
    const records = { 'A/1': { id: '1', next: ref('A', '2') }, 'A/2': { id: '2', next: ref('A', '1') } } as unknown as Record<string, WireRecord>;
    const loader = store(schema, records);
    expect(await canRead(load(schema, 'A', { check: false }), records['A/1']!, owner, loader)).toBe(false);
    expect(loader.loads).toBe(2);
  });

  it('long chains stop at the depth bound', async () => {
    const schema = `collection A { id: string; @read @delegate next?: A; @delegate pk?: PublicKey; }`;
    const records: Record<string, WireRecord> = {};
    for (let i = 0; i < 40; i++) records[`A/${i}`] = { id: String(i), next: ref('A', String(i + 1)) } as unknown as WireRecord;
    records['A/40'] = { id: '40', pk: owner.toJwk() } as unknown as WireRecord;
    records['A/5'] = { id: '5', next: ref('A', '6'), pk: manager.toJwk() } as unknown as WireRecord;
    const loader = store(schema, records);
    const a = load(schema, 'A', { check: false });
    expect(await canRead(a, records['A/0']!, manager, loader)).toBe(true);
    expect(await canRead(a, records['A/0']!, owner, store(schema, records))).toBe(false);
  });
});
