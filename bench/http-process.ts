// `npm run bench -- http-process`: the http suite with autocannon in a process of its own (see `Client` in
// bench/http-thread.ts): the same scenarios, goals and baseline, without the client's work in the server's thread.
import type { BenchRow } from './harness.ts';
import { runHttpBench } from './http-thread.ts';

export default function httpProcess(): Promise<BenchRow[]> {
  return runHttpBench('process', 'http-process');
}
