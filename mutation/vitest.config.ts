// The tests StrykerJS runs against each mutant (`npm run mutation`, see mutation/README.md): the example-based
// tests aimed at the typing rules, the body and schema checks, gas and operations. The property tests, fuzzers and
// corpus runs are left out: each of them covers every line, so Stryker would run them for every mutant and a run
// would take hours on two cores. Add a file here when it tests a mutated file.
//
// MUTATION_TESTS (globs separated by spaces) narrows the set for a piecewise run of one file, e.g.
// `MUTATION_TESTS='test/lang/schema-rules.test.ts' npx stryker run --mutate src/lang/schema-rules.ts --concurrency 1`.
import { defineConfig } from 'vitest/config';
import base from '../vitest.config.ts';

const tests = [
  'test/lang/{body-calls,body-rules,body-statements,body-targets,builtins,checker,contract,for-in,key-literal,migrate,private,schema-rule-cases,schema-rules,search-rules,sized-numbers,type-rules,typed-let}.test.ts',
  'test/runtime/{builtins,errors,execute,fast-paths,gas-schedule,later-builtins,limits,mutation-gaps,slow-paths}.test.ts',
];

export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: process.env.MUTATION_TESTS ? process.env.MUTATION_TESTS.split(/\s+/).filter(Boolean) : tests,
  },
});
