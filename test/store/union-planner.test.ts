// The union planner: how many index ranges an extended where reads, on which indexes, and in which order.
import { describe, expect, it } from 'vitest';
import { planUnion, StoreError } from '../../src/store/index.ts';
import { itemLayout } from './schemas.ts';

const plan = (where: unknown, sort?: unknown) => planUnion(itemLayout, itemLayout.indexes, where, sort);
const orderOf = (where: unknown, sort?: unknown) => plan(where, sort).order.fields.map((f) => `${f.path} ${f.direction}`);
const indexesOf = (where: unknown, sort?: unknown) => plan(where, sort).segments.map((s) => s.index.fields.map((f) => f.path).join(','));

describe('union planner', () => {
  it('reads one range per $in value, one per gap left by $ne and $nin, and one per $or alternative', () => {
    expect(plan({ group: { $in: ['a', 'b', 'c'] } }).segments).toHaveLength(3);
    expect(plan({ group: { $ne: 'a' } }).segments).toHaveLength(2);
    expect(plan({ score: { $nin: [3, 1, 2] } }).segments).toHaveLength(4);
    // Excluded values outside the bounds leave no gap; an excluded bound leaves an empty range, which is dropped.
    expect(plan({ score: { $gt: 0, $lte: 5, $nin: [-1, 7, 5] } }).segments).toHaveLength(1);
    expect(plan({ $or: [{ group: 'a' }, { flag: true }, { group: 'b' }] }).segments).toHaveLength(3);
    expect(plan({ group: { $in: ['a', 'b'] }, flag: { $in: [true, false] } }).segments).toHaveLength(4);
  });

  it('orders by the range field, keeps a sort field a branch sets equal in a union, and never hides the id', () => {
    expect(orderOf({ group: { $ne: 'a' } })).toEqual(['group asc', 'id asc']);
    expect(orderOf({ group: { $in: ['a', 'b'] } })).toEqual(['id asc']);
    expect(orderOf({ group: { $in: ['a', 'b'] } }, [['score', 'desc']])).toEqual(['score asc', 'id asc']);
    expect(plan({ group: { $in: ['a', 'b'] } }, [['score', 'desc']]).reverse).toBe(true);
    expect(orderOf({ group: { $in: ['a', 'b'] } }, [['group', 'desc']])).toEqual(['group asc', 'id asc']);
    expect(orderOf({ $or: [{ group: 'a' }, { score: { $gt: 1 } }] })).toEqual(['score asc', 'id asc']);
    expect(indexesOf({ $or: [{ group: 'a' }, { score: { $gt: 1 } }] })).toEqual(['group,score,id', 'score,id']);
    expect(orderOf({ id: { $in: ['x', 'y'] } })).toEqual(['id asc']);
  });

  it('re-checks no entry only where the one range holds exactly the records that match', () => {
    const exact = (where: unknown, sort?: unknown) => plan(where, sort).matchesAll;
    expect(exact(undefined)).toBe(true);
    expect(exact({ group: 'a' })).toBe(true);
    expect(exact({ group: 'a', flag: true })).toBe(true);
    expect(exact({ group: 'a' }, [['score', 'desc']])).toBe(true);
    expect(exact({ score: 3 })).toBe(true);
    // A value cut in its key (a string over 256 bytes of UTF-8) holds every value sharing the kept start.
    expect(exact({ group: 'x'.repeat(256) })).toBe(true);
    expect(exact({ group: 'x'.repeat(257) })).toBe(false);
    // Ranges, $in, $ne, $or and the id are re-checked; an equality on the sort field fixes it, so it is exact too.
    expect(exact({ score: { $gt: 1 } })).toBe(false);
    expect(exact({ group: { $in: ['a', 'b'] } })).toBe(false);
    expect(exact({ group: { $ne: 'a' } })).toBe(false);
    expect(exact({ $or: [{ group: 'a' }, { group: 'b' }] })).toBe(false);
    expect(exact({ id: 'a' })).toBe(false);
    expect(exact({ score: 3 }, [['score', 'asc']])).toBe(true);
  });

  it('refuses what no union of ranges serves, with typed errors', () => {
    const failure = (where: unknown, sort?: unknown) => {
      try {
        plan(where, sort);
      } catch (error) {
        expect(error).toBeInstanceOf(StoreError);
        return error as StoreError;
      }
      throw new Error('expected a failure');
    };
    expect(failure({ group: { $ne: 'a' }, score: { $ne: 1 }, id: { $gt: 'a' } }).reason).toBe('indexer/query-inequality-not-last');
    expect(failure({ group: { $ne: 'a' } }, [['score', 'asc']]).message).toBe(
      'where: the range filter on "group" needs "group" as the first sort field, but the sort starts with "score"',
    );
    expect(failure({ flag: { $in: [true, false] }, group: { $in: ['a', 'b'] }, score: { $in: [1, 2, 3, 4, 5, 6, 7, 8] } }).message).toContain(
      'more than 30 index ranges',
    );
    expect(failure({ score: { $ne: 1 }, flag: true }).message).toBe('no index found matching the query; add `@index(flag, score);` to collection Item');
  });
});
