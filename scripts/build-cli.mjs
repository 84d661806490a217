// Bundles the command line into dist/cli/ with esbuild. Why a bundle: chevrotain imports the lodash-es barrel,
// about 640 modules, which costs Node some 250 ms to resolve and load at every start; bundled, only the
// few functions it uses are left. Every other package stays an import of the installed package (they load
// fast, and some are native or CommonJS). The command modules stay separate chunks, so `vellum check` loads
// neither the server nor the store.
//
// Every file of the bundle is written to dist/cli/ itself, so the worker threads, which the service and the
// store start with `new URL('./…-worker.js', import.meta.url)`, are copied there too.
import { copyFileSync, readFileSync, rmSync } from 'node:fs';
import { build } from 'esbuild';

const root = new URL('../', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
const bundled = new Set(['chevrotain']);
const external = Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies }).filter((name) => !bundled.has(name));
const outdir = new URL('dist/cli/', root);

rmSync(outdir, { recursive: true, force: true });
await build({
  absWorkingDir: new URL('.', root).pathname,
  entryPoints: ['src/cli/main.ts'],
  outdir: 'dist/cli',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  // The maps point into src/, which the package ships; the sources themselves are not copied into them.
  sourcesContent: false,
  external: [...external, ...external.map((name) => `${name}/*`)],
  logLevel: 'warning',
});
for (const worker of ['auth/recovery-worker.js', 'store/checkpoint-worker.js']) {
  copyFileSync(new URL(`src/${worker}`, root), new URL(worker.split('/')[1], outdir));
}
