// `npm run bench` runs every suite; `npm run bench -- <suite>...` runs the named ones.
// Every run writes bench/results.json: one {suite, name, value, unit, baseline, ratio, goal, date} row per figure.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { printRows, type BenchRow, type Suite } from './harness.ts';

const suites: Record<string, () => Promise<{ default: Suite }>> = {
  // name: () => import('./name.ts'),
  lang: () => import('./lang.ts'),
  auth: () => import('./auth.ts'),
  runtime: () => import('./runtime.ts'),
  http: () => import('./http.ts'),
  store: () => import('./store.ts'),
};

const requested = process.argv.slice(2).filter((arg) => arg !== '--');
const unknown = requested.filter((name) => !(name in suites));
if (unknown.length > 0) {
  console.error(`unknown suite ${unknown.join(', ')}; available: ${Object.keys(suites).join(', ')}`);
  process.exit(2);
}
const names = requested.length > 0 ? requested : Object.keys(suites);
const rows: BenchRow[] = [];
for (const name of names) {
  console.log(`\n== ${name}`);
  const suite = (await suites[name]!()).default;
  const suiteRows = await suite();
  printRows(suiteRows);
  rows.push(...suiteRows);
}
const out = fileURLToPath(new URL('./results.json', import.meta.url));
writeFileSync(out, JSON.stringify(rows, null, 2) + '\n');
console.log(`\nwrote ${rows.length} rows to bench/results.json`);
