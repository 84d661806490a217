// The differential test: every fixture through Polybase (the `@polybase/polylang@0.6.0` parser plus the
// database's schema validation, see polybase.ts) and through Vellum (`checkSchema`), asserting:
//   - every program Polybase accepts, Vellum accepts, unless it is in fixtures/rejected with
//     `reason: polybase-runtime` (Polybase took it, and the mistake only showed when a function ran);
//   - fixtures/schemas are accepted by both;
//   - fixtures/extensions are accepted by Vellum and rejected by Polylang's parser (real extensions);
//   - fixtures/rejected with `reason: both` are rejected by both, and with `reason: polybase-runtime` are
//     accepted by Polybase (so the label is true) and rejected by Vellum.
// Beyond the corpus, generated programs (printed from random ASTs) and randomly edited fixtures check the
// first rule for syntax: whatever Polylang's parser accepts, Vellum's parser accepts.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { checkSchema, parse, print, renderText, type Diagnostic } from '../../src/lang/index.ts';
import { programArb } from './ast-arbitrary.ts';
import { loadFixtures, type Fixture } from './corpus.ts';
import { polybaseVerdict, polylang, type PolybaseVerdict } from './polybase.ts';

const schemas = loadFixtures('schemas');
const extensions = loadFixtures('extensions');
const rejected = loadFixtures('rejected');
const divergent = loadFixtures('divergent');
const all = [...schemas, ...extensions, ...rejected, ...divergent];

const polybase = new Map<string, PolybaseVerdict>();
beforeAll(async () => {
  // One at a time: the parser is a single WebAssembly instance.
  for (const fixture of all) polybase.set(fixture.path, await polybaseVerdict(fixture.text));
});

function vellum(fixture: Fixture): { accepted: boolean; rendered: string } {
  const { diagnostics, source } = checkSchema(fixture.text, fixture.path);
  const errors = diagnostics.filter((d) => d.severity === 'error');
  return { accepted: errors.length === 0, rendered: errors.map((d) => renderText(d, source)).join('\n') };
}

function polybaseOf(fixture: Fixture): PolybaseVerdict {
  const verdict = polybase.get(fixture.path);
  if (!verdict) throw new Error(`no Polybase verdict for ${fixture.path}`);
  return verdict;
}

function describeVerdict(verdict: PolybaseVerdict): string {
  return verdict.accepted ? 'accepted' : `rejected at ${verdict.stage}: ${verdict.message.split('\n')[0]}`;
}

const tally = { bothAccept: 0, bothReject: 0, extensions: 0, polybaseRuntime: 0, gaps: 0, divergent: 0 };

test('every program Polybase accepts, Vellum accepts (unless labelled polybase-runtime)', () => {
  const divergent = all
    .filter((f) => polybaseOf(f).accepted)
    .filter((f) => !(f.set === 'rejected' && f.headers.reason === 'polybase-runtime'))
    .filter((f) => f.set !== 'divergent') // known, reported divergences: see below
    .map((f) => ({ fixture: f, vellum: vellum(f) }))
    .filter(({ vellum }) => !vellum.accepted)
    .map(({ fixture, vellum }) => `${fixture.path}\n${vellum.rendered}`);
  expect(divergent, divergent.join('\n\n')).toEqual([]);
});

describe('fixtures/schemas: accepted by both', () => {
  test.each(schemas.map((f) => [f.name, f] as const))('%s', (_name, fixture) => {
    const verdict = polybaseOf(fixture);
    expect(verdict.accepted, `Polybase: ${describeVerdict(verdict)}`).toBe(true);
    const result = vellum(fixture);
    expect(result.accepted, result.rendered).toBe(true);
    tally.bothAccept++;
  });
});

describe('fixtures/extensions: accepted by Vellum, rejected by Polylang 0.6', () => {
  test.each(extensions.map((f) => [f.name, f] as const))('%s', (_name, fixture) => {
    const verdict = polybaseOf(fixture);
    expect(verdict.accepted ? 'accepted' : verdict.stage, 'Polylang 0.6 must reject it when parsing').toBe('parse');
    const result = vellum(fixture);
    expect(result.accepted, result.rendered).toBe(true);
    tally.extensions++;
  });
});

describe('fixtures/rejected: rejected by Vellum; by Polybase too when labelled both', () => {
  test.each(rejected.map((f) => [f.name, f] as const))('%s', (_name, fixture) => {
    const verdict = polybaseOf(fixture);
    if (fixture.headers.reason === 'both') {
      expect(verdict.accepted, 'labelled "both" but Polybase accepts it').toBe(false);
    } else {
      expect(verdict.accepted, `labelled "polybase-runtime" but Polybase ${describeVerdict(verdict)}`).toBe(true);
    }
    // A known gap (see fixtures.test.ts) is a mistake Vellum does not detect yet.
    if (fixture.headers.gap) return void tally.gaps++;
    expect(vellum(fixture).accepted, 'Vellum accepts it').toBe(false);
    if (fixture.headers.reason === 'both') tally.bothReject++;
    else tally.polybaseRuntime++;
  });
});

// Declared only when there are fixtures: a describe block without tests is an error in vitest.
if (divergent.length > 0) describe('fixtures/divergent: known divergences, accepted by Polybase and still rejected by Vellum', () => {
  test.each(divergent.map((f) => [f.name, f] as const))('%s', (_name, fixture) => {
    const verdict = polybaseOf(fixture);
    expect(verdict.accepted, `Polybase: ${describeVerdict(verdict)}`).toBe(true);
    expect(vellum(fixture).accepted, 'Vellum accepts it now: move it to fixtures/schemas').toBe(false);
    tally.divergent++;
  });
});

test('generated programs: whatever Polylang 0.6 parses, Vellum parses', async () => {
  let polylangAccepted = 0;
  await fc.assert(
    fc.asyncProperty(programArb, async (ast) => {
      const text = print(ast);
      try {
        await polylang.parse(text, 'generated');
      } catch {
        return; // Polylang rejects it (most often: Vellum-only syntax the printer used); nothing to compare
      }
      polylangAccepted++;
      const { diagnostics, source } = parse(text, 'generated.polylang');
      const errors = diagnostics.filter((d) => d.severity === 'error');
      expect(errors.map((d) => renderText(d, source)), text).toEqual([]);
    }),
    { numRuns: 500 },
  );
  // The property means something only if Polylang accepted a fair share of the programs.
  expect(polylangAccepted).toBeGreaterThan(50);
});

// Near-misses: each accepted schema with a small random edit (a character run deleted, a token inserted or
// replaced, a line duplicated or dropped). Many edits break the text for both parsers; the ones Polylang
// still accepts must parse in Vellum too. Allowed exceptions are body errors JavaScript itself rejects
// (Polybase handed each body to V8, so such a schema failed only when its function was called): acorn
// syntax errors (V1008), invalid assignment targets (V1010) and strings JavaScript sees unterminated on their
// line (V1002: a raw line break inside, or a final backslash that escapes the closing quote).
// The seed is fixed so a failure is reproducible.
// Known, reported lexer quirks the edits avoid: Polylang splits `collection_x`, `collection$x` and
// `@delegate$x` into a keyword and an identifier (its keyword-prefix bug, and `$` may only start an
// identifier), and it ends a `//` comment only at `\n`, not at a lone `\r`. A known divergence this test found is kept in fixtures/divergent (destructuring assignment).
const editPieces = [
  ';', ',', '{', '}', '(', ')', '[', ']', '.', '=', '+', '-', '!', '?', ':', '@', '"', "'", ' ', '\n', '\t', 'x', '1',
  '5', '0.', '_', '/', '*', '<', '>', '&', '|', '~', '%', '**', '==', '!=', '+=', '-=', '&&', '||', '//', '/*', '*/',
  'if', 'else', 'let', 'return', 'this', 'while', 'for', 'break', 'throw', 'true', 'in', 'of', 'asc', 'desc', 'map',
  'record', 'bytes', 'PublicKey', 'collection', 'function', '@read', '@index',
];
const edit = fc.record({
  fixture: fc.nat(schemas.length - 1),
  kind: fc.constantFrom('delete', 'insert', 'replace', 'insert twice', 'duplicate line', 'delete line'),
  at: fc.nat(),
  at2: fc.nat(),
  length: fc.integer({ min: 1, max: 8 }),
  piece: fc.constantFrom(...editPieces),
  piece2: fc.constantFrom(...editPieces),
});
type Edit = typeof edit extends fc.Arbitrary<infer T> ? T : never;

function applyEdit(text: string, e: Edit): string {
  const at = e.at % (text.length + 1);
  const lines = text.split('\n');
  const line = e.at % lines.length;
  switch (e.kind) {
    case 'delete':
      return text.slice(0, at) + text.slice(at + e.length);
    case 'insert':
      return text.slice(0, at) + e.piece + text.slice(at);
    case 'replace':
      return text.slice(0, at) + e.piece + text.slice(at + e.length);
    case 'insert twice': {
      const once = text.slice(0, at) + e.piece + text.slice(at);
      const at2 = e.at2 % (once.length + 1);
      return once.slice(0, at2) + e.piece2 + once.slice(at2);
    }
    case 'duplicate line':
      lines.splice(line, 0, lines[line]!);
      return lines.join('\n');
    case 'delete line':
      lines.splice(line, 1);
      return lines.join('\n');
  }
}

function javaScriptRejectsToo(d: Diagnostic, text: string): boolean {
  if (d.code === 'V1008' || d.code === 'V1010') return true;
  return d.code === 'V1002' && !javaScriptStringEndsOnItsLine(text, d.span.start);
}

/** Whether the JavaScript string literal opening at `start` closes before the end of its line. Polylang
 *  had no escapes, so `'a\'` was a whole string to it but is unterminated to JavaScript. */
function javaScriptStringEndsOnItsLine(text: string, start: number): boolean {
  const quote = text[start];
  for (let i = start + 1; i < text.length; i++) {
    const c = text[i];
    if (c === '\n' || c === '\r') return false;
    if (c === '\\') i++;
    else if (c === quote) return true;
  }
  return false;
}

test('edited schemas: whatever Polylang 0.6 parses, Vellum parses (JavaScript syntax errors in bodies aside)', async () => {
  let polylangAccepted = 0;
  await fc.assert(
    fc.asyncProperty(edit, async (e) => {
      const text = applyEdit(schemas[e.fixture]!.text, e)
        .replace(/\r(?!\n)/g, '\n')
        .replace(/(collection|@[a-z]+)(?=[$_0-9])/g, '$1 ');
      try {
        await polylang.parse(text, 'edited');
      } catch {
        return;
      }
      polylangAccepted++;
      const { diagnostics, source } = parse(text, 'edited.polylang');
      // Only the first error counts: what follows a string broken over two lines is a cascade.
      const first = diagnostics.filter((d) => d.severity === 'error').sort((a, b) => a.span.start - b.span.start)[0];
      if (first && !javaScriptRejectsToo(first, text)) expect.fail(`${renderText(first, source)}\n--- text ---\n${text}`);
    }),
    { numRuns: 3000, seed: 20261122 },
  );
  expect(polylangAccepted).toBeGreaterThan(600);
});

afterAll(() => {
  const polybaseAccepted = all.filter((f) => polybase.get(f.path)?.accepted).length;
  console.log(
    `compat: ${all.length} programs; Polybase accepts ${polybaseAccepted}; ` +
      `agreed accept ${tally.bothAccept}/${schemas.length}, agreed reject ${tally.bothReject}, ` +
      `Vellum-only rejections (polybase-runtime) ${tally.polybaseRuntime}, extensions ${tally.extensions}/${extensions.length}, ` +
      `known gaps ${tally.gaps}, known divergences ${tally.divergent}`,
  );
});
