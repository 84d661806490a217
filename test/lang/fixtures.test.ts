// The fixture corpus against Vellum's checker: accepted schemas and extensions check without errors;
// each rejected program fails with the diagnostic code (and line) its header names.
import { describe, expect, test } from 'vitest';
import { catalogue, checkSchema, renderText } from '../../src/lang/index.ts';
import { loadFixtures, type Fixture } from './corpus.ts';

const schemas = loadFixtures('schemas');
const extensions = loadFixtures('extensions');
const rejected = loadFixtures('rejected');
const divergent = loadFixtures('divergent');
const knownCodes = new Set<string>(Object.values(catalogue).map((template) => template.code));

function errorsOf(fixture: Fixture) {
  const result = checkSchema(fixture.text, fixture.path);
  const errors = result.diagnostics.filter((d) => d.severity === 'error');
  return { errors, source: result.source, rendered: errors.map((d) => renderText(d, result.source)).join('\n') };
}

describe('the corpus', () => {
  test('holds at least 80 programs, each with an about header', () => {
    const all = [...schemas, ...extensions, ...rejected, ...divergent];
    expect(all.length).toBeGreaterThanOrEqual(80);
    expect(all.filter((f) => !f.headers.about).map((f) => f.path)).toEqual([]);
  });

  test('every rejected program names a reason and a code from the diagnostics catalogue', () => {
    const bad = rejected
      .filter((f) => !f.headers.reason || !knownCodes.has(f.headers.expect ?? ''))
      .map((f) => `${f.path}: expect ${f.headers.expect ?? '(none)'}, reason ${f.headers.reason ?? '(none)'}`);
    expect(bad).toEqual([]);
  });
});

test('every extension Vellum set out to add (fixtures/README.md) has a fixture in fixtures/extensions', () => {
  const listed = ['escapes in strings', 'record_id', 'string2', 'else if', 'unary minus', '===', '!==', 'const', '*=', '/=',
    'x++', 'for…of over arrays', 'for…of over maps', 'trailing commas'];
  const covered = extensions.map((f) => f.headers.extension ?? '').join('\n');
  expect(listed.filter((extension) => !covered.includes(extension))).toEqual([]);
});

describe.each([
  ['schemas', schemas],
  ['extensions', extensions],
] as const)('fixtures/%s check without errors', (_, fixtures) => {
  test.each(fixtures.map((f) => [f.name, f] as const))('%s', (_name, fixture) => {
    const { errors, rendered } = errorsOf(fixture);
    expect(errors.length, `unexpected errors:\n${rendered}`).toBe(0);
  });
});

describe('fixtures/rejected fail with the expected diagnostic', () => {
  test.each(rejected.filter((f) => !f.headers.gap).map((f) => [f.name, f] as const))('%s', (_name, fixture) => {
    const { errors, source, rendered } = errorsOf(fixture);
    expect(errors.length, 'no error reported').toBeGreaterThan(0);
    const first = errors[0]!;
    const { line } = source.position(first.span.start);
    expect(first.code, `expected ${fixture.headers.expect} first; got:\n${rendered}`).toBe(fixture.headers.expect);
    if (fixture.headers.line !== undefined) {
      expect(line, `expected the error on line ${fixture.headers.line}; got:\n${rendered}`).toBe(fixture.headers.line);
    }
  });
});

// Known divergences (fixtures/divergent): programs Polybase accepted and ran that Vellum rejects. They
// break the compatibility rule; asserting that Vellum still reports the named code keeps them visible,
// and when one is fixed this fails and the file moves to fixtures/schemas.
// (A describe block without tests is an error in vitest, so each is declared only when it has fixtures.)
if (divergent.length > 0) describe('fixtures/divergent: still rejected by Vellum', () => {
  test.each(divergent.map((f) => [f.name, f] as const))('%s', (_name, fixture) => {
    const { errors, rendered } = errorsOf(fixture);
    expect(errors.map((e) => e.code), `accepted now: move it to fixtures/schemas\n${rendered}`).toContain(fixture.headers.expect);
  });
});

// Known gaps (`gap:` header): mistakes the checker does not detect yet. Asserting that they still pass
// keeps the list honest: when the checker learns one, this fails and the header must be removed.
const gaps = rejected.filter((f) => f.headers.gap);
if (gaps.length > 0) describe('known gaps: not detected yet', () => {
  test.each(gaps.map((f) => [f.name, f] as const))('%s', (_name, fixture) => {
    const { errors, rendered } = errorsOf(fixture);
    expect(errors.map((e) => e.code), `now detected, remove the gap header:\n${rendered}`).not.toContain(fixture.headers.expect);
  });
});
