// Holds a schema change's layout pass at its start: the store's first record count (`kv.count`), which the pass
// runs once the new layout is stored and before its first batch, waits until `release()`. Meanwhile the schema
// record is committed and no record is cast yet, so a test can read and write "before the pass reaches" a record.
import { vi } from 'vitest';
import type { RecordStore } from '../../src/store/index.ts';

export function holdPass(store: RecordStore): { held: Promise<void>; release: () => void; restore: () => void } {
  const original = store.kv.count.bind(store.kv);
  let arrived!: () => void;
  const held = new Promise<void>((resolve) => (arrived = resolve));
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let first = true;
  const spy = vi.spyOn(store.kv, 'count').mockImplementation(async (range) => {
    if (first) {
      first = false;
      arrived();
      await gate;
    }
    return original(range);
  });
  return { held, release, restore: () => spy.mockRestore() };
}
