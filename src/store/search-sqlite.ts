// Full-text search indexes on SQLite: one FTS5 table per index, beside the key-value table.
//
// `search_<index>_docs(rowid, rid, rkey, len)` holds each record's id, its key in `kv` and its token count (the
// relevance: search-read.ts); `search_<index>` is an FTS5 table of the same rowids over the record's tokens joined
// by spaces. The tokens are made by search-tokens.ts (folded, split at non-letters), so FTS5 must not split or fold
// them again: the `ascii` tokenizer splits only at ASCII characters that are not letters or digits (here: the
// spaces between tokens) and folds only ASCII upper case (there is none). `detail=none` keeps no positions (no
// phrase queries are made); `prefix='2 3'` keeps prefix indexes for the short prefixes of the last query term.

import type Database from 'better-sqlite3';
import type { SearchHit, SearchOp, SearchScan } from './kv.ts';

interface Statements {
  readonly deleteFts: Database.Statement<[string]>;
  readonly deleteDoc: Database.Statement<[string]>;
  readonly insertDoc: Database.Statement<[string, Buffer, number]>;
  readonly insertFts: Database.Statement<[number | bigint, string]>;
  readonly scan: Record<'asc' | 'desc', Database.Statement<[string, number, number, string, number]>>;
}

export class SqliteSearch {
  readonly #db: Database.Database;
  readonly #statements = new Map<string, Statements>();

  constructor(db: Database.Database) {
    this.#db = db;
  }

  /** Applies one search write (inside the caller's transaction). */
  apply(op: SearchOp): void {
    const { docs, fts } = tableNames(op.index);
    switch (op.kind) {
      case 'searchCreate':
        this.#db.exec(`CREATE TABLE IF NOT EXISTS ${docs} (rowid INTEGER PRIMARY KEY, rid TEXT NOT NULL UNIQUE, rkey BLOB NOT NULL, len INTEGER NOT NULL)`);
        this.#db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS ${fts} USING fts5(tokens, tokenize = 'ascii', detail = none, prefix = '2 3')`);
        return;
      case 'searchDrop':
        this.#statements.delete(op.index);
        this.#db.exec(`DROP TABLE IF EXISTS ${fts}`);
        this.#db.exec(`DROP TABLE IF EXISTS ${docs}`);
        return;
      case 'searchDelete': {
        const statements = this.#prepared(op.index);
        statements.deleteFts.run(op.id);
        statements.deleteDoc.run(op.id);
        return;
      }
      case 'searchPut': {
        const statements = this.#prepared(op.index);
        statements.deleteFts.run(op.id);
        statements.deleteDoc.run(op.id);
        if (op.tokens.length === 0) return; // matches no query
        const { lastInsertRowid } = statements.insertDoc.run(op.id, op.key, op.tokens.length);
        statements.insertFts.run(lastInsertRowid, op.tokens.join(' '));
        return;
      }
    }
  }

  search(index: string, scan: SearchScan): SearchHit[] {
    if (!this.#exists(index)) return [];
    const statement = this.#prepared(index).scan[scan.reverse ? 'desc' : 'asc'];
    const from = scan.from ?? (scan.reverse ? { tokens: Number.MAX_SAFE_INTEGER, id: '' } : { tokens: -1, id: '' });
    return statement.all(ftsQuery(scan), from.tokens, from.tokens, from.id, scan.limit) as SearchHit[];
  }

  #exists(index: string): boolean {
    if (this.#statements.has(index)) return true;
    return this.#db.prepare(`SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?`).get(`search_${index}_docs`) !== undefined;
  }

  #prepared(index: string): Statements {
    let statements = this.#statements.get(index);
    if (statements) return statements;
    const { docs, fts } = tableNames(index);
    const scan = (order: 'ASC' | 'DESC') => {
      const after = order === 'ASC' ? '>' : '<';
      return this.#db.prepare<[string, number, number, string, number]>(
        `SELECT d.len AS tokens, d.rid AS id, CAST(substr(kv.value, 9) AS TEXT) AS text ` +
          `FROM ${fts} f JOIN ${docs} d ON d.rowid = f.rowid JOIN kv ON kv.key = d.rkey ` +
          `WHERE ${fts} MATCH ? AND (d.len ${after} ? OR (d.len = ? AND d.rid ${after} ?)) ` +
          `ORDER BY d.len ${order}, d.rid ${order} LIMIT CAST(? AS INTEGER)`,
      );
    };
    statements = {
      deleteFts: this.#db.prepare(`DELETE FROM ${fts} WHERE rowid = (SELECT rowid FROM ${docs} WHERE rid = ?)`),
      deleteDoc: this.#db.prepare(`DELETE FROM ${docs} WHERE rid = ?`),
      insertDoc: this.#db.prepare(`INSERT INTO ${docs} (rid, rkey, len) VALUES (?, ?, ?)`),
      insertFts: this.#db.prepare(`INSERT INTO ${fts} (rowid, tokens) VALUES (?, ?)`),
      scan: { asc: scan('ASC'), desc: scan('DESC') },
    };
    this.#statements.set(index, statements);
    return statements;
  }
}

function tableNames(index: string): { docs: string; fts: string } {
  if (!/^[0-9a-f]{16}$/.test(index)) throw new RangeError(`invalid search index name "${index}"`);
  return { docs: `search_${index}_docs`, fts: `search_${index}` };
}

/** The FTS5 query of a scan: every whole term, and the prefix, each quoted (a token holds no `"`). */
export function ftsQuery(scan: Pick<SearchScan, 'whole' | 'prefix'>): string {
  const quote = (token: string) => `"${token.replaceAll('"', '""')}"`;
  return [...scan.whole.map(quote), `${quote(scan.prefix)}*`].join(' AND ');
}
