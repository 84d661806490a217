// The light client install: `@vellum/client` (packages/client, src/client and the signing code) packed and
// installed alone into a fresh project outside the repository, with install scripts on, as an app that only
// talks to a Vellum service would: no native build runs and none of the server's packages arrive
// (better-sqlite3, fastify, pg, chevrotain, ...); then it signs and writes through a real server, and a client
// generated with `--client-import @vellum/client` type-checks against it with only the DOM's types (no
// @types/node, as in a browser app). The install's time and size are printed (the figures in docs/codegen.md
// "The light client"; the full package's are printed by consumer.test.ts), not asserted: speed is for benchmarks.
import { execFile, execFileSync, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateClient, startServer, type RunningServer } from '../../src/index.ts';
import { openSqliteStore } from '../../src/store/index.ts';

const repository = fileURLToPath(new URL('../../', import.meta.url));
const project = mkdtempSync(join(tmpdir(), 'vellum-light-client-'));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const MINUTE = 60_000;

function run(command: string, args: string[], options: { timeout?: number; env?: NodeJS.ProcessEnv } = {}): SpawnSyncReturns<string> {
  return spawnSync(command, args, { cwd: project, encoding: 'utf8', timeout: options.timeout ?? MINUTE, env: options.env ?? process.env, maxBuffer: 16 * 1024 * 1024 });
}

function succeeded(result: SpawnSyncReturns<string>): string {
  if (result.status !== 0) throw new Error(`exit ${result.status} ${result.signal ?? ''}\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

function installedVersion(name: string): string {
  return (JSON.parse(readFileSync(join(repository, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
}

/** Every package folder under node_modules (scoped ones as `@scope/name`). */
function packagesIn(modules: string): string[] {
  if (!existsSync(modules)) return [];
  return readdirSync(modules)
    .filter((name) => !name.startsWith('.'))
    .flatMap((name) => (name.startsWith('@') ? readdirSync(join(modules, name)).map((inner) => `${name}/${inner}`) : [name]));
}

const SCHEMA = `@public
collection Note {
  id: string;
  text: string;
  author?: PublicKey;

  constructor (id: string, text: string) {
    this.id = id;
    this.text = text;
    this.author = ctx.publicKey;
  }
}
`;

let tarball: string;
let installSeconds: number;
let installedKiB: number;
let server: RunningServer;

beforeAll(async () => {
  // prepack builds packages/client/dist (scripts/build-client-package.mjs).
  execFileSync(npm, ['pack', './packages/client', '--pack-destination', project], { cwd: repository, timeout: 5 * MINUTE, stdio: ['ignore', 'ignore', 'inherit'] });
  const packed = readdirSync(project).filter((name) => name.endsWith('.tgz'));
  expect(packed).toHaveLength(1);
  tarball = join(project, packed[0]!);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'light-consumer', private: true, type: 'module' }, null, 2));
  // Install scripts on (npm's default): a package that wanted a native build would run it here.
  const started = performance.now();
  succeeded(run(npm, ['install', '--prefer-offline', '--no-audit', '--no-fund', '--foreground-scripts', tarball], { timeout: 5 * MINUTE }));
  installSeconds = (performance.now() - started) / 1000;
  installedKiB = Number(succeeded(spawnSync('du', ['-sk', join(project, 'node_modules')], { encoding: 'utf8' })).split('\t')[0]);
  console.log(`@vellum/client install: ${installSeconds.toFixed(1)} s (nothing compiled), node_modules ${(installedKiB / 1024).toFixed(1)} MiB, ${packagesIn(join(project, 'node_modules')).length} packages`);

  const store = openSqliteStore(':memory:');
  server = await startServer({ port: 0, store, explorer: false, logRequests: false });
  await server.service.installSchema('app/Note', SCHEMA);
}, 10 * MINUTE);

afterAll(async () => {
  await server?.close();
  rmSync(project, { recursive: true, force: true });
});

describe('@vellum/client installed alone', () => {
  it('brings only itself and @noble, with no install script and no native code', () => {
    const modules = join(project, 'node_modules');
    const installed = packagesIn(modules);
    expect(installed.sort()).toEqual(['@noble/curves', '@noble/hashes', '@vellum/client']);
    for (const name of ['better-sqlite3', 'fastify', 'pg', 'chevrotain', 'secp256k1', 'vellum']) expect(existsSync(join(modules, name))).toBe(false);
    for (const name of installed) {
      const manifest = JSON.parse(readFileSync(join(modules, name, 'package.json'), 'utf8')) as { scripts?: Record<string, string>; gypfile?: boolean };
      expect({ name, install: ['preinstall', 'install', 'postinstall'].filter((script) => manifest.scripts?.[script] !== undefined), gyp: existsSync(join(modules, name, 'binding.gyp')) }).toEqual({ name, install: [], gyp: false });
    }
    // Nothing was compiled: no build folder, no .node file anywhere.
    const nativeFiles = succeeded(spawnSync('find', [modules, '-name', '*.node', '-o', '-name', 'build', '-type', 'd'], { encoding: 'utf8' })).trim();
    expect(nativeFiles).toBe('');
    expect(installedKiB).toBeLessThan(10 * 1024);
  });

  it('signs and writes through a real Vellum server, and reads back', async () => {
    writeFileSync(
      join(project, 'main.mjs'),
      `import { Client, ethPersonalSigner, publicKeyHex } from '@vellum/client';

const key = '0x' + '42'.repeat(32);
const client = new Client({ baseURL: process.env.VELLUM_URL + '/v0', namespace: 'app', signer: ethPersonalSigner(key) });
const notes = client.collection('Note');
const created = await notes.create('n1', 'hello');
const read = await notes.get('n1');
const page = await notes.list();
console.log(JSON.stringify({ created: created.text, author: created.author?.alg, read: read.text, count: page.records.length, hex: publicKeyHex(key).length }));
`,
    );
    // Not spawnSync: the server runs in this process, and must answer while the script runs.
    const { stdout } = await promisify(execFile)(process.execPath, ['main.mjs'], { cwd: project, timeout: MINUTE, env: { ...process.env, VELLUM_URL: server.url } });
    const output = JSON.parse(stdout);
    expect(output).toEqual({ created: 'hello', author: 'ES256K', read: 'hello', count: 1, hex: 130 });
  });

  it('a client generated with --client-import @vellum/client type-checks with the DOM types alone (strict, nodenext, no skipLibCheck)', () => {
    const generated = generateClient([{ file: 'note.polylang', text: SCHEMA }], { clientImport: '@vellum/client' });
    expect(generated.errors).toEqual([]);
    writeFileSync(join(project, 'client.ts'), generated.code!);
    writeFileSync(
      join(project, 'app.ts'),
      `import { ethPersonalSigner } from '@vellum/client';
import { createClient } from './client.js';

const db = createClient({ baseURL: 'https://example.com/v0', namespace: 'app', signer: ethPersonalSigner('0x' + '11'.repeat(32)) });
export const write = (): Promise<{ id: string; text: string }> => db.Note.create('n2', 'typed');
`,
    );
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { strict: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', lib: ['es2022', 'dom'], types: [], noEmit: true },
        files: ['app.ts', 'client.ts'],
      }),
    );
    // TypeScript arrives after the install was measured, as a development tool of the app.
    succeeded(run(npm, ['install', '--prefer-offline', '--no-audit', '--no-fund', '--save-dev', `typescript@${installedVersion('typescript')}`], { timeout: 5 * MINUTE }));
    expect(succeeded(run(join(project, 'node_modules/.bin/tsc'), ['-p', '.'], { timeout: 3 * MINUTE }))).toBe('');
  }, 8 * MINUTE);
});
