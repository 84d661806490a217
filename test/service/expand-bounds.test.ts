// The bound of one answer's expansions (src/service/expand.ts): at most MAX_EXPANDED_RECORDS distinct records are
// loaded, a record referenced twice is loaded once, and one more is 400 request/too-many-expansions.
import { describe, expect, it } from 'vitest';
import { Expander, MAX_EXPANDED_RECORDS, type ExpandNode } from '../../src/service/expand.ts';
import type { RecordService } from '../../src/service/index.ts';

/** A service whose reader counts its loads and finds every record (readable). */
function countingService() {
  const loads: string[] = [];
  const service = {
    expansionReader: () => async (collectionId: string, id: string) => {
      loads.push(`${collectionId}/${id}`);
      return { id };
    },
  } as unknown as RecordService;
  return { service, loads };
}

const members: ExpandNode = { field: 'members', collectionId: 'x/Person', array: true, children: [] };
const refs = (n: number) => Array.from({ length: n }, (_, i) => ({ collectionId: 'x/Person', id: `p${i}` }));

describe('expansion bounds', () => {
  it(`loads each distinct record once, up to ${MAX_EXPANDED_RECORDS}`, async () => {
    const { service, loads } = countingService();
    const expander = new Expander(service, {});
    const record = { id: 'team', members: [...refs(MAX_EXPANDED_RECORDS), ...refs(10)] };
    const expand = await expander.expand(record, [members]);
    expect((expand.members as unknown[]).length).toBe(MAX_EXPANDED_RECORDS + 10);
    expect(loads).toHaveLength(MAX_EXPANDED_RECORDS);
    // Another record of the same answer referencing the same ones loads nothing more.
    await expander.expand({ id: 'again', members: refs(5) }, [members]);
    expect(loads).toHaveLength(MAX_EXPANDED_RECORDS);
  });

  it('refuses one distinct record more with 400 request/too-many-expansions', async () => {
    const { service } = countingService();
    const attempt = new Expander(service, {}).expand({ id: 'team', members: refs(MAX_EXPANDED_RECORDS + 1) }, [members]);
    await expect(attempt).rejects.toMatchObject({
      status: 400,
      reason: 'request/too-many-expansions',
      message: `this answer would expand more than ${MAX_EXPANDED_RECORDS} records; ask for fewer records (limit) or fewer fields in "expand"`,
    });
  });

  it('follows no reference to another collection than the field type, and no malformed one', async () => {
    const { service, loads } = countingService();
    const expand = await new Expander(service, {}).expand({ id: 't', members: [{ collectionId: 'x/Other', id: 'a' }, { id: 'b' }, 'c', null] }, [members]);
    expect(expand).toEqual({ members: [null, null, null, null] });
    expect(loads).toEqual([]);
  });
});
