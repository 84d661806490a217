// Readiness, as a load balancer or Kubernetes' readiness probe asks it (`GET /v0/ready`): whether this server
// should be sent traffic now. `/v0/health` stays the cheap liveness answer (the process serves HTTP at all).
//
// Not ready, with every reason said: the database does not answer a read of its clock within READY_TIMEOUT_MS,
// the server is draining (it got SIGTERM), or a part of the service said so (`Readiness.notReady`, such as
// "migration switching" while a schema migration swaps what is served), until it takes that back.

import type { RecordStore } from '../store/index.ts';

/** How long the database has to answer the readiness read. */
export const READY_TIMEOUT_MS = 2000;

export class Readiness {
  readonly #reasons = new Map<symbol, string>();
  #draining = false;

  /** Marks the service not ready for `reason` until the returned function is called (calling it again does nothing). */
  notReady(reason: string): () => void {
    const token = Symbol(reason);
    this.#reasons.set(token, reason);
    return () => void this.#reasons.delete(token);
  }

  /** The server is shutting down: not ready from now on. */
  drain(): void {
    this.#draining = true;
  }

  get draining(): boolean {
    return this.#draining;
  }

  /** The reasons given through `notReady`, oldest first, and draining. */
  reasons(): string[] {
    const reasons = [...this.#reasons.values()];
    if (this.#draining) reasons.push('draining: the server is shutting down');
    return reasons;
  }

  /** Every reason the service is not ready now, the database's included; empty when it is ready. */
  async check(store: RecordStore, timeoutMs = READY_TIMEOUT_MS): Promise<string[]> {
    const reasons = this.reasons();
    const database = await databaseProblem(store, timeoutMs);
    if (database !== undefined) reasons.unshift(database);
    return reasons;
  }
}

/** Why the database cannot serve, or undefined when it answers a read of its clock in time. */
async function databaseProblem(store: RecordStore, timeoutMs: number): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`the database did not answer within ${timeoutMs} ms`), timeoutMs);
  });
  try {
    return await Promise.race([
      store.timestamp().then(
        () => undefined,
        (error: unknown) => `the database does not answer: ${(error as Error).message}`,
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
