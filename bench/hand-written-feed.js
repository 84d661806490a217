// The change feed of the hand-written baseline (`bench/hand-written-server.js --change-feed`): what a user would add
// to the items table (bench/hand-written-table.js) to offer what Vellum offers on every write: an index on the
// owner too (Vellum indexes every top-level field), a change log of one row per changed record (for long-polls
// `since` a timestamp) and a per-collection change stamp. Timestamps are microseconds, always past the previous
// one (Vellum's rule: max(previous + 1, now)), so they are unique and increasing. The caller runs a request's
// writes and its `logChange` in one transaction.

/** Adds the feed's index and tables to the items database `db`; returns `logChange(collection, id, kind)`. */
export function openChangeFeed(db) {
  db.exec(`
    CREATE INDEX IF NOT EXISTS items_owner ON items (owner);
    CREATE TABLE IF NOT EXISTS changes (ts INTEGER PRIMARY KEY, collection TEXT NOT NULL, id TEXT NOT NULL, kind TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS stamps (collection TEXT PRIMARY KEY, ts INTEGER NOT NULL) WITHOUT ROWID;
  `);
  const insertChange = db.prepare('INSERT INTO changes (ts, collection, id, kind) VALUES (?, ?, ?, ?)');
  const upsertStamp = db.prepare('INSERT INTO stamps (collection, ts) VALUES (?, ?) ON CONFLICT (collection) DO UPDATE SET ts = excluded.ts');
  // This process is the database's only writer, so the clock is kept in memory from the last logged change.
  let clock = db.prepare('SELECT coalesce(max(ts), 0) AS ts FROM changes').get().ts;

  return function logChange(collection, id, kind) {
    clock = Math.max(clock + 1, Date.now() * 1000);
    insertChange.run(clock, collection, id, kind);
    upsertStamp.run(collection, clock);
  };
}
