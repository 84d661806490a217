// The parser never throws, hangs or overflows the stack, whatever the input: random text, token soup,
// mutated and truncated real schemas, absurd nesting and a very large schema all give a ParseResult.

import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hasErrors } from '../../src/lang/diagnostics.ts';
import { parse, type ParseResult } from '../../src/lang/parse.ts';
import { renderText } from '../../src/lang/render.ts';

const schemaDirectory = new URL('../../fixtures/schemas/', import.meta.url);
const schemas = readdirSync(schemaDirectory)
  .filter((name) => name.endsWith('.polylang'))
  .sort()
  .map((name) => readFileSync(new URL(name, schemaDirectory), 'utf8'));

/** Parses and checks what every result must satisfy. */
function parseChecked(text: string): ParseResult {
  const result = parse(text);
  for (const d of result.diagnostics) {
    expect(d.span.start).toBeGreaterThanOrEqual(0);
    expect(d.span.end).toBeGreaterThanOrEqual(d.span.start);
    expect(d.span.end).toBeLessThanOrEqual(text.length);
    expect(d.message.length).toBeGreaterThan(0);
    expect(typeof renderText(d, result.source)).toBe('string');
  }
  if (result.program === undefined) expect(hasErrors(result.diagnostics)).toBe(true);
  return result;
}

const vocabulary = [
  'collection', 'function', 'constructor', 'map', 'string', 'number', 'PublicKey', 'record', 'id', 'x', '@public',
  '@read', '@call', '@delegate', '@index', '@private', '{', '}', '(', ')', '[', ']', '<', '>', ',', ';', ':', '?', '.',
  '=', '==', '===', '+', '-', '!', '&&', '=>', "'s'", '"t"', '`u`', '1', '0x1f', '/re/', '//c\n', '/*c*/', 'let', 'const',
  'if', 'else', 'for', 'of', 'in', 'while', 'return', 'this', 'new', '\n', 'ż', '\u0000', "'", '"', '`', '/*',
];

describe('parse never throws', () => {
  it('on random text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
        parseChecked(text);
      }),
      { numRuns: 300 },
    );
  });

  it('on random sequences of schema tokens', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...vocabulary), { maxLength: 80 }), (words) => {
        parseChecked(words.join(' '));
        parseChecked(`collection A { f() { ${words.join(' ')} } }`);
        parseChecked(`collection A { ${words.join('')} }`);
      }),
      { numRuns: 300 },
    );
  });

  it('on random mutations of real schemas', () => {
    const edit = fc.record({
      at: fc.nat(),
      remove: fc.nat({ max: 8 }),
      insert: fc.oneof(fc.constantFrom(...vocabulary), fc.string({ unit: 'binary', maxLength: 3 })),
    });
    fc.assert(
      fc.property(fc.constantFrom(...schemas), fc.array(edit, { minLength: 1, maxLength: 5 }), (schema, edits) => {
        let text = schema;
        for (const { at, remove, insert } of edits) {
          const position = at % (text.length + 1);
          text = text.slice(0, position) + insert + text.slice(position + remove);
        }
        parseChecked(text);
      }),
      { numRuns: 300 },
    );
  });

  it('on every truncation of a real schema', () => {
    fc.assert(
      fc.property(fc.constantFrom(...schemas), fc.nat(), (schema, cut) => {
        parseChecked(schema.slice(0, cut % (schema.length + 1)));
      }),
      { numRuns: 300 },
    );
  });

  it('parses every fixture schema without diagnostics', () => {
    for (const schema of schemas) expect(parseChecked(schema).diagnostics).toEqual([]);
  });
});

describe('absurd nesting gives a diagnostic, not a crash', () => {
  const N = 10_000;
  const inBody = (body: string) => parseChecked(`collection A {\n  f() {\n    ${body}\n  }\n  g() { return 1; }\n}`);

  function expectNestingDiagnostic(result: ParseResult): void {
    expect(result.diagnostics.map((d) => d.code)).toContain('V1011');
  }

  it.each([
    ['braces', `${'{'.repeat(N)}${'}'.repeat(N)}`],
    ['parentheses', `let x = ${'('.repeat(N)}1${')'.repeat(N)};`],
    ['brackets', `let x = ${'['.repeat(N)}${']'.repeat(N)};`],
    ['unclosed parentheses', `let x = ${'('.repeat(N)}`],
    ['if chains', `${'if (x) '.repeat(N)}y();`],
    ['else-if chains', `if (x) {}${' else if (x) {}'.repeat(N)}`],
    ['unary operators', `let x = ${'!'.repeat(N)}y;`],
    ['binary operators', `let x = ${'a + '.repeat(N * 10)}a;`],
    ['member chains', `let x = a${'.b'.repeat(N * 10)};`],
    ['assignment chains', `${'a = '.repeat(N)}1;`],
  ])('in a body: %s', (_, body) => {
    const result = inBody(body);
    expectNestingDiagnostic(result);
    // The function after the deep one is still there.
    expect(result.program?.collections[0]?.items.map((item) => item.kind)).toEqual(['function', 'function']);
  });

  it('in map types', () => {
    expectNestingDiagnostic(parseChecked(`collection A { m: ${'map<string, '.repeat(N)}number${'>'.repeat(N)}; }`));
  });

  it('in object types', () => {
    expectNestingDiagnostic(parseChecked(`collection A { o: ${'{ a: '.repeat(N)}number${'; }'.repeat(N)}; }`));
  });

  it('in unclosed structure', () => {
    expectNestingDiagnostic(parseChecked(`collection A { m: ${'map<'.repeat(N)}`));
    expectNestingDiagnostic(parseChecked(`collection A { o: ${'{ a: '.repeat(N)}`));
  });
});

describe('long lines of body text that look like regular expressions', () => {
  // Each would take minutes if every `/` rescanned the rest of the line.
  it.each(['/[', '/\\', '=/'])('%s repeated 200,000 times', (unit) => {
    const result = parseChecked(`collection A { f() { x = ${unit.repeat(200_000)} } }`);
    expect(result.diagnostics.length).toBeGreaterThan(0);
  });
});

describe('many problems', () => {
  it('reports 100,000 unsupported constructs in one body and 100,000 declarations in one statement', () => {
    const many = parseChecked(`collection A { f() { ${'x = new X();\n'.repeat(100_000)} } }`);
    expect(many.diagnostics).toHaveLength(100_000);
    const declarations = Array.from({ length: 100_000 }, (_, i) => `a${i} = ${i}`).join(', ');
    const wide = parseChecked(`collection A { f() { let ${declarations}; } }`);
    expect(wide.diagnostics).toEqual([]);
    const fn = wide.program!.collections[0]!.items[0];
    expect(fn?.kind === 'function' && fn.body.body.length).toBe(100_000);
  });
});

describe('size', () => {
  it('parses a ~5 MB schema', () => {
    const parts: string[] = [];
    let size = 0;
    for (let i = 0; size < 5_000_000; i++) {
      const schema = schemas[i % schemas.length]!.replace(/collection (\w+)/g, (_, name: string) => `collection ${name}${i}`);
      parts.push(schema);
      size += schema.length + 1;
    }
    const text = parts.join('\n');
    const result = parseChecked(text);
    expect(result.diagnostics).toEqual([]);
    const expected = parts.reduce((count, part) => count + (part.match(/^\s*(@\w+\s*)*collection /gm)?.length ?? 0), 0);
    expect(result.program!.collections.length).toBe(expected);
  });
});
