// Types of bench/hand-written-table.js (plain JavaScript, so that the hand-written server runs without tsx).
import type Database from 'better-sqlite3';

export function openItemsTable(file: string): {
  db: Database.Database;
  insert: Database.Statement<[string, number, string, string | null]>;
  increment: Database.Statement<[string]>;
};
