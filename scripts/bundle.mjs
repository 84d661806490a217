// What the library's and the command line's bundles share (build-lib.mjs, build-cli.mjs): esbuild over src/ into
// one folder of dist/, chevrotain inlined (it imports the lodash-es barrel, about 640 modules that Node would
// otherwise resolve and load at every start), every other package left an import of the installed package (some
// are native or CommonJS), and the worker threads copied beside the bundle, since the service and the store start
// them with `new URL('./…-worker.js', import.meta.url)`.
import { copyFileSync, readFileSync, rmSync } from 'node:fs';
import { build } from 'esbuild';

const root = new URL('../', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
const dependencies = Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies });

/** Bundles `entryPoints` into `dist/<folder>/` (emptied first). `inline`: packages bundled in besides chevrotain;
 *  `options` are esbuild's, added to the shared ones. */
export async function bundle(folder, entryPoints, { inline = [], ...options } = {}) {
  const bundled = new Set(['chevrotain', ...inline]);
  const external = dependencies.filter((name) => !bundled.has(name));
  const outdir = new URL(`dist/${folder}/`, root);
  rmSync(outdir, { recursive: true, force: true });
  await build({
    absWorkingDir: new URL('.', root).pathname,
    entryPoints,
    outdir: `dist/${folder}`,
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
    ...options,
  });
  for (const worker of ['auth/recovery-worker.js', 'store/checkpoint-worker.js']) {
    copyFileSync(new URL(`src/${worker}`, root), new URL(worker.split('/')[1], outdir));
  }
}
