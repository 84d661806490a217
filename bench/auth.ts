// `npm run bench -- auth`: verified signature headers per second, against plain @noble/secp256k1 recovery
// measured in the same run. Goal: at least 10,000 verifications per second on one core.
import { createRequire } from 'node:module';
import { keccak_256 } from '@noble/hashes/sha3.js';
import * as nobleSecp256k1 from '@noble/secp256k1';
import { Bench } from 'tinybench';
import {
  MemoryReplayGuard,
  jsBackend,
  nativeBackend,
  requestHash,
  signRequest,
  verifySignatureHeader,
  type RecoveryBackend,
} from '../src/auth/index.ts';
import { row, type BenchRow } from './harness.ts';

const SUITE = 'auth';
const NOW = 1_700_000_000_000;
const GOAL_PER_SECOND = 10_000;

interface Request {
  header: string;
  body: string;
}

/** Distinct signers and bodies shaped like the service's: `{"args":[…]}`. */
function requests(count: number, tOffset = 0): Request[] {
  return Array.from({ length: count }, (_, i) => {
    const privateKey = keccak_256(new TextEncoder().encode(`bench key ${i}`));
    const body = JSON.stringify({ args: [`record-${i}`, i * 7, { note: 'a'.repeat(i % 50) }] });
    return { header: signRequest(privateKey, body, NOW + tOffset + i), body };
  });
}

function opsPerSecond(bench: Bench, name: string): number {
  const result = bench.getTask(name)?.result;
  if (result?.state !== 'completed') throw new Error(`bench task ${name} did not complete`);
  return 1000 / result.period;
}

export default async function auth(): Promise<BenchRow[]> {
  const reads = requests(256);
  // What the baseline recovers: the same signatures, already hashed, in noble's recovery-byte-first layout.
  const raw = reads.map(({ header, body }) => {
    const t = Number(/t=(\d+)/.exec(header)![1]);
    const sig = Buffer.from(header.slice(header.indexOf('sig=0x') + 6), 'hex');
    return { hash: requestHash(t, body), recovered: Uint8Array.of(sig[64]! - 27, ...sig.subarray(0, 64)) };
  });

  const bench = new Bench({ time: 2000, warmupTime: 300 });
  let i = 0;
  bench.add('baseline', () => {
    const { hash, recovered } = raw[i++ % raw.length]!;
    nobleSecp256k1.recoverPublicKey(recovered, hash, { prehash: false });
  });
  const verifyReads = (backend: RecoveryBackend) => () => {
    const { header, body } = reads[i++ % reads.length]!;
    verifySignatureHeader(header, body, { method: 'GET', now: NOW, backend });
  };
  bench.add('js', verifyReads(jsBackend));
  if (nativeBackend !== null) {
    bench.add('native', verifyReads(nativeBackend));
    const binding = createRequire(import.meta.url)('secp256k1/bindings.js') as {
      ecdsaRecover(sig: Uint8Array, recid: number, msg: Uint8Array, compressed: boolean): Uint8Array;
    };
    bench.add('raw native', () => {
      const { hash, recovered } = raw[i++ % raw.length]!;
      binding.ecdsaRecover(recovered.subarray(1), recovered[0]!, hash, false);
    });
  }
  await bench.run();

  const baseline = opsPerSecond(bench, 'baseline');
  const unit = 'verifications/s';
  const rows = [
    row(SUITE, 'plain @noble/secp256k1 recovery (baseline)', { value: baseline, unit, baseline, ratio: 1, goal: 'baseline' }),
  ];
  if (nativeBackend !== null) {
    const native = opsPerSecond(bench, 'native');
    rows.push(
      row(SUITE, 'verify GET header, native backend', {
        value: native,
        unit,
        baseline,
        ratio: native / baseline,
        goal: `>= ${GOAL_PER_SECOND.toLocaleString('en-US')}/s on one core`,
      }),
    );
    rows.push(await writes(baseline));
    const rawNative = opsPerSecond(bench, 'raw native');
    rows.push(
      row(SUITE, 'raw libsecp256k1 recovery (no parse, hash)', {
        value: rawNative,
        unit,
        baseline,
        ratio: rawNative / baseline,
        goal: 'reference: the ceiling for native verification',
      }),
    );
  }
  const js = opsPerSecond(bench, 'js');
  rows.push(row(SUITE, 'verify GET header, JS fallback', { value: js, unit, baseline, ratio: js / baseline, goal: '>= 1x baseline' }));
  return rows;
}

/** POST verification claims each signature in a replay guard, so every iteration needs a fresh signature. */
async function writes(baseline: number): Promise<BenchRow> {
  const posts = requests(12_000, 1_000_000);
  const guard = new MemoryReplayGuard({ capacity: posts.length });
  let next = 0;
  const bench = new Bench({ time: 0, iterations: posts.length - 1000, warmupTime: 0, warmupIterations: 500 });
  bench.add('post', () => {
    const { header, body } = posts[next++]!;
    verifySignatureHeader(header, body, { method: 'POST', now: NOW + 1_000_000, replayGuard: guard, backend: nativeBackend! });
  });
  await bench.run();
  const value = opsPerSecond(bench, 'post');
  return row(SUITE, 'verify POST header + replay guard, native', {
    value,
    unit: 'verifications/s',
    baseline,
    ratio: value / baseline,
    goal: `>= ${GOAL_PER_SECOND.toLocaleString('en-US')}/s on one core`,
  });
}
