// Bundles the command line into dist/cli/ with esbuild. Why a bundle: chevrotain imports the lodash-es barrel,
// about 640 modules, which costs Node some 250 ms to resolve and load at every start; bundled, only the
// few functions it uses are left. Every other package stays an import of the installed package (they load
// fast, and some are native or CommonJS). The command modules stay separate chunks, so `vellum check` loads
// neither the server nor the store. What both bundles share is in bundle.mjs.
import { bundle } from './bundle.mjs';

await bundle('cli', ['src/cli/main.ts']);
