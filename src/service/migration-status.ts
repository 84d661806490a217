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

/** How far this process's pass over a collection has got (`GET …/Collection/records/<id>/migration`). */
export interface MigrationProgress {
  readonly collectionId: string;
  readonly running: boolean;
  /** Still storing the new layout (requests of the collection wait for it). */
  readonly switching: boolean;
  /** Records passed through so far, and the records the pass will go through (both 0 until the first batch). */
  readonly done: number;
  readonly total: number;
}

export class MigrationStatus {
  readonly #running = new Map<string, number>();
  readonly #counts = new Map<string, { done: number; total: number }>();
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

  /** Records how far the collection's running pass has got (the store's progress of its batches). */
  report(collectionId: string, done: number, total: number): void {
    if (this.#running.has(collectionId)) this.#counts.set(collectionId, { done, total });
  }

  /** The collection's pass as this process runs it (not running: no pass here now, or it ended). */
  progress(collectionId: string): MigrationProgress {
    const running = this.#running.has(collectionId);
    const counts = (running && this.#counts.get(collectionId)) || { done: 0, total: 0 };
    return { collectionId, running, switching: this.#switching.has(collectionId), ...counts };
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
        this.#counts.delete(collectionId);
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
