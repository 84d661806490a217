// The command line under bad operating conditions: files that never end (a device, an endless standard input),
// directories where a file is expected, unreadable files. Each is one clear error naming the file and the exit
// code the docs give; none may read until memory runs out.
import { spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI_TIMEOUT_MS, VELLUM } from '../support/cli.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'vellum-cli-ops-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const KEY = `0x${'11'.repeat(32)}`;
const SCHEMA = `@public
collection Entry {
  id: string;
  constructor (id: string) { this.id = id; }
}
`;
const schemaFile = join(scratch, 'entry.polylang');
writeFileSync(schemaFile, SCHEMA);
const folder = join(scratch, 'folder');
mkdirSync(folder);

/** Runs `vellum <args>`; a run past the timeout (reading an endless file) comes back with status null. */
function vellum(args: string[], stdin: 'ignore' | number = 'ignore') {
  const result = spawnSync(process.execPath, [...VELLUM, ...args], {
    cwd: root,
    encoding: 'utf8',
    timeout: CLI_TIMEOUT_MS,
    stdio: [stdin, 'pipe', 'pipe'],
    maxBuffer: 1024 * 1024,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('files that never end are refused once past a bound, not read until memory runs out', () => {
  it('vellum check /dev/zero', () => {
    const run = vellum(['check', '/dev/zero']);
    expect(run.status).toBe(1);
    expect(run.stdout).toMatch(/^\/dev\/zero: error: cannot read file: it is larger than \d+ bytes/m);
  });

  it('vellum call /dev/zero', () => {
    const run = vellum(['call', '/dev/zero', 'Entry.constructor', '--args', '["a"]']);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/^vellum call: cannot read \/dev\/zero: it is larger than \d+ bytes/);
  });

  it('vellum sign --body-file /dev/zero, --key-file /dev/zero, and an endless standard input', () => {
    const body = vellum(['sign', '--key', KEY, '--body-file', '/dev/zero']);
    expect(body.status).toBe(1);
    expect(body.stderr).toMatch(/^vellum sign: cannot read --body-file \/dev\/zero: it is larger than \d+ bytes/);
    const key = vellum(['sign', '--key-file', '/dev/zero']);
    expect(key.status).toBe(1);
    expect(key.stderr).toMatch(/^vellum sign: cannot read --key-file \/dev\/zero: it is larger than \d+ bytes/);
    const zero = openSync('/dev/zero', 'r');
    try {
      const stdin = vellum(['sign', '--key', KEY, '--body-file', '-'], zero);
      expect(stdin.status).toBe(1);
      expect(stdin.stderr).toMatch(/^vellum sign: cannot read --body-file standard input: it is larger than \d+ bytes/);
    } finally {
      closeSync(zero);
    }
  });
});

describe('a binary file', () => {
  it('is one error saying it is not UTF-8 text and where, not a diagnostic per byte', () => {
    const binary = join(scratch, 'binary.polylang');
    writeFileSync(binary, Buffer.concat([Buffer.from('collection A {\n  id: '), Buffer.from([0xff, 0xfe, 0x00, 0x80]), Buffer.alloc(4096, 0x9c)]));
    const check = vellum(['check', binary]);
    expect(check.status).toBe(1);
    expect(check.stdout).toBe(`${binary}: error: cannot read file: it is not UTF-8 text (the first byte that is not is at line 2, column 7)\n\n1 error in 1 of 1 file\n`);
    const call = vellum(['call', binary, 'A.constructor']);
    expect(call.status).toBe(2);
    expect(call.stderr).toBe(`vellum call: cannot read ${binary}: it is not UTF-8 text (the first byte that is not is at line 2, column 7)\n`);
  });

  it('a byte order mark and non-ASCII text are still read', () => {
    const text = join(scratch, 'bom.polylang');
    writeFileSync(text, `\uFEFF// café ☕\n${SCHEMA}`);
    expect(vellum(['check', text])).toMatchObject({ status: 0, stdout: 'no errors in 1 file\n' });
  });
});

describe('a directory or a missing file where a file is expected names the option and the path', () => {
  it('vellum sign --key-file <folder> / <missing>, --body-file <folder>', () => {
    const key = vellum(['sign', '--key-file', folder]);
    expect(key).toMatchObject({ status: 1, stdout: '' });
    expect(key.stderr).toBe(`vellum sign: cannot read --key-file ${folder}: is a directory\n`);
    const missing = vellum(['sign', '--key-file', join(scratch, 'nope.key')]);
    expect(missing.stderr).toBe(`vellum sign: cannot read --key-file ${join(scratch, 'nope.key')}: no such file or directory\n`);
    const body = vellum(['sign', '--key', KEY, '--body-file', folder]);
    expect(body.stderr).toBe(`vellum sign: cannot read --body-file ${folder}: is a directory\n`);
  });

  it('vellum call <folder>', () => {
    const run = vellum(['call', folder, 'Entry.constructor', '--args', '["a"]']);
    expect(run.status).toBe(2);
    expect(run.stderr).toBe(`vellum call: cannot read ${folder}: is a directory\n`);
  });

  it('an ordinary schema file is still read and called', () => {
    const run = vellum(['call', schemaFile, 'Entry.constructor', '--args', '["a"]']);
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout).record).toEqual({ id: 'a' });
  });
});
