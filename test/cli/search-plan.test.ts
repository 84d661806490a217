// A schema change that adds or removes @search, run as a user runs it (`vellum migrate plan|apply` on a data
// folder): the plan names the search index built or dropped, apply builds it for the stored records, and a later
// removal drops it.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/store/index.ts';
import { startTestServer } from '../service/support.ts';
import { CLI_TIMEOUT_MS, VELLUM } from '../support/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'vellum-search-plan-'));
const schema = (search: string) => `@public collection Note { id: string; title: string; ${search} constructor (id: string, title: string) { this.id = id; this.title = title; } }\n`;
const plain = join(dir, 'plain.polylang');
const searched = join(dir, 'searched.polylang');
writeFileSync(plain, schema(''));
writeFileSync(searched, schema('@search(title);'));
const vellum = (...args: string[]) => spawnSync(process.execPath, [...VELLUM, 'migrate', ...args], { encoding: 'utf8', timeout: CLI_TIMEOUT_MS });

describe('vellum migrate with @search', () => {
  it('plans and builds the search index for stored records, and drops it', async () => {
    const data = mkdtempSync(join(dir, 'data-'));
    const where = ['--data', data];
    expect(vellum('apply', plain, ...where).status).toBe(0);
    const s = await startTestServer({ store: openSqliteStore(join(data, 'vellum.sqlite')) });
    try {
      for (const [id, title] of [['a', 'Crème brûlée'], ['b', 'Tarte']]) expect((await s.create('app/Note', [id, title])).status).toBe(200);
    } finally {
      await s.close();
    }
    const planned = vellum('plan', searched, ...where);
    expect(planned.status, planned.stderr).toBe(0);
    expect(planned.stdout).toBe('collection app/Note: 2 stored records\n  fields: no change\n  index built: @search(title)\n');
    expect(vellum('apply', searched, ...where).status).toBe(0);
    const store = openSqliteStore(join(data, 'vellum.sqlite'));
    try {
      expect((await store.list('app/Note', { search: 'creme' })).records.map((r) => r.id)).toEqual(['a']);
    } finally {
      await store.close();
    }
    const dropping = vellum('plan', plain, ...where);
    expect(dropping.stdout).toBe('collection app/Note: 2 stored records\n  fields: no change\n  index dropped: @search(title)\n');
  });
});
