// Signed writes through the app's recovery pool: the same answers when the pool's worker dies on every batch
// (its requests are then verified in the main thread), and when the pool has been closed.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RecoveryPool, signRequest } from '../../src/auth/index.ts';
import { buildApp, RecordService } from '../../src/service/index.ts';
import { openSqliteStore, type RecordStore } from '../../src/store/index.ts';
import { KEYS, jwkOf } from './support.ts';

const SCHEMA = `
@public
collection Note {
  id: string;
  n: number;
  owner?: PublicKey;
  constructor (id: string) {
    this.id = id;
    this.n = 0;
    this.owner = ctx.publicKey;
  }
  @call(owner)
  bump () {
    this.n += 1;
  }
}`;

let dir: string;
let store: RecordStore;
let service: RecordService;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'vellum-recovery-'));
  store = openSqliteStore(join(dir, 'db.sqlite'));
  service = new RecordService(store);
  await service.initialise();
  await service.installSchema('t/Note', SCHEMA);
});

afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

function signedPost(url: string, args: unknown[], key: string, t = Date.now()) {
  const payload = JSON.stringify({ args });
  return { method: 'POST' as const, url, payload, headers: { 'content-type': 'application/json', 'x-polybase-signature': signRequest(key, payload, t) } };
}

describe.each([
  ['a worker that dies on every batch', () => new RecoveryPool({ size: 1, workerUrl: new URL('../auth/fixtures/exiting-worker.js', import.meta.url) })],
  ['a closed pool', () => {
    const pool = new RecoveryPool();
    void pool.close();
    return pool;
  }],
])('signed writes with %s', (name, makePool) => {
  const pool = makePool();
  let app: ReturnType<typeof buildApp>;
  const id = `note-${name.length}`;
  beforeAll(() => {
    app = buildApp({ service, recoveryPool: pool });
  });
  afterAll(async () => {
    await app.close();
    await pool.close();
  });

  it('creates with ctx.publicKey, calls with the owner check, and refuses a replay and another signer', async () => {
    const create = signedPost('/v0/collections/t%2FNote/records', [id], KEYS.alice);
    const created = await app.inject(create);
    expect(created.statusCode, created.body).toBe(200);
    expect(created.json().data).toEqual({ id, n: 0, owner: jwkOf(KEYS.alice) });

    const bumpUrl = `/v0/collections/t%2FNote/records/${id}/call/bump`;
    const bump = signedPost(bumpUrl, [], KEYS.alice);
    // Several at once: they travel to the pool together.
    const answers = await Promise.all([bump, signedPost(bumpUrl, [], KEYS.alice, Date.now() + 1), signedPost(bumpUrl, [], KEYS.bob)].map((r) => app.inject(r)));
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 403]);

    const replay = await app.inject(bump);
    expect(replay.statusCode).toBe(400);
    expect(replay.json().error).toMatchObject({ code: 'invalid-argument', reason: 'auth/invalid-signature' });
    expect(replay.json().error.message).toMatch(/already been used/);
    expect((await app.inject({ method: 'GET', url: `/v0/collections/t%2FNote/records/${id}` })).json().data.n).toBe(2);
  });

  it('refuses a signature from which no key can be recovered, with the same typed error', async () => {
    const request = signedPost('/v0/collections/t%2FNote/records', ['never'], KEYS.alice);
    const sig = /sig=0x([0-9a-f]{130})/.exec(request.headers['x-polybase-signature'])![1]!;
    request.headers['x-polybase-signature'] = request.headers['x-polybase-signature'].replace(sig, `${'0'.repeat(63)}5${sig.slice(64)}`);
    const answer = await app.inject(request);
    expect(answer.statusCode).toBe(400);
    expect(answer.json().error).toEqual({
      code: 'invalid-argument',
      reason: 'auth/invalid-signature',
      message: 'failed to recover a public key from the signature',
    });
  });
});
