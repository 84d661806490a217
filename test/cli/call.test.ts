// `vellum call`, run as a user runs it: node bin/vellum.js call …
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { publicKeyOf } from '../../src/auth/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'vellum-call-'));
const schema = join(dir, 'account.polylang');
writeFileSync(
  schema,
  `@public
collection Account {
  id: string;
  balance: number;
  owner?: PublicKey;

  constructor (id: string) {
    this.id = id;
    this.balance = 0;
    if (ctx.publicKey) { this.owner = ctx.publicKey; }
  }

  deposit (amount: number): number {
    if (amount <= 0) { error('amount must be positive'); }
    this.balance += amount;
    return this.balance;
  }

  transfer (to: record, amount: number) {
    this.balance -= amount;
    to.balance += amount;
  }

  close () { selfdestruct(); }
}
`,
);
const broken = join(dir, 'broken.polylang');
writeFileSync(broken, `collection T {\n  id: string;\n  f () { this.nope = 1; }\n}\n`);

function vellum(...args: string[]) {
  const result = spawnSync('node', ['bin/vellum.js', 'call', ...args], { encoding: 'utf8' });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr, json: () => JSON.parse(result.stdout) };
}

describe('vellum call', () => {
  it('runs a constructor without --this', () => {
    const key = publicKeyOf(new Uint8Array(32).fill(9));
    const r = vellum(schema, 'Account.constructor', '--args', '["a"]', '--public-key', key.toHex());
    expect(r.status).toBe(0);
    expect(r.json()).toMatchObject({ record: { id: 'a', balance: 0, owner: key.toJwk() }, deleted: false, changed: [], returnValue: null });
    expect(r.json().gasUsed).toBeGreaterThan(0);
  });

  it('runs a function over a record and prints the return value and gas', () => {
    const r = vellum(schema, 'Account.deposit', '--this', '{"id":"a","balance":1}', '--args', '[5]');
    expect(r.status).toBe(0);
    expect(r.json()).toMatchObject({ record: { id: 'a', balance: 6 }, returnValue: 6 });
  });

  it('prints changed argument records and deletions', () => {
    const transfer = vellum(schema, 'Account.transfer', '--this', '{"id":"a","balance":10}', '--args', '[{"collectionId":"Account","id":"b","data":{"id":"b","balance":0}}, 4]');
    expect(transfer.json()).toMatchObject({ record: { balance: 6 }, changed: [{ collectionId: 'Account', id: 'b', record: { id: 'b', balance: 4 } }] });
    expect(vellum(schema, 'Account.close', '--this', '{"id":"a","balance":1}').json()).toMatchObject({ record: null, deleted: true });
  });

  it('prints a runtime error as JSON with exit code 1', () => {
    const r = vellum(schema, 'Account.deposit', '--this', '{"id":"a","balance":1}', '--args', '[0]');
    expect(r.status).toBe(1);
    expect(r.json().error).toMatchObject({ reason: 'function/collection-error', message: 'collection function error: amount must be positive', line: 14 });
    expect(vellum(schema, 'Account.deposit', '--this', '{"id":"a","balance":1}', '--args', '["x"]').json().error.reason).toBe('function/invalid-args');
    expect(vellum(schema, 'Account.missing', '--this', '{"id":"a","balance":1}').json().error.reason).toBe('function/not-found');
  });

  it('applies --gas', () => {
    const r = vellum(schema, 'Account.deposit', '--this', '{"id":"a","balance":1}', '--args', '[1]', '--gas', '5');
    expect(r.status).toBe(1);
    expect(r.json()).toMatchObject({ error: { reason: 'function/out-of-gas' }, gasUsed: 5 });
  });

  it('refuses a schema with errors, printing its diagnostics', () => {
    const r = vellum(broken, 'T.f', '--this', '{"id":"a"}');
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/broken\.polylang:3:\d+: error/);
  });

  it('reports bad usage with exit code 2', () => {
    expect(vellum(schema, 'Account', '--this', '{}').status).toBe(2);
    expect(vellum(schema, 'Account.deposit').stderr).toContain('--this <json> is required');
    expect(vellum(schema, 'Account.constructor', '--this', '{}').stderr).toContain('leave out --this');
    expect(vellum(schema, 'Account.deposit', '--this', '{bad').stderr).toContain('--this is not valid JSON');
    expect(vellum(schema, 'Nope.f', '--this', '{"id":"a"}').stderr).toContain('collection "Nope" is not declared');
    expect(vellum(join(dir, 'missing.polylang'), 'A.f', '--this', '{}').status).toBe(2);
    expect(vellum(schema, 'Account.deposit', '--this', '{"id":"a","balance":1}', '--gas', 'lots').status).toBe(2);
  });

  it('has help', () => {
    expect(execFileSync('node', ['bin/vellum.js', 'call', '--help'], { encoding: 'utf8' })).toContain('<Collection>.<function>');
  });
});
