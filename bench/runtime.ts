// `npm run bench -- runtime`: metered Vellum execution against the same function bodies run as plain
// JavaScript in the same process and run. Goals (issue 27): geometric mean of the ratios at most 2x plain
// JavaScript, no row above 3x; a trivial call under 10 µs.
//
// Both sides do the same job: the plain JavaScript side copies the record snapshot (a JSON round trip,
// as Polybase's V8 gateway did), runs the body text compiled by `new Function` on the copy, and
// serialises the record again (the gateway's JSON.stringify of the result); the Vellum side is `execute(...)`, which converts the snapshot into runtime values, runs
// the compiled body with gas metering and converts the record back. Every case runs in interleaved
// rounds and reports its best round in CPU time, because the machine is shared.
import { parse } from '../src/lang/index.ts';
import { compileCollection, execute, type CompiledCollection } from '../src/runtime/index.ts';
import { row, type BenchRow } from './harness.ts';

const SUITE = 'runtime';
const ROUNDS = 15;
/** Each round of a case runs for about this long (calibrated once per case). */
const ROUND_MS = 40;
const GAS = 500_000_000;

const schema = `
@public
collection Bench {
  id: string;
  balance: number;
  text: string;
  items: number[];
  counts: map<string, number>;

  arithmetic (n: number): number {
    let s = 0;
    for (let i = 0; i < n; i++) {
      s = (s + i * 3 - (i % 7)) % 1000003;
    }
    return s;
  }

  strings (n: number): number {
    let s = '';
    for (let i = 0; i < n; i++) {
      s += 'ab';
      if (s.length > 200) { s = s.slice(100); }
    }
    this.text = s;
    return s.length;
  }

  arrays (n: number): number {
    let a = [];
    for (let i = 0; i < n; i++) {
      a.push(i);
      if (a.length > 50) { a.splice(0, 25); }
    }
    this.items = a;
    return a.length;
  }

  maps (n: number): number {
    let m = this.counts;
    for (let i = 0; i < n; i++) {
      let k = 'k' + (i % 20);
      if (m[k]) { m[k] = m[k] + 1; } else { m[k] = 1; }
    }
    return m['k0'];
  }

  transfer (to: record, amount: number) {
    if (amount <= 0) { error('amount must be positive'); }
    if (this.balance < amount) { error('insufficient balance'); }
    this.balance -= amount;
    to.balance += amount;
  }

  trivial () {
  }
}
`;

interface Case {
  name: string;
  fn: string;
  args: () => unknown[];
  /** Arguments for the plain JavaScript body (records as plain objects). */
  jsArgs: () => unknown[];
}

const record = { id: 'a', balance: 1_000_000, text: '', items: [], counts: {} };
const other = { id: 'b', balance: 10, text: '', items: [], counts: {} };

const cases: Case[] = [
  { name: 'arithmetic loop (10k iterations)', fn: 'arithmetic', args: () => [10_000], jsArgs: () => [10_000] },
  { name: 'string building (2k appends)', fn: 'strings', args: () => [2_000], jsArgs: () => [2_000] },
  { name: 'array push/splice (2k pushes)', fn: 'arrays', args: () => [2_000], jsArgs: () => [2_000] },
  { name: 'map updates (2k updates)', fn: 'maps', args: () => [2_000], jsArgs: () => [2_000] },
  {
    name: 'token transfer between two records',
    fn: 'transfer',
    args: () => [{ collectionId: 'bench/Bench', id: 'b', data: other }, 5],
    jsArgs: () => [JSON.parse(JSON.stringify(other)), 5],
  },
];

/** The body text of a function, compiled as plain JavaScript (allowed in bench/, never in src/). */
function plainFunction(collection: CompiledCollection, name: string): (...args: unknown[]) => unknown {
  const fn = collection.functions.get(name)!.declaration;
  const body = schema.slice(fn.bodyTextSpan.start, fn.bodyTextSpan.end);
  const params = fn.parameters.map((p) => p.name.name);
  const error = (message: string) => {
    throw new Error(message);
  };
  // eslint-disable-next-line @typescript-eslint/no-implied-eval
  const compiled = new Function('error', ...params, body) as (...args: unknown[]) => unknown;
  return function (this: unknown, ...args: unknown[]) {
    return compiled.call(this, error, ...args);
  };
}

/**
 * CPU time per call in nanoseconds (user + system of the process). On the shared machine a process waits
 * for a core for much of its wall-clock time, and a wall-clock round measured the load as much as the
 * code (ratios of one row varied 2x between runs); the CPU time a round used is what the calls cost.
 */
function timePerCall(iterations: number, run: () => void): number {
  const start = process.cpuUsage();
  for (let i = 0; i < iterations; i++) run();
  const used = process.cpuUsage(start);
  return ((used.user + used.system) * 1000) / iterations;
}

/** How many calls fill about ROUND_MS (after a warm-up of the same length). */
function calibrate(run: () => void): number {
  let iterations = 1;
  for (;;) {
    const perCall = timePerCall(iterations, run);
    if (perCall * iterations >= ROUND_MS * 1e6 / 4) return Math.max(1, Math.round((ROUND_MS * 1e6) / perCall));
    iterations *= 2;
  }
}

/** Best time per call of two tasks measured in interleaved rounds (load only ever slows a round down). */
function compare(a: () => void, b: () => void): [number, number] {
  const iterationsA = calibrate(a);
  const iterationsB = calibrate(b);
  let bestA = Infinity;
  let bestB = Infinity;
  for (let round = 0; round < ROUNDS; round++) {
    bestA = Math.min(bestA, timePerCall(iterationsA, a));
    bestB = Math.min(bestB, timePerCall(iterationsB, b));
  }
  return [bestA, bestB];
}

export default async function runtime(): Promise<BenchRow[]> {
  const parsed = parse(schema, 'bench.polylang');
  if (!parsed.program) throw new Error('bench schema does not parse');
  const collection = compileCollection(parsed, 'Bench', { collectionId: 'bench/Bench' });

  const rows: BenchRow[] = [];
  const ratios: number[] = [];
  for (const c of cases) {
    const plain = plainFunction(collection, c.fn);
    const vellum = () => {
      const result = execute(collection, c.fn, record, c.args(), {}, { gas: GAS });
      if (!result.ok) throw new Error(`${c.fn}: ${result.error.message}`);
    };
    const js = () => {
      const self = JSON.parse(JSON.stringify(record)) as object;
      plain.apply(self, c.jsArgs());
      JSON.stringify(self);
    };
    const [bestVellum, bestJs] = compare(vellum, js);
    const ratio = bestVellum / bestJs;
    ratios.push(ratio);
    rows.push(row(SUITE, c.name, { value: bestVellum / 1000, unit: 'µs/call', baseline: bestJs / 1000, ratio, goal: '<= 3x plain JS' }));
  }
  const geomean = Math.exp(ratios.reduce((sum, r) => sum + Math.log(r), 0) / ratios.length);
  rows.push(row(SUITE, 'geometric mean of ratios', { value: geomean, unit: 'x', baseline: null, ratio: geomean, goal: '<= 2x plain JS' }));

  const trivialJs = plainFunction(collection, 'trivial');
  const [bestTrivial, bestTrivialJs] = compare(
    () => {
      execute(collection, 'trivial', record, []);
    },
    () => {
      const self = JSON.parse(JSON.stringify(record)) as object;
      trivialJs.apply(self, []);
      JSON.stringify(self);
    },
  );
  rows.push(
    row(SUITE, 'trivial call overhead', {
      value: bestTrivial / 1000,
      unit: 'µs/call',
      baseline: bestTrivialJs / 1000,
      ratio: bestTrivial / bestTrivialJs,
      goal: '< 10 µs per call',
    }),
  );
  return rows;
}
