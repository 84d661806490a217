// Who may change a deployment's schemas (schema-access.ts), tested as an attacker would: unsigned requests,
// wrong keys, owners and admins against every route that changes a schema (creating a record of `Collection`,
// `updateCode` through the call route and through the unsigned-call fast path), under each collection-creation
// policy, on SQLite and on PostgreSQL. A schema changes only when the rules allow, and every refusal is 403 naming
// who would have been allowed.
import { Polybase } from '@polybase/client';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publicKeyOf } from '../../src/auth/index.ts';
import { ethPersonalSigner } from '../../src/client/index.ts';
import { openPostgresStore, openSqliteStore, type RecordStore } from '../../src/store/index.ts';
import { startTestPostgres, uniqueTableName, dropTablesAndStop, type TestPostgres } from '../support/postgres.ts';
import { KEYS, errorOf, hexOf, startTestServer, type Answer, type TestServer } from './support.ts';

const code = (name: string, version = 0) => `@public collection ${name} { id: string; constructor (id: string) { this.id = id; } } // v${version}`;

/** An unsigned request: no `key`. */
const createAs = (s: TestServer, id: string, text: string, key?: string) => s.post('/v0/collections/Collection/records', { args: [id, text] }, { key });
const updateAs = (s: TestServer, id: string, text: string, key?: string) => s.call('Collection', id, 'updateCode', [text], key);
const storedCode = async (s: TestServer, id: string) => {
  const answer = await s.record('Collection', id);
  return answer.status === 404 ? undefined : (answer.json.data.code as string);
};

function expectRefused(answer: Answer, reason: string, allowed: string | RegExp): void {
  expect(answer.status, answer.text).toBe(403);
  expect(errorOf(answer)).toMatchObject({ code: 'permission-denied', reason });
  if (typeof allowed === 'string') expect(errorOf(answer)?.message).toContain(allowed);
  else expect(errorOf(answer)?.message).toMatch(allowed);
}

describe('the default: admin keys, and each key in its own pk/<key>/ namespace', () => {
  let s: TestServer;
  beforeAll(async () => {
    // As `vellum serve --admin-key <admin> --schema app.polylang --namespace app` starts.
    s = await startTestServer({ schemaAccess: { adminKeys: [hexOf(KEYS.admin)] } });
    await s.server.service.installSchema('app/Account', code('Account'));
  });
  afterAll(() => s.close());

  it('an unsigned request creates no collection, anywhere', async () => {
    for (const id of ['spam/X', `pk/${hexOf(KEYS.alice)}/X`, 'app/Account2']) {
      expectRefused(await createAs(s, id, code(id.split('/').pop()!)), 'permission/create-collection', 'the request is not signed');
    }
    expectRefused(await createAs(s, 'spam/X', code('X')), 'permission/create-collection', 'allowed only to admin keys (collection-creation policy admins), and to each key in its own namespace pk/<its key>/');
    expect(await storedCode(s, 'spam/X')).toBeUndefined();
  });

  it('a signed key creates collections in its own namespace only; an admin key anywhere', async () => {
    expectRefused(await createAs(s, 'spam/X', code('X'), KEYS.alice), 'permission/create-collection', `signed by ${hexOf(KEYS.alice)}`);
    const own = `pk/${hexOf(KEYS.alice)}/X`;
    expect((await createAs(s, own, code('X'), KEYS.alice)).status).toBe(200);
    expectRefused(await createAs(s, `pk/${hexOf(KEYS.alice)}/Y`, code('Y'), KEYS.bob), 'permission/create-collection', `allowed only to the key ${hexOf(KEYS.alice)} (whose namespace it is) and admin keys`);
    // The compressed form of the key names the same namespace's owner.
    const compressed = `0x${Buffer.from(publicKeyOf(KEYS.alice).toCompressed()).toString('hex')}`;
    expect((await createAs(s, `pk/${compressed}/Z`, code('Z'), KEYS.alice)).status).toBe(200);
    expectRefused(await createAs(s, 'pk/nobody/W', code('W'), KEYS.alice), 'permission/create-collection', /allowed only to admin keys/);
    expect((await createAs(s, 'anywhere/Q', code('Q'), KEYS.admin)).status).toBe(200);
    expect((await createAs(s, `pk/${hexOf(KEYS.alice)}/Q`, code('Q'), KEYS.admin)).status).toBe(200);
  });

  it('a collection installed with --schema belongs to the admins: no update unsigned or by a key, one by an admin key', async () => {
    // Issue 21: one unsigned updateCode replaced the operator's schema.
    for (const key of [undefined, KEYS.alice]) {
      expectRefused(await updateAs(s, 'app/Account', code('Account', 1), key), 'permission/change-schema', 'allowed only to admin keys (it has no owner: it was installed by the operator or created unsigned)');
    }
    // Through the unsigned-call fast path too (a plain JSON body), and through the route (another content type).
    const raw = JSON.stringify({ args: [code('Account', 2)] });
    for (const type of ['application/json', 'text/plain']) {
      const answer = await s.post('/v0/collections/Collection/records/app%2FAccount/call/updateCode', undefined, { raw, headers: { 'content-type': type } });
      expectRefused(answer, 'permission/change-schema', 'the request is not signed');
    }
    expect(await storedCode(s, 'app/Account')).toBe(code('Account'));
    expect((await updateAs(s, 'app/Account', code('Account', 3), KEYS.admin)).status).toBe(200);
    expect(await storedCode(s, 'app/Account')).toBe(code('Account', 3));
  });

  it('the owner and admin keys update a signed collection; other keys and unsigned requests do not', async () => {
    const id = `pk/${hexOf(KEYS.bob)}/Owned`;
    expect((await createAs(s, id, code('Owned'), KEYS.bob)).status).toBe(200);
    expectRefused(await updateAs(s, id, code('Owned', 1)), 'permission/change-schema', `allowed only to its owner ${hexOf(KEYS.bob)} and admin keys`);
    expectRefused(await updateAs(s, id, code('Owned', 1), KEYS.alice), 'permission/change-schema', `allowed only to its owner ${hexOf(KEYS.bob)} and admin keys`);
    expect((await updateAs(s, id, code('Owned', 2), KEYS.bob)).status).toBe(200);
    expect((await updateAs(s, id, code('Owned', 3), KEYS.admin)).status).toBe(200);
    expect(await storedCode(s, id)).toBe(code('Owned', 3));
  });

  it('a refused request is refused before its schema is read: a broken schema from a stranger is 403, not 400', async () => {
    expectRefused(await createAs(s, 'spam/Broken', 'collection Broken {', KEYS.alice), 'permission/create-collection', /admin keys/);
    expectRefused(await updateAs(s, 'app/Account', 'collection Account {', KEYS.alice), 'permission/change-schema', /admin keys/);
  });

  it("@polybase/client's signed applySchema works in the key's own namespace, and is refused elsewhere", async () => {
    const own = new Polybase({ baseURL: `${s.url}/v0`, defaultNamespace: `pk/${hexOf(KEYS.carol)}/app`, signer: ethPersonalSigner(KEYS.carol) });
    const schema = '@public collection City { id: string; constructor (id: string) { this.id = id; } }';
    expect((await own.applySchema(schema)).map((c) => c.id)).toEqual([`pk/${hexOf(KEYS.carol)}/app/City`]);
    expect((await own.applySchema(`${schema}\n`)).length).toBe(1); // the update, by the owner
    const elsewhere = new Polybase({ baseURL: `${s.url}/v0`, defaultNamespace: 'shared', signer: ethPersonalSigner(KEYS.carol) });
    await expect(elsewhere.applySchema(schema)).rejects.toThrow(/creating collection shared\/City is allowed only to admin keys/);
    const admin = new Polybase({ baseURL: `${s.url}/v0`, defaultNamespace: 'shared', signer: ethPersonalSigner(KEYS.admin) });
    expect((await admin.applySchema(schema)).map((c) => c.id)).toEqual(['shared/City']);
  });
});

describe('the policies and reserved namespaces', () => {
  it('anyone: any signed key, never unsigned; keys: the listed keys; reserved namespaces: their keys only', async () => {
    const anyone = await startTestServer({ schemaAccess: { createPolicy: 'anyone', reservedNamespaces: [{ namespace: 'team', keys: [hexOf(KEYS.bob)] }] } });
    const keys = await startTestServer({ schemaAccess: { createPolicy: 'keys', createKeys: [hexOf(KEYS.carol)] } });
    try {
      expectRefused(await createAs(anyone, 'open/A', code('A')), 'permission/create-collection', 'allowed only to signed requests (collection-creation policy anyone); the request is not signed');
      expect((await createAs(anyone, 'open/A', code('A'), KEYS.alice)).status).toBe(200);
      expectRefused(await createAs(anyone, 'team/sub/B', code('B'), KEYS.alice), 'permission/create-collection', 'allowed only to the 1 key(s) namespace team is reserved to, and admin keys');
      expect((await createAs(anyone, 'team/sub/B', code('B'), KEYS.bob)).status).toBe(200);
      expect((await createAs(anyone, 'teamwork/C', code('C'), KEYS.alice)).status).toBe(200); // not under team/
      expectRefused(await createAs(keys, 'k/A', code('A'), KEYS.alice), 'permission/create-collection', 'allowed only to the 1 key(s) of the collection-creation policy keys, and admin keys');
      expect((await createAs(keys, 'k/A', code('A'), KEYS.carol)).status).toBe(200);
    } finally {
      await anyone.close();
      await keys.close();
    }
  });

  it('without key namespaces, pk/<key>/ stays closed to other keys and follows the policy for its own', async () => {
    const s = await startTestServer({ schemaAccess: { createPolicy: 'admins', keyNamespaces: false, adminKeys: [hexOf(KEYS.admin)] } });
    try {
      expectRefused(await createAs(s, `pk/${hexOf(KEYS.alice)}/A`, code('A'), KEYS.alice), 'permission/create-collection', /admin keys/);
      expect((await createAs(s, `pk/${hexOf(KEYS.alice)}/A`, code('A'), KEYS.admin)).status).toBe(200);
    } finally {
      await s.close();
    }
  });
});

// The property: random requests of random actors against every schema route change a schema exactly when the
// rules (restated here, apart from schema-access.ts) allow it.
type Actor = 'unsigned' | 'alice' | 'bob' | 'carol' | 'admin';
type Policy = 'anyone' | 'keys' | 'admins';
const ACTORS: Actor[] = ['unsigned', 'alice', 'bob', 'carol', 'admin'];
const keyOf = (actor: Actor) => (actor === 'unsigned' ? undefined : KEYS[actor]);

/** The namespaces of a run: a plain one, two keys' own, one reserved to bob, and the operator's installed one. */
const namespaces = (run: string) => ({
  plain: `free${run}`,
  alice: `pk/${hexOf(KEYS.alice)}/r${run}`,
  bob: `pk/${hexOf(KEYS.bob)}/r${run}`,
  team: `team/r${run}`,
  installed: `inst${run}`,
});
type Place = keyof ReturnType<typeof namespaces>;

function mayCreate(policy: Policy, place: Place, actor: Actor): boolean {
  if (actor === 'admin') return true;
  if (place === 'alice' || place === 'bob') return actor === place;
  if (place === 'team') return actor === 'bob';
  if (actor === 'unsigned') return false;
  return policy === 'anyone' || (policy === 'keys' && actor === 'carol');
}

function mayChange(owner: Actor | null, actor: Actor): boolean {
  return actor === 'admin' || (owner !== null && owner !== 'unsigned' && owner === actor);
}

const command = fc.record({
  route: fc.constantFrom('create', 'update-json', 'update-text'),
  place: fc.constantFrom<Place>('plain', 'alice', 'bob', 'team', 'installed'),
  name: fc.constantFrom('A', 'B'),
  actor: fc.constantFrom<Actor>(...ACTORS),
});

async function checkRules(s: TestServer, policy: Policy, runs: number): Promise<void> {
  let run = 0;
  let version = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(command, { minLength: 4, maxLength: 10 }), async (commands) => {
      const id = `${policy}${run++}`;
      const ns = namespaces(id);
      // The model: each collection's owner (null: none) and code.
      const model = new Map<string, { owner: Actor | null; code: string }>();
      for (const name of ['A', 'B']) {
        const installed = `${ns.installed}/${name}`;
        await s.server.service.installSchema(installed, code(name));
        model.set(installed, { owner: null, code: code(name) });
      }
      for (const { route, place, name, actor } of commands) {
        const collectionId = `${ns[place]}/${name}`;
        const text = code(name, ++version);
        const current = model.get(collectionId);
        let answer: Answer;
        if (route === 'create') {
          answer = await createAs(s, collectionId, text, keyOf(actor));
          const allowed = mayCreate(policy, place, actor);
          if (!allowed) expect(answer.status, answer.text).toBe(403);
          else if (current) expect(answer.status, answer.text).toBe(409);
          else {
            expect(answer.status, answer.text).toBe(200);
            model.set(collectionId, { owner: actor, code: text });
          }
        } else {
          const raw = JSON.stringify({ args: [text] });
          const type = route === 'update-json' ? 'application/json' : 'text/plain';
          answer = await s.post(`/v0/collections/Collection/records/${encodeURIComponent(collectionId)}/call/updateCode`, undefined, { raw, key: keyOf(actor), headers: { 'content-type': type } });
          if (!current) expect(answer.status, answer.text).toBe(404);
          else if (!mayChange(current.owner, actor)) expect(answer.status, answer.text).toBe(403);
          else {
            expect(answer.status, answer.text).toBe(200);
            current.code = text;
          }
        }
        if (answer.status === 403) expect(errorOf(answer)?.message).toMatch(/is allowed only to .*; the request is (not signed|signed by 0x[0-9a-f]{128})$/);
        expect(await storedCode(s, collectionId)).toBe(model.get(collectionId)?.code);
      }
    }),
    { numRuns: runs },
  );
}

const POLICIES: Policy[] = ['anyone', 'keys', 'admins'];
const accessOf = (policy: Policy) => ({
  adminKeys: [hexOf(KEYS.admin)],
  createPolicy: policy,
  createKeys: [hexOf(KEYS.carol)],
  reservedNamespaces: [{ namespace: 'team', keys: [hexOf(KEYS.bob)] }],
});

describe('random requests change a schema only when the rules allow (SQLite)', () => {
  for (const policy of POLICIES) {
    it(`policy ${policy}`, async () => {
      const s = await startTestServer({ store: openSqliteStore(':memory:'), schemaAccess: accessOf(policy) });
      try {
        await checkRules(s, policy, 12);
      } finally {
        await s.close();
      }
    }, 120_000);
  }
});

describe('random requests change a schema only when the rules allow (PostgreSQL)', () => {
  let pg: TestPostgres | undefined;
  const tables: string[] = [];
  beforeAll(async () => {
    pg = await startTestPostgres();
  }, 120_000);
  afterAll(() => dropTablesAndStop(pg, tables), 60_000);

  for (const policy of POLICIES) {
    it(`policy ${policy}`, async () => {
      const table = uniqueTableName('vellum_access');
      tables.push(table);
      const store: RecordStore = await openPostgresStore({ connectionString: pg!.url, table });
      const s = await startTestServer({ store, schemaAccess: accessOf(policy) });
      try {
        await checkRules(s, policy, 8);
      } finally {
        await s.close();
      }
    }, 180_000);
  }
});
