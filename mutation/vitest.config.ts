// The tests StrykerJS runs against each mutant (`npm run mutation`, see mutation/README.md): the example-based
// tests of the checker and the runtime. The property tests, fuzzers and corpus runs are left out: each of them
// covers every line, so Stryker would run them for every mutant and a run would take hours on two cores.
import { defineConfig } from 'vitest/config';
import base from '../vitest.config.ts';

export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: [
      'test/lang/{body,builtins,checker,contract,for-in,key-literal,private,schema-rules,sized-numbers,typed-let,types}.test.ts',
      'test/runtime/{builtins,cast-record,errors,execute,fast-paths,gas-schedule,later-builtins,limits,mutation-gaps,sized-arithmetic}.test.ts',
    ],
  },
});
