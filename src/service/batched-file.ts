// The JSON log's destination: lines gathered into one buffer and written to a file descriptor at most every
// FLUSH_MS, with request entries kept as they came and formatted only when their lines are gathered.

import { writeSync } from 'node:fs';
import type { DestinationStream } from 'pino';
import { requestLine, type RequestEntry } from './request-line.ts';

/** Something to wait on for 10 ms while a full pipe empties. */
const PAUSE = new Int32Array(new SharedArrayBuffer(4));

/** The most bytes of lines gathered before they are written at once. */
export const BATCH_BYTES = 64 * 1024;
/** The longest a line waits to be written. */
export const FLUSH_MS = 100;
/** The most request entries kept before they are formatted into the buffer. */
export const PENDING_ENTRIES = 256;

/**
 * A pino destination writing to a file descriptor: each line is encoded into one reused buffer, and the buffer is
 * written FLUSH_MS after its first line, or at once when the next line might not fit (BATCH_BYTES). Written once
 * per event loop's turn instead, a get's line cost it a write to the pipe every few requests (bench/README.md,
 * "http-log"). A line is encoded as it comes: gathered as one string until the write instead, every pending line
 * was copied by the young collections it lived through and read back from memory out of cache when the string
 * was flattened, 2-3 µs a get in the server.
 *
 * A request's entry (`writeRequest`, from log.ts's logRequest) is kept as it is, with its time, and formatted into
 * the buffer with the others pending, in one loop, when PENDING_ENTRIES are pending, before any other line (so
 * lines stay in the order they were logged) and before every write. Made on its request, between the request's own
 * work, a line cost a get more than the 2-3 µs the same work costs in a loop; made together, a logged get took
 * 0.94x-0.98x the CPU of one whose line was made at once (both servers in one bench run), and the log's share of
 * the server's samples fell from about 4% to 2.7% (bench/README.md, "http-log").
 *
 * The write is synchronous, as pino's default destination's is: a reader that falls behind (a full pipe) slows the
 * server rather than growing its memory, and nothing is lost when the process exits (an exit handler formats and
 * writes what is left; a process killed by a signal it does not handle, SIGKILL, SIGHUP or SIGQUIT, or aborted by
 * V8, loses at most its last FLUSH_MS of lines: docs/deploying.md).
 */
export class BatchedFile implements DestinationStream {
  readonly #buffer = Buffer.allocUnsafe(BATCH_BYTES);
  /** How many bytes of #buffer hold gathered lines. */
  #length = 0;
  /** Request entries not yet formatted (the first #pending), and when each was logged. */
  readonly #entries = new Array<RequestEntry | undefined>(PENDING_ENTRIES).fill(undefined);
  readonly #times = new Float64Array(PENDING_ENTRIES);
  #pending = 0;
  #scheduled = false;
  #closed = false;
  readonly #fd: number;
  /** Writes what is left when the process exits; removed by close. */
  readonly #onExit = (): void => this.flushSync();

  constructor(fd: number) {
    this.#fd = fd;
    process.on('exit', this.#onExit);
  }

  /**
   * Writes what is gathered and stops listening for the process's exit, so that a closed destination is not kept
   * alive by the process. The descriptor stays open (it is the caller's); a line logged after close is written at
   * once.
   */
  close(): void {
    this.#closed = true;
    process.off('exit', this.#onExit);
    this.flushSync();
  }

  /** Logs a line (pino's destination interface). */
  write(line: string): void {
    if (this.#pending > 0) this.#formatPending();
    this.#gather(line);
    this.#schedule();
  }

  /** Logs a request's entry, logged at `time`: its line is requestLine(entry, time), made when it is gathered. */
  writeRequest(entry: RequestEntry, time: number): void {
    if (this.#pending === PENDING_ENTRIES) this.#formatPending();
    this.#entries[this.#pending] = entry;
    this.#times[this.#pending++] = time;
    this.#schedule();
  }

  /** pino's `logger.flush(callback)`: writes what is gathered, then calls back. */
  flush(callback: (error?: Error) => void): void {
    this.flushSync();
    callback();
  }

  flushSync(): void {
    this.#scheduled = false;
    if (this.#pending > 0) this.#formatPending();
    if (this.#length === 0) return;
    const length = this.#length;
    this.#length = 0;
    this.#writeAll(this.#buffer.subarray(0, length));
  }

  #schedule(): void {
    if (this.#closed) {
      this.flushSync();
      return;
    }
    if (this.#scheduled) return;
    this.#scheduled = true;
    // Unreferenced: a process with nothing else to do exits, and its exit handler writes the lines.
    setTimeout(() => this.flushSync(), FLUSH_MS).unref();
  }

  /** Gathers the pending request entries' lines, in order, and forgets the entries. */
  #formatPending(): void {
    const pending = this.#pending;
    // Zero first: gathering a line may write the buffer (flushSync), which must not format these again.
    this.#pending = 0;
    for (let i = 0; i < pending; i++) {
      const entry = this.#entries[i]!;
      this.#entries[i] = undefined;
      this.#gather(requestLine(entry, this.#times[i]!));
    }
  }

  /** Encodes a line into the buffer, writing the buffer first when the line might not fit. */
  #gather(line: string): void {
    // A UTF-16 code unit takes at most 3 bytes of UTF-8: a line of `line.length * 3` bytes surely fits.
    if (this.#length + line.length * 3 > BATCH_BYTES) {
      this.flushSync();
      // A line that may not fit even the empty buffer (an internal error's stack, say) is written alone.
      if (line.length * 3 > BATCH_BYTES) {
        this.#writeAll(Buffer.from(line));
        return;
      }
    }
    this.#length += this.#buffer.write(line, this.#length);
  }

  #writeAll(bytes: Buffer): void {
    for (let written = 0; written < bytes.length; ) {
      try {
        written += writeSync(this.#fd, bytes, written);
      } catch (error) {
        // A non-blocking pipe that is full: try again (as pino's sonic-boom does); any other error drops the text.
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') return;
        Atomics.wait(PAUSE, 0, 0, 10);
      }
    }
  }
}
