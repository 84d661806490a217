// The table of the hand-written baseline (bench/hand-written-server.js, bench/disk.ts): the bench's `Item`
// records as a user would store them in SQLite, one row each, with an index on each field the bench queries.
import Database from 'better-sqlite3';

/** Opens (creating it when new) the items table in `file`, with Vellum's SQLite durability: WAL, synchronous NORMAL. */
export function openItemsTable(file) {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(`
    CREATE TABLE IF NOT EXISTS items (id TEXT PRIMARY KEY, n REAL NOT NULL, label TEXT NOT NULL, owner TEXT) WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS items_n ON items (n);
    CREATE INDEX IF NOT EXISTS items_label ON items (label);
  `);
  return {
    db,
    insert: db.prepare('INSERT INTO items (id, n, label, owner) VALUES (?, ?, ?, ?)'),
    increment: db.prepare('UPDATE items SET n = n + 1 WHERE id = ? RETURNING id, n, label, owner'),
  };
}
