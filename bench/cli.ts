// `npm run bench -- cli`: the `vellum` command as a user starts it, whole processes of the built package
// (bin/vellum.js → dist/), against `node -e 0` measured in the same run.
//
// 1. `vellum --version`.
// 2. `vellum check` of one small file: goal within 350 ms of `node -e 0`.
// 3. `vellum check` of a folder of 100 files (the fixture schemas, repeated to make 100): goal under 1 s.
// The suite builds dist/ first, so it measures the current sources. Each command runs ROUNDS times, the commands
// interleaved, and the median counts: the machine is shared, and a median is steadier than a mean under load.
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { row, type BenchRow } from './harness.ts';

const SUITE = 'cli';
const ROUNDS = Number(process.env.VELLUM_BENCH_CLI_ROUNDS ?? 21);
const root = fileURLToPath(new URL('../', import.meta.url));
const bin = join(root, 'bin/vellum.js');

const SMALL_SCHEMA = `@public
collection Account {
  id: string;
  balance: number;

  constructor (id: string) {
    this.id = id;
    this.balance = 0;
  }

  deposit (amount: number) {
    if (amount <= 0) { error('amount must be positive'); }
    this.balance += amount;
  }
}
`;

/** Wall-clock milliseconds of one whole process; it must succeed (or exit 1 for files with errors, never here). */
function timeProcess(args: string[]): number {
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  const elapsed = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0) throw new Error(`node ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  return elapsed;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

export default async function cliSuite(): Promise<BenchRow[]> {
  execFileSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
  const scratch = mkdtempSync(join(tmpdir(), 'vellum-bench-cli-'));
  try {
    const one = join(scratch, 'account.polylang');
    writeFileSync(one, SMALL_SCHEMA);
    const folder = join(scratch, 'hundred');
    mkdirSync(folder);
    const fixtures = join(root, 'fixtures/schemas');
    const names = readdirSync(fixtures).filter((name) => name.endsWith('.polylang'));
    for (let i = 0; i < 100; i++) copyFileSync(join(fixtures, names[i % names.length]!), join(folder, `${String(i).padStart(3, '0')}-${names[i % names.length]}`));

    const commands = {
      node: ['-e', '0'],
      version: [bin, '--version'],
      checkOne: [bin, 'check', one],
      checkHundred: [bin, 'check', folder],
    };
    const times: Record<keyof typeof commands, number[]> = { node: [], version: [], checkOne: [], checkHundred: [] };
    for (const args of Object.values(commands)) timeProcess(args); // warm the file cache
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, args] of Object.entries(commands) as [keyof typeof commands, string[]][]) times[name].push(timeProcess(args));
    }
    const node = median(times.node);
    const version = median(times.version);
    const checkOne = median(times.checkOne);
    const checkHundred = median(times.checkHundred);
    return [
      row(SUITE, 'node -e 0', { value: node, unit: 'ms', baseline: null, ratio: null, goal: 'the baseline' }),
      row(SUITE, 'vellum --version', { value: version, unit: 'ms', baseline: node, ratio: version / node, goal: 'as fast as it can be' }),
      row(SUITE, 'vellum check, one file', { value: checkOne, unit: 'ms', baseline: node, ratio: checkOne / node, goal: '<= node -e 0 + 350 ms' }),
      row(SUITE, 'vellum check, one file, over node -e 0', { value: checkOne - node, unit: 'ms', baseline: null, ratio: null, goal: '<= 350 ms' }),
      row(SUITE, 'vellum check, 100 files', { value: checkHundred, unit: 'ms', baseline: node, ratio: checkHundred / node, goal: '< 1000 ms' }),
    ];
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
