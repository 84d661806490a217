import { describe, expect, it } from 'vitest';
import { layoutOf, openSqliteStore } from '../../src/store/index.ts';
import { collection } from './schemas.ts';

// Plans are kept per collection layout, where and sort (plan-cache.ts): a repeated query must answer as a fresh
// one would, a changed layout must be planned anew, and a refused where must stay refused.
describe('kept plans', () => {
  const fields = { id: 'string', name: 'string', city: 'string', age: 'number' } as const;

  it('answer each where by its own values, follow a changed layout and never keep a refusal', async () => {
    const store = openSqliteStore(':memory:');
    try {
      await store.defineCollection('t/P', layoutOf(collection('Person', fields, [['city', 'age desc']])));
      const put = (id: string, city: string, age: number) => ({ kind: 'put' as const, collectionId: 't/P', record: { id, name: `n${id}`, city, age } });
      await store.commit({ writes: [put('a', 'x', 1), put('b', 'x', 2), put('c', 'y', 3)] });
      const ids = async (query: object) => (await store.list('t/P', query)).records.map((r) => r.id);
      const byCity = (city: string) => ({ where: { city }, sort: [['age', 'desc']] });
      expect(await ids(byCity('x'))).toEqual(['b', 'a']);
      expect(await ids(byCity('y'))).toEqual(['c']);
      expect(await ids(byCity('x'))).toEqual(['b', 'a']);
      expect((await store.count('t/P', { where: { city: 'x' } })).count).toBe(2);
      expect((await store.count('t/P', { where: { city: 'y' } })).count).toBe(1);

      // A sort no index serves is refused, every time, until the layout gains the index.
      const byName = { sort: [['name', 'desc'], ['age', 'asc']] };
      await expect(store.list('t/P', byName)).rejects.toMatchObject({ reason: 'indexer/missing-index' });
      await expect(store.list('t/P', byName)).rejects.toMatchObject({ reason: 'indexer/missing-index' });
      await store.defineCollection('t/P', layoutOf(collection('Person', fields, [['city', 'age desc'], ['name desc', 'age']])));
      expect(await ids(byName)).toEqual(['c', 'b', 'a']);

      // Values JSON.stringify writes alike are told apart (NaN is not null): each gets its own answer.
      await expect(store.list('t/P', { where: { age: NaN } })).rejects.toThrow(/got value: NaN/);
      await expect(store.list('t/P', { where: { age: null } })).rejects.toThrow(/got value: null/);
      expect(await ids({ where: { age: 0 } })).toEqual([]);
      expect(await ids({ where: { age: 3 } })).toEqual(['c']);
    } finally {
      await store.close();
    }
  });
});
