// The whole output of `vellum check` for every rejected fixture, pinned by a baseline per fixture in
// fixtures/check-output/ (as the generated client is pinned by fixtures/codegen/shop.client.ts): a change to any
// error, its position, its code frame or its notes shows up as a diff. After an intended change, accept the new
// output with VELLUM_ACCEPT_BASELINES=1 and review the diff of fixtures/check-output/ before committing.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { checkReport } from '../../src/cli/check.ts';
import { fixturesRoot, loadFixtures } from '../lang/corpus.ts';

const accept = process.env.VELLUM_ACCEPT_BASELINES === '1';
const outputs = join(fixturesRoot, 'check-output');
const rejected = loadFixtures('rejected');

function baselineOf(name: string): string {
  return join(outputs, name.replace(/\.polylang$/, '.txt'));
}

describe('vellum check output per rejected fixture', () => {
  test.each(rejected.map((f) => [f.name, f] as const))('%s', (_name, fixture) => {
    // Paths relative to the repository root, as a user in a clone would type them (vitest runs from there).
    const { output, failed } = checkReport([fixture.path], 'text');
    expect(failed).toBe(!fixture.headers.gap);
    const baseline = baselineOf(fixture.name);
    if (accept) writeFileSync(baseline, output);
    expect(existsSync(baseline), `no baseline: run with VELLUM_ACCEPT_BASELINES=1`).toBe(true);
    expect(output).toBe(readFileSync(baseline, 'utf8'));
  });

  test('every baseline belongs to a fixture', () => {
    const names = new Set(rejected.map((f) => baselineOf(f.name)));
    expect(readdirSync(outputs).map((name) => join(outputs, name)).filter((path) => !names.has(path))).toEqual([]);
  });
});
