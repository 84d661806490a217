// A server author embeds Vellum through its top-level module alone: check a schema, compile a collection, run
// a signed constructor and a function, commit the results to a store and query them back.
import { describe, expect, it } from 'vitest';
import {
  checkSchema,
  compileCollection,
  execute,
  hasErrors,
  layoutOf,
  openSqliteStore,
  publicKeyOf,
  signRequest,
  verifySignatureHeader,
} from '../src/index.ts';

const schema = `
@public
collection Counter {
  id: string;
  count: number;
  owner: PublicKey;

  constructor (id: string) {
    this.id = id;
    this.count = 0;
    this.owner = ctx.publicKey;
  }

  increment (by: number) {
    if (this.owner != ctx.publicKey) { error('only the owner may count'); }
    this.count += by;
  }
}
`;

const privateKey = '0x' + '11'.repeat(32);

describe('the library API (src/index.ts)', () => {
  it('checks, executes, verifies a signature, stores and lists', async () => {
    const checked = checkSchema(schema, 'counter.polylang');
    expect(hasErrors(checked.diagnostics)).toBe(false);
    const counter = compileCollection(checked, 'Counter', { collectionId: 'demo/Counter' });

    const body = JSON.stringify({ args: ['c1'] });
    const header = signRequest(privateKey, body);
    const signer = verifySignatureHeader(header, body, { method: 'GET' });
    expect(signer.equals(publicKeyOf(privateKey))).toBe(true);

    const created = execute(counter, 'constructor', null, ['c1'], { publicKey: signer });
    if (!created.ok) throw new Error(created.error.message);
    const incremented = execute(counter, 'increment', created.transition.record, [5], { publicKey: signer });
    if (!incremented.ok) throw new Error(incremented.error.message);
    expect(incremented.transition.record).toMatchObject({ id: 'c1', count: 5 });

    const stranger = execute(counter, 'increment', created.transition.record, [5], {});
    expect(stranger).toMatchObject({ ok: false, error: { reason: 'function/collection-error' } });

    const store = openSqliteStore(':memory:');
    try {
      const collection = checked.program!.collections[0]!;
      await store.defineCollection('demo/Counter', layoutOf(collection));
      await store.commit({ writes: [{ kind: 'put', collectionId: 'demo/Counter', record: incremented.transition.record! }] });
      const page = await store.list('demo/Counter', { where: { count: { $gte: 5 } } });
      expect(page.records.map((r) => r.id)).toEqual(['c1']);
      expect((await store.get('demo/Counter', 'c1')).record).toMatchObject({ count: 5 });
    } finally {
      await store.close();
    }
  });
});
