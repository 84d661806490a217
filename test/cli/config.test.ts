// Settings from flags, the environment and a config file (src/cli/config.ts), derived from a command's options:
// the precedence, every value through the option's own parser, one line per bad value, masking. Then `vellum
// serve` itself: --print-config, exit 2 on bad values, and PORT / a config file actually used.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import { describeSettings, maskValue, resolveSettings } from '../../src/cli/config.ts';
import { CLI_TIMEOUT_MS, VELLUM } from '../support/cli.ts';

const scratch = mkdtempSync(join(tmpdir(), 'vellum-config-'));
afterAll(() => undefined);

function port(text: string): number {
  if (!/^\d+$/.test(text) || Number(text) > 65535) throw new InvalidArgumentError('expected a port number from 0 to 65535');
  return Number(text);
}

/** A command like `vellum serve`, with the kinds of options it has and will have (a repeatable key, a switch). */
function command(args: string[]): Command {
  const program = new Command().exitOverride();
  let parsed: Command | undefined;
  program
    .command('serve')
    .option('--port <n>', 'port', port, 8080)
    .option('--host <addr>', 'host', '127.0.0.1')
    .option('--data <dir>', 'data', './data')
    .addOption(new Option('--db <url>', 'db').conflicts('data'))
    .option('--schema <file...>', 'schemas')
    .option('--quiet', 'quiet')
    .option('--no-explorer', 'no explorer')
    .addOption(new Option('--private-lists <mode>', 'mode').choices(['confined', 'filtered']).default('confined'))
    .option('--admin-key <key>', 'repeatable', (value: string, previous: string[]) => [...previous, value], [] as string[])
    .option('--config <file>', 'config file')
    .option('--print-config', 'print')
    .action((_flags, cmd: Command) => {
      parsed = cmd;
    });
  program.parse(['node', 'vellum', 'serve', ...args]);
  return parsed!;
}

function resolve(args: string[], env: Record<string, string> = {}) {
  return resolveSettings(command(args), { env, exclude: ['print-config'], envAliases: { port: ['PORT'] } });
}

function configFile(content: unknown): string {
  const file = join(scratch, `config-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

describe('resolveSettings', () => {
  it('takes a flag over the environment over the config file over the default', () => {
    const file = configFile({ port: 3000, host: '0.0.0.0', namespace: undefined, 'private-lists': 'filtered', explorer: false });
    const all = resolve(['--port', '1000', '--config', file], { VELLUM_PORT: '2000', VELLUM_HOST: '::1' });
    expect(all.errors).toEqual([]);
    expect(all.values).toMatchObject({ port: 1000, host: '::1', privateLists: 'filtered', explorer: false, data: './data' });
    const sources = Object.fromEntries(all.settings.map((s) => [s.name, s.source]));
    expect(sources).toMatchObject({ port: 'flag', host: 'environment', 'private-lists': 'config file', explorer: 'config file', data: 'default' });
    expect(resolve(['--config', file], { VELLUM_PORT: '2000' }).values.port).toBe(2000);
    expect(resolve(['--config', file]).values.port).toBe(3000);
    expect(resolve([]).values.port).toBe(8080);
  });

  it('reads PORT after VELLUM_PORT, and the config file from VELLUM_CONFIG', () => {
    expect(resolve([], { PORT: '9999' }).values.port).toBe(9999);
    expect(resolve([], { PORT: '9999', VELLUM_PORT: '7777' }).values.port).toBe(7777);
    expect(resolve([], { VELLUM_CONFIG: configFile({ port: '4000' }) }).values.port).toBe(4000);
  });

  it('reads switches, negated flags and lists from text and JSON', () => {
    const fromEnv = resolve([], { VELLUM_QUIET: 'yes', VELLUM_EXPLORER: 'off', VELLUM_SCHEMA: 'a.poly, b.poly', VELLUM_ADMIN_KEY: 'k1,k2' });
    expect(fromEnv.errors).toEqual([]);
    expect(fromEnv.values).toMatchObject({ quiet: true, explorer: false, schema: ['a.poly', 'b.poly'], adminKey: ['k1', 'k2'] });
    const fromFile = resolve(['--config', configFile({ quiet: false, schema: 'one.poly', 'admin-key': ['k1', 'k2', 'k3'] })]);
    expect(fromFile.errors).toEqual([]);
    expect(fromFile.values).toMatchObject({ quiet: false, schema: ['one.poly'], adminKey: ['k1', 'k2', 'k3'] });
    // A repeated flag is not added to the environment's or the file's items: the flag wins as a whole.
    expect(resolve(['--admin-key', 'mine'], { VELLUM_ADMIN_KEY: 'k1' }).values.adminKey).toEqual(['mine']);
  });

  it('gives one line per bad value, saying where it came from, through the option own parser and choices', () => {
    const file = configFile({ port: 70000, quiet: 'yes', 'private-lists': 'open', prot: 1, schema: [1, {}] });
    const { errors } = resolve(['--config', file], { VELLUM_HOST: 'h', VELLUM_PORT: 'eighty', VELLUM_EXPLORER: 'maybe', VELLUM_ADMIN_KEY: 'a,,b' });
    expect(errors).toEqual([
      'VELLUM_PORT="eighty": expected a port number from 0 to 65535',
      `config file ${file}: "schema": [1,{}]: expected a string or an array of strings`,
      `config file ${file}: "quiet": "yes": expected true or false`,
      'VELLUM_EXPLORER="maybe": expected true or false (or 1/0, yes/no, on/off)',
      `config file ${file}: "private-lists": "open": expected one of confined, filtered`,
      'VELLUM_ADMIN_KEY="a,,b": expected comma-separated items, none empty',
      expect.stringMatching(new RegExp(`^config file ${file}: "prot" is not a setting \\(settings: port, host, data, db, schema, quiet, explorer, private-lists, admin-key\\)$`)),
    ]);
  });

  it('says what is wrong with the config file itself', () => {
    expect(resolve(['--config', join(scratch, 'none.json')]).errors).toEqual([`cannot read config file ${join(scratch, 'none.json')}: no such file or directory`]);
    const broken = configFile('{"port": 80,');
    expect(resolve(['--config', broken]).errors[0]).toMatch(new RegExp(`^config file ${broken} is not valid JSON: `));
    const list = configFile([1]);
    expect(resolve(['--config', list]).errors).toEqual([`config file ${list} must hold one JSON object of settings, such as {"port": 8080}`]);
  });

  it('refuses options that conflict when set from any two places', () => {
    expect(resolve(['--data', 'd'], { VELLUM_DB: 'postgres://h/db' }).errors).toEqual(['VELLUM_DB cannot be used with --data']);
    const file = configFile({ data: 'd' });
    expect(resolve(['--config', file], { VELLUM_DB: 'postgres://h/db' }).errors).toEqual([`VELLUM_DB cannot be used with "data" (config file ${file})`]);
    expect(resolve([], { VELLUM_DB: 'postgres://h/db' }).errors).toEqual([]);
  });

  it('masks secrets: keys by name, and the password of a URL', () => {
    expect(maskValue('db', 'postgres://vellum:s3cret@db.example:5432/vellum')).toBe('"postgres://vellum:***@db.example:5432/vellum"');
    expect(maskValue('db', 'postgres://db.example/vellum')).toBe('"postgres://db.example/vellum"');
    expect(maskValue('admin-key', ['k1', 'k2'])).toBe('["***", "***"]');
    expect(maskValue('api-token', 'abc')).toBe('"***"');
    const lines = describeSettings(resolve([], { VELLUM_DB: 'postgres://u:pw@h/db', VELLUM_ADMIN_KEY: 'secret1' }).settings);
    expect(lines.join('\n')).not.toMatch(/pw|secret1/);
    expect(lines).toContain('db             "postgres://u:***@h/db"  (environment VELLUM_DB)');
  });
});

function vellum(args: string[], env: Record<string, string>) {
  const result = spawnSync(process.execPath, [...VELLUM, 'serve', ...args], { env: { ...process.env, ...env }, encoding: 'utf8', timeout: CLI_TIMEOUT_MS });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('vellum serve settings', () => {
  it('--print-config shows the effective values, masked, and exits 0', () => {
    const file = configFile({ namespace: 'shop', quiet: true });
    const run = vellum(['--print-config', '--host', '0.0.0.0'], { VELLUM_CONFIG: file, VELLUM_DB: 'postgres://vellum:hunter2@db:5432/v', PORT: '9000', VELLUM_SHARED_LIMITS: 'off' });
    expect(run).toMatchObject({ status: 0, stderr: '' });
    expect(run.stdout).not.toContain('hunter2');
    expect(run.stdout).toMatch(/^port +9000 +\(environment PORT\)$/m);
    expect(run.stdout).toMatch(/^host +"0\.0\.0\.0" +\(flag --host\)$/m);
    expect(run.stdout).toMatch(/^db +"postgres:\/\/vellum:\*\*\*@db:5432\/v" +\(environment VELLUM_DB\)$/m);
    expect(run.stdout).toMatch(new RegExp(`^namespace +"shop" +\\(config file ${file}\\)$`, 'm'));
    expect(run.stdout).toMatch(/^private-lists +"confined" +\(default\)$/m);
    expect(run.stdout).toMatch(/^rate-limits +true +\(default\)$/m);
    expect(run.stdout).toMatch(/^shared-limits +false +\(environment VELLUM_SHARED_LIMITS\)$/m);
  });

  it('exits 2 with one line per bad value, before opening anything', () => {
    const data = join(scratch, 'never-made');
    const run = vellum(['--data', data], { VELLUM_PORT: '-1', VELLUM_NAMESPACE: 'a//b', VELLUM_PRIVATE_LISTS: 'open' });
    expect(run.status).toBe(2);
    expect(run.stderr.trimEnd().split('\n')).toEqual([
      'vellum serve: VELLUM_PORT="-1": expected a port number from 0 to 65535',
      'vellum serve: VELLUM_NAMESPACE="a//b": expected a namespace of one or more non-empty parts separated by "/", such as app or org/app',
      'vellum serve: VELLUM_PRIVATE_LISTS="open": expected one of confined, filtered',
    ]);
  });

  it('listens on PORT, with the data folder from a config file', async () => {
    const port = await freePort();
    const data = join(scratch, 'data-from-config');
    const child = spawn(process.execPath, [...VELLUM, 'serve', '--config', configFile({ data, explorer: false })], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      await expect.poll(async () => (await fetch(`http://127.0.0.1:${port}/v0/health`).catch(() => undefined))?.status, { timeout: 30_000 }).toBe(200);
      expect((await fetch(`http://127.0.0.1:${port}/explorer/`)).status).toBe(404);
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.on('exit', resolve));
    }
  });
});
