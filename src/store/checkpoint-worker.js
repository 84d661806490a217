// The SQLite backend's checkpointer (see sqlite.ts): copies the WAL back into the database file on its own
// connection, in a worker thread, so the copy and its fsync never block the event loop that answers requests.
// Plain JavaScript, because a worker thread starts without the TypeScript loader of its parent.
//
// Messages: 'checkpoint' runs one PASSIVE checkpoint (it never waits for readers or writers, and a writer may
// commit meanwhile) and answers 'done'; 'close' closes the connection and ends the thread.

import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

const db = new Database(workerData.path);
db.pragma('busy_timeout = 5000');

parentPort.on('message', (message) => {
  if (message === 'checkpoint') {
    try {
      db.pragma('wal_checkpoint(PASSIVE)');
    } catch {
      // Busy or failing now: the next request tries again, and the main connection's own limit still applies.
    }
    parentPort.postMessage('done');
  } else if (message === 'close') {
    db.close();
    parentPort.close();
  }
});
