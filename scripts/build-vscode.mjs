// Builds the VS Code extension (editors/vscode): bundles its client with vscode-languageclient into one file with
// esbuild (`vscode` is provided by the editor), then packages editors/vscode/dist/vellum-polylang.vsix with
// @vscode/vsce 3.9 (the last major that runs on Node 20), offline. The .vsix stays out of the npm package.
import { execFileSync } from 'node:child_process';
import { build } from 'esbuild';

const root = new URL('../', import.meta.url);
const extension = new URL('editors/vscode/', root).pathname;
await build({
  absWorkingDir: extension,
  entryPoints: ['extension.js'],
  outfile: 'dist/extension.js',
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node18',
  external: ['vscode'],
  logLevel: 'warning',
});
const vsce = new URL('node_modules/@vscode/vsce/vsce', root).pathname;
execFileSync(process.execPath, [vsce, 'package', '--no-dependencies', '--allow-missing-repository', '--out', 'dist/vellum-polylang.vsix'], {
  cwd: extension,
  stdio: ['ignore', 'inherit', 'inherit'],
});
