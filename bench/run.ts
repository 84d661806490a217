// `npm run bench` runs every suite; `npm run bench -- <suite>...` runs the named ones.
// Every run writes bench/results.json: one {suite, name, value, unit, baseline, ratio, goal, date} row per figure.
// The suites that ran replace their own rows; rows of suites that did not run are kept, so the file always
// holds the latest figure of every suite. A suite that ran only some of its rows (it exports `partial` true, as
// `BENCH_HTTP_ONLY` makes http) replaces only the rows it gave.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { printRows, type BenchRow, type Suite } from './harness.ts';

const suites: Record<string, () => Promise<{ default: Suite; partial?: boolean }>> = {
  lang: () => import('./lang.ts'),
  auth: () => import('./auth.ts'),
  runtime: () => import('./runtime.ts'),
  http: () => import('./http.ts'),
  'http-thread': () => import('./http-thread.ts'),
  'http-log': () => import('./http-log.ts'),
  disk: () => import('./disk.ts'),
  'http-process': () => import('./http-process.ts'),
  store: () => import('./store.ts'),
  contended: () => import('./contended.ts'),
  cli: () => import('./cli.ts'),
  lsp: () => import('./lsp.ts'),
};

const requested = process.argv.slice(2).filter((arg) => arg !== '--');
const unknown = requested.filter((name) => !(name in suites));
if (unknown.length > 0) {
  console.error(`unknown suite ${unknown.join(', ')}; available: ${Object.keys(suites).join(', ')}`);
  process.exit(2);
}
const names = requested.length > 0 ? requested : Object.keys(suites);
const rows: BenchRow[] = [];
const partial = new Set<string>();
for (const name of names) {
  console.log(`\n== ${name}`);
  const module = await suites[name]!();
  if (module.partial === true) partial.add(name);
  const suiteRows = await module.default();
  printRows(suiteRows);
  rows.push(...suiteRows);
}
const out = fileURLToPath(new URL('./results.json', import.meta.url));
const earlier: BenchRow[] = existsSync(out) ? (JSON.parse(readFileSync(out, 'utf8')) as BenchRow[]) : [];
const given = new Set(rows.map((r) => `${r.suite}\u0000${r.name}`));
const kept = earlier.filter((r) => !names.includes(r.suite) || (partial.has(r.suite) && !given.has(`${r.suite}\u0000${r.name}`)));
writeFileSync(out, JSON.stringify([...kept, ...rows], null, 2) + '\n');
console.log(`\nwrote ${rows.length} rows to bench/results.json (kept ${kept.length} rows of other suites)`);
