// The bench's side of bench/load-driver.ts: runs autocannon in a child process of its own (with tsx's loader,
// started on first use), so the load generator's work is not charged to the process under test.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type autocannon from 'autocannon';
import type { Post } from './signed-posts.ts';

/** Runs autocannon in `bench/load-driver.ts`, a child process (with tsx's loader) started on first use. */
export class LoadDriver {
  #child: ChildProcess | undefined;

  run(settings: Record<string, unknown>, posts: readonly Post[] | undefined): Promise<autocannon.Result> {
    const child = (this.#child ??= fork(fileURLToPath(new URL('./load-driver.ts', import.meta.url)), { execArgv: ['--import', 'tsx'] }));
    return new Promise((resolve, reject) => {
      child.once('message', (message: { result?: autocannon.Result; error?: string }) => (message.result ? resolve(message.result) : reject(new Error(message.error))));
      child.send({ settings, posts });
    });
  }

  close(): void {
    this.#child?.kill();
  }
}
