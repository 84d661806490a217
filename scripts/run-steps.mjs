// Runs every `<stage>:*` script of package.json, in the order they are written, stopping at the first that
// fails: `node scripts/run-steps.mjs build` runs build:lib, then build:cli, and so on. Adding a step to a
// stage is adding one `"<stage>:<step>": "…"` line to package.json.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const stage = process.argv[2];
if (!stage) {
  process.stderr.write('usage: node scripts/run-steps.mjs <stage>\n');
  process.exit(2);
}
const { scripts } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const steps = Object.keys(scripts).filter((name) => name.startsWith(`${stage}:`));
if (steps.length === 0) {
  process.stderr.write(`no "${stage}:…" scripts in package.json\n`);
  process.exit(1);
}
// Under npm, npm_execpath is npm's own script; run it with this Node so no shell or PATH lookup is involved.
const npm = process.env.npm_execpath;
for (const step of steps) {
  const result = npm
    ? spawnSync(process.execPath, [npm, 'run', step], { stdio: 'inherit' })
    : spawnSync('npm', ['run', step], { stdio: 'inherit', shell: process.platform === 'win32' });
  if (result.status !== 0) {
    process.stderr.write(`${stage}: step ${step} failed\n`);
    process.exit(result.status ?? 1);
  }
}
