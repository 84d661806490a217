// Plans made before, per collection layout: a list or count that repeats a where and sort (the usual case: the
// same query with another page or another value) is planned once. A plan depends only on the layout, the indexes
// usable (both fixed in a CollectionIndexes, which the layout cache replaces when the stored layout changes) and
// the where and sort, and it is never changed once made, so one plan may serve many requests.

import type { CollectionIndexes } from './index-entries.ts';
import { planUnion, type UnionPlan } from './planner.ts';

/** How many plans one layout keeps; past it the cache starts over (a bound on memory, not an eviction policy). */
const MAX_PLANS = 256;

/** The longest key cached: a where this long is planned every time (planning it costs more than the key). */
const MAX_KEY_LENGTH = 2048;

const plans = new WeakMap<CollectionIndexes, Map<string, UnionPlan>>();

/** `planUnion` for the layout's usable indexes, made once per where and sort that has a key (see `keyOf`). */
export function cachedPlan(indexes: CollectionIndexes, where: unknown, sort: unknown): UnionPlan {
  const key = keyOf([where, sort]);
  if (key === undefined || key.length > MAX_KEY_LENGTH) return planUnion(indexes.layout, indexes.usable, where, sort);
  let byKey = plans.get(indexes);
  if (!byKey) plans.set(indexes, (byKey = new Map()));
  let plan = byKey.get(key);
  if (!plan) {
    plan = planUnion(indexes.layout, indexes.usable, where, sort); // a where it refuses throws, and is not kept
    if (byKey.size >= MAX_PLANS) byKey.clear();
    byKey.set(key, plan);
  }
  return plan;
}

/**
 * A text that tells wheres apart exactly, or undefined for a value it cannot (those are planned every time):
 * only strings, finite numbers other than -0, booleans, null, arrays and plain objects of them. JSON.stringify
 * alone would not do: it writes NaN as null, and drops undefined.
 */
function keyOf(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) && !Object.is(value, -0) ? String(value) : undefined;
    case 'boolean':
      return value ? 'true' : 'false';
    case 'undefined':
      return 'u';
    case 'object': {
      if (value === null) return 'null';
      let text: string;
      if (Array.isArray(value)) {
        text = '[';
        for (let i = 0; i < value.length; i++) {
          if (!(i in value)) return undefined;
          const part = keyOf(value[i]);
          if (part === undefined) return undefined;
          text += part + ',';
        }
        return text + ']';
      }
      const proto = Object.getPrototypeOf(value) as unknown;
      if (proto !== Object.prototype && proto !== null) return undefined;
      text = '{';
      for (const name of Object.keys(value)) {
        const part = keyOf((value as Record<string, unknown>)[name]);
        if (part === undefined) return undefined;
        text += JSON.stringify(name) + ':' + part + ',';
      }
      return text + '}';
    }
    default:
      return undefined;
  }
}
