// The formatter (`vellum fmt`): one canonical layout with every comment kept. Properties, over every fixture that
// parses and over generated schemas with comments sprinkled in: formatting twice changes nothing, and the formatted
// schema has the same tree, the same stable AST (but for Polybase's `code`, the body text itself) and the same
// diagnostics as the original.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkSchema, formatSchema, parse, print, toStableAst, type Program } from '../../src/lang/index.ts';
import { scanComments } from '../../src/lang/comments.ts';
import { programArb } from './ast-arbitrary.ts';
import { stripSpans } from './strip-spans.ts';

function formatted(text: string): string {
  const result = formatSchema(text, 'x.polylang');
  if (result.formatted === undefined) throw new Error(`does not parse: ${JSON.stringify(result.diagnostics)}`);
  return result.formatted;
}

function stableWithoutCode(program: Program, text: string) {
  return toStableAst(program, text, 'ns').map((collection) => ({
    ...collection,
    attributes: collection.attributes.map((a) => (a.kind === 'method' ? { ...a, code: '' } : a)),
  }));
}

function diagnosticsOf(text: string) {
  return checkSchema(text, 'x.polylang').diagnostics.map((d) => `${d.severity} ${d.code} ${d.message}`);
}

/** The comments' words, in order: what formatting must keep (it may move and re-indent them). */
function commentWords(text: string): string[] {
  return scanComments(text).flatMap((c) => c.text.split(/\s+/).filter((w) => w !== '' && w !== '*'));
}

function assertFormatProperties(text: string): void {
  const once = formatted(text);
  expect(formatted(once), 'formatting twice changes nothing').toBe(once);
  const before = parse(text).program!;
  const after = parse(once).program!;
  expect(stripSpans(after)).toEqual(stripSpans(before));
  expect(stableWithoutCode(after, once)).toEqual(stableWithoutCode(before, text));
  expect(diagnosticsOf(once)).toEqual(diagnosticsOf(text));
  expect(commentWords(once)).toEqual(commentWords(text));
}

describe('the layout', () => {
  it('prints the canonical layout and keeps every comment at its place', () => {
    const text = [
      '// header',
      '@public // everyone reads',
      'collection Account {',
      '  /// the key',
      '  id   :string; // trailing',
      '  /* balance',
      '        in cents */',
      '  balance: number;',
      '  constructor(id: string) { // makes one',
      '    this.id = id; this.balance = 0; // zero',
      '    if (id == "x") {',
      '      // nothing',
      '    }',
      '    /* end */',
      '  }',
      '}',
      '// end of file',
      '',
    ].join('\n');
    expect(formatted(text)).toBe(
      [
        '// header',
        '// everyone reads',
        '@public',
        'collection Account {',
        '  /// the key',
        '  id: string; // trailing',
        '  /* balance',
        '     in cents */',
        '  balance: number;',
        '',
        '  constructor (id: string) {',
        '    // makes one',
        '    this.id = id;',
        '    this.balance = 0; // zero',
        "    if (id == 'x') {",
        '      // nothing',
        '    }',
        '    /* end */',
        '  }',
        '}',
        '',
        '// end of file',
        '',
      ].join('\n'),
    );
  });

  it('formats nothing with syntax errors, and says why', () => {
    const result = formatSchema('collection A {\n  id: string\n}\n', 'a.polylang');
    expect(result.formatted).toBeUndefined();
    expect(result.diagnostics.map((d) => d.code)).toEqual(['V1013']);
  });
});

function polylangFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.polylang'))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

const fixtureRoot = new URL('../../fixtures/', import.meta.url).pathname;
const parseable = polylangFiles(fixtureRoot).filter((file) => formatSchema(readFileSync(file, 'utf8')).formatted !== undefined);

describe('every fixture that parses', () => {
  it('there are many', () => expect(parseable.length).toBeGreaterThan(150));
  it.each(parseable.map((file) => [file.slice(fixtureRoot.length), file]))('%s', (_name, file) => {
    assertFormatProperties(readFileSync(file, 'utf8'));
  });
});

describe('generated schemas with comments', () => {
  // Comments go before any line, after any line, or as block comments at line ends: places a person may put them.
  const commented = programArb.chain((program) => {
    const lines = print(program).split('\n');
    return fc
      .array(fc.tuple(fc.nat(lines.length), fc.constantFrom('own', 'line', 'block')), { maxLength: 8 })
      .map((places) => {
        const out = [...lines];
        places
          .sort((a, b) => b[0] - a[0])
          .forEach(([at, kind], i) => {
            if (kind === 'own') out.splice(at, 0, `// own ${i}`);
            // (a `//` comment ends the line: nothing may follow it there)
            else if (at < out.length && !out[at]!.includes('//')) out[at] += kind === 'line' ? ` // line ${i}` : ` /* block\n ${i} */`;
          });
        return out.join('\n');
      });
  });

  it('keep the properties', () => {
    fc.assert(fc.property(commented, (text) => assertFormatProperties(text)), { numRuns: 300 });
  });
});
