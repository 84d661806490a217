// `npm run bench -- lang`: the language front end against Polybase's parser, in the same run.
//
// One operation = every schema of fixtures/schemas (the set both Polylang 0.6 and Vellum accept) once.
// Vellum parses and type-checks (`checkSchema`); the baseline is `@polybase/polylang@0.6.0`'s `parse`
// (its WebAssembly parser, which only parses: Polybase never type-checked bodies). The goal (issue 27) is Vellum
// with checking at least four times as fast, and 1.5x on the large schema. Further rows: Vellum's parse alone, and one large generated schema
// (where per-call costs vanish and throughput per byte shows).
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
type Throughput = Record<TaskName, number>;

const schemaDirectory = fileURLToPath(new URL('../fixtures/schemas/', import.meta.url));

function loadCorpus(): { name: string; text: string }[] {
  return readdirSync(schemaDirectory)
    .filter((name) => name.endsWith('.polylang'))
    .sort()
    .map((name) => ({ name, text: readFileSync(schemaDirectory + name, 'utf8') }));
}

/** One schema of `count` collections, each with the shapes the corpus uses (fields, index, decorated functions). */
function largeSchema(count: number): string {
  const collections: string[] = [];
  for (let i = 0; i < count; i++) {
    collections.push(`@read
collection Account${i} {
  id: string;
  name: string;
  balance: number;
  frozen: boolean;
  tags: string[];
  limits: map<string, number>;
  info: { city: string; zip?: string; };
  @read @delegate owner: PublicKey;
  friend?: Account${(i + 1) % count};

  @index(name, [balance, desc]);
  @index(info.city);

  constructor (id: string, name: string) {
    this.id = id;
    this.name = name;
    this.balance = 0;
    this.frozen = false;
    this.tags = [];
    this.limits = {};
    this.info = { city: 'unknown' };
    this.owner = ctx.publicKey;
  }

  @call(owner)
  deposit (amount: number, note: string) {
    if (amount <= 0) {
      error('amount must be positive');
    }
    if (this.frozen) {
      error('frozen');
    }
    let limit = this.limits[note];
    if (limit) {
      if (amount > limit) {
        error('over the limit for ' + note);
      }
    }
    this.balance += amount;
    if (!this.tags.includes(note)) {
      this.tags.push(note);
    }
  }

  @call(owner)
  transfer (to: record, amount: number) {
    if (this.balance < amount) {
      error('insufficient balance');
    }
    this.balance -= amount;
    to.balance += amount;
  }

  total (): number {
    let sum = 0;
    for (let j = 0; j < this.tags.length; j += 1) {
      sum += this.tags[j].length;
    }
    return sum + this.balance;
  }
}
`);
  }
  return collections.join('\n');
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Operations per second of each task over `texts` (one operation = every text once). */
async function measure(texts: string[]): Promise<Throughput> {
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
    // tinybench also runs at least `iterations` times (64 by default): too long for the large schema.
    const bench = new Bench({ time: 400, iterations: 3, warmupTime: round === 0 ? 1000 : 100, warmupIterations: 2 });
    for (const name of taskNames) bench.add(name, tasks[name]);
    await bench.run();
    for (const name of taskNames) {
      const result = bench.getTask(name)?.result;
      if (!result || (result.state !== 'completed' && result.state !== 'aborted-with-statistics')) {
        throw new Error(`lang bench: task "${name}" did not complete (${result?.state ?? 'missing'})`);
      }
      samples[name].push(1000 / result.latency.mean);
    }
  }
  if (sink < 0) console.log(sink);
  return {
    'vellum checkSchema': median(samples['vellum checkSchema']),
    'vellum parse': median(samples['vellum parse']),
    'polylang parse': median(samples['polylang parse']),
  };
}

/** Only the successful path is measured: every text must be accepted by both before timing starts. */
async function requireAcceptedByBoth(name: string, text: string): Promise<void> {
  if (hasErrors(checkSchema(text, name).diagnostics)) throw new Error(`lang bench: Vellum rejects ${name}`);
  await polylang.parse(text, 'bench').catch((error: Error) => {
    throw new Error(`lang bench: Polylang rejects ${name}: ${error.message}`);
  });
}

export default async function lang(): Promise<BenchRow[]> {
  const corpus = loadCorpus();
  for (const { name, text } of corpus) await requireAcceptedByBoth(`fixtures/schemas/${name}`, text);
  const texts = corpus.map((schema) => schema.text);
  const kib = texts.reduce((sum, text) => sum + Buffer.byteLength(text), 0) / 1024;

  // The corpus is measured before the large schema is first checked. V8 decides once per allocation
  // site whether to allocate its objects directly in the old generation (pretenuring), from how many of
  // them survive: when a large schema comes first, every node of its tree survives, the sites of the
  // syntax tree are pretenured, the large schema is checked faster and small schemas stay much slower
  // for the rest of the process (see bench/README.md); when small schemas come first, a large one later
  // changes nothing. VELLUM_BENCH_LANG_LARGE_FIRST=1 measures the large schema first instead.
  const large = largeSchema(200);
  const largeKib = Buffer.byteLength(large) / 1024;
  const measureLarge = async (): Promise<Throughput> => {
    await requireAcceptedByBoth('the generated large schema', large);
    return measure([large]);
  };
  const largeFirst = process.env.VELLUM_BENCH_LANG_LARGE_FIRST === '1' ? await measureLarge() : undefined;
  const perCorpus = await measure(texts);
  const perLarge = largeFirst ?? (await measureLarge());

  const corpusLabel = `(${corpus.length} schemas, ${Math.round(kib)} KiB)`;
  const schemasPerSecond = (name: TaskName) => perCorpus[name] * corpus.length;
  const kibPerSecond = (name: TaskName) => perLarge[name] * largeKib;
  const rows: [string, number, number, string, string][] = [
    [`check ${corpusLabel}`, schemasPerSecond('vellum checkSchema'), schemasPerSecond('polylang parse'), 'schemas/s', '>= 4x polylang parse'],
    [`parse only ${corpusLabel}`, schemasPerSecond('vellum parse'), schemasPerSecond('polylang parse'), 'schemas/s', 'informative'],
    [`check one large schema (200 collections, ${Math.round(largeKib)} KiB)`, kibPerSecond('vellum checkSchema'), kibPerSecond('polylang parse'), 'KiB/s', '>= 1.5x polylang parse'],
  ];
  return rows.map(([name, value, baseline, unit, goal]) => row('lang', name, { value, unit, baseline, ratio: value / baseline, goal }));
}
