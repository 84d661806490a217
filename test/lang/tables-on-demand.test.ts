// A plain check (check(), checkSchema()) fills the language server's tables (types, calls, properties) only when
// they are first read, by checking the bodies again (checker.ts, TablesOnDemand); checkParts fills them at once.
// Both must give the same diagnostics and, when read, the same tables, on every fixture and on mutated ones
// (writes through values that forbid them, unknown names, redeclarations: the paths a partial check takes
// differently).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { check, checkParts, hasErrors, parse, sortChecked, type Diagnostic } from '../../src/lang/index.ts';
import { loadFixtures } from './corpus.ts';

/** Checks `text` both ways (when it parses without errors); whether it was checked. */
function agree(text: string): boolean {
  const parsed = parse(text);
  if (!parsed.program || hasErrors(parsed.diagnostics)) return false;
  const plain = check(parsed.program);
  const parts = checkParts(parsed.program);
  const diagnostics: Diagnostic[] = [...parts.schemaDiagnostics];
  for (const collection of parts.checked.collections) diagnostics.push(...parts.bodyDiagnostics.get(collection.node)!);
  expect(plain.diagnostics).toEqual(sortChecked(diagnostics));
  expect([...plain.checked.bindings]).toEqual([...parts.checked.bindings]);
  expect([...plain.checked.types]).toEqual([...parts.checked.types]);
  expect([...plain.checked.calls]).toEqual([...parts.checked.calls]);
  expect([...plain.checked.properties]).toEqual([...parts.checked.properties]);
  return true;
}

const fixtures = [...loadFixtures('schemas'), ...loadFixtures('extensions'), ...loadFixtures('rejected')];

/** Statements that write through values of every kind, read built-ins, and name nothing. */
const snippets = [
  'this.id = "x";',
  'ctx.publicKey = 1;',
  'ctx.publicKey.x = 1;',
  'Math.PI = 3;',
  'Math.x.y = 3;',
  'let k = ctx.publicKey; k.toHex = 1;',
  'this.owner.id = "x";',
  'other.name = "y";',
  'other.items.push(1);',
  'this.tags.push("t");',
  'this.tags[0] = "t";',
  'this.info.city = "c";',
  'let s = "abc"; s[0] = "x";',
  'let n = s.length;',
  'nope.x = 1;',
  'let a = 1; let a = 2;',
  'x = y + 1;',
  'this.f(1);',
  'if (this.zip) { this.zip.x = 1; }',
  'const m = Object.keys(this.limits); m.push("k");',
];

describe('tables filled on demand', () => {
  it('agree with tables filled at once on every fixture', () => {
    let checked = 0;
    for (const fixture of fixtures) if (agree(fixture.text)) checked++;
    expect(checked).toBeGreaterThan(100);
  });

  it('agree on fixtures with statements inserted into their bodies', () => {
    const withBodies = fixtures.flatMap((fixture) => {
      const program = parse(fixture.text).program;
      const starts = (program?.collections ?? []).flatMap((c) => c.items.flatMap((item) => (item.kind === 'function' ? [item.body.span.start + 1] : [])));
      return starts.length === 0 ? [] : [{ text: fixture.text, starts }];
    });
    const foreign = 'collection Other { id: string; name: string; items: number[]; }\n';
    fc.assert(
      fc.property(
        fc.constantFrom(...withBodies),
        fc.nat(),
        fc.array(fc.constantFrom(...snippets), { minLength: 1, maxLength: 3 }),
        fc.boolean(),
        ({ text, starts }, which, inserted, withOther) => {
          const at = starts[which % starts.length]!;
          const mutated = text.slice(0, at) + `\nlet other: Other; ${inserted.join('\n')}\n` + text.slice(at);
          agree(withOther ? foreign + mutated : mutated);
        },
      ),
      { numRuns: 400 },
    );
  });
});
