// Shared pieces of the benchmark suites: the result row every suite reports, and a ratio printer.
// Every figure is a ratio against a baseline measured in the same run, because these machines are
// noisy and absolute times drift.

export interface BenchRow {
  suite: string;
  name: string;
  value: number;
  unit: string;
  /** The baseline's value in the same unit, measured in the same run (null when the row is absolute). */
  baseline: number | null;
  /** value / baseline, oriented so that the goal reads naturally (see `goal`). */
  ratio: number | null;
  /** The goal in words, e.g. ">= 2x polylang" or "<= 3x plain JS". */
  goal: string;
  date: string;
}

export type Suite = () => Promise<BenchRow[]>;

export function row(suite: string, name: string, fields: Omit<BenchRow, 'suite' | 'name' | 'date'>): BenchRow {
  return { suite, name, ...fields, date: new Date().toISOString() };
}

export function printRows(rows: readonly BenchRow[]): void {
  for (const r of rows) {
    const value = `${formatNumber(r.value)} ${r.unit}`;
    const base = r.baseline === null ? '' : `  baseline ${formatNumber(r.baseline)} ${r.unit}`;
    const ratio = r.ratio === null ? '' : `  ratio ${r.ratio.toFixed(2)}x`;
    console.log(`${r.suite.padEnd(8)} ${r.name.padEnd(40)} ${value.padStart(20)}${base}${ratio}  (goal: ${r.goal})`);
  }
}

export function formatNumber(n: number): string {
  if (Math.abs(n) >= 100) return Math.round(n).toLocaleString('en-US');
  return n.toPrecision(3);
}
