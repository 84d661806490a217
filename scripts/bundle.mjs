// What the library's and the command line's bundles share (build-lib.mjs, build-cli.mjs): esbuild over src/ into
// one folder of dist/, chevrotain inlined (it imports the lodash-es barrel, about 640 modules that Node would
// otherwise resolve and load at every start), every package of "dependencies" left an import of the installed
// package (some are native or CommonJS), and the worker threads copied beside the bundle, since the service and the
// store start them with `new URL('./…-worker.js', import.meta.url)`.
//
// What is bundled is a devDependency (chevrotain; commander for the command line): a consumer never installs it.
// Anything else esbuild would take from node_modules is refused, so a package imported by src/ but missing from
// "dependencies" fails the build instead of being copied into it unnoticed.
import { copyFileSync, readFileSync, rmSync } from 'node:fs';
import { build } from 'esbuild';

const root = new URL('../', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
const external = Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies });
// chevrotain and the packages it imports.
const CHEVROTAIN = ['chevrotain', '@chevrotain/cst-dts-gen', '@chevrotain/gast', '@chevrotain/regexp-to-ast', '@chevrotain/types', '@chevrotain/utils', 'lodash-es'];

/** Bundles `entryPoints` into `dist/<folder>/` (emptied first). `inline`: packages bundled in besides chevrotain;
 *  `options` are esbuild's, added to the shared ones. */
export async function bundle(folder, entryPoints, { inline = [], ...options } = {}) {
  const bundled = new Set([...CHEVROTAIN, ...inline]);
  const outdir = new URL(`dist/${folder}/`, root);
  rmSync(outdir, { recursive: true, force: true });
  const { metafile } = await build({
    absWorkingDir: new URL('.', root).pathname,
    entryPoints,
    outdir: `dist/${folder}`,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: true,
    // The maps point into src/, for work in the repository (a profile, a stack trace with --enable-source-maps);
    // the package leaves them out (package.json "files"), as it leaves out src/.
    sourcesContent: false,
    external: [...external, ...external.map((name) => `${name}/*`)],
    logLevel: 'warning',
    metafile: true,
    ...options,
  });
  const packages = new Set(Object.keys(metafile.inputs).map((input) => /node_modules\/((@[^/]+\/)?[^/]+)\//.exec(input)?.[1]).filter(Boolean));
  const unexpected = [...packages].filter((name) => !bundled.has(name));
  if (unexpected.length > 0) {
    throw new Error(`dist/${folder}: ${unexpected.join(', ')} would be bundled; list it in "dependencies" of package.json (or in the bundle's inline list)`);
  }
  for (const worker of ['auth/recovery-worker.js', 'store/checkpoint-worker.js']) {
    copyFileSync(new URL(`src/${worker}`, root), new URL(worker.split('/')[1], outdir));
  }
}
