// The tests StrykerJS runs against each mutant (`npm run mutation`, see mutation/README.md): the example-based
// tests aimed at the typing rules, gas and operations. The property tests, fuzzers and corpus runs are left out:
// each of them covers every line, so Stryker would run them for every mutant and a run would take hours on two
// cores. Add a file here when it tests a mutated file.
import { defineConfig } from 'vitest/config';
import base from '../vitest.config.ts';

export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: [
      'test/lang/{checker,for-in,sized-numbers,type-rules,typed-let}.test.ts',
      'test/runtime/{execute,gas-schedule,later-builtins,limits,mutation-gaps}.test.ts',
    ],
  },
});
