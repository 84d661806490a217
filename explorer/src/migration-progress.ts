// While a schema change is made, how far the pass over the stored records has got: the `updateCode` call answers
// once every record is in the new form (cast, or run through the schema's `@migrate` function), which can take a
// while for a large collection. Meanwhile the server's `GET …/Collection/records/<id>/migration` (docs/service.md)
// is asked every few hundred milliseconds and shown as a progress bar.
import type { Connection } from './connection.ts';
import { h, replaceChildren } from './dom.ts';

interface MigrationProgress {
  running: boolean;
  switching: boolean;
  done: number;
  total: number;
}

const POLL_MS = 250;
const count = (n: number) => n.toLocaleString('en-US');

/** Shows the progress of the collection's pass in `into` until the returned function is called. */
export function watchMigration(connection: Connection, collectionId: string, into: HTMLElement): () => void {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const path = `/collections/Collection/records/${encodeURIComponent(collectionId)}/migration`;
  const show = (progress: MigrationProgress) => {
    if (!progress.running) return replaceChildren(into, h('span', { class: 'muted' }, 'Saving…'));
    if (progress.total === 0) return replaceChildren(into, h('span', { class: 'muted', id: 'migration-progress' }, 'Storing the new layout…'));
    const bar = h('progress', { max: String(progress.total), value: String(progress.done) });
    replaceChildren(into, h('p', { id: 'migration-progress', role: 'status' }, bar, ` Updating stored records: ${count(progress.done)} of ${count(progress.total)}`));
  };
  const ask = async () => {
    try {
      const answer = await connection.send({ method: 'GET', path, sign: true });
      if (!stopped) show((answer.body as { data: MigrationProgress }).data);
    } catch {
      // Progress is a courtesy: the change's own answer says whether it was made.
    }
    if (!stopped) timer = setTimeout(() => void ask(), POLL_MS);
  };
  void ask();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
