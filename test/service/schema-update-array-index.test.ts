// A schema update that adds an @index on an array field is refused before anything is written when a stored record
// holds more distinct values in that array than an index may hold for one record (MAX_INDEXED_ARRAY_ELEMENTS).
// Before: the Collection record was committed, then the index build stopped at that record, leaving an index that
// never finished building. Both backends, through the Collection meta collection and through `vellum serve --schema`'s
// installSchemaFiles.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installSchemaFiles } from '../../src/service/server.ts';
import { MAX_INDEXED_ARRAY_ELEMENTS } from '../../src/store/index.ts';
import { startTestPostgres, storeBackends, type TestPostgres } from '../support/postgres.ts';
import { errorOf, startTestServer } from './support.ts';

const tagged = (index: string) =>
  `@public collection Tagged { id: string; tags: string[]; ${index} constructor (id: string, tags: string[]) { this.id = id; this.tags = tags; } }`;
const UNINDEXED = tagged('');
const INDEXED = tagged('@index(tags);');
const many = (count: number) => Array.from({ length: count }, (_, i) => `t${i}`);
const TOO_MANY = MAX_INDEXED_ARRAY_ELEMENTS + 1;

let pg: TestPostgres;
const dir = mkdtempSync(join(tmpdir(), 'vellum-array-index-'));
beforeAll(async () => {
  pg = await startTestPostgres();
}, 120_000);
afterAll(async () => {
  await pg?.stop();
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

const backends = storeBackends(() => pg);

describe.each(backends)('on %s', (name, openStore) => {
  it('updateCode adding @index on an array field that a record overfills is a 400 naming the field and the count, and changes nothing', async () => {
    const s = await startTestServer({ store: await openStore() });
    try {
      await s.createCollection('test/Tagged', UNINDEXED);
      expect((await s.create('test/Tagged', ['few', ['a', 'b']])).status).toBe(200);
      expect((await s.create('test/Tagged', ['big1', many(TOO_MANY)])).status).toBe(200);
      // Repeated values count once, as the index holds one entry per distinct value.
      expect((await s.create('test/Tagged', ['dups', [...many(MAX_INDEXED_ARRAY_ELEMENTS), 't0', 't1']])).status).toBe(200);
      expect((await s.create('test/Tagged', ['big2', many(TOO_MANY + 5)])).status).toBe(200);

      const answer = await s.updateCode('test/Tagged', INDEXED);
      expect(answer.status, answer.text).toBe(400);
      expect(errorOf(answer)).toEqual({
        code: 'invalid-argument',
        reason: 'collection/invalid-schema',
        message:
          `cannot update collection test/Tagged: 2 stored records hold more than ${MAX_INDEXED_ARRAY_ELEMENTS} distinct values in an indexed array field ` +
          `(an index holds at most ${MAX_INDEXED_ARRAY_ELEMENTS} per record); field "tags": 2 records (record "big1" holds ${TOO_MANY} distinct values)`,
      });
      // Nothing written: no index is being built, the old schema is in force, and a write the new index would refuse still succeeds.
      expect((await s.record('Collection', 'test/Tagged')).json.data.code).toBe(UNINDEXED);
      expect(await s.server.service.store.buildingIndexes('test/Tagged')).toEqual([]);
      expect((await s.create('test/Tagged', ['big3', many(TOO_MANY)])).status).toBe(200);
      const contains = await s.list('test/Tagged', { where: { tags: { $contains: 'a' } } });
      expect(contains.status).toBe(400);
      expect(errorOf(contains)?.reason).toBe('indexer/missing-index');
    } finally {
      await s.close();
    }
  });

  it('the same update succeeds when every record fits, and $contains is served', async () => {
    const s = await startTestServer({ store: await openStore() });
    try {
      await s.createCollection('test/Tagged', UNINDEXED);
      expect((await s.create('test/Tagged', ['full', many(MAX_INDEXED_ARRAY_ELEMENTS)])).status).toBe(200);
      expect((await s.create('test/Tagged', ['few', ['a', 'b']])).status).toBe(200);
      const answer = await s.updateCode('test/Tagged', INDEXED);
      expect(answer.status, answer.text).toBe(200);
      const contains = await s.list('test/Tagged', { where: { tags: { $contains: 't7' } } });
      expect(contains.status, contains.text).toBe(200);
      expect(contains.json.data.map((r: { data: { id: string } }) => r.data.id)).toEqual(['full']);
    } finally {
      await s.close();
    }
  });

  it('vellum serve --schema refuses the same file before installing anything', async () => {
    const s = await startTestServer({ store: await openStore() });
    const service = s.server.service;
    try {
      const before = join(dir, `before-${name}.polylang`);
      const after = join(dir, `after-${name}.polylang`);
      writeFileSync(before, UNINDEXED);
      writeFileSync(after, INDEXED);
      expect(await installSchemaFiles(service, [before], 'app')).toEqual([`app/Tagged created (from ${before})`]);
      expect((await s.create('app/Tagged', ['big', many(TOO_MANY)])).status).toBe(200);
      await expect(installSchemaFiles(service, [after], 'app')).rejects.toThrow(
        `${after}: collection app/Tagged: cannot update collection app/Tagged: 1 stored record holds more than ${MAX_INDEXED_ARRAY_ELEMENTS} distinct values in an indexed array field`,
      );
      expect((await s.record('Collection', 'app/Tagged')).json.data.code).toBe(UNINDEXED);
      expect(await service.store.buildingIndexes('app/Tagged')).toEqual([]);
      expect((await service.store.getLayout('app/Tagged'))!.indexes.some((index) => index.fields.some((field) => field.array))).toBe(false);
    } finally {
      await s.close();
    }
  });
});
