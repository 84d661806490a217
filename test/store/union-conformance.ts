// The conformance suite of the extended where ($ne, $in, $nin, $contains, $exists, $startsWith, $or) and of count, which every backend
// passes (sqlite.test.ts and postgres.test.ts run it): results are checked against a brute-force filter of all
// records, written here from the operators' meaning, independently of the store's matcher and key encoding.

import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { planUnion, RecordStore, StoreError, layoutOf, type JsonObject, type ListQuery, type ReadFilter } from '../../src/store/index.ts';
import type { Backend } from './conformance.ts';
import { compareSameType, expectPagingBack, inFieldOrder, pageForward } from './paging.ts';
import { collection } from './schemas.ts';

const TAGGED = 'ns/Tagged';

/** Items with an indexed array: the shapes the union property pages through. */
const taggedSchema = collection(
  'Tagged',
  { id: 'string', group: 'string', 'score?': 'number', 'flag?': 'boolean', 'tags?': 'string[]', 'label?': 'string' },
  [['group', 'score'], ['group', 'score desc'], ['flag', 'score'], ['tags'], ['tags', 'score'], ['tags', 'score desc'], ['flag', 'group'], ['flag', 'label desc']],
);
const taggedLayout = layoutOf(taggedSchema);

type Where = Record<string, unknown>;

/** Whether a value is one the field's type holds (missing, null and other types match no $ne, $nin or range). */
function ofType(value: unknown, example: unknown): boolean {
  return value !== undefined && value !== null && typeof value === typeof example;
}

/** The brute-force meaning of a where, written from the operators' definitions. */
export function bruteMatches(record: JsonObject, where: Where): boolean {
  return Object.entries(where).every(([path, node]) => {
    if (path === '$or') return (node as Where[]).some((alternative) => bruteMatches(record, alternative));
    const value = record[path];
    if (typeof node !== 'object' || node === null) return value === node;
    const ops = node as Record<string, unknown>;
    return Object.entries(ops).every(([op, operand]) => {
      switch (op) {
        case '$eq':
          return value === operand;
        case '$in':
          return (operand as unknown[]).includes(value);
        case '$ne':
          return ofType(value, operand) && value !== operand;
        case '$nin':
          return ofType(value, (operand as unknown[])[0]) && !(operand as unknown[]).includes(value);
        case '$contains':
          return Array.isArray(value) && value.includes(operand);
        case '$gt':
          return ofType(value, operand) && compareSameType(value, operand) > 0;
        case '$gte':
          return ofType(value, operand) && compareSameType(value, operand) >= 0;
        case '$lt':
          return ofType(value, operand) && compareSameType(value, operand) < 0;
        case '$lte':
          return ofType(value, operand) && compareSameType(value, operand) <= 0;
        case '$exists':
          return (value !== undefined && value !== null) === operand;
        case '$startsWith':
          return typeof value === 'string' && value.startsWith(operand as string);
        default:
          throw new Error(`test: unknown operator ${op}`);
      }
    });
  });
}

/** The records a query must return, in order: the brute-force filter, ordered by the plan's merged order. */
function expectedOrder(records: readonly JsonObject[], query: ListQuery): JsonObject[] {
  const plan = planUnion(taggedLayout, taggedLayout.indexes, query.where, query.sort);
  const matching = records.filter((r) => bruteMatches(r, query.where as Where));
  return inFieldOrder(matching, plan.order.fields, plan.reverse);
}

const groups = ['a', 'b', 'ä', ''];
const scores = [-3, -1.5, 0, 0.25, 1, 2, 1e300];
const tags = ['x', 'y', 'z'];
/**
 * Labels around the bounds of a prefix range: non-ASCII, U+FFFF (whose UTF-8 sorts before every character above
 * it, so a "prefix + U+FFFF" bound would miss those), characters above U+FFFF, U+0000 (escaped in keys).
 */
const labels = ['', 'a', 'ab', 'abc', 'a\uFFFF', 'a\u{10000}', 'a😀', 'ä', 'äb', 'Ä', '\uFFFF', '\uFFFFz', '\u{10FFFF}', 'a\0b', 'a\0', 'ﬀ'];
const prefixes = ['', 'a', 'ab', 'ä', 'a\uFFFF', '\uFFFF', 'a\0', '\u{10FFFF}', 'a\u{10000}', 'ﬀ', 'A'];
const itemArb = (id: number) =>
  fc.record(
    {
      id: fc.constant(`i${String(id).padStart(2, '0')}`),
      group: fc.constantFrom(...groups),
      score: fc.constantFrom(...scores),
      flag: fc.boolean(),
      tags: fc.array(fc.constantFrom(...tags), { maxLength: 3 }),
      label: fc.constantFrom(...labels),
    },
    { requiredKeys: ['id', 'group'] },
  );
const itemsArb = fc.integer({ min: 0, max: 24 }).chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => itemArb(i))));

const some = <T>(values: readonly T[]) => fc.uniqueArray(fc.constantFrom(...values), { minLength: 1, maxLength: 3 });
const groupFilterArb = fc.oneof(
  fc.constantFrom(...groups),
  some(groups).map((values) => ({ $in: values })),
  fc.constantFrom(...groups).map((value) => ({ $ne: value })),
  some(groups).map((values) => ({ $nin: values })),
);
const scoreFilterArb = fc.oneof(
  some(scores).map((values) => ({ $in: values })),
  fc.constantFrom(...scores).map((value) => ({ $ne: value })),
  fc.record({ $gt: fc.constantFrom(-2, 0, 1), $nin: some(scores) }, { requiredKeys: [] }),
  fc.record({ $gte: fc.constantFrom(-2, 0, 1), $lt: fc.constantFrom(0, 2, 3), $ne: fc.constantFrom(...scores) }, { requiredKeys: [] }),
  fc.boolean().map((exists) => ({ $exists: exists })),
  fc.constantFrom(-2, 0, 1).map((value) => ({ $exists: true, $gt: value })),
);
const labelFilterArb = fc.oneof(
  fc.constantFrom(...prefixes).map((prefix) => ({ $startsWith: prefix })),
  fc.boolean().map((exists) => ({ $exists: exists })),
  fc.constantFrom(...labels),
);
const conjunctionArb: fc.Arbitrary<Where> = fc.record(
  {
    group: groupFilterArb,
    score: scoreFilterArb,
    flag: fc.oneof(fc.boolean(), fc.boolean().map((value) => ({ $ne: value })), fc.boolean().map((exists) => ({ $exists: exists }))),
    tags: fc.constantFrom(...tags).map((value) => ({ $contains: value })),
    label: labelFilterArb,
  },
  { requiredKeys: [] },
);
const whereArb: fc.Arbitrary<Where> = fc.oneof(
  conjunctionArb,
  fc.array(conjunctionArb, { minLength: 1, maxLength: 3 }).map((alternatives) => ({ $or: alternatives })),
);
/** Whether the where and sort plan (or are refused with a typed error, which the planner tests cover). */
function plans(where: unknown, sort: unknown): boolean {
  try {
    planUnion(taggedLayout, taggedLayout.indexes, where, sort);
    return true;
  } catch {
    return false;
  }
}

const queryArb: fc.Arbitrary<ListQuery> = fc
  .record({
    where: whereArb,
    sort: fc.constantFrom<[string, 'asc' | 'desc'][]>([], [['score', 'asc']], [['score', 'desc']], [['id', 'desc']], [['label', 'asc']], [['label', 'desc']]),
  })
  .filter((query) => plans(query.where, query.sort));

export function unionConformance(backend: Backend): void {
  describe(`extended where and count on ${backend.name}`, () => {
    const open: RecordStore[] = [];
    afterEach(async () => {
      await Promise.all(open.splice(0).map((s) => s.close()));
    });
    async function fresh(): Promise<RecordStore> {
      const db = await backend.fresh();
      const store = new RecordStore(db.kv);
      open.push(store);
      return store;
    }
    const put = (collectionId: string, record: JsonObject) => ({ kind: 'put' as const, collectionId, record });
    const ids = (records: readonly JsonObject[]) => records.map((r) => r.id);

    it('answers $ne, $in, $nin, $contains and $or, leaving out missing fields, null and other types from $ne and $nin', async () => {
      const store = await fresh();
      await store.defineCollection(TAGGED, taggedLayout);
      const records: JsonObject[] = [
        { id: 'a', group: 'g', score: 1, tags: ['x', 'y', 'x'] },
        { id: 'b', group: 'h', score: 2, tags: [] },
        { id: 'c', group: 'g' },
        { id: 'd', group: 'h', score: null as unknown as number, tags: ['y'] },
        { id: 'e', group: 'k', score: 'two' as unknown as number, flag: true },
      ];
      await store.commit({ writes: records.map((r) => put(TAGGED, r)) });
      const list = async (where: Where, sort?: unknown) => ids((await store.list(TAGGED, { where, ...(sort ? { sort } : {}) })).records);
      expect(await list({ score: { $ne: 1 } })).toEqual(['b']);
      expect(await list({ score: { $nin: [2, 5] } })).toEqual(['a']);
      expect(await list({ group: { $in: ['h', 'k', 'zz'] } })).toEqual(['b', 'd', 'e']);
      expect(await list({ group: { $in: ['h', 'g'] } }, [['group', 'desc']])).toEqual(['d', 'b', 'c', 'a']);
      expect(await list({ tags: { $contains: 'x' } })).toEqual(['a']); // once, though it holds "x" twice
      expect(await list({ tags: { $contains: 'y' } })).toEqual(['a', 'd']);
      expect(await list({ $or: [{ tags: { $contains: 'x' } }, { tags: { $contains: 'y' } }, { group: 'g' }] })).toEqual(['a', 'c', 'd']);
      // Ordered by score, the range field: e's score is not a number, so it is indexed as null, which sorts first.
      expect(await list({ $or: [{ group: 'k' }, { score: { $gte: 2 } }] })).toEqual(['e', 'b']);
      expect(await list({ id: { $in: ['e', 'a', 'nope'] } })).toEqual(['a', 'e']);
      expect(await list({ flag: { $ne: false } })).toEqual(['e']);
      expect(await store.count(TAGGED, { where: { group: { $ne: 'g' } } })).toMatchObject({ count: 3 });
      expect(await store.count(TAGGED)).toMatchObject({ count: 5 });
      expect(await store.count(TAGGED, { where: { tags: { $contains: 'y' } } }, (r) => r.id !== 'd')).toMatchObject({ count: 1 });
    });

    it('answers $exists on optional fields and $startsWith as one index range, for any characters near its bound', async () => {
      const store = await fresh();
      await store.defineCollection(TAGGED, taggedLayout);
      const long = 'é'.repeat(140); // 280 UTF-8 bytes: longer than an index keeps (256)
      const records: JsonObject[] = [
        { id: 'a', group: 'g', label: 'ab', flag: true, score: 1 },
        { id: 'b', group: 'g', label: 'a\uFFFF', flag: true },
        { id: 'c', group: 'g', label: 'a\u{10000}', flag: false, score: 2 },
        { id: 'd', group: 'g', label: 'a😀', flag: true },
        { id: 'e', group: 'g', label: 'b', score: 3 },
        { id: 'f', group: 'g', label: 'a\0z', flag: true },
        { id: 'g', group: 'g', label: `${long}x` },
        { id: 'h', group: 'g', label: `${long}y` },
        { id: 'i', group: 'g', score: null as unknown as number },
        { id: 'j', group: 'g', label: 'Äb' },
      ];
      await store.commit({ writes: records.map((r) => put(TAGGED, r)) });
      const list = async (where: Where, sort?: unknown) => ids((await store.list(TAGGED, { where, ...(sort ? { sort } : {}) })).records);
      // In UTF-8 byte order: U+0000 (escaped), "b", U+FFFF, then the characters above it.
      expect(await list({ label: { $startsWith: 'a' } })).toEqual(['f', 'a', 'b', 'c', 'd']);
      expect(await list({ label: { $startsWith: 'a' } }, [['label', 'desc']])).toEqual(['d', 'c', 'b', 'a', 'f']);
      expect(await list({ label: { $startsWith: 'a\uFFFF' } })).toEqual(['b']);
      expect(await list({ label: { $startsWith: 'a\u{10000}' } })).toEqual(['c']);
      expect(await list({ label: { $startsWith: 'a\0' } })).toEqual(['f']);
      expect(await list({ label: { $startsWith: 'Ä' } })).toEqual(['j']); // byte order: no case or accent folding
      expect(await list({ label: { $startsWith: 'ä' } })).toEqual([]);
      expect(await list({ label: { $startsWith: `${long}x` } })).toEqual(['g']); // past the index's 256 bytes: re-checked
      expect(await list({ label: { $startsWith: long } })).toEqual(['g', 'h']);
      // An equality on a value cut in its key is re-checked too; one held whole is not (union-planner.test.ts).
      expect(await list({ label: `${long}x` })).toEqual(['g']);
      expect(await list({ label: 'ab' })).toEqual(['a']);
      expect(await list({ flag: false })).toEqual(['c']);
      expect(await list({ label: { $startsWith: '' } })).toHaveLength(9);
      // A descending index (flag, label desc) serves it too.
      expect(await list({ flag: true, label: { $startsWith: 'a' } }, [['label', 'desc']])).toEqual(['d', 'b', 'a', 'f']);
      expect(await list({ score: { $exists: true } })).toEqual(['a', 'c', 'e']);
      expect(await list({ score: { $exists: false } })).toEqual(['b', 'd', 'f', 'g', 'h', 'i', 'j']); // null is not set
      expect(await list({ score: { $exists: true, $gte: 2 } })).toEqual(['c', 'e']);
      expect(await list({ flag: { $exists: false } })).toEqual(['e', 'g', 'h', 'i', 'j']);
      expect(await list({ $or: [{ label: { $startsWith: 'b' } }, { label: { $startsWith: 'a\u{10000}' } }] })).toEqual(['c', 'e']); // by label
      expect(await store.count(TAGGED, { where: { label: { $exists: false } } })).toMatchObject({ count: 1 });
      // The plan reads one range, which fixes no value (confinement is told so).
      const plan = planUnion(taggedLayout, taggedLayout.indexes, { label: { $startsWith: 'a' } }, undefined);
      expect(plan.segments.map((s) => s.bounds.fixed)).toEqual([[]]);
    });

    it('refuses $exists on a required field and $startsWith on a non-string field, saying which field and why', async () => {
      const store = await fresh();
      await store.defineCollection(TAGGED, taggedLayout);
      const failure = (where: Where) => store.list(TAGGED, { where }).catch((e: StoreError) => e) as Promise<StoreError>;
      expect(await failure({ group: { $exists: true } })).toMatchObject({
        reason: 'indexer/invalid-query',
        message: 'where: $exists at field "group": "group" is required (declared `group: string`), so every record has it; $exists applies only to optional fields (declared with "?")',
      });
      expect(await failure({ score: { $exists: 'yes' } })).toMatchObject({ reason: 'indexer/invalid-query-value', message: 'where: $exists at field "score" takes true or false, got "yes"' });
      expect(await failure({ score: { $exists: false, $gt: 1 } })).toMatchObject({ message: 'where: field "score" cannot combine {"$exists": false} with other operators (a missing field matches none of them)' });
      expect(await failure({ score: { $startsWith: '1' } })).toMatchObject({ message: 'where: $startsWith at field "score" needs a string field, but "score" is number' });
      expect(await failure({ label: { $startsWith: 1 } })).toMatchObject({ reason: 'indexer/invalid-query-value', message: 'where: $startsWith at field "label" takes a string, got 1' });
      expect(await failure({ label: { $startsWith: 'a\uD800' } })).toMatchObject({ reason: 'indexer/invalid-query-value' });
      expect(await failure({ label: { $startsWith: 'a', $lt: 'b' } })).toMatchObject({ message: 'where: field "label" cannot combine $startsWith with other operators' });
      expect(await failure({ tags: { $exists: true } })).toMatchObject({ message: 'where: field "tags" is an array (string[]); query it with {"$contains": value}' });
    });

    it('refuses bad extended queries with typed errors that name the field, and missing indexes with the @index to add', async () => {
      const store = await fresh();
      await store.defineCollection(TAGGED, taggedLayout);
      const failure = async (query: ListQuery) => {
        const error = await store.list(TAGGED, query).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(StoreError);
        return error as StoreError;
      };
      expect((await failure({ where: { group: { $in: [] } } })).message).toBe('where: $in at field "group" must be a non-empty JSON array of values, got []');
      expect((await failure({ where: { group: { $in: Array.from({ length: 31 }, (_, i) => `g${i}`) } } })).message).toBe(
        'where: $in at field "group" has 31 values; at most 30 are allowed',
      );
      expect((await failure({ where: { group: { $nin: Array.from({ length: 11 }, (_, i) => `g${i}`) } } })).message).toContain('at most 10');
      expect((await failure({ where: { group: { $in: 'g' } } })).reason).toBe('indexer/invalid-query');
      expect((await failure({ where: { score: { $in: [1, 'x'] } } })).reason).toBe('indexer/invalid-query-value');
      expect((await failure({ where: { group: { $in: ['g'], $ne: 'h' } } })).message).toBe('where: field "group" cannot combine $in with other operators');
      expect((await failure({ where: { group: { $contains: 'g' } } })).message).toContain('$contains at field "group" needs an array field');
      expect((await failure({ where: { tags: { $ne: 'x' } } })).message).toBe('where: field "tags" is an array (string[]); query it with {"$contains": value}');
      expect((await failure({ where: { $or: [] } })).message).toBe('where.$or must be a non-empty JSON array of where objects, got []');
      expect((await failure({ where: { $or: [{ group: 'g' }, 3] } })).message).toBe('where.$or[1] must be a JSON object of field paths, got 3');
      // Before, a null alternative was taken as no condition at all, and the where matched every record.
      expect((await failure({ where: { $or: [{ group: 'g' }, null] } })).message).toBe('where.$or[1] must be a JSON object of field paths, got null');
      expect((await failure({ where: { group: 'g', $or: [{ group: 'h' }] } })).message).toContain('field "group" is filtered both inside and outside an $or');
      const many = (n: number) => Array.from({ length: n }, (_, i) => ({ group: `g${i}` }));
      expect((await failure({ where: { $or: many(31) } })).message).toBe('where.$or has 31 alternatives; at most 30 are allowed');
      expect((await failure({ where: { $or: [{ $or: many(20) }, { $or: many(20) }] } })).message).toBe(
        'where.$or: the where has more than 30 alternatives once every $or is multiplied out',
      );
      const nested = (levels: number): Where => (levels === 0 ? { group: 'g' } : { $or: [nested(levels - 1)] });
      expect(ids((await store.list(TAGGED, { where: nested(4) })).records)).toEqual([]);
      expect((await failure({ where: nested(5) })).message).toBe('where.$or[0].$or[0].$or[0].$or[0]: $or nests more than 4 levels deep');
      expect((await failure({ where: { group: { $in: many(30).map((g) => g.group) }, score: { $nin: [1, 2] } } })).message).toContain('more than 30 index ranges');
      expect((await failure({ where: { group: { $nin: ['a'] }, score: { $ne: 1 }, label: { $startsWith: 'a' } } })).reason).toBe('indexer/query-inequality-not-last');
      expect((await failure({ where: { $or: [{ group: { $ne: 'a' } }, { score: { $gt: 1 } }] } })).message).toContain('filter ranges on different fields ("group" and "score")');
      const missing = await failure({ where: { flag: { $ne: true } }, sort: [['score', 'asc']] });
      expect(missing.reason).toBe('indexer/query-inequality-not-last');
      const noIndex = await failure({ where: { tags: { $contains: 'x' }, group: 'g' } });
      expect(noIndex.reason).toBe('indexer/missing-index');
      expect(noIndex.message).toBe('no index found matching the query; add `@index(tags, group);` to collection Tagged');
      // A later $or branch needs the order the first one is read in, after its own equalities.
      const union = await failure({ where: { $or: [{ group: 'a', flag: true }, { tags: { $contains: 'x' }, flag: true }] }, sort: [['id', 'desc']] });
      expect(union.message).toBe('no index found matching the query; add `@index(tags, flag, [id, desc]);` to collection Tagged');
    });

    it('with a read filter, places cursors at the records returned, and a page cut by the scan bound gets a fixed-length cursor', async () => {
      const store = await fresh();
      await store.defineCollection(TAGGED, taggedLayout);
      await store.commit({ writes: Array.from({ length: 12 }, (_, i) => put(TAGGED, { id: `r${String(i).padStart(2, '0')}`, group: i % 2 ? 'a' : 'b', score: i })) });
      const onlyLast: ReadFilter = (record) => record.id === 'r11';
      const where = { group: { $in: ['a', 'b'] } };
      const cut = await store.list(TAGGED, { where, limit: 2 }, onlyLast, { scanLimit: 4 });
      expect(cut.records).toEqual([]);
      expect(cut.cursor.before).toBeNull();
      expect(cut.cursor.after).toHaveLength(1404); // sealed and padded: the same length whatever entry it holds
      const seen: unknown[] = [];
      let after = cut.cursor.after;
      for (let guard = 0; guard < 10 && after; guard++) {
        const page = await store.list(TAGGED, { where, limit: 2, after }, onlyLast, { scanLimit: 4 });
        seen.push(...ids(page.records));
        if (page.cursor.after === after) break;
        after = page.cursor.after;
      }
      expect(seen).toEqual(['r11']);
      // A page that reaches the end of its ranges is not cut: nothing left, so the cursor repeats the request's.
      const none = await store.list(TAGGED, { where: { group: { $in: ['a', 'zz'] } }, limit: 2 }, () => false, { scanLimit: 100 });
      expect(none.cursor).toEqual({ before: null, after: null });
    });

    it('serves one of two range fields by an index and filters the other during the scan, with its cost in the scan bound\'s error', async () => {
      const store = await fresh();
      await store.defineCollection(TAGGED, taggedLayout);
      await store.commit({ writes: Array.from({ length: 20 }, (_, i) => put(TAGGED, { id: `r${String(i).padStart(2, '0')}`, group: 'g', score: i, label: i % 4 === 0 ? 'ab' : 'b' })) });
      const where = { score: { $gte: 2, $lt: 18 }, label: { $startsWith: 'a' } };
      const all = await store.list(TAGGED, { where });
      expect(ids(all.records)).toEqual(['r04', 'r08', 'r12', 'r16']); // in score order: the index serves the score range
      expect(ids((await store.list(TAGGED, { where, sort: [['label', 'desc']] })).records)).toEqual(['r16', 'r12', 'r08', 'r04']);
      expect(await store.count(TAGGED, { where })).toMatchObject({ count: 4 });
      // Two pages of 2 read 16 entries in all; a bound of 8 entries a page is enough for the first, not for the second.
      const first = await store.list(TAGGED, { where, limit: 2 }, undefined, { scanLimit: 8 });
      expect(ids(first.records)).toEqual(['r04', 'r08']);
      const cut = await store.list(TAGGED, { where, limit: 2, after: first.cursor.after }, undefined, { scanLimit: 3 }).catch((e: StoreError) => e);
      expect(cut).toMatchObject({
        reason: 'indexer/scan-limit-exceeded',
        code: 'failed-precondition',
        message: 'where: "label" is filtered during the scan of the index range on "score": this page read 3 index entries (the most one request reads) and found 0 of the 2 records asked for; narrow the indexed range, or add an @index that starts with the other field',
      });
      const count = await store.count(TAGGED, { where }, undefined, { scanLimit: 10 }).catch((e: StoreError) => e);
      expect(count).toMatchObject({
        reason: 'indexer/scan-limit-exceeded',
        message: 'count reads at most 10 index entries, and this query has more ("label" is filtered during the scan of the index range on "score", 2 matching so far); narrow the where to count fewer records at once',
      });
      // In an $or, each alternative may have its second range; the first range of each must be the same field.
      expect(ids((await store.list(TAGGED, { where: { $or: [where, { score: { $gte: 19 }, label: { $startsWith: 'b' } }] } })).records)).toEqual(['r04', 'r08', 'r12', 'r16', 'r19']);
    });

    it('counts up to its scan bound and refuses past it; a count reads only what its where needs', async () => {
      const store = await fresh();
      await store.defineCollection(TAGGED, taggedLayout);
      await store.commit({ writes: Array.from({ length: 30 }, (_, i) => put(TAGGED, { id: `r${i}`, group: i < 10 ? 'a' : 'b', score: i })) });
      expect(await store.count(TAGGED, {}, undefined, { scanLimit: 30 })).toMatchObject({ count: 30 });
      const over = await store.count(TAGGED, {}, undefined, { scanLimit: 29 }).catch((e: unknown) => e);
      expect(over).toMatchObject({ reason: 'indexer/scan-limit-exceeded', code: 'failed-precondition' });
      // The group range holds 10 entries: the bound counts entries read, not records in the collection.
      expect(await store.count(TAGGED, { where: { group: 'a', score: { $gte: 5 } } }, undefined, { scanLimit: 10 })).toMatchObject({ count: 5 });
      expect(await store.count(TAGGED, { where: { group: { $in: ['a', 'zz'] } } }, undefined, { scanLimit: 10 })).toMatchObject({ count: 10 });
      expect(await store.count(TAGGED, { where: { nope: 1 } }).catch((e: StoreError) => e)).toMatchObject({ reason: 'indexer/invalid-query' });
      expect(await store.count('ns/None').catch((e: StoreError) => e)).toMatchObject({ reason: 'collection/not-found' });
    });

    it('pages through every matching readable record exactly once, in order, both ways, for random extended queries (fast-check)', async () => {
      const store = await fresh();
      let run = 0;
      await fc.assert(
        fc.asyncProperty(itemsArb, queryArb, fc.integer({ min: 1, max: 7 }), fc.integer({ min: 0, max: 6 }), fc.integer({ min: 0, max: 30 }), async (items, query, limit, slack, seed) => {
          const collectionId = `ns/Tagged${run++}`;
          await store.defineCollection(collectionId, taggedLayout);
          if (items.length > 0) await store.commit({ writes: items.map((r) => put(collectionId, r)) });
          const hidden = new Set<string>(items.filter((_, i) => (i * 7 + seed) % 5 === 0).map((r) => r.id));
          const readFilter: ReadFilter = (record) => !hidden.has(record.id as string);
          const expected = expectedOrder(items, query);
          const visible = ids(expected).filter((id) => !hidden.has(id as string));

          // Forward with the read filter and a small scan bound (a where with a range filtered during the scan
          // would meet it as an error: its own test is below); the count agrees.
          const plan = planUnion(taggedLayout, taggedLayout.indexes, query.where, query.sort);
          const filtered = await pageForward(store, collectionId, query, limit, readFilter, { scanLimit: plan.scanFiltered ? 1000 : limit + slack });
          expect(filtered.ids).toEqual(visible);
          // A count has no sort, so it may need another index (an $in on the sort field is a range only when sorted on).
          if (plans(query.where, undefined)) expect((await store.count(collectionId, { where: query.where }, readFilter)).count).toBe(visible.length);

          // Forward without a filter, keeping each page's cursors; then backwards from one page's cursors. Those
          // are at the first and last entries read, which a range filtered during the scan reads past the records
          // returned: there, a filter that accepts everything places them at the records, which the check needs.
          const acceptAll: ReadFilter | undefined = plan.scanFiltered ? () => true : undefined;
          const { ids: all, pages } = await pageForward(store, collectionId, query, limit, acceptAll);
          expect(all).toEqual(ids(expected));
          if (pages.length > 0) await expectPagingBack(store, collectionId, query, limit, pages[seed % pages.length]!, ids(expected), acceptAll);
          await store.deleteCollection(collectionId);
        }),
        { numRuns: backend.name === 'sqlite' ? 150 : 40 },
      );
    });

    it('sums, averages and takes the least and greatest of number fields over what the read filter accepts, under the count\'s scan bound', async () => {
      const store = await fresh();
      await store.defineCollection(TAGGED, taggedLayout);
      const records: JsonObject[] = [
        { id: 'a', group: 'g', score: 0.1 },
        { id: 'b', group: 'g', score: 0.2 },
        { id: 'c', group: 'g', score: -3 },
        { id: 'd', group: 'g' },
        { id: 'e', group: 'g', score: 'x' as unknown as number },
        { id: 'f', group: 'h', score: 100 },
      ];
      await store.commit({ writes: records.map((r) => put(TAGGED, r)) });
      const all = await store.aggregate(TAGGED, { where: { group: 'g' }, aggregates: { sum: ['score'], avg: ['score'], min: ['score'], max: ['score'] } });
      // d (missing) and e (not a number) count, and add nothing; the sum is compensated: 0.1 + 0.2 - 3 exactly as -2.7.
      expect(all).toMatchObject({ count: 5, sum: { score: -2.7 }, avg: { score: -0.9 }, min: { score: -3 }, max: { score: 0.2 } });
      const none = await store.aggregate(TAGGED, { where: { group: 'zz' }, aggregates: { sum: ['score'], avg: ['score'], min: ['score'] } });
      expect(none).toMatchObject({ count: 0, sum: { score: 0 }, avg: { score: null }, min: { score: null } });
      expect(none).not.toHaveProperty('max');
      const readable = await store.aggregate(TAGGED, { aggregates: { max: ['score'] } }, (r) => r.id !== 'f');
      expect(readable).toMatchObject({ count: 5, max: { score: 0.2 } });
      const over = await store.aggregate(TAGGED, { aggregates: { sum: ['score'] } }, undefined, { scanLimit: 5 }).catch((e: StoreError) => e);
      expect(over).toMatchObject({ reason: 'indexer/scan-limit-exceeded', message: 'count, sum reads at most 5 index entries, and this query has more; narrow the where to count fewer records at once' });
      const bad = (aggregates: unknown) => store.aggregate(TAGGED, { aggregates: aggregates as never }).catch((e: StoreError) => e);
      expect(await bad({ sum: ['group'] })).toMatchObject({ reason: 'indexer/invalid-query', message: 'sum: field "group" of collection Tagged is string; sum, avg, min and max take number fields' });
      expect(await bad({ avg: ['nope'] })).toMatchObject({ reason: 'indexer/invalid-query', message: 'avg: collection Tagged has no field "nope"' });
      expect(await bad({ median: ['score'] })).toMatchObject({ message: 'unknown aggregate "median"; expected one of sum, avg, min, max' });
      expect(await bad({ min: ['tags'] })).toMatchObject({ message: 'min: field "tags" of collection Tagged is string[]; sum, avg, min and max take number fields' });
      await store.commit({ writes: [put(TAGGED, { id: 'm1', group: 'm', score: 1e308 }), put(TAGGED, { id: 'm2', group: 'm', score: 1e308 })] });
      expect(await store.aggregate(TAGGED, { where: { group: 'm' }, aggregates: { max: ['score'] } })).toMatchObject({ max: { score: 1e308 } });
      expect(await store.aggregate(TAGGED, { where: { group: 'm' }, aggregates: { sum: ['score'] } }).catch((e: StoreError) => e)).toMatchObject({
        reason: 'indexer/invalid-query',
        message: 'the sum of "score" is beyond the largest number (about 1.8e308); narrow the where',
      });
    });

    it('aggregates agree with a brute-force sum, average, least and greatest for random extended queries and readers (fast-check)', async () => {
      const store = await fresh();
      let run = 0;
      await fc.assert(
        fc.asyncProperty(itemsArb, queryArb.filter((query) => plans(query.where, undefined)), fc.integer({ min: 0, max: 30 }), async (items, query, seed) => {
          const collectionId = `ns/Agg${run++}`;
          await store.defineCollection(collectionId, taggedLayout);
          if (items.length > 0) await store.commit({ writes: items.map((r) => put(collectionId, r)) });
          const hidden = new Set<string>(items.filter((_, i) => (i * 7 + seed) % 5 === 0).map((r) => r.id));
          const visible = items.filter((r) => bruteMatches(r, query.where as Where) && !hidden.has(r.id));
          const scores = visible.map((r) => r.score).filter((v): v is number => typeof v === 'number');
          const answer = await store.aggregate(collectionId, { where: query.where, aggregates: { sum: ['score'], avg: ['score'], min: ['score'], max: ['score'] } }, (r) => !hidden.has(r.id as string));
          expect(answer.count).toBe(visible.length);
          // The scores are 1e300 and small multiples of 0.25: the small ones add exactly, then one rounding.
          const huge = scores.filter((v) => v === 1e300).length;
          const exact = huge * 1e300 + scores.filter((v) => v !== 1e300).reduce((a, b) => a + b, 0);
          const near = (actual: number | null | undefined, expected: number) => Math.abs(actual! - expected) <= 1e-12 * Math.max(1, Math.abs(expected));
          expect(near(answer.sum!.score, exact), `${answer.sum!.score} vs ${exact}`).toBe(true);
          if (scores.length === 0) expect(answer.avg!.score).toBeNull();
          else expect(near(answer.avg!.score, exact / scores.length), `${answer.avg!.score} vs ${exact / scores.length}`).toBe(true);
          expect(answer.min!.score).toBe(scores.length === 0 ? null : Math.min(...scores));
          expect(answer.max!.score).toBe(scores.length === 0 ? null : Math.max(...scores));
          await store.deleteCollection(collectionId);
        }),
        { numRuns: backend.name === 'sqlite' ? 60 : 20 },
      );
    });

    it('builds an array index for existing records on a schema update, and keeps it equal to the records through writes', async () => {
      const store = await fresh();
      const before = layoutOf(collection('Tagged', { id: 'string', group: 'string', 'tags?': 'string[]' }));
      await store.defineCollection(TAGGED, before);
      await store.commit({
        writes: [put(TAGGED, { id: 'a', group: 'g', tags: ['x', 'y'] }), put(TAGGED, { id: 'b', group: 'g', tags: ['y'] }), put(TAGGED, { id: 'c', group: 'g' })],
      });
      const missing = await store.list(TAGGED, { where: { tags: { $contains: 'y' } } }).catch((e: StoreError) => e);
      expect(missing).toMatchObject({ reason: 'indexer/missing-index', message: 'no index found matching the query; add `@index(tags);` to collection Tagged' });
      const after = layoutOf(collection('Tagged', { id: 'string', group: 'string', 'tags?': 'string[]' }, [['tags']]));
      expect(await store.defineCollection(TAGGED, after)).toMatchObject({ rebuilt: 3 });
      const contains = async (tag: string) => ids((await store.list(TAGGED, { where: { tags: { $contains: tag } } })).records);
      expect(await contains('y')).toEqual(['a', 'b']);
      await store.commit({ writes: [put(TAGGED, { id: 'a', group: 'g', tags: ['z'] }), put(TAGGED, { id: 'c', group: 'g', tags: ['y', 'y'] })] });
      expect(await contains('y')).toEqual(['b', 'c']);
      expect(await contains('z')).toEqual(['a']);
      expect(await contains('x')).toEqual([]);
      await store.commit({ writes: [{ kind: 'delete', collectionId: TAGGED, id: 'b' }] });
      expect(await contains('y')).toEqual(['c']);
      const tooMany = await store.commit({ writes: [put(TAGGED, { id: 'd', group: 'g', tags: Array.from({ length: 101 }, (_, i) => `t${i}`) })] }).catch((e: StoreError) => e);
      expect(tooMany).toMatchObject({
        reason: 'record/invalid-field',
        message: 'record "d" holds 101 distinct values in field "tags", which an index covers; at most 100 are allowed',
      });
      expect((await store.get(TAGGED, 'd')).record).toBeNull();
    });
  });
}
