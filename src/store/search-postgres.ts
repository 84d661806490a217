// Full-text search indexes on PostgreSQL: one table per index, beside the key-value table, with a GIN index over
// a tsvector.
//
// `<table>_s_<index>(rid, rkey, len, tsv)`: each record's id (COLLATE "C": byte order, as SQLite's BINARY), its
// key in the key-value table, its token count (the relevance: search-read.ts) and its tokens as a tsvector made by
// `array_to_tsvector`, which takes the lexemes as they are: the tokens come from search-tokens.ts (folded, split at
// non-letters), so no text search configuration, parser or dictionary of the database ever sees the text. Queries
// are tsquery literals of quoted lexemes (`'word' & 'pre':*`), which the tsquery input also takes as they are. So
// both backends match exactly the records search-tokens.ts's `matchesTerms` says.

import type pg from 'pg';
import type { SearchHit, SearchOp, SearchScan } from './kv.ts';

/** The most rows one statement of a run of puts writes. */
const ROWS_PER_STATEMENT = 500;

export class PostgresSearch {
  constructor(readonly table: string, readonly kvTable: string) {}

  tableOf(index: string): string {
    if (!/^[0-9a-f]{16}$/.test(index)) throw new RangeError(`invalid search index name "${index}"`);
    return `${this.table}_s_${index}`;
  }

  /** Applies a run of search writes, in order; consecutive puts to one index go in statements of many rows. */
  async apply(client: pg.ClientBase, ops: readonly SearchOp[]): Promise<void> {
    let i = 0;
    while (i < ops.length) {
      const op = ops[i]!;
      const t = this.tableOf(op.index);
      if (op.kind === 'searchPut') {
        const rows = new Map<string, Extract<SearchOp, { kind: 'searchPut' }>>();
        while (i < ops.length && rows.size < ROWS_PER_STATEMENT) {
          const next = ops[i]!;
          if (next.kind !== 'searchPut' || next.index !== op.index) break;
          rows.set(next.id, next); // the same id twice in one INSERT ... ON CONFLICT is an error: the last wins
          i++;
        }
        const puts = [...rows.values()];
        const kept = puts.filter((put) => put.tokens.length > 0);
        const empty = puts.filter((put) => put.tokens.length === 0).map((put) => put.id);
        // A record without tokens matches no query: it has no row.
        if (empty.length > 0) await client.query(`DELETE FROM ${t} WHERE rid = ANY($1::text[])`, [empty]);
        if (kept.length === 0) continue;
        await client.query(
          `INSERT INTO ${t} (rid, rkey, len, tsv) ` +
            `SELECT rid, rkey, len, array_to_tsvector(string_to_array(tokens, ' ')) FROM unnest($1::text[], $2::bytea[], $3::int[], $4::text[]) AS u(rid, rkey, len, tokens) ` +
            `ON CONFLICT (rid) DO UPDATE SET rkey = EXCLUDED.rkey, len = EXCLUDED.len, tsv = EXCLUDED.tsv`,
          [kept.map((p) => p.id), kept.map((p) => p.key), kept.map((p) => p.tokens.length), kept.map((p) => p.tokens.join(' '))],
        );
        continue;
      }
      i++;
      if (op.kind === 'searchCreate') {
        await client.query(`CREATE TABLE IF NOT EXISTS ${t} (rid TEXT COLLATE "C" PRIMARY KEY, rkey BYTEA NOT NULL, len INTEGER NOT NULL, tsv TSVECTOR NOT NULL)`);
        await client.query(`CREATE INDEX IF NOT EXISTS ${t}_g ON ${t} USING GIN (tsv)`);
      } else if (op.kind === 'searchDrop') await client.query(`DROP TABLE IF EXISTS ${t}`);
      else await client.query(`DELETE FROM ${t} WHERE rid = $1`, [op.id]);
    }
  }

  async search(query: (text: string, values: unknown[]) => Promise<pg.QueryResult<SearchRow>>, index: string, scan: SearchScan): Promise<SearchHit[]> {
    const t = this.tableOf(index);
    const order = scan.reverse ? 'DESC' : 'ASC';
    const from = scan.from;
    // Without a position, every match (no bound stands in for one: any id may follow it).
    const position = from ? `AND (d.len, d.rid) ${scan.reverse ? '<' : '>'} ($3::int, $4::text COLLATE "C") ` : '';
    const text =
      `SELECT d.len AS tokens, d.rid AS id, convert_from(substring(kv.value from 9), 'UTF8') AS text ` +
      `FROM ${t} d JOIN ${this.kvTable} kv ON kv.key = d.rkey ` +
      `WHERE d.tsv @@ $1::tsquery ${position}` +
      `ORDER BY d.len ${order}, d.rid ${order} LIMIT $2`;
    try {
      const result = await query(text, from ? [tsQuery(scan), scan.limit, from.tokens, from.id] : [tsQuery(scan), scan.limit]);
      return result.rows;
    } catch (error) {
      if ((error as { code?: unknown }).code === '42P01') return []; // the index's table does not exist (yet)
      throw error;
    }
  }
}

interface SearchRow extends SearchHit {}

/** The tsquery literal of a scan: each lexeme quoted (tokens hold no quote or backslash; escaped all the same). */
export function tsQuery(scan: Pick<SearchScan, 'whole' | 'prefix'>): string {
  const quote = (token: string) => `'${token.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;
  return [...scan.whole.map(quote), `${quote(scan.prefix)}:*`].join(' & ');
}
