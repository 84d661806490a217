// `npm run bench -- lang`: the language front end against Polybase's parser, in the same run.
//
// One operation = every schema of fixtures/schemas (the set both Polylang 0.6 and Vellum accept) once.
// Vellum parses and type-checks (`checkSchema`); the baseline is `@polybase/polylang@0.6.0`'s `parse`
// (its WebAssembly parser, which only parses: Polybase never type-checked bodies). The goal is Vellum with
// checking at least twice as fast. A second row compares Vellum's parse alone.
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Bench } from 'tinybench';
import { checkSchema, hasErrors, parse } from '../src/lang/index.ts';
import { row, type BenchRow } from './harness.ts';

type Polylang = typeof import('@polybase/polylang');
// A webpack bundle assigned to `module.exports`: load it the CommonJS way.
const polylang = createRequire(import.meta.url)('@polybase/polylang') as Polylang;

const ROUNDS = 7;
const taskNames = ['vellum checkSchema', 'vellum parse', 'polylang parse'] as const;
type TaskName = (typeof taskNames)[number];

const schemaDirectory = fileURLToPath(new URL('../fixtures/schemas/', import.meta.url));

function loadCorpus(): { name: string; text: string }[] {
  return readdirSync(schemaDirectory)
    .filter((name) => name.endsWith('.polylang'))
    .sort()
    .map((name) => ({ name, text: readFileSync(schemaDirectory + name, 'utf8') }));
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export default async function lang(): Promise<BenchRow[]> {
  const corpus = loadCorpus();
  const texts = corpus.map((schema) => schema.text);
  const bytes = texts.reduce((sum, text) => sum + Buffer.byteLength(text), 0);

  // Measure only the successful path: every schema must be accepted by both before timing starts.
  for (const { name, text } of corpus) {
    if (hasErrors(checkSchema(text, name).diagnostics)) throw new Error(`lang bench: Vellum rejects fixtures/schemas/${name}`);
    await polylang.parse(text, 'bench').catch((error: Error) => {
      throw new Error(`lang bench: Polylang rejects fixtures/schemas/${name}: ${error.message}`);
    });
  }

  let sink = 0; // results are consumed so no engine can skip the work
  const tasks: Record<TaskName, () => unknown> = {
    'vellum checkSchema': () => {
      for (const text of texts) sink += checkSchema(text).diagnostics.length;
    },
    'vellum parse': () => {
      for (const text of texts) sink += parse(text).diagnostics.length;
    },
    'polylang parse': async () => {
      for (const text of texts) sink += (await polylang.parse(text, 'bench')).length;
    },
  };

  // The machine is shared and its load changes by the second, so the tasks take turns: several short
  // rounds, each measuring all three, and every figure is the median over the rounds of the round's
  // mean latency (the mean, so garbage collection is counted). A burst of load then spoils one round
  // of each task rather than one whole task.
  const samples: Record<TaskName, number[]> = { 'vellum checkSchema': [], 'vellum parse': [], 'polylang parse': [] };
  for (let round = 0; round < ROUNDS; round++) {
    const bench = new Bench({ time: 400, warmupTime: round === 0 ? 1000 : 100 });
    for (const name of taskNames) bench.add(name, tasks[name]);
    await bench.run();
    for (const name of taskNames) {
      const result = bench.getTask(name)?.result;
      if (!result || (result.state !== 'completed' && result.state !== 'aborted-with-statistics')) {
        throw new Error(`lang bench: task "${name}" did not complete (${result?.state ?? 'missing'})`);
      }
      samples[name].push(corpus.length / (result.latency.mean / 1000));
    }
  }
  if (sink < 0) console.log(sink);

  const baseline = median(samples['polylang parse']);
  const check = median(samples['vellum checkSchema']);
  const parseOnly = median(samples['vellum parse']);
  const suffix = `(${corpus.length} schemas, ${Math.round(bytes / 1024)} KiB)`;
  return [
    row('lang', `check ${suffix}`, {
      value: check,
      unit: 'schemas/s',
      baseline,
      ratio: check / baseline,
      goal: '>= 2x polylang parse',
    }),
    row('lang', `parse only ${suffix}`, {
      value: parseOnly,
      unit: 'schemas/s',
      baseline,
      ratio: parseOnly / baseline,
      goal: '>= 2x polylang parse (informative)',
    }),
  ];
}
