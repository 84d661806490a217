// The baseline of `npm run bench -- http`: what a user would write instead of Vellum for the bench's `Item`
// records, a small fastify service over better-sqlite3 with the same routes and answers, byte for byte (the
// envelopes of docs/service.md, a block hash per record, a list's cursor pair encoded as Vellum's: bench/http.ts
// checks the bytes before it times anything), run as a process of its own. Plain JavaScript, so that it runs the same way as the Vellum server
// beside it (through tsx's loader, or from dist/ without it: see bench/http.ts); the one thing it takes from
// Vellum is the signature check, the same library function on the same header.
//
//   node [--import tsx] bench/hand-written-server.js <database file> <auth module> <records to seed> [--change-feed]
//
// --change-feed adds what Vellum also guarantees on writes (bench/hand-written-feed.js): an index on the owner, a
// change-log row per changed record and the collection's change stamp, each request's writes (and the seeding) in
// one transaction.
//
// Prints `listening on <url>` once it serves.
import { createHash } from 'node:crypto';
import Fastify from 'fastify';
import { openChangeFeed } from './hand-written-feed.js';
import { openItemsTable } from './hand-written-table.js';

const [file, authModule, seedCount, ...options] = process.argv.slice(2);
const unknown = options.filter((option) => option !== '--change-feed');
if (unknown.length > 0) throw new Error(`unknown option ${unknown[0]} (the only one is --change-feed)`);
const { verifySignatureHeader, MemoryReplayGuard } = await import(authModule);

const COLLECTION = 'bench/Item';
const { db, insert, increment } = openItemsTable(file);
const logChange = options.includes('--change-feed') ? openChangeFeed(db) : undefined;

/** Inserts a record (throws SQLITE_CONSTRAINT_PRIMARYKEY when its id exists), logged when the feed is on. */
const create = logChange === undefined
  ? (id, n, label, owner) => insert.run(id, n, label, owner)
  : db.transaction((id, n, label, owner) => {
      insert.run(id, n, label, owner);
      logChange(COLLECTION, id, 'put');
    });
/** Adds 1 to a record's n; its row after, or undefined when there is no such record. */
const incrementRecord = logChange === undefined
  ? (id) => increment.get(id)
  : db.transaction((id) => {
      const row = increment.get(id);
      if (row !== undefined) logChange(COLLECTION, id, 'put');
      return row;
    });

if (db.prepare('SELECT count(*) AS count FROM items').get().count === 0) {
  db.transaction(() => {
    // A transaction nested in this one (the feed's create) becomes a savepoint: still one commit.
    for (let i = 0; i < Number(seedCount); i++) create(`item-${String(i).padStart(4, '0')}`, i, `label ${i % 10}`, null);
  })();
}
const getItem = db.prepare('SELECT id, n, label, owner FROM items WHERE id = ?');
const byNDesc = db.prepare('SELECT id, n, label, owner FROM items ORDER BY n DESC, id DESC LIMIT ?');
const byLabel = db.prepare('SELECT id, n, label, owner FROM items WHERE label = ? ORDER BY id LIMIT ?');

const BLOCK = { hash: `0x${'0'.repeat(64)}` };

// Cursors as Vellum hands them out (src/store/cursor.ts, src/service/cursor.ts), written by hand: base64url of a
// version byte, the index's id (the first 8 bytes of the SHA-256 of its fields) and the position, the index key of
// the row (src/store/encoding.ts: a string is 0x04, its UTF-8, 0x00 0x01; a number 0x05 and its IEEE-754 bytes,
// sign bit flipped, as every number here is at least 0); then a dot and base64url of the JSON [where, sort, limit]
// of the query.
const indexId = (fields) => createHash('sha256').update(JSON.stringify(fields.map(([path, kind]) => [path, 'asc', { kind }]))).digest().subarray(0, 8);
const BY_N = indexId([['n', 'number'], ['id', 'string']]);
const BY_LABEL = indexId([['label', 'string'], ['id', 'string']]);
const keyString = (text) => Buffer.concat([Buffer.of(0x04), Buffer.from(text), Buffer.of(0x00, 0x01)]);
function keyNumber(n) {
  const bytes = Buffer.alloc(9);
  bytes[0] = 0x05;
  bytes.writeDoubleBE(n, 1);
  bytes[1] ^= 0x80;
  return bytes;
}
const position = (index, parts) => Buffer.concat([Buffer.of(1), index, ...parts]).toString('base64url');
const carried = (where, sort, limit) => `.${Buffer.from(JSON.stringify([where ?? null, sort ?? null, limit ?? null])).toString('base64url')}`;
const replayGuard = new MemoryReplayGuard();

function record(row) {
  const { owner, ...fields } = row;
  return owner === null ? fields : { ...fields, owner: JSON.parse(owner) };
}

function fail(reply, status, reason, message) {
  return reply.code(status).send({ error: { code: status === 404 ? 'not-found' : 'invalid-argument', reason, message } });
}

/** The caller's key as a JWK when the request is signed; a bad signature is a 400. */
function signer(request) {
  const header = request.headers['x-polybase-signature'];
  if (header === undefined) return undefined;
  return verifySignatureHeader(header, request.body, { method: request.method, replayGuard }).toJwk();
}

const app = Fastify({ logger: false });
app.removeAllContentTypeParsers();
app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));
app.setErrorHandler((error, _request, reply) => fail(reply, 400, 'request/invalid', error.message));

app.get('/v0/health', async () => ({ status: 'OK' }));

// For the bench's checks (bench/http.ts): every record, and the change feed's counts when it is on, read through
// this server's own connection: a connection of the bench's own on the file beside the running server (the check
// read the files before) made this server's later calls cost up to a half more CPU in some runs.
// The records come as a count and a digest, row by row, so that no large result lingers in this server's heap.
const allItems = db.prepare('SELECT id, n, label, owner FROM items ORDER BY id').raw();
const feedCounts = logChange === undefined ? undefined : db.prepare('SELECT count(*) AS count, max(ts) AS last, (SELECT ts FROM stamps WHERE collection = ?) AS stamp FROM changes');
app.get('/bench/state', async () => {
  const digest = createHash('sha256');
  let count = 0;
  for (const row of allItems.iterate()) {
    digest.update(`${JSON.stringify(row)}\n`);
    count++;
  }
  return { records: count, digest: digest.digest('hex'), changes: feedCounts?.get(COLLECTION) ?? null };
});

app.get('/v0/collections/:collection/records/:id', async (request, reply) => {
  const row = getItem.get(request.params.id);
  if (!row) return fail(reply, 404, 'record/not-found', `record "${request.params.id}" was not found`);
  return { data: record(row), block: BLOCK };
});

app.get('/v0/collections/:collection/records', async (request, reply) => {
  const { where, sort, limit } = request.query;
  const count = Math.min(Number(limit ?? 100), 1000);
  let rows;
  if (where !== undefined) {
    const label = JSON.parse(where).label;
    if (typeof label !== 'string') return fail(reply, 400, 'index/missing-index', 'only where={"label":…} is served');
    rows = byLabel.all(label, count);
  } else if (sort === '[["n","desc"]]') rows = byNDesc.all(count);
  else return fail(reply, 400, 'index/missing-index', 'only sort=[["n","desc"]] is served');
  const query = carried(where === undefined ? undefined : JSON.parse(where), sort === undefined ? undefined : JSON.parse(sort), limit);
  const cursor = where === undefined ? (row) => position(BY_N, [keyNumber(row.n), keyString(row.id)]) + query : (row) => position(BY_LABEL, [keyString(row.label), keyString(row.id)]) + query;
  const first = rows[0];
  const last = rows.at(-1);
  return { data: rows.map((row) => ({ data: record(row), block: BLOCK })), cursor: { before: first ? cursor(first) : null, after: last ? cursor(last) : null } };
});

app.post('/v0/collections/:collection/records', async (request, reply) => {
  const owner = signer(request);
  const [id, n, label] = JSON.parse(request.body).args;
  if (typeof id !== 'string' || typeof n !== 'number' || typeof label !== 'string') return fail(reply, 400, 'function/invalid-args', 'expected (id: string, n: number, label: string)');
  try {
    create(id, n, label, owner === undefined ? null : JSON.stringify(owner));
  } catch (error) {
    if (error.code === 'SQLITE_CONSTRAINT_PRIMARYKEY') return fail(reply, 409, 'collection/id-exists', 'record id already exists in collection');
    throw error;
  }
  return { data: owner === undefined ? { id, n, label } : { id, n, label, owner } };
});

app.post('/v0/collections/:collection/records/:id/call/increment', async (request, reply) => {
  signer(request);
  const row = incrementRecord(request.params.id);
  if (!row) return fail(reply, 404, 'record/not-found', `record "${request.params.id}" was not found`);
  return { data: record(row) };
});

await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
console.log(`listening on http://127.0.0.1:${address.port}`);
process.on('SIGTERM', () => app.close().then(() => db.close()).then(() => process.exit(0)));
