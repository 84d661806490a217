// The language server checks each version of a document from the previous one (src/lsp/incremental.ts). Over
// random sequences of edits to fixtures, each result must equal a full checkSchema of the same text: the same
// diagnostics, the same tree, and the same side tables (the type of every expression, what every name resolves
// to, which collection every type names), which hover, definition and references read.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkSchema, typeToString, type CheckSchemaResult } from '../../src/lang/index.ts';
import { checkIncrementally, type IncrementalResult } from '../../src/lsp/incremental.ts';
import { loadFixtures } from '../lang/corpus.ts';

/** Collections that name each other in chains (a field typed with the next, a parameter with the previous). */
function chained(count: number): string {
  return Array.from(
    { length: count },
    (_, i) => `/// Link ${i}.
collection Link${i} {
  id: string;
  size: number;
  next?: Link${(i + 1) % count};

  constructor (id: string, size: number) {
    this.id = id;
    this.size = size;
  }

  grow (by: number): number {
    this.size += by;
    return this.size;
  }

  follow (other: Link${(i + count - 1) % count}) {
    if (other.size > this.size) { this.size = other.size; }
  }
}
`,
  ).join('\n');
}

const accepted = loadFixtures('schemas').map((f) => f.text);
const rejected = loadFixtures('rejected').map((f) => f.text);
/** Mostly schemas of several collections (where an edit can stay inside one), some single fixtures. */
const startingText = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(chained(4), chained(3), accepted.slice(0, 3).join('\n'), accepted.slice(10, 14).join('\n'), accepted.slice(20, 30).join('\n')) },
  { weight: 1, arbitrary: fc.constantFrom(...accepted, ...rejected) },
);

const snippets = ['x', '1', ' ', '!', ';', 'this.', 'size', 'Link0', 'Link1', 'next', 'number', 'string', '?', '}', '{', "'s'", 'return 1;', 'let y = 2;', 'id'];

type Edit =
  | { kind: 'insert'; at: number; snippet: string }
  | { kind: 'delete'; at: number; length: number }
  | { kind: 'word'; at: number; with: number }
  | { kind: 'undo' };

const edit: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), snippet: fc.constantFrom(...snippets) }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 6 }) }),
  fc.record({ kind: fc.constant('word' as const), at: fc.nat(), with: fc.nat() }),
  // Back to the last text that checked (as an author does after a typo), so that sequences go on from there.
  fc.constant({ kind: 'undo' as const }),
);

/** Applies an edit; a `word` edit replaces one name of the text by another name the text uses. */
function apply(text: string, e: Edit, lastChecked: string): string {
  if (e.kind === 'undo') return lastChecked;
  const at = e.at % (text.length + 1);
  if (e.kind === 'insert') return text.slice(0, at) + e.snippet + text.slice(at);
  if (e.kind === 'delete') return text.slice(0, at) + text.slice(at + e.length);
  const words = [...text.matchAll(/[A-Za-z_$][\w$]*/g)];
  if (words.length === 0) return text;
  const target = words[e.at % words.length]!;
  const replacement = words[e.with % words.length]![0];
  return text.slice(0, target.index) + replacement + text.slice(target.index + target[0].length);
}

/** What hover, definition and references read of a result, by place rather than by node. */
function tables(result: CheckSchemaResult): unknown {
  const checked = result.checked;
  if (!checked) return undefined;
  const at = (node: { span: { start: number; end: number } }) => `${node.span.start}-${node.span.end}`;
  const sorted = (entries: string[]) => entries.sort();
  const { resolution } = checked;
  return {
    collections: checked.collections.map((c) => [c.name, at(c.node), c.fields.map((f) => `${f.name}:${typeToString(f.type)}`)]),
    types: sorted([...checked.types].map(([e, t]) => `${at(e)} ${e.kind} ${typeToString(t)}`)),
    bindings: sorted([...checked.bindings].map(([e, b]) => `${at(e)} ${b.kind}`)),
    calls: sorted([...checked.calls].map(([e, c]) => `${at(e)} ${c.kind} ${c.kind === 'function' ? c.function.name : c.builtin.name}`)),
    properties: sorted([...checked.properties].map(([e, b]) => `${at(e)} ${b.name}`)),
    uses: sorted([...resolution.uses].map(([e, r]) => `${at(e)} ${r.kind} ${'local' in r ? `${r.local.name}@${at(r.local.node)}#${r.local.slot}` : ''}`)),
    declared: sorted([...resolution.declared].map(([node, local]) => `${at(node)} ${local.name}#${local.slot}`)),
    visibleAt: sorted([...resolution.visibleAt].map(([e, names]) => `${at(e)} ${names().join(',')}`)),
    members: sorted([...resolution.members].map(([e, m]) => `${at(e)} ${at(m)}`)),
    functions: sorted([...resolution.functions].map(([fn, r]) => `${at(fn)} ${r.slotCount}`)),
    typeReferences: sorted([...resolution.typeReferences].map(([name, c]) => `${at(name)} ${at(c)}`)),
    fieldReferences: sorted([...resolution.fieldReferences].map(([name, f]) => `${at(name)} ${at(f)}`)),
  };
}

describe('incremental checking in the language server', () => {
  it('equals a full check after every edit of random edit sequences', () => {
    // How many edits were checked incrementally (the new result keeps the old side tables): the property
    // must exercise that path, not only the full check it falls back to.
    let edited = 0;
    let incremental = 0;
    fc.assert(
      fc.property(startingText, fc.array(edit, { minLength: 1, maxLength: 12 }), (start, edits) => {
        let text = start;
        let lastChecked = start;
        let result: IncrementalResult = checkIncrementally(undefined, text, 'test.polylang');
        for (const e of edits) {
          text = apply(text, e, lastChecked);
          const before = result.checked?.types;
          result = checkIncrementally(result, text, 'test.polylang');
          edited++;
          if (before !== undefined && result.checked?.types === before) incremental++;
          const full = checkSchema(text, 'test.polylang');
          expect(result.diagnostics).toEqual(full.diagnostics);
          expect(result.program).toEqual(full.program);
          expect(tables(result)).toEqual(tables(full));
          if (full.checked) lastChecked = text;
        }
      }),
      { numRuns: 100 },
    );
    expect(incremental / edited).toBeGreaterThan(0.1);
  });

  it('re-parses and re-checks only the edited collection when an edit stays inside a body', () => {
    const text = chained(5);
    const first = checkIncrementally(undefined, text);
    const at = text.indexOf('this.size += by', text.indexOf('collection Link2'));
    const second = checkIncrementally(first, text.slice(0, at) + 'this.size += by + 1' + text.slice(at + 'this.size += by'.length));
    expect(second.reusable).toBeDefined();
    // Untouched collections keep their nodes: the ones after the edit moved in place.
    expect(second.program!.collections[1]).toBe(first.program!.collections[1]);
    expect(second.program!.collections[3]).toBe(first.program!.collections[3]);
    expect(second.program!.collections[2]).not.toBe(first.program!.collections[2]);
    expect(second.program!.collections[3]!.span.start).toBe(checkSchema(second.text).program!.collections[3]!.span.start);
    expect(second.diagnostics).toEqual([]);
  });
});
