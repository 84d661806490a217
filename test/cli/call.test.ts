// `vellum call`, run as a user runs it (from the sources, see test/support/cli.ts): vellum call …
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { publicKeyOf } from '../../src/auth/index.ts';
import { VELLUM } from '../support/cli.ts';

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
const logging = join(dir, 'logging.polylang');
writeFileSync(logging, `collection L {\n  id: string;\n  n: u32;\n  add (k: u32) { log('adding', k); this.n += k; assert(this.n < 10, 'n too big'); }\n}\n`);
const broken = join(dir, 'broken.polylang');
writeFileSync(broken, `collection T {\n  id: string;\n  f () { this.nope = 1; }\n}\n`);

interface Run {
  status: number;
  stdout: string;
  stderr: string;
  json(): any;
}

/** Runs `vellum call …` as a user would (each spawn starts tsx, so tests start their runs together). */
function vellum(...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [...VELLUM, 'call', ...args], { encoding: 'utf8' }, (error, stdout, stderr) => {
      const status = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ status, stdout, stderr, json: () => JSON.parse(stdout) });
    });
  });
}

describe('vellum call', () => {
  it('runs constructors and functions, and prints transitions as JSON', async () => {
    const key = publicKeyOf(new Uint8Array(32).fill(9));
    const [created, deposit, transfer, close] = await Promise.all([
      vellum(schema, 'Account.constructor', '--args', '["a"]', '--public-key', key.toHex()),
      vellum(schema, 'Account.deposit', '--this', '{"id":"a","balance":1}', '--args', '[5]'),
      vellum(schema, 'Account.transfer', '--this', '{"id":"a","balance":10}', '--args', '[{"collectionId":"Account","id":"b","data":{"id":"b","balance":0}}, 4]'),
      vellum(schema, 'Account.close', '--this', '{"id":"a","balance":1}'),
    ]);
    expect(created.status).toBe(0);
    expect(created.json()).toMatchObject({ record: { id: 'a', balance: 0, owner: key.toJwk() }, deleted: false, changed: [], returnValue: null });
    expect(created.json().gasUsed).toBeGreaterThan(0);
    expect(deposit.status).toBe(0);
    expect(deposit.json()).toMatchObject({ record: { id: 'a', balance: 6 }, returnValue: 6 });
    expect(transfer.json()).toMatchObject({ record: { balance: 6 }, changed: [{ collectionId: 'Account', id: 'b', record: { id: 'b', balance: 4 } }] });
    expect(close.json()).toMatchObject({ record: null, deleted: true });
  });

  it('prints what the function logged (never in the record), also when it fails', async () => {
    const [added, refused] = await Promise.all([
      vellum(logging, 'L.add', '--this', '{"id":"l","n":1}', '--args', '[2]'),
      vellum(logging, 'L.add', '--this', '{"id":"l","n":1}', '--args', '[9]'),
    ]);
    expect(added.status).toBe(0);
    expect(added.json()).toMatchObject({ record: { id: 'l', n: 3 }, logs: ['adding 2'] });
    expect(refused.status).toBe(1);
    expect(refused.json()).toMatchObject({ error: { reason: 'function/collection-error', message: 'collection function error: n too big' }, logs: ['adding 9'] });
  });

  it('prints runtime errors as JSON with exit code 1, and applies --gas', async () => {
    const [refused, badArgs, outOfGas] = await Promise.all([
      vellum(schema, 'Account.deposit', '--this', '{"id":"a","balance":1}', '--args', '[0]'),
      vellum(schema, 'Account.deposit', '--this', '{"id":"a","balance":1}', '--args', '["x"]'),
      vellum(schema, 'Account.deposit', '--this', '{"id":"a","balance":1}', '--args', '[1]', '--gas', '5'),
    ]);
    expect(refused.status).toBe(1);
    expect(refused.json().error).toMatchObject({ reason: 'function/collection-error', message: 'collection function error: amount must be positive', line: 14 });
    expect(badArgs.json().error.reason).toBe('function/invalid-args');
    expect(outOfGas.status).toBe(1);
    expect(outOfGas.json()).toMatchObject({ error: { reason: 'function/out-of-gas' }, gasUsed: 5 });
  });

  it('refuses a schema with errors, and reports bad usage with exit code 2', async () => {
    const [broken_, noThis, constructorThis, notJson, missing, misspelt, unknown] = await Promise.all([
      vellum(broken, 'T.f', '--this', '{"id":"a"}'),
      vellum(schema, 'Account.deposit'),
      vellum(schema, 'Account.constructor', '--this', '{}'),
      vellum(schema, 'Account.deposit', '--this', '{bad'),
      vellum(schema, 'Nope.f', '--this', '{"id":"a"}'),
      vellum(schema, 'Acount.deposit', '--this', '{"id":"a"}'),
      // The function is named before --this is asked for: the target is what is wrong.
      vellum(schema, 'Account.depost'),
    ]);
    expect(broken_.status).toBe(1);
    expect(broken_.stderr).toMatch(/broken\.polylang:3:\d+: error/);
    expect(noThis.status).toBe(2);
    expect(noThis.stderr).toContain('--this <json> is required');
    expect(constructorThis.stderr).toContain('leave out --this');
    expect(notJson.stderr).toContain('--this is not valid JSON');
    expect(missing.stderr).toContain('declares no collection "Nope" (its collections: Account)');
    expect(misspelt.stderr).toContain('declares no collection "Acount"; did you mean "Account"?');
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toMatch(/^vellum call: collection Account has no function "depost"; did you mean "deposit"\? \(its functions: constructor, deposit/);
  });
});
