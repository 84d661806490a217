// `vellum migrate apply` shows a plan and then applies it (issue 22): the install takes the plan it was given
// (`RecordService.planChange`) instead of reading every record again, but only while what it was planned against
// holds. A record written since (the collection's stamp) or a schema changed since makes it plan again, so a
// change is never applied on a plan that no longer says what it does. Both backends.
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { checkCollectionSchema } from '../../src/service/meta-collection.ts';
import { dropTablesAndStop, startTestPostgres, type TestPostgres } from '../support/postgres.ts';
import { describeOnEachBackend } from './support.ts';

let pg: TestPostgres;
beforeAll(async () => {
  pg = await startTestPostgres();
}, 120_000);
afterAll(() => dropTablesAndStop(pg, []), 60_000);

const OLD = '@public collection Item { id: string; n: string; constructor (id: string, n: string) { this.id = id; this.n = n; } }';
const NEW = OLD.replace('n: string;', 'n: number;').replace('this.n = n;', 'this.n = 0;').replace('n: string)', 'n: number)');

describeOnEachBackend(() => pg, (served) => {
  it('applies the plan it was given, without reading the records again', async () => {
    await served.s.createCollection('pa/Item', OLD);
    expect((await served.s.create('pa/Item', ['a', '7'])).status).toBe(200);
    const service = served.s.server.service;
    const planned = await service.planChange(checkCollectionSchema('pa/Item', NEW));
    expect(planned.plan).toMatchObject({ records: 1, dataLoss: [] });
    const replan = vi.spyOn(service, 'checkRecordsFollow');
    try {
      expect(await service.installSchema('pa/Item', NEW, [], undefined, planned)).toBe('updated');
      expect(replan).not.toHaveBeenCalled();
    } finally {
      replan.mockRestore();
    }
    expect((await served.store.get('pa/Item', 'a')).record).toEqual({ id: 'a', n: 7 });
  });

  it('plans again when a record was written since, and refuses the loss the new record brings', async () => {
    await served.s.createCollection('pb/Item', OLD);
    expect((await served.s.create('pb/Item', ['a', '7'])).status).toBe(200);
    const service = served.s.server.service;
    const planned = await service.planChange(checkCollectionSchema('pb/Item', NEW));
    expect(planned.plan.dataLoss).toEqual([]);
    expect((await served.s.create('pb/Item', ['b', 'seven'])).status).toBe(200);
    await expect(service.installSchema('pb/Item', NEW, [], undefined, planned)).rejects.toMatchObject({
      reason: 'collection/data-loss',
      message: expect.stringContaining('record "b": n = "seven"'),
    });
    expect((await served.store.get('pb/Item', 'a')).record).toEqual({ id: 'a', n: '7' });
  });

  it('plans again when the schema changed since', async () => {
    await served.s.createCollection('pc/Item', OLD);
    expect((await served.s.create('pc/Item', ['a', 'x'])).status).toBe(200);
    const service = served.s.server.service;
    // Planned against the schema stored now (version 2).
    const other = OLD.replace('constructor', 'function touch () { } constructor');
    expect((await served.s.updateCode('pc/Item', other)).status).toBe(200);
    const planned = await service.planChange(checkCollectionSchema('pc/Item', NEW));
    expect(planned.plan.dataLoss).toEqual(['n']);
    // A plan made before a later schema change is not used once the schema record moved on.
    expect((await served.s.updateCode('pc/Item', OLD)).status).toBe(200);
    const replan = vi.spyOn(service, 'checkRecordsFollow');
    try {
      await expect(service.installSchema('pc/Item', NEW, ['n'], undefined, planned)).resolves.toBe('updated');
      expect(replan).toHaveBeenCalledTimes(1);
    } finally {
      replan.mockRestore();
    }
  });
});
