// The syntax tree is built by constructors (src/lang/nodes.ts) so that V8 cannot pretenure it, and must still be
// plain data: every node an object whose prototype is Object.prototype, every list an array, as object and array
// literals gave them, and the same text when printed or serialised.
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse } from '../../src/lang/index.ts';
import { loadFixtures } from './corpus.ts';

/** Every object in `value` that is neither a plain object nor a plain array, by its path. */
function notPlain(value: unknown, path = 'program', found: string[] = []): string[] {
  if (value === null || typeof value !== 'object') return found;
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== (Array.isArray(value) ? Array.prototype : Object.prototype)) found.push(path);
  for (const [key, child] of Object.entries(value)) notPlain(child, `${path}.${key}`, found);
  return found;
}

describe('the syntax tree', () => {
  const fixtures = [...loadFixtures('schemas'), ...loadFixtures('extensions')];

  it('is plain objects and arrays, printed and serialised as literals would be', () => {
    let nodes = 0;
    for (const fixture of fixtures) {
      const { program } = parse(fixture.text, fixture.name);
      expect(program, fixture.name).toBeDefined();
      expect(notPlain(program), fixture.name).toEqual([]);
      // A copy made of literals prints the same text: no class name, the same property order.
      const copy: unknown = JSON.parse(JSON.stringify(program));
      expect(inspect(program, { depth: null }), fixture.name).toBe(inspect(copy, { depth: null }));
      nodes += JSON.stringify(program).split('"kind"').length - 1;
    }
    expect(nodes).toBeGreaterThan(10_000);
  });
});
