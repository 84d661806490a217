// Which collections this process is switching to a new schema right now: the layout pass after a schema change
// (records cast to the new schema, indexes built) is running. A readiness check can report "not ready: a migration
// is switching" from `running`, or follow `onChange`. Only this process's passes: another server sharing the
// database reports its own.

export interface MigrationEvent {
  readonly collectionId: string;
  /** True when the pass starts, false when it ends (finished or failed). */
  readonly running: boolean;
}

export class MigrationStatus {
  readonly #running = new Map<string, number>();
  readonly #listeners = new Set<(event: MigrationEvent) => void>();

  /** The collections whose pass is running, in the order they started. */
  get running(): readonly string[] {
    return [...this.#running.keys()];
  }

  /** Calls `listener` when a pass starts or ends; returns the function that stops it. */
  onChange(listener: (event: MigrationEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Marks the collection's pass as running while `pass` runs. */
  async track<T>(collectionId: string, pass: Promise<T>): Promise<T> {
    const count = this.#running.get(collectionId) ?? 0;
    this.#running.set(collectionId, count + 1);
    if (count === 0) this.#emit({ collectionId, running: true });
    try {
      return await pass;
    } finally {
      const left = this.#running.get(collectionId)! - 1;
      if (left === 0) {
        this.#running.delete(collectionId);
        this.#emit({ collectionId, running: false });
      } else this.#running.set(collectionId, left);
    }
  }

  #emit(event: MigrationEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch {
        // A listener's failure is its own: the pass goes on.
      }
    }
  }
}
