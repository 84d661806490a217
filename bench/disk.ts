// `npm run bench -- disk`: what the storage format costs on disk against the hand-written table of the http
// suite (bench/hand-written-table.js), for the same RECORDS records of the bench's collection, each written in
// a commit of its own: bytes on disk per record (the database file after a full checkpoint, less the file before
// the records), and per commit of a create and of a call, the rows SQLite writes (total_changes: inserted,
// replaced and deleted rows, index rows of the hand-written table excluded: SQLite counts table rows) and the
// pages it appends to the WAL (what a commit costs the disk). Not timed: these are counts.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { RecordService } from '../src/service/index.ts';
import { openSqliteStore } from '../src/store/index.ts';
import type { SqliteKv } from '../src/store/sqlite.ts';
import { row, type BenchRow } from './harness.ts';
import { openItemsTable } from './hand-written-table.js';
import { ITEM_SCHEMA, itemId } from './http.ts';

const SUITE = 'disk';
const RECORDS = 5000;
/** Commits per measured kind: fewer than the store's flushes between two checkpoint requests (64). */
const COMMITS = 50;

/** Checkpoints the whole WAL into the file and empties it (from a connection of its own); the file's size. */
function checkpointedSize(file: string): number {
  const db = new Database(file);
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  return statSync(file).size;
}

function walPages(file: string, pageSize: number): number {
  const wal = `${file}-wal`;
  let size = 0;
  try {
    size = statSync(wal).size;
  } catch {
    return 0;
  }
  // A WAL is a 32-byte header and one frame (a 24-byte header and the page) per page written.
  return size === 0 ? 0 : (size - 32) / (pageSize + 24);
}

interface Costs {
  bytesPerRecord: number;
  create: { rows: number; pages: number };
  call: { rows: number; pages: number };
}

/** Rows written and WAL pages appended per commit by COMMITS runs of `commit`, starting from an empty WAL. */
async function perCommit(file: string, db: Database.Database, commit: (i: number) => Promise<unknown> | unknown): Promise<{ rows: number; pages: number }> {
  checkpointedSize(file);
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  const changes = db.prepare('SELECT total_changes()').pluck();
  const before = changes.get() as number;
  for (let i = 0; i < COMMITS; i++) await commit(i);
  return { rows: ((changes.get() as number) - before) / COMMITS, pages: walPages(file, pageSize) / COMMITS };
}

async function vellumCosts(dir: string): Promise<Costs> {
  const file = join(dir, 'vellum.sqlite');
  let service = new RecordService(openSqliteStore(file));
  await service.initialise();
  await service.installSchema('bench/Item', ITEM_SCHEMA);
  const empty = checkpointedSize(file);
  for (let i = 0; i < RECORDS; i++) await service.create('bench/Item', [itemId(i), i, `label ${i % 10}`], {});
  await service.store.close();
  const bytesPerRecord = (checkpointedSize(file) - empty) / RECORDS;
  // A new store, so that no checkpoint request falls inside the measured commits.
  service = new RecordService(openSqliteStore(file));
  await service.initialise();
  const db = (service.store.kv as SqliteKv).db;
  const create = await perCommit(file, db, (i) => service.create('bench/Item', [`new-${i}`, i, 'created'], {}));
  const call = await perCommit(file, db, (i) => service.call('bench/Item', itemId(i * 7), 'increment', [], {}));
  await service.store.close();
  return { bytesPerRecord, create, call };
}

async function handWrittenCosts(dir: string): Promise<Costs> {
  const file = join(dir, 'hand-written.sqlite');
  const { db, insert, increment } = openItemsTable(file);
  const empty = checkpointedSize(file);
  for (let i = 0; i < RECORDS; i++) insert.run(itemId(i), i, `label ${i % 10}`, null);
  const bytesPerRecord = (checkpointedSize(file) - empty) / RECORDS;
  const create = await perCommit(file, db, (i) => insert.run(`new-${i}`, i, 'created', null));
  const call = await perCommit(file, db, (i) => increment.get(itemId(i * 7)));
  db.close();
  return { bytesPerRecord, create, call };
}

export default async function disk(): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'vellum-bench-disk-'));
  try {
    const vellum = await vellumCosts(dir);
    const hand = await handWrittenCosts(dir);
    const rows: BenchRow[] = [];
    const add = (name: string, unit: string, value: number, baseline: number) =>
      rows.push(row(SUITE, name, { value, unit, baseline, ratio: value / baseline, goal: 'informative (vs the hand-written table)' }));
    add('bytes on disk per record', 'B', vellum.bytesPerRecord, hand.bytesPerRecord);
    add('rows written per create', 'rows', vellum.create.rows, hand.create.rows);
    add('WAL pages per create', 'pages', vellum.create.pages, hand.create.pages);
    add('rows written per call', 'rows', vellum.call.rows, hand.call.rows);
    add('WAL pages per call', 'pages', vellum.call.pages, hand.call.pages);
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
