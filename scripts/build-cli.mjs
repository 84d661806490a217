// Bundles the command line into dist/cli/ with esbuild. Why a bundle: chevrotain imports the lodash-es barrel,
// about 640 modules, which costs Node some 250 ms to resolve and load at every start; bundled, only the
// few functions it uses are left. commander is bundled in too: loaded as a package, its CommonJS files are
// resolved, compiled and scanned for their exports one by one at every start. Its `require`s of Node's modules
// need a `require` in an ES module, which the banner makes. Every other package stays an import of the installed
// package (they load fast, some are native, and `vellum check` loads none of them). The command modules stay
// separate chunks, so `vellum check` loads neither the server nor the store. Whitespace and syntax are minified as
// in the library's bundle (names are kept: messages and stack traces show them). What both bundles share is in
// bundle.mjs.
import { bundle } from './bundle.mjs';

// commander requires node:child_process when it loads, for executable subcommands (vellum has none), and Node loads
// net, dgram and the streams with it: about 12 ms of CPU at every start. In the bundle, that require gives an object
// that loads child_process when one of its members is first read.
const childProcessOnFirstUse = {
  name: 'child-process-on-first-use',
  setup(build) {
    build.onResolve({ filter: /^node:child_process$/ }, ({ importer }) =>
      importer.includes('/node_modules/commander/') ? { path: 'child_process', namespace: 'on-first-use' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'on-first-use' }, () => ({
      contents: "let loaded; module.exports = new Proxy({}, { get: (_, name) => (loaded ??= require('node:child_process'))[name] });",
      loader: 'js',
    }));
  },
};

await bundle('cli', ['src/cli/main.ts'], {
  inline: ['commander'],
  plugins: [childProcessOnFirstUse],
  banner: { js: "import { createRequire as createRequireForBundle } from 'node:module'; const require = createRequireForBundle(import.meta.url);" },
  minifyWhitespace: true,
  minifySyntax: true,
});
