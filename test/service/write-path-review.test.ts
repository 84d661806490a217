// Adversarial cases of the write path's first attempt on cached state (a call on the record as this process last
// committed it, a create with the cached schema; records.ts #callOnRecent and #createWithCached): whatever that
// attempt meets, the outcome must be the one a run on fresh reads gives, and no write may be applied twice.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { publicKeyOf } from '../../src/auth/index.ts';
import { RecordService } from '../../src/service/index.ts';
import { openSqliteStore, StoreError, type RecordStore } from '../../src/store/index.ts';

const COUNTER = `
@public
collection Counter {
  id: string;
  n: number;
  constructor (id: string) { this.id = id; this.n = 0; }
  add (k: number) { this.n = this.n + k; }
}`;

let dir: string;
let store: RecordStore;
let service: RecordService;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'vellum-write-path-'));
  store = openSqliteStore(join(dir, 'db.sqlite'));
  service = new RecordService(store);
  await service.initialise();
  await service.installSchema('ns/Counter', COUNTER);
  await service.create('ns/Counter', ['c'], {});
  // Now an update: the record is among the ones the store keeps, and the schema is cached.
  await service.call('ns/Counter', 'c', 'add', [1], {});
});

afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * The next transaction commits, and then its caller hears that the database went away: as when PostgreSQL's
 * COMMIT succeeded but the connection dropped before its answer came (the outcome is unknown to the server).
 */
function loseNextCommitAnswer(): void {
  const kv = store.kv;
  const transact = kv.transact.bind(kv);
  kv.transact = async (reads, body) => {
    kv.transact = transact;
    await transact(reads, body);
    throw new StoreError('unavailable', 'store/unavailable', 'the connection ended before COMMIT was answered');
  };
}

describe('a first attempt whose commit outcome is unknown', () => {
  it('a call answers 503 and is not run a second time', async () => {
    expect(store.lastCommitted('ns/Counter', 'c')).toMatchObject({ record: { n: 1 } });
    loseNextCommitAnswer();
    await expect(service.call('ns/Counter', 'c', 'add', [10], {})).rejects.toMatchObject({ code: 'unavailable' });
    // Applied once (by the commit whose answer was lost), not twice.
    expect((await store.get('ns/Counter', 'c')).record).toMatchObject({ n: 11 });
  });

  it('a create answers 503, not that its own id is taken', async () => {
    loseNextCommitAnswer();
    await expect(service.create('ns/Counter', ['d'], {})).rejects.toMatchObject({ code: 'unavailable' });
    expect((await store.get('ns/Counter', 'd')).record).toMatchObject({ id: 'd', n: 0 });
  });
});
