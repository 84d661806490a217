// `npm run bench -- cli`: the `vellum` command and the library as a user starts them, whole processes of the built
// package (bin/vellum.js and dist/lib/index.js), against `node -e 0` measured in the same run.
//
// 1. `vellum --version`, and `vellum --help`: goal within 100 ms of `--version` (no command module is loaded).
// 2. `vellum check` of one small file: goal within 150 ms of `node -e 0` (issue 27; 350 ms before).
// 3. `vellum check` of a folder of 100 files (the fixture schemas, repeated to make 100): goal under 1 s.
// 4. `import 'vellum'` (dist/lib/index.js): goal within 150 ms of `node -e 0`; and the same program then checking the
//    small schema with `checkSchema` (what a program that only checks schemas pays), informative.
// The suite builds dist/ first, so it measures the current sources. Each command runs ROUNDS times, the commands
// interleaved, and the median counts: the machine is shared, and a median is steadier than a mean under load.
// Each figure is given twice: wall-clock time (what the goals are stated in) and CPU time (user + system, reported
// by bench/cpu-report.cjs, preloaded into every process timed, `node -e 0` included): on a loaded machine a
// process spends much of its wall-clock time waiting for a core, and its CPU time is the steadier figure.
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { row, type BenchRow } from './harness.ts';

const SUITE = 'cli';
const ROUNDS = Number(process.env.VELLUM_BENCH_CLI_ROUNDS ?? 21);
const root = fileURLToPath(new URL('../', import.meta.url));
const bin = join(root, 'bin/vellum.js');
const library = pathToFileURL(join(root, 'dist/lib/index.js')).href;

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

const cpuReporter = fileURLToPath(new URL('./cpu-report.cjs', import.meta.url));

interface Timing {
  wallMs: number;
  cpuMs: number;
}

/** One whole process, which must succeed: its wall-clock time and the CPU time it reports at exit. */
function timeProcess(args: string[]): Timing {
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, ['--require', cpuReporter, ...args], { stdio: ['ignore', 'ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  const wallMs = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0) throw new Error(`node ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  return { wallMs, cpuMs: Number(result.output[3]) / 1000 };
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
      help: [bin, '--help'],
      checkOne: [bin, 'check', one],
      checkHundred: [bin, 'check', folder],
      importLibrary: ['--input-type=module', '-e', `import ${JSON.stringify(library)};`],
      importAndCheck: ['--input-type=module', '-e', `import { checkSchema, hasErrors } from ${JSON.stringify(library)}; if (hasErrors(checkSchema(${JSON.stringify(SMALL_SCHEMA)}).diagnostics)) process.exit(1);`],
    };
    const times: Record<keyof typeof commands, Timing[]> = { node: [], version: [], help: [], checkOne: [], checkHundred: [], importLibrary: [], importAndCheck: [] };
    for (const args of Object.values(commands)) timeProcess(args); // warm the file cache
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, args] of Object.entries(commands) as [keyof typeof commands, string[]][]) times[name].push(timeProcess(args));
    }
    const rows: BenchRow[] = [];
    for (const measure of ['wallMs', 'cpuMs'] as const) {
      const unit = measure === 'wallMs' ? 'ms' : 'ms CPU';
      const of = (name: keyof typeof commands) => median(times[name].map((timing) => timing[measure]));
      const [node, version, help, checkOne, checkHundred] = [of('node'), of('version'), of('help'), of('checkOne'), of('checkHundred')];
      const [importLibrary, importAndCheck] = [of('importLibrary'), of('importAndCheck')];
      rows.push(
        row(SUITE, `node -e 0 (${unit})`, { value: node, unit, baseline: null, ratio: null, goal: 'the baseline' }),
        row(SUITE, `vellum --version (${unit})`, { value: version, unit, baseline: node, ratio: version / node, goal: 'informative' }),
        row(SUITE, `vellum --help over vellum --version (${unit})`, { value: help - version, unit, baseline: null, ratio: null, goal: '<= 100 ms' }),
        row(SUITE, `vellum check, one file (${unit})`, { value: checkOne, unit, baseline: node, ratio: checkOne / node, goal: 'informative' }),
        row(SUITE, `vellum check, one file, over node -e 0 (${unit})`, { value: checkOne - node, unit, baseline: null, ratio: null, goal: '<= 150 ms' }),
        row(SUITE, `vellum check, 100 files (${unit})`, { value: checkHundred, unit, baseline: node, ratio: checkHundred / node, goal: '< 1000 ms' }),
        row(SUITE, `import 'vellum' (${unit})`, { value: importLibrary, unit, baseline: node, ratio: importLibrary / node, goal: 'informative' }),
        row(SUITE, `import 'vellum', over node -e 0 (${unit})`, { value: importLibrary - node, unit, baseline: null, ratio: null, goal: '<= 150 ms' }),
        row(SUITE, `import 'vellum' and checkSchema, over node -e 0 (${unit})`, { value: importAndCheck - node, unit, baseline: null, ratio: null, goal: 'informative' }),
      );
    }
    return rows;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
