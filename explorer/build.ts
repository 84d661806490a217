// Builds the explorer (the web console `vellum serve` serves at /explorer/) into a folder: the browser sources
// bundled and minified by esbuild into one script and one style sheet whose names carry a hash of their content
// (so the server can let browsers cache them for good), and index.html pointing at them.
//
//   npm run build:explorer               → dist/explorer/
//   tsx explorer/build.ts <folder>       → <folder>
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const HERE = dirname(fileURLToPath(import.meta.url));
/** Where `npm run build:explorer` writes, and where the server looks by default. */
export const DEFAULT_EXPLORER_OUT_DIR = resolve(HERE, '..', 'dist', 'explorer');

/** The files a build writes: index.html and `explorer-<hash>.js` / `.css`. */
const BUILT_FILE = /^(index\.html|explorer-[A-Z0-9]{8}\.(js|css))$/;

export interface ExplorerBuild {
  outDir: string;
  /** Each written file and its size in bytes. */
  files: { name: string; bytes: number }[];
}

export async function buildExplorer(outDir: string = DEFAULT_EXPLORER_OUT_DIR): Promise<ExplorerBuild> {
  mkdirSync(outDir, { recursive: true });
  // A previous build's hashed files would otherwise pile up beside the new ones. Only those are removed: the
  // folder is the caller's, and may hold other things.
  for (const name of readdirSync(outDir)) {
    if (BUILT_FILE.test(name)) rmSync(join(outDir, name), { force: true });
  }
  const result = await build({
    entryPoints: { explorer: join(HERE, 'src', 'main.ts') },
    tsconfig: join(HERE, 'tsconfig.json'),
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome110', 'firefox110', 'safari16'],
    entryNames: '[name]-[hash]',
    outdir: outDir,
    metafile: true,
    legalComments: 'none',
    logLevel: 'silent',
  });
  const outputs = Object.keys(result.metafile.outputs).map((path) => basename(path));
  const script = outputs.find((name) => name.endsWith('.js'));
  const style = outputs.find((name) => name.endsWith('.css'));
  if (!script || !style) throw new Error(`the explorer build wrote ${outputs.join(', ')}: expected one .js and one .css file`);
  const page = readFileSync(join(HERE, 'index.html'), 'utf8').replace('{{script}}', script).replace('{{style}}', style);
  writeFileSync(join(outDir, 'index.html'), page);
  const files = [...outputs, 'index.html'].map((name) => ({ name, bytes: readFileSync(join(outDir, name)).length }));
  return { outDir, files };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const outDir = resolve(process.argv[2] ?? DEFAULT_EXPLORER_OUT_DIR);
  buildExplorer(outDir).then(
    ({ files }) => {
      for (const file of files) process.stdout.write(`${join(outDir, file.name)}  ${(file.bytes / 1024).toFixed(1)} KiB\n`);
    },
    (error: unknown) => {
      process.stderr.write(`build:explorer: ${(error as Error).message}\n`);
      process.exitCode = 1;
    },
  );
}
