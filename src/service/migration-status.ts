// Which collections this process is migrating to a new schema right now: the layout pass after a schema change
// (records cast to the new schema, indexes built) is running, and whether it is still switching (storing the new
// layout, which requests of the collection wait for) or past that (casting the records, while requests go on and
// are answered in the new form: docs/store.md, "Reads during a cast pass"). The service reports a switch as not
// ready (`RecordService.readiness`); a running pass alone is not. Only this process's passes: another server
// sharing the database reports its own.

export interface MigrationEvent {
  readonly collectionId: string;
  /** True when the pass starts, false when it ends (finished or failed). */
  readonly running: boolean;
  /** True when the pass starts, false once its layout is stored (or the pass ended before). */
  readonly switching: boolean;
}

export class MigrationStatus {
  readonly #running = new Map<string, number>();
  readonly #switching = new Map<string, number>();
  readonly #listeners = new Set<(event: MigrationEvent) => void>();

  /** The collections whose pass is running, in the order they started. */
  get running(): readonly string[] {
    return [...this.#running.keys()];
  }

  /** The collections whose pass is still storing its new layout. */
  get switching(): readonly string[] {
    return [...this.#switching.keys()];
  }

  /** Calls `listener` when a pass starts, has switched, or ends; returns the function that stops it. */
  onChange(listener: (event: MigrationEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Marks the collection's pass as running while `pass` runs, and as switching until `switched` settles too. */
  async track<T>(collectionId: string, pass: Promise<T>, switched: Promise<unknown> = pass): Promise<T> {
    const count = this.#running.get(collectionId) ?? 0;
    this.#running.set(collectionId, count + 1);
    const switching = this.#switching.get(collectionId) ?? 0;
    this.#switching.set(collectionId, switching + 1);
    if (count === 0 || switching === 0) this.#emit({ collectionId, running: true, switching: true });
    let stillSwitching = true;
    const endSwitch = (ending: boolean) => {
      if (!stillSwitching) return;
      stillSwitching = false;
      const left = this.#switching.get(collectionId)! - 1;
      if (left > 0) this.#switching.set(collectionId, left);
      else {
        this.#switching.delete(collectionId);
        if (!ending) this.#emit({ collectionId, running: true, switching: false });
      }
    };
    switched.then(
      () => endSwitch(false),
      () => endSwitch(false),
    );
    try {
      return await pass;
    } finally {
      endSwitch(true);
      const left = this.#running.get(collectionId)! - 1;
      if (left === 0) {
        this.#running.delete(collectionId);
        this.#emit({ collectionId, running: false, switching: this.#switching.has(collectionId) });
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
