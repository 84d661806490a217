// `npm run bench -- lsp`: the language server's work on a 200-collection schema, against one full checkSchema of it
// measured in the same run. Goals (issue 25): the diagnostics after a keystroke cost no more than one full check,
// and a hover or a definition at most a tenth of one.
// - keystroke: one character of a function body changed, a new document version analysed (analysis.ts, which the
//   server runs on every change) and its diagnostics converted for the client;
//   The server checks each version from the previous one (incremental.ts): the edit stays inside one body.
// - hover and definition: symbol-at.ts on `this.<field>` in the middle of the schema, on the latest version.
// Tasks take turns over several rounds; each figure is the median of the rounds' mean latencies.
import { Bench } from 'tinybench';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { checkSchema } from '../src/lang/index.ts';
import { Analyses } from '../src/lsp/analysis.ts';
import { toLspDiagnostics } from '../src/lsp/diagnostics.ts';
import { symbolAt } from '../src/lsp/symbol-at.ts';
import { row, type BenchRow } from './harness.ts';

const SUITE = 'lsp';
const ROUNDS = 5;

function collection(i: number): string {
  return `/// Account number ${i}.
@public
collection Account${i} {
  id: string;
  /// The balance in cents.
  balance: number;
  owner: PublicKey;
  tags: string[];

  constructor (id: string) {
    this.id = id;
    this.balance = 0;
    this.owner = ctx.publicKey;
    this.tags = [];
  }

  @call(owner)
  deposit (amount: number) {
    if (amount <= 0) { error('amount must be positive'); }
    this.balance += amount;
    this.tags.push('deposit');
  }
}
`;
}

export default async function lsp(): Promise<BenchRow[]> {
  const text = Array.from({ length: 200 }, (_, i) => collection(i)).join('\n');
  if (checkSchema(text).diagnostics.length > 0) throw new Error('lsp bench: the schema must check cleanly');
  const uri = 'file:///bench.polylang';
  const analyses = new Analyses();
  let version = 0;
  // The hover target: `balance` of `this.balance += amount;` in collection 100.
  const hoverAt = text.indexOf('this.balance += amount', text.indexOf('collection Account100 ')) + 'this.'.length;
  const edited = (n: number) => text.replace('amount must be positive', `amount must be positive${n % 2 === 0 ? '' : '!'}`);
  let current = analyses.get(uri, ++version, text);
  // The edit adds a character before the hover target on odd versions.
  const target = () => hoverAt + (version % 2);
  if (symbolAt(current.program!, current.checked, target())?.signature !== '(field) Account100.balance: number') throw new Error('lsp bench: hover target not found');

  let sink = 0;
  const tasks = {
    'checkSchema, 200 collections': () => {
      sink += checkSchema(text).diagnostics.length;
    },
    'diagnostics after a keystroke': () => {
      version++;
      const next = edited(version);
      current = analyses.get(uri, version, next);
      sink += toLspDiagnostics(current.diagnostics, TextDocument.create(uri, 'polylang', version, next)).length;
    },
    'hover': () => {
      const symbol = symbolAt(current.program!, current.checked, target());
      if (symbol?.signature !== '(field) Account100.balance: number') throw new Error('lsp bench: hover found something else');
      sink += symbol.signature.length;
    },
    'definition': () => {
      sink += symbolAt(current.program!, current.checked, target())?.declaration?.start ?? 0;
    },
  };
  const names = Object.keys(tasks) as (keyof typeof tasks)[];
  const samples = Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<keyof typeof tasks, number[]>;
  for (let round = 0; round < ROUNDS; round++) {
    const bench = new Bench({ time: 300, iterations: 3, warmupTime: round === 0 ? 500 : 100, warmupIterations: 2 });
    for (const name of names) bench.add(name, tasks[name]);
    await bench.run();
    for (const name of names) {
      const result = bench.getTask(name)?.result;
      if (!result || (result.state !== 'completed' && result.state !== 'aborted-with-statistics')) throw new Error(`lsp bench: task "${name}" did not complete`);
      samples[name].push(result.latency.mean);
    }
  }
  if (sink < 0) console.log(sink);
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const check = median(samples['checkSchema, 200 collections']);
  const ms = (name: keyof typeof tasks, goal: string) =>
    row(SUITE, name, { value: median(samples[name]), unit: 'ms', baseline: check, ratio: median(samples[name]) / check, goal });
  return [
    row(SUITE, 'checkSchema, 200 collections', { value: check, unit: 'ms', baseline: null, ratio: null, goal: 'the baseline' }),
    ms('diagnostics after a keystroke', '<= 1x'),
    ms('hover', '<= 0.1x'),
    ms('definition', '<= 0.1x'),
  ];
}
