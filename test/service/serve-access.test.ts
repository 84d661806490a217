// `vellum serve`'s flags for securing a deployment, as an operator runs them: admin keys from --admin-key and
// VELLUM_ADMIN_KEYS, the collection-creation policy, CORS origins, rate limits and a trusted proxy; bad values are
// refused before anything starts. `vellum sign --public-key` prints the key --admin-key takes.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { signRequest } from '../../src/auth/index.ts';
import { CLI_TIMEOUT_MS, VELLUM } from '../support/cli.ts';
import { json, post, spawnServe, stopServe, type ServeProcess } from './process.ts';
import { KEYS, hexOf } from './support.ts';

const dir = mkdtempSync(join(tmpdir(), 'vellum-serve-access-'));
const running: ServeProcess[] = [];
afterAll(async () => {
  for (const server of running) await stopServe(server);
  rmSync(dir, { recursive: true, force: true });
});

const SCHEMA = '@public collection Account { id: string; constructor (id: string) { this.id = id; } }';
const signed = (key: string, body: unknown) => ({ 'x-polybase-signature': signRequest(key, JSON.stringify(body), Date.now()) });

it('admin keys from the flag and the environment; the --schema collection is theirs alone; policy, CORS, limits and proxy flags apply', async () => {
  const schemaFile = join(dir, 'app.polylang');
  writeFileSync(schemaFile, SCHEMA);
  const server = await spawnServe(
    [
      ...['--data', join(dir, 'data'), '--schema', schemaFile, '--namespace', 'demo', '--quiet'],
      ...['--admin-key', hexOf(KEYS.bob), '--create-policy', 'keys', '--create-key', hexOf(KEYS.carol)],
      ...['--cors-origin', 'https://app.example', '--trust-proxy', 'loopback', '--reads-per-address', '3', '--rate-burst', '1'],
    ],
    { VELLUM_ADMIN_KEYS: ` ${hexOf(KEYS.alice)}, ` },
  );
  running.push(server);
  await expect.poll(() => server.output()).toMatch(/schema changes by 2 admin keys and collection owners; new collections: policy keys, and pk\/<key>\/ by its key/);
  const update = `${server.url}/v0/collections/Collection/records/demo%2FAccount/call/updateCode`;
  const body = (n: number) => ({ args: [`${SCHEMA} // ${n}`] });
  const refused = await post(update, body(0));
  expect(refused.status).toBe(403);
  expect(refused.body.error.reason).toBe('permission/change-schema');
  expect((await post(update, body(1), signed(KEYS.carol, body(1)))).status).toBe(403);
  expect((await post(update, body(2), signed(KEYS.alice, body(2)))).status).toBe(200); // from VELLUM_ADMIN_KEYS
  expect((await post(update, body(3), signed(KEYS.bob, body(3)))).status).toBe(200); // from --admin-key
  const create = { args: ['shared/Note', SCHEMA.replace('Account', 'Note')] };
  expect((await post(`${server.url}/v0/collections/Collection/records`, create, signed(KEYS.carol, create))).status).toBe(200); // --create-key

  const read = (headers: Record<string, string>) => json(`${server.url}/v0/collections/demo%2FAccount/records`, { headers });
  const listed = await read({ origin: 'https://app.example', 'x-forwarded-for': '198.51.100.1' });
  expect(listed.headers.get('access-control-allow-origin')).toBe('https://app.example');
  expect(listed.headers.get('access-control-allow-credentials')).toBe('true');
  expect((await read({ origin: 'https://evil.example', 'x-forwarded-for': '198.51.100.2' })).headers.get('access-control-allow-origin')).toBeNull();
  const statuses: number[] = [];
  for (let i = 0; i < 6; i++) statuses.push((await read({ 'x-forwarded-for': '203.0.113.7' })).status);
  expect(statuses).toContain(429);
  expect((await read({ 'x-forwarded-for': '203.0.113.8' })).status).toBe(200);
}, 120_000);

it('bad values are refused before the server starts, naming the flag', () => {
  const run = (args: string[], env: Record<string, string> = {}) =>
    spawnSync(process.execPath, [...VELLUM, 'serve', '--port', '0', '--data', join(dir, 'never'), ...args], { encoding: 'utf8', timeout: CLI_TIMEOUT_MS, env: { ...process.env, ...env } });
  const badKey = run(['--admin-key', '0x1234']);
  expect(badKey.status).toBe(2);
  expect(badKey.stderr).toMatch(/option '--admin-key <public-key>' argument '0x1234' is invalid\. expected a public key as 0x \+ 128 hex digits/);
  const badEnv = run([], { VELLUM_ADMIN_KEYS: 'nope' });
  expect(badEnv.status).toBe(1);
  expect(badEnv.stderr).toMatch(/VELLUM_ADMIN_KEYS: expected a public key/);
  const badProxy = run(['--trust-proxy', 'proxy.local']);
  expect(badProxy.status).toBe(2);
  expect(badProxy.stderr).toMatch(/expected a proxy address or network/);
  const badOrigin = run(['--cors-origin', 'app.example']);
  expect(badOrigin.status).toBe(2);
  expect(badOrigin.stderr).toMatch(/expected an origin such as https:\/\/app.example.com/);
}, 180_000);

it('vellum sign --public-key prints the public key of a key file', () => {
  const keyFile = join(dir, 'admin.key');
  writeFileSync(keyFile, `${KEYS.admin}\n`);
  const printed = spawnSync(process.execPath, [...VELLUM, 'sign', '--key-file', keyFile, '--public-key'], { encoding: 'utf8', timeout: CLI_TIMEOUT_MS });
  expect(printed.status).toBe(0);
  expect(printed.stdout).toBe(`${hexOf(KEYS.admin)}\n`);
}, 60_000);
