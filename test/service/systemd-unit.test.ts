// The systemd unit of docs/deploying.md, exercised: its text is taken from the page's fenced `ini` block under
// "A systemd unit" (and its settings from the `sh` block of /etc/vellum/vellum.env after it), never copied here.
//
// 1. `systemd-analyze verify` (Debian's systemd package; .ci/run installs it) must report nothing about it. Only the
//    install paths of ExecStart change: `/usr/bin/node` becomes this Node (process.execPath) and
//    `/opt/vellum/node_modules/vellum` this checkout, whose bin/vellum.js is the same file an install has.
// 2. Then the unit's service is run as systemd would run it, without systemd (which is not PID 1 on a test machine,
//    so `systemctl start` cannot): ExecStart's command line, with the same substitution but for the script, which
//    runs from the sources through tsx (test/support/cli.ts) since a checkout has no dist/; in WorkingDirectory (a
//    temporary folder standing for /var/lib/vellum); with only PATH and the EnvironmentFile's values in its
//    environment, of which four name things of the page's machine and are replaced: VELLUM_DB (this test's
//    PostgreSQL), PORT and VELLUM_METRICS_PORT (free ports), VELLUM_SCHEMA (a schema file written here); and as
//    the unit's User and Group when the test runs as root (the user is created as the page says, if missing,
//    and must be able to read the checkout; otherwise it runs as the test's user). The server must answer
//    /v0/ready and /metrics, have installed the schema under VELLUM_NAMESPACE, and on KillSignal answer /v0/ready
//    with 503 while it drains (VELLUM_DRAIN_DELAY) and exit 0 within TimeoutStopSec.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { VELLUM } from '../support/cli.ts';
import { startTestPostgres, type TestPostgres } from '../support/postgres.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SYSTEMD_ANALYZE = process.env.VELLUM_SYSTEMD_ANALYZE ?? 'systemd-analyze';
const INSTALL_NODE = '/usr/bin/node';
const INSTALL_PACKAGE = '/opt/vellum/node_modules/vellum';

/** The text of the first fenced block in `language` after the line `after` of docs/deploying.md. */
function fencedBlock(after: string, language: string): string {
  const page = readFileSync(join(ROOT, 'docs/deploying.md'), 'utf8');
  const start = page.indexOf(after);
  if (start < 0) throw new Error(`docs/deploying.md has no "${after}"`);
  const match = new RegExp(`^\`\`\`${language}\\n([\\s\\S]*?)^\`\`\`$`, 'm').exec(page.slice(start));
  if (!match) throw new Error(`docs/deploying.md has no \`\`\`${language} block after "${after}"`);
  return match[1]!;
}

const UNIT = fencedBlock('## A systemd unit', 'ini');
const ENV_FILE = fencedBlock('Its settings, in `/etc/vellum/vellum.env`', 'sh');

/** The values of `key` in the unit's [Service] section, in order. */
function serviceValues(key: string): string[] {
  const section = /^\[Service\]\n([\s\S]*?)(?=^\[|(?![\s\S]))/m.exec(UNIT)?.[1] ?? '';
  return section
    .split('\n')
    .filter((line) => line.startsWith(`${key}=`))
    .map((line) => line.slice(key.length + 1));
}

function serviceValue(key: string): string {
  const values = serviceValues(key);
  if (values.length !== 1) throw new Error(`the unit has ${values.length} ${key}= lines, the test expects one`);
  return values[0]!;
}

/** KEY=value lines (no quoting: the test refuses what it would have to interpret). */
function assignments(text: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const line of text.split('\n')) {
    if (line.trim() === '' || line.startsWith('#')) continue;
    const match = /^([A-Z_][A-Z0-9_]*)=([^"'$%\\\s]*)$/.exec(line);
    if (!match) throw new Error(`cannot take "${line}" as it is: the test reads plain KEY=value lines only`);
    values[match[1]!] = match[2]!;
  }
  return values;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Seconds in a systemd time span as this unit writes them (`60`, `60s`, `2min`). */
function seconds(span: string): number {
  const match = /^(\d+)(s|min)?$/.exec(span);
  if (!match) throw new Error(`cannot read the time span "${span}"`);
  return Number(match[1]) * (match[2] === 'min' ? 60 : 1);
}

/** The uid and gid to run as: the unit's User and Group when root (created if missing) and able to read the checkout. */
function serviceUser(): { uid?: number; gid?: number; name: string } {
  const user = serviceValue('User');
  const group = serviceValue('Group');
  const me = { name: String(process.getuid?.()) };
  if (process.getuid?.() !== 0) return me;
  if (spawnSync('id', ['-u', user]).status !== 0) {
    // As docs/deploying.md creates it.
    execFileSync('useradd', ['--system', '--user-group', '--home-dir', '/var/lib/vellum', '--no-create-home', '--shell', '/usr/sbin/nologin', user]);
  }
  const uid = Number(execFileSync('id', ['-u', user]).toString());
  const gid = Number(execFileSync('getent', ['group', group]).toString().split(':')[2]);
  const readable = spawnSync(process.execPath, [...VELLUM, '--version'], { cwd: '/', uid, gid, env: { PATH: process.env.PATH } }).status === 0;
  return readable ? { uid, gid, name: user } : me;
}

describe('the systemd unit of docs/deploying.md', () => {
  let dir: string | undefined;
  let postgres: TestPostgres | undefined;
  afterAll(async () => {
    await postgres?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('passes systemd-analyze verify with nothing reported', { timeout: 30_000 }, () => {
    dir ??= mkdtempSync(join(tmpdir(), 'vellum-systemd-'));
    const execStart = serviceValue('ExecStart');
    expect(execStart.startsWith(`${INSTALL_NODE} ${INSTALL_PACKAGE}/`)).toBe(true);
    const unit = UNIT.replace(`ExecStart=${INSTALL_NODE} ${INSTALL_PACKAGE}/`, `ExecStart=${process.execPath} ${ROOT.replace(/\/$/, '')}/`);
    const file = join(dir, 'vellum.service');
    writeFileSync(file, unit);
    const result = spawnSync(SYSTEMD_ANALYZE, ['verify', file], { encoding: 'utf8' });
    if (result.error) throw new Error(`cannot run ${SYSTEMD_ANALYZE} (${result.error.message}): install Debian's systemd package (apt-get install -y systemd, as .ci/run does) or set VELLUM_SYSTEMD_ANALYZE`);
    expect({ status: result.status, output: `${result.stdout}${result.stderr}` }).toEqual({ status: 0, output: '' });
    // The check sees a mistake: the same unit with a signal systemd does not know is reported.
    writeFileSync(file, unit.replace(/^KillSignal=.*$/m, 'KillSignal=SIGNOTONE'));
    const wrong = spawnSync(SYSTEMD_ANALYZE, ['verify', file], { encoding: 'utf8' });
    expect(`${wrong.stdout}${wrong.stderr}`).toMatch(/SIGNOTONE/);
  });

  it('runs its ExecStart with its settings: ready, metrics, the schema installed, drains and stops on KillSignal', { timeout: 180_000 }, async () => {
    dir ??= mkdtempSync(join(tmpdir(), 'vellum-systemd-'));
    postgres = await startTestPostgres();
    const user = serviceUser();
    // WorkingDirectory, and the schema file, as the service's user sees them.
    const work = join(dir, 'var-lib-vellum');
    execFileSync('mkdir', ['-p', work]);
    chmodSync(dir, 0o755);
    if (user.uid !== undefined) chownSync(work, user.uid, user.gid!);
    const schema = join(dir, 'app.polylang');
    writeFileSync(schema, '@public\ncollection Note {\n  id: string;\n  text: string;\n  constructor (id: string, text: string) {\n    this.id = id;\n    this.text = text;\n  }\n}\n');
    chmodSync(schema, 0o644);

    const documented = assignments(ENV_FILE);
    for (const key of ['VELLUM_DB', 'PORT', 'VELLUM_METRICS_PORT', 'VELLUM_SCHEMA']) expect(documented).toHaveProperty(key);
    const port = await freePort();
    const metricsPort = await freePort();
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', ...documented, ...assignments(serviceValues('Environment').join('\n')), VELLUM_DB: postgres.url, PORT: String(port), VELLUM_METRICS_PORT: String(metricsPort), VELLUM_SCHEMA: schema };

    const [node, script, ...args] = serviceValue('ExecStart').split(' ');
    expect([node, script]).toEqual([INSTALL_NODE, `${INSTALL_PACKAGE}/bin/vellum.js`]);
    const child = spawn(process.execPath, [...VELLUM, ...args], { cwd: work, env, stdio: ['ignore', 'pipe', 'pipe'], uid: user.uid, gid: user.gid });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
    try {
      const base = `http://${documented.VELLUM_HOST ?? '127.0.0.1'}:${port}`;
      await expect.poll(async () => (await fetch(`${base}/v0/ready`).catch(() => undefined))?.status, { timeout: 60_000, interval: 200 }).toBe(200);
      const metrics = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
      expect(metrics.status).toBe(200);
      expect(await metrics.text()).toContain('vellum_http_requests_total');
      const list = await fetch(`${base}/v0/collections/${encodeURIComponent(`${documented.VELLUM_NAMESPACE}/Note`)}/records`);
      expect(list.status).toBe(200);

      // KillSignal, and how long systemd would wait before SIGKILL.
      const signal = serviceValue('KillSignal') as NodeJS.Signals;
      const timeout = seconds(serviceValue('TimeoutStopSec')) * 1000;
      const sent = performance.now();
      child.kill(signal);
      await expect.poll(async () => (await fetch(`${base}/v0/ready`).catch(() => undefined))?.status, { timeout: 5_000, interval: 100 }).toBe(503);
      const stopped = await Promise.race([exited, new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), timeout))]);
      expect(stopped, output).toEqual({ code: 0, signal: null });
      const took = performance.now() - sent;
      expect(took).toBeGreaterThanOrEqual(Number(documented.VELLUM_DRAIN_DELAY ?? 0));
      expect(took).toBeLessThan(timeout);
      expect(output).toContain(`${signal}, finishing in-flight requests`);
      console.info(`the unit's service ran as ${user.name}, stopped ${Math.round(took)} ms after ${signal} (TimeoutStopSec ${timeout / 1000} s)`);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });
});
