// Worker threads that hash signed requests and recover their signers' keys (recovery-worker.js), so a server's
// event loop goes on answering other requests meanwhile: recovery costs about 70 µs of CPU even in
// libsecp256k1, more than the rest of a signed write on the main thread.
//
// Jobs asked for in one turn of the event loop travel as one message (one post and one answer for all the
// requests that arrived together). A worker that fails, exits or stops answering (a batch outlives its
// deadline) is replaced on the next job; the jobs it had are done in this thread instead, so a crash or a hang
// costs time, never a request. After MAX_FAILURES failures in a row the pool gives up on threads and recovers
// everything in this thread.

import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { requestHash } from './personal-sign.ts';
import { defaultBackend, recoveredKey, type RecoveryBackend } from './recover.ts';
import type { RecoverableSignature } from './signature.ts';

export interface Recovery {
  /** The personal-sign digest of `<t>.<body>`. */
  hash: Uint8Array;
  /** The signer's 65-byte uncompressed key; null when none can be recovered from the signature. */
  key: Uint8Array | null;
}

export interface RecoveryPoolOptions {
  /** How many worker threads (default: one less than the available cores, at least 1 and at most 4). */
  size?: number;
  /** The backend the workers use: native libsecp256k1 or JavaScript (default: the process default). */
  backend?: RecoveryBackend;
  /** The worker script (default recovery-worker.js); tests give one that fails. */
  workerUrl?: URL;
  /**
   * How long a batch may wait for its worker's answer (default 2 s; one key takes about 70 µs). A worker that
   * lets it pass is taken for hung: it is ended, and its jobs are done in this thread.
   */
  deadlineMs?: number;
}

interface Job {
  t: number;
  body: string | Uint8Array;
  signature: RecoverableSignature;
  resolve: (recovery: Recovery) => void;
}

interface Batch {
  jobs: Job[];
  deadline: NodeJS.Timeout;
}

interface Thread {
  worker: Worker;
  /** Batches posted and not yet answered, in order: a worker answers its messages in the order they came. */
  inFlight: Batch[];
}

const MAX_FAILURES = 3;
// One thread recovers about 14,000 keys a second, more than a main thread can serve signed writes: more
// threads than this would only take memory.
const MAX_DEFAULT_SIZE = 4;
const DEFAULT_DEADLINE_MS = 2000;

export class RecoveryPool {
  readonly size: number;
  readonly #backend: RecoveryBackend;
  readonly #workerUrl: URL;
  readonly #deadlineMs: number;
  readonly #threads: (Thread | undefined)[];
  #queue: Job[] = [];
  #flushScheduled = false;
  #next = 0;
  #failuresInARow = 0;
  #closed = false;

  constructor(options: RecoveryPoolOptions = {}) {
    const size = options.size ?? Math.min(MAX_DEFAULT_SIZE, Math.max(1, availableParallelism() - 1));
    if (!Number.isSafeInteger(size) || size < 1) throw new RangeError(`size must be a positive integer, got ${size}`);
    this.size = size;
    this.#backend = options.backend ?? defaultBackend;
    this.#workerUrl = options.workerUrl ?? new URL('./recovery-worker.js', import.meta.url);
    this.#deadlineMs = options.deadlineMs ?? DEFAULT_DEADLINE_MS;
    this.#threads = new Array<Thread | undefined>(size).fill(undefined);
  }

  /** The digest of `<t>.<body>` and the key that signed it, computed in a worker thread. */
  recover(t: number, body: string | Uint8Array, signature: RecoverableSignature): Promise<Recovery> {
    return new Promise((resolve) => {
      if (this.#closed || this.#failuresInARow >= MAX_FAILURES) {
        resolve(this.#recoverHere(t, body, signature));
        return;
      }
      this.#queue.push({ t, body, signature, resolve });
      if (!this.#flushScheduled) {
        this.#flushScheduled = true;
        setImmediate(() => this.#flush());
      }
    });
  }

  /** Starts the worker threads now rather than on the first job (a thread takes tens of milliseconds to start). */
  warm(): void {
    if (this.#closed) return;
    for (let index = 0; index < this.size; index++) {
      if (this.#threads[index] !== undefined) continue;
      try {
        this.#start(index);
      } catch {
        this.#failed();
      }
    }
  }

  /** Ends the worker threads; jobs still waiting are done in this thread, later ones too. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    const threads = this.#threads.filter((thread) => thread !== undefined);
    this.#threads.fill(undefined);
    for (const thread of threads) this.#finishHere(thread);
    this.#finishQueueHere();
    await Promise.all(threads.map((thread) => thread.worker.terminate()));
  }

  #flush(): void {
    this.#flushScheduled = false;
    if (this.#queue.length === 0) return;
    if (this.#closed || this.#failuresInARow >= MAX_FAILURES) {
      this.#finishQueueHere();
      return;
    }
    const batch = this.#queue;
    this.#queue = [];
    const index = this.#next;
    this.#next = (this.#next + 1) % this.size;
    let thread = this.#threads[index];
    if (!thread) {
      try {
        thread = this.#start(index);
      } catch {
        this.#failed();
        for (const job of batch) job.resolve(this.#recoverHere(job.t, job.body, job.signature));
        return;
      }
    }
    const deadline = setTimeout(() => this.#hung(index, thread), this.#deadlineMs);
    deadline.unref();
    thread.inFlight.push({ jobs: batch, deadline });
    thread.worker.ref();
    const signatures = new Uint8Array(batch.length * 65);
    batch.forEach(({ signature }, i) => {
      signatures.set(signature.compact, i * 65);
      signatures[i * 65 + 64] = signature.recoveryId;
    });
    // Bytes are copied to a buffer of their own: a view into a larger one (a pooled Buffer) would send it all.
    const bodies = batch.map(({ body }) => (typeof body === 'string' ? body : new Uint8Array(body)));
    thread.worker.postMessage({ times: batch.map((job) => job.t), bodies, signatures }, [signatures.buffer]);
  }

  #start(index: number): Thread {
    // No execArgv: the worker is plain JavaScript and needs no loader of the parent's (tsx: 3x slower to start).
    const worker = new Worker(this.#workerUrl, { workerData: { backend: this.#backend.name }, execArgv: [] });
    worker.unref(); // an idle pool never keeps the process alive
    const thread: Thread = { worker, inFlight: [] };
    this.#threads[index] = thread;
    worker.on('message', (answers: Uint8Array) => {
      const posted = thread.inFlight.shift();
      if (!posted) return;
      clearTimeout(posted.deadline);
      const batch = posted.jobs;
      this.#failuresInARow = 0;
      for (let i = 0; i < batch.length; i++) {
        const key = answers.subarray(i * 97 + 32, i * 97 + 97);
        batch[i]!.resolve({ hash: answers.subarray(i * 97, i * 97 + 32), key: key[0] === 4 ? key.slice() : null });
      }
      if (thread.inFlight.length === 0) worker.unref();
    });
    const gone = () => {
      if (this.#threads[index] !== thread) return;
      this.#threads[index] = undefined;
      this.#failed();
      this.#finishHere(thread);
    };
    worker.on('error', gone);
    worker.on('exit', gone);
    return thread;
  }

  /** A batch's deadline passed: the worker is taken for hung, ended, and its jobs are done in this thread. */
  #hung(index: number, thread: Thread): void {
    if (this.#threads[index] !== thread) return;
    this.#threads[index] = undefined;
    this.#failed();
    this.#finishHere(thread);
    void thread.worker.terminate();
  }

  #failed(): void {
    this.#failuresInARow++;
  }

  /** Does the unanswered jobs of a thread that is gone in this thread. */
  #finishHere(thread: Thread): void {
    for (const { jobs, deadline } of thread.inFlight.splice(0)) {
      clearTimeout(deadline);
      for (const job of jobs) job.resolve(this.#recoverHere(job.t, job.body, job.signature));
    }
  }

  #finishQueueHere(): void {
    for (const job of this.#queue.splice(0)) job.resolve(this.#recoverHere(job.t, job.body, job.signature));
  }

  #recoverHere(t: number, body: string | Uint8Array, signature: RecoverableSignature): Recovery {
    const hash = requestHash(t, body);
    return { hash, key: recoveredKey(signature, hash, this.#backend) };
  }
}
