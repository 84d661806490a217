// Compiling a function is linear in the size of its body. Fast paths that try a special shape and fall back
// to the general one once compiled the same subtree twice per level, so a 25-link chain like
// `'a'.length.toString().length…` took seconds and a 300-link one never finished: a schema could hang the
// process. Each case here is deep enough that the old doubling would not finish within the test timeout.
import { describe, expect, it } from 'vitest';
import { checkSchema, compileCollection, execute, hasErrors } from '../../src/index.ts';

function run(body: string, returnType: string): unknown {
  const text = `@public collection Deep {
  id: string;
  xs: number[];
  constructor (id: string) { this.id = id; this.xs = []; }
  probe (): ${returnType} { ${body} }
}`;
  const checked = checkSchema(text);
  if (hasErrors(checked.diagnostics)) throw new Error(checked.diagnostics.map((d) => d.message).join('\n'));
  const collection = compileCollection(checked, 'Deep');
  const result = execute(collection, 'probe', { id: 'd', xs: [] }, []);
  if (!result.ok) throw new Error(result.error.message);
  return result.transition.returnValue;
}

describe('compile time is linear in the depth of an expression', () => {
  it('a 90-link chain of members and method calls', () => {
    // (300 links, as before, nest deeper than the parser takes: MAX_TREE_DEPTH, see nesting.test.ts.)
    const chain = "'abc'" + '.length.toString()'.repeat(90);
    expect(run(`return ${chain};`, 'string')).toBe('1');
  });

  it('150 nested single-argument calls', () => {
    const nested = 'Math.abs('.repeat(150) + '-7' + ')'.repeat(150);
    expect(run(`return ${nested};`, 'number')).toBe(7);
  });

  it('a 150-deep chain of index expressions under a comparison', () => {
    const chain = 'm' + '[0]'.repeat(150);
    const init = 'let m = ' + '['.repeat(150) + '42' + ']'.repeat(150) + ';';
    // A comparison is first tried as a fast shape; its operands must still be compiled only once.
    expect(run(`${init} if (${chain} < 43) { return ${chain}; } return 0;`, 'number')).toBe(42);
  });

  it('push onto a receiver reached through a long chain', () => {
    const receiver = 'let a = [' + '['.repeat(100) + ']'.repeat(100) + ']; a' + '[0]'.repeat(100);
    expect(run(`${receiver}.push(1); return 1;`, 'number')).toBe(1);
  });
});
