// Calls anyone may make skip the permission check (runtime `callableByEveryone`, worked out once per compiled
// schema). A schema update through one server must be in force for calls on another that holds the old schema
// and the record it last committed (the call then runs first on those, without reads): each decorator change
// here turns the skip on or off, and the unsigned and signed answers must follow the new schema at once.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/store/index.ts';
import { KEYS, startTestServer } from './support.ts';

const dir = mkdtempSync(join(tmpdir(), 'vellum-call-rules-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const note = (collectionDecorators: string, editDecorators: string) =>
  `${collectionDecorators} collection Note { id: string; text: string; owner?: PublicKey;
    constructor (id: string) { this.id = id; this.text = ''; }
    ${editDecorators} edit (text: string) { this.text = text; } }`;

it('a decorator change made through one server decides the next call on another at once', async () => {
  const path = join(dir, 'store.db');
  const a = await startTestServer({ store: openSqliteStore(path) });
  const b = await startTestServer({ store: openSqliteStore(path) });
  try {
    await a.createCollection('ns/Note', note('@public', ''));
    expect((await b.create('ns/Note', ['n1'])).status).toBe(200);
    expect((await b.call('ns/Note', 'n1', 'edit', ['first'])).status).toBe(200);
    const update = (code: string) => a.updateCode('ns/Note', code);
    const cases = [
      { code: note('', ''), status: 403, message: 'unauthorized read' },
      { code: note('@public', ''), status: 200 },
      { code: note('@public', '@call(owner)'), status: 403, message: 'you do not have permission to call this function' },
      { code: note('@read', ''), status: 403, message: 'you do not have permission to call this function' },
      { code: note('@read @call', ''), status: 200 },
      { code: note('@call', ''), status: 403, message: 'unauthorized read' },
      // A bare @call on a function names no field: the collection's @public decides (reference section 6).
      { code: note('@public', '@call'), status: 200 },
    ];
    for (const { code, status, message } of cases) {
      expect((await update(code)).status).toBe(200);
      for (const key of [undefined, KEYS.alice]) {
        const answer = await b.call('ns/Note', 'n1', 'edit', ['next'], key);
        expect({ code, key, status: answer.status, message: answer.json?.error?.message }).toEqual({ code, key, status, message });
      }
    }
  } finally {
    await a.close();
    await b.close();
  }
});
