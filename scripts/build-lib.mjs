// Bundles the library into dist/lib/ with esbuild: one entry per export of package.json (`vellum`,
// `vellum/testing`, `vellum/client`) and chunks they share. Why a bundle: a program that imports the library
// should start fast. Loaded file by file (tsc's output), its ~190 modules cost Node about 250 ms to resolve and
// compile, and chevrotain alone (it imports the lodash-es barrel, about 640 modules) another 250 ms; bundled,
// chevrotain inlined and tree-shaken, importing `vellum` costs a few tens of ms over bare Node. Every other
// package stays an import of the installed package (some are native or CommonJS), and those only a server or a
// store needs are loaded when first used (createRequire in the modules that use them).
//
// tsc writes the declarations (dist/**/*.d.ts, tsconfig.build.json); the code is only this bundle. The bundle
// is one folder below dist/, as the modules it comes from are below src/, so paths made from import.meta.url
// (the explorer's files, the worker threads copied beside it) hold.
import { bundle } from './bundle.mjs';

await bundle('lib', { index: 'src/index.ts', testing: 'src/testing/index.ts', client: 'src/client/index.ts' }, {
  // Whitespace and syntax only: renamed identifiers would change the names of classes and functions.
  minifyWhitespace: true,
  minifySyntax: true,
});
