// `npm run bench -- disk`: what the storage format costs on disk against the hand-written table of the http
// suite (bench/hand-written-table.js), for the same RECORDS records of the bench's collection, each written in
// a commit of its own: bytes on disk per record (the database file after a full checkpoint, less the file before
// the records), and per commit of a create and of a call, the rows SQLite writes (total_changes: inserted,
// replaced and deleted rows, index rows of the hand-written table excluded: SQLite counts table rows) and the
// pages it appends to the WAL (what a commit costs the disk). Not timed: these are counts.
//
// The storage format question (issue 12): the same store with key-only index entries (an entry holding its
// record's key instead of a copy of the record) beside its covering ones, under another key head. Counted: the
// rows and WAL pages of a call's commit in each form (the store's writes for a call changing `n`, as raw
// statements on the same table). Timed (CPU, medians of 9 alternating rounds): that commit, and a page of 100 as
// one range read of covering entries against one statement joining key-only entries to the records.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { RecordService } from '../src/service/index.ts';
import { openSqliteStore } from '../src/store/index.ts';
import type { SqliteKv } from '../src/store/sqlite.ts';
import { checkSchema } from '../src/lang/index.ts';
import { encodeU64 } from '../src/store/encoding.ts';
import { CollectionIndexes } from '../src/store/index-entries.ts';
import { layoutOf } from '../src/store/index.ts';
import { changeKey, clockKey, collectionChangedKey, recordKey } from '../src/store/keys.ts';
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

async function vellumCosts(dir: string): Promise<Costs & { formats: Record<Form, FormatCosts> }> {
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
  return { bytesPerRecord, create, call, formats: keyOnlyComparison(file) };
}

interface FormatCosts {
  rows: number;
  pages: number;
  commitCpu: number;
  sortedPageCpu: number;
  wherePageCpu: number;
}

type Form = 'covering' | 'keyOnly';

/** The key-only form against the covering one, on the store in `file` (see the top of this file). */
function keyOnlyComparison(file: string): Record<Form, FormatCosts> {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('cache_size = -65536');
  db.pragma('mmap_size = 1073741824');
  const collectionId = 'bench/Item';
  const layout = layoutOf(checkSchema(ITEM_SCHEMA).program!.collections[0]!);
  const indexes = new CollectionIndexes(collectionId, { layout, building: [] });
  const byN = layout.indexes.find((index) => !index.primary && index.fields[0]!.path === 'n')!;
  const byLabel = layout.indexes.find((index) => !index.primary && index.fields[0]!.path === 'label')!;
  // Key-only copies of the covering entries (head 0x11) under head 0x12, each holding its record's key.
  const keyOnly = (key: Buffer) => Buffer.concat([Buffer.of(0x12), key.subarray(1)]);
  const put = db.prepare('INSERT OR REPLACE INTO kv (key, value) VALUES (?, ?)');
  const remove = db.prepare('DELETE FROM kv WHERE key = ?');
  const entries = db.prepare('SELECT key, value FROM kv WHERE key >= ? AND key < ?').raw().all(Buffer.of(0x11), Buffer.of(0x12)) as [Buffer, Buffer][];
  db.transaction(() => {
    for (const [key, value] of entries) put.run(keyOnly(key), recordKey(collectionId, String((JSON.parse(value.toString('utf8', 8)) as { id: unknown }).id)));
  })();

  // A page of 100: covering entries read as one range; key-only entries joined to the records in one statement.
  const covering = (order: string) => db.prepare(`SELECT CAST(substr(value, 9) AS TEXT) FROM kv WHERE key >= ? AND key < ? ORDER BY key ${order} LIMIT 100`).pluck();
  const joined = (order: string) =>
    db.prepare(`SELECT CAST(substr(r.value, 9) AS TEXT) FROM kv AS e JOIN kv AS r ON r.key = e.value WHERE e.key >= ? AND e.key < ? ORDER BY e.key ${order} LIMIT 100`).pluck();
  const pages = { covering: { desc: covering('DESC'), asc: covering('ASC') }, keyOnly: { desc: joined('DESC'), asc: joined('ASC') } };
  const item = (i: number, n: number) => ({ id: itemId(i), n, label: `label ${i % 10}` });
  const head = (form: Form, key: Buffer) => (form === 'covering' ? key : keyOnly(key));
  const nPrefix = indexes.prefixOf(byN);
  // Pages descending from 256 places spread over the `n` index, and pages of each of the 10 labels.
  const starts = Array.from({ length: 256 }, (_, k) => indexes.keyOf(byN, item((k * 7919) % RECORDS, (k * 7919) % RECORDS)));
  const labelRange = (label: string) => {
    const key = indexes.keyOf(byLabel, { id: '', n: 0, label });
    const prefix = key.subarray(0, key.length - 3); // without the empty id's component
    return [prefix, Buffer.concat([prefix, Buffer.of(0xff)])] as const;
  };
  const sorted = (form: Form, k: number) => pages[form].desc.all(head(form, nPrefix), head(form, starts[k & 255]!));
  const where = (form: Form, k: number) => {
    const [from, to] = labelRange(`label ${k % 10}`);
    return pages[form].asc.all(head(form, from), head(form, to));
  };
  // Checked before any commit below: each form's commits leave the other form's entries behind.
  for (let k = 0; k < 16; k++) {
    if (JSON.stringify(sorted('covering', k)) !== JSON.stringify(sorted('keyOnly', k))) throw new Error('the two forms give different sorted pages');
    if (JSON.stringify(where('covering', k)) !== JSON.stringify(where('keyOnly', k))) throw new Error('the two forms give different pages of a label');
  }

  // A call's commit (n of record i incremented) as the store writes it, in either form, after reading the record
  // in the transaction as the store does.
  const read = db.prepare('SELECT CAST(substr(value, 9) AS TEXT) FROM kv WHERE key = ?').pluck();
  let timestamp = Date.now() * 1000;
  const commit = (i: number, form: Form) => {
    timestamp++;
    db.transaction(() => {
      const before = JSON.parse(read.get(recordKey(collectionId, itemId(i))) as string) as { id: string; n: number; label: string };
      const after = { ...before, n: before.n + 1 };
      const value = Buffer.concat([encodeU64(timestamp), Buffer.from(JSON.stringify(after))]);
      put.run(recordKey(collectionId, after.id), value);
      if (form === 'covering') {
        remove.run(indexes.keyOf(byN, before));
        for (const entry of indexes.entriesOf(after)) put.run(entry, value);
      } else {
        remove.run(keyOnly(indexes.keyOf(byN, before)));
        put.run(keyOnly(indexes.keyOf(byN, after)), recordKey(collectionId, after.id));
      }
      put.run(changeKey(timestamp), Buffer.from(JSON.stringify([{ collectionId, id: after.id, kind: 'put' }])));
      put.run(collectionChangedKey(collectionId), encodeU64(timestamp));
      put.run(clockKey, encodeU64(timestamp));
    })();
  };
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  const changes = db.prepare('SELECT total_changes()').pluck();
  const counts = (form: Form, first: number) => {
    db.pragma('wal_checkpoint(TRUNCATE)');
    const before = changes.get() as number;
    for (let k = 0; k < COMMITS; k++) commit(((first + k) * 7919) % RECORDS, form);
    return { rows: ((changes.get() as number) - before) / COMMITS, pages: walPages(file, pageSize) / COMMITS };
  };
  const counted = { covering: counts('covering', 0), keyOnly: counts('keyOnly', COMMITS) };
  db.pragma('wal_checkpoint(TRUNCATE)');

  const cpu = (times: number, run: (k: number) => unknown) => {
    const start = process.cpuUsage();
    for (let k = 0; k < times; k++) run(k);
    const used = process.cpuUsage(start);
    return (used.user + used.system) / times;
  };
  const rounds: Record<Form, { commit: number[]; sorted: number[]; where: number[] }> = {
    covering: { commit: [], sorted: [], where: [] },
    keyOnly: { commit: [], sorted: [], where: [] },
  };
  let next = 2 * COMMITS;
  for (let round = 0; round < 9; round++) {
    for (const form of round % 2 === 0 ? (['covering', 'keyOnly'] as const) : (['keyOnly', 'covering'] as const)) {
      rounds[form].commit.push(cpu(1000, () => commit((next++ * 7919) % RECORDS, form)));
      rounds[form].sorted.push(cpu(400, (k) => sorted(form, k)));
      rounds[form].where.push(cpu(400, (k) => where(form, k)));
    }
  }
  db.close();
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const costs = (form: Form): FormatCosts => ({
    ...counted[form],
    commitCpu: median(rounds[form].commit),
    sortedPageCpu: median(rounds[form].sorted),
    wherePageCpu: median(rounds[form].where),
  });
  return { covering: costs('covering'), keyOnly: costs('keyOnly') };
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
    const { covering, keyOnly } = vellum.formats;
    const compare = (name: string, unit: string, value: number, baseline: number) =>
      rows.push(row(SUITE, `key-only entries: ${name}`, { value, unit, baseline, ratio: value / baseline, goal: 'informative (vs the covering entries in use)' }));
    compare('rows written per call', 'rows', keyOnly.rows, covering.rows);
    compare('WAL pages per call', 'pages', keyOnly.pages, covering.pages);
    compare("CPU of a call's commit (raw statements)", 'µs', keyOnly.commitCpu, covering.commitCpu);
    compare('CPU of a page of 100 sorted desc (one statement)', 'µs', keyOnly.sortedPageCpu, covering.sortedPageCpu);
    compare('CPU of a page of 100 where label (one statement)', 'µs', keyOnly.wherePageCpu, covering.wherePageCpu);
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
