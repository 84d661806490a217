// Bodies that nest deeply around a recursive `this.f(n - 1)`, one of each costly kind of node, and what
// executing them gives: shared by nesting.test.ts, which runs them in its own process and in a child process
// with a much smaller stack (`node --stack-size=…`), where they must give exactly the same outcomes.
import { checkSchema, compileCollection, execute, hasErrors } from '../../src/index.ts';

export const NESTED_BODIES: Record<string, string> = {
  unary: `if (n <= 0) { return 1; } return ${'- '.repeat(250)}this.f(n - 1);`,
  // Near the parser's MAX_TREE_DEPTH (300): the checker and the compiler must not overflow either.
  statements: `if (n <= 0) { return 1; } ${'if (n > 0) '.repeat(294)}return this.f(n - 1); return 0;`,
  loops: `if (n <= 0) { return 1; } let a = [1]; ${'for (const v of a) '.repeat(120)}${'for (let i = 0; i < 1; i++) '.repeat(120)}return this.f(n - 1); return 0;`,
  builtinCalls: `if (n <= 0) { return 1; } return ${'Math.abs('.repeat(190)}this.f(n - 1)${')'.repeat(190)};`,
  methodCalls: `if (n <= 0) { return 1; } return ${"'a'.concat(".repeat(190)}this.f(n - 1).toString()${')'.repeat(190)}.length;`,
  binaryChain: `if (n <= 0) { return 1; } return this.f(n - 1)${' + 1'.repeat(280)};`,
  shallow: `if (n <= 0) { return 0; } return this.f(n - 1) + 1;`,
};

/** The outcome of `f(n)`: the return value, or the error's reason and message. Call depth is not the limit here. */
export function runNested(body: string, n: number): string {
  const text = `@public collection Deep { id: string; constructor (id: string) { this.id = id; } f (n: number): number { ${body} } }`;
  const checked = checkSchema(text);
  if (hasErrors(checked.diagnostics)) return `check: ${checked.diagnostics[0]!.message}`;
  const result = execute(compileCollection(checked, 'Deep'), 'f', { id: 'd' }, [n], {}, { maxCallDepth: 100_000, gas: 1_000_000_000 });
  return result.ok ? `ok ${String(result.transition.returnValue)}` : `${result.error.reason}: ${result.error.message}`;
}

/** The largest n for which f(n) succeeds, and the outcome of f at one more. */
export function boundaryOf(body: string): { deepest: number; beyond: string } {
  let low = 0;
  let high = 100_000;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (runNested(body, middle).startsWith('ok')) low = middle;
    else high = middle - 1;
  }
  return { deepest: low, beyond: runNested(body, low + 1) };
}

// Run as a script (by nesting.test.ts): prints every case's boundary as JSON.
if (process.argv[1]?.endsWith('nesting-cases.ts')) {
  const outcomes = Object.fromEntries(Object.entries(NESTED_BODIES).map(([name, body]) => [name, boundaryOf(body)]));
  process.stdout.write(JSON.stringify(outcomes));
}
