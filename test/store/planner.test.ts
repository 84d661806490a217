import { describe, expect, it } from 'vitest';
// The planner on plain wheres (equalities and one range): one range of one index. The union planner's own
// cases ($in, $ne, $or, ...) are in union-planner.test.ts.
import { planUnion, StoreError, type UnionPlan } from '../../src/store/index.ts';
import { itemLayout, personLayout } from './schemas.ts';

interface Plan {
  readonly index: UnionPlan['segments'][number]['index'];
  readonly reverse: boolean;
  readonly range: UnionPlan['segments'][number]['range'];
}

/** The plan of a plain where: exactly one range, whose index its cursors name. */
function plan(where: unknown, sort?: unknown, layout = personLayout): Plan {
  const union = planUnion(layout, layout.indexes, where, sort);
  expect(union.segments).toHaveLength(1);
  const [segment] = union.segments;
  expect(union.cursor.index).toBe(segment!.index);
  return { index: segment!.index, reverse: union.reverse, range: segment!.range };
}
const indexOf = (p: Plan) => p.index.fields.map((f) => (f.direction === 'asc' ? f.path : `${f.path} desc`)).join(', ');

function failure(run: () => unknown): StoreError {
  try {
    run();
  } catch (error) {
    if (error instanceof StoreError) return error;
    throw error;
  }
  throw new Error('expected a StoreError');
}

describe('query planner', () => {
  it('uses the primary index when there is no where and no sort', () => {
    expect(indexOf(plan(undefined))).toBe('id');
    expect(plan({}).reverse).toBe(false);
    expect(plan(undefined, [['id', 'desc']]).reverse).toBe(true);
  });

  it('serves one field with its automatic index, in either direction', () => {
    expect(indexOf(plan({ age: 3 }))).toBe('age, id');
    expect(indexOf(plan({ age: { $gt: 3 } }, [['age', 'desc']]))).toBe('age, id');
    expect(plan({ age: { $gt: 3 } }, [['age', 'desc']]).reverse).toBe(true);
    expect(plan(undefined, [['name', 'asc']]).reverse).toBe(false);
  });

  it('serves equality plus sort with a declared index, read backwards when all sort directions are opposite', () => {
    expect(indexOf(plan({ name: 'x' }, [['age', 'desc']]))).toBe('name, age desc, id');
    expect(plan({ name: 'x' }, [['age', 'desc']]).reverse).toBe(false);
    expect(plan({ name: 'x' }, [['age', 'asc']]).reverse).toBe(true);
    expect(plan({ name: 'x', age: { $lte: 4 } }, [['age', 'asc']]).reverse).toBe(true);
    expect(indexOf(plan({ 'info.city': 'Oslo' }, [['age', 'asc']]))).toBe('info.city, age, id');
    // A sort on an equality field changes nothing.
    expect(indexOf(plan({ name: 'x' }, [['name', 'desc'], ['age', 'desc']]))).toBe('name, age desc, id');
  });

  it('accepts $eq as well as a bare value, and casts values to the field type', () => {
    expect(plan({ age: { $eq: 3 } }).range).toEqual(plan({ age: 3 }).range);
    expect(plan({ age: '3' }).range).toEqual(plan({ age: 3 }).range);
    expect(plan({ name: 5 }).range).toEqual(plan({ name: '5' }).range);
    expect(plan({ active: 'true' }).range).toEqual(plan({ active: true }).range);
    expect(plan({ boss: { collectionId: 'ns/Person', id: 'a' } }).index.fields[0]!.path).toBe('boss');
  });

  it('names the @index line that would serve a query it cannot serve', () => {
    const error = failure(() => plan({ age: 3 }, [['name', 'desc']]));
    expect(error.reason).toBe('indexer/missing-index');
    expect(error.code).toBe('failed-precondition');
    expect(error.message).toContain('@index(age, [name, desc]);');
    expect(failure(() => plan({ name: 'x', active: true })).message).toContain('@index(name, active);');
    expect(failure(() => plan({ 'info.city': 'x' }, [['name', 'asc'], ['age', 'desc']])).message).toContain('@index(info.city, name, [age, desc]);');
    // Mixed directions cannot be read from one index in either direction.
    expect(failure(() => plan({ name: 'x' }, [['age', 'desc'], ['id', 'desc']])).reason).toBe('indexer/missing-index');
  });

  it('gives a clear 400 for three range fields, or a range that is not the first sort field', () => {
    const three = failure(() => plan({ age: { $gt: 1 }, name: { $lt: 'm' }, id: { $gt: 'a' } }));
    expect(three.reason).toBe('indexer/query-inequality-not-last');
    expect(three.code).toBe('invalid-argument');
    expect(three.message).toContain('at most two fields of one alternative may have a range filter');
    const notFirst = failure(() => plan({ age: { $gt: 1 } }, [['name', 'asc']]));
    expect(notFirst.reason).toBe('indexer/query-inequality-not-last');
    expect(notFirst.message).toContain('"age"');
  });

  it('serves one of two range fields by an index and filters the other during the scan', () => {
    expect(planUnion(personLayout, personLayout.indexes, { age: { $gt: 1 }, name: { $lt: 'm' } }, undefined).scanFiltered).toBe('"name" is filtered during the scan of the index range on "age"');
    // The sort decides which one the index serves.
    expect(planUnion(personLayout, personLayout.indexes, { age: { $gt: 1 }, name: { $lt: 'm' } }, [['name', 'desc']]).scanFiltered).toBe('"age" is filtered during the scan of the index range on "name"');
    expect(planUnion(personLayout, personLayout.indexes, { age: { $gt: 1 } }, undefined).scanFiltered).toBeUndefined();
  });

  it('rejects bad values, operators, fields and sorts with typed errors', () => {
    expect(failure(() => plan({ age: 'abc' })).reason).toBe('indexer/invalid-query-value');
    expect(failure(() => plan({ age: 'abc' })).message).toBe('value at field "age" does not match the schema type, expected type: number, got value: "abc"');
    expect(failure(() => plan({ age: null })).reason).toBe('indexer/invalid-query-value');
    expect(failure(() => plan({ age: [1] })).reason).toBe('indexer/invalid-query-value');
    expect(failure(() => plan({ owner: '0x12' })).reason).toBe('indexer/invalid-query-value');
    expect(failure(() => plan({ age: {} })).reason).toBe('indexer/invalid-query-value');
    expect(failure(() => plan({ age: { $regex: 1 } })).message).toContain('unknown operator "$regex"');
    expect(failure(() => plan({ age: { $eq: 1, $gt: 0 } })).reason).toBe('indexer/invalid-query');
    expect(failure(() => plan({ age: { $gt: 1, $gte: 0 } })).reason).toBe('indexer/invalid-query');
    expect(failure(() => plan({ nope: 1 })).message).toContain('no field "nope"');
    expect(failure(() => plan({ tags: 'a' })).message).toBe('where: field "tags" is an array (string[]); query it with {"$contains": value}');
    expect(failure(() => plan([1])).reason).toBe('indexer/invalid-query');
    expect(failure(() => plan(undefined, 'age')).reason).toBe('indexer/invalid-query');
    expect(failure(() => plan(undefined, [['age', 'up']])).message).toContain('"asc" or "desc"');
    expect(failure(() => plan(undefined, [['age', 'asc'], ['age', 'desc']])).message).toContain('appears twice');
    expect(failure(() => plan({ constructor: 1 })).reason).toBe('indexer/invalid-query');
  });

  it('quotes a number that is not finite (1e309 in the query JSON) as itself, not as null', () => {
    const message = (value: unknown) => failure(() => plan({ age: value })).message;
    expect(message(Infinity)).toBe('value at field "age" does not match the schema type, expected type: number, got value: Infinity');
    expect(message(-Infinity)).toContain('got value: -Infinity');
    expect(message(NaN)).toContain('got value: NaN');
    expect(failure(() => plan({ age: { $gt: JSON.parse('1e309') } })).message).toContain('got value: Infinity');
  });

  it('bounds a range to values of the field type, so missing and null values are never in it', () => {
    const lt = plan({ score: { $lt: 5 } }, undefined, itemLayout);
    const nullTag = 0x01;
    expect(lt.range.gte[0]).not.toBe(nullTag);
    expect(lt.range.gte[0]).toBe(0x05);
  });
});
