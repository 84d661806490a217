// The host stack an execution uses grows with how deeply the code running nests, summed over the calls in
// progress. A body nesting 990 unary minuses around `this.f()` overflowed the stack 11 calls deep on one machine
// and not on another (a smaller `--stack-size`): the runtime now counts that nesting against a fixed budget
// (MAX_NESTING_LEVELS), so a call succeeds or fails the same way on every machine.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MAX_TREE_DEPTH } from '../../src/lang/index.ts';
import { CALL_NESTING_LEVELS, MAX_NESTING_LEVELS } from '../../src/runtime/limits.ts';
import { NESTED_BODIES, boundaryOf, runNested } from './nesting-cases.ts';

const LIMIT = /^function\/limit-exceeded: nesting limit exceeded: the calls in progress would nest statements and expressions \d+ levels deep, more than 1250 /;

describe('the nesting budget', () => {
  it('stops deep nesting times deep recursion with function/limit-exceeded, naming the budget', () => {
    expect(MAX_NESTING_LEVELS).toBe(1250);
    for (const body of Object.values(NESTED_BODIES)) expect(runNested(body, 100_000)).toMatch(LIMIT);
  });

  it('counts each call, where it is made and how deep the function called nests: the boundary follows from the program', () => {
    // block 1, return 2, 250 minuses, the call 3: the call is at level 255, and the body's deepest node (`n` in
    // `n - 1`) at 257. Each nested call adds CALL_NESTING_LEVELS + 255; the entry call only CALL_NESTING_LEVELS.
    const perCall = CALL_NESTING_LEVELS + 255;
    const deepest = Math.floor((MAX_NESTING_LEVELS - CALL_NESTING_LEVELS - 257) / perCall);
    const unary = NESTED_BODIES.unary!;
    expect(deepest).toBe(3);
    expect(runNested(unary, deepest)).toBe('ok 1'); // 250 minuses: an even number
    expect(runNested(unary, deepest + 1)).toMatch(LIMIT);
  });

  it('a body nesting deeper than the parser takes is a diagnostic, not a run', () => {
    expect(runNested(`${'if (n > 0) '.repeat(MAX_TREE_DEPTH)}return 1; return 0;`, 1)).toBe(
      `check: nesting too deep: at most ${MAX_TREE_DEPTH} levels of statements and expressions`,
    );
  });

  it('leaves ordinary recursion to the call depth limit', () => {
    expect(runNested(NESTED_BODIES.shallow!, 99)).toBe('ok 99');
  });

  it('gives the same outcomes under a stack half the size of Node\'s default', () => {
    const here = Object.fromEntries(Object.entries(NESTED_BODIES).map(([name, body]) => [name, boundaryOf(body)]));
    const script = fileURLToPath(new URL('./nesting-cases.ts', import.meta.url));
    const child = spawnSync(process.execPath, ['--stack-size=500', '--import', 'tsx', script], { encoding: 'utf8', timeout: 50_000 });
    expect(child.status, child.stderr.slice(0, 2000)).toBe(0);
    expect(JSON.parse(child.stdout)).toEqual(here);
    for (const { beyond } of Object.values(here)) expect(beyond).toMatch(LIMIT);
  });
});
