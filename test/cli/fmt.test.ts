// `vellum fmt` end to end: spawns the real command line on temporary files and standard input.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { CLI_TIMEOUT_MS, VELLUM } from '../support/cli.ts';

const temp = mkdtempSync(join(tmpdir(), 'vellum-fmt-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

function vellumFmt(args: string[], input?: string) {
  const result = spawnSync(process.execPath, [...VELLUM, 'fmt', ...args], { cwd: temp, input, encoding: 'utf8', timeout: CLI_TIMEOUT_MS });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

const messy = '@public collection Note { id : string; // the key\n constructor(id: string) { this.id = id; } }\n';
const tidy = '@public\ncollection Note {\n  id: string; // the key\n\n  constructor (id: string) {\n    this.id = id;\n  }\n}\n';

function files(): { messy: string; tidy: string; broken: string } {
  const folder = mkdtempSync(join(temp, 'case-'));
  mkdirSync(join(folder, 'sub'));
  const paths = { messy: join(folder, 'sub', 'messy.polylang'), tidy: join(folder, 'tidy.polylang'), broken: join(folder, 'broken.polylang') };
  writeFileSync(paths.messy, messy);
  writeFileSync(paths.tidy, tidy);
  writeFileSync(paths.broken, 'collection A {\n  id: string\n}\n');
  return paths;
}

describe('vellum fmt', () => {
  test('--check changes nothing, names the files that would change and exits 1', () => {
    const paths = files();
    const { status, stdout } = vellumFmt(['--check', paths.messy, paths.tidy]);
    expect(stdout).toBe(`${paths.messy}\n`);
    expect(status).toBe(1);
    expect(readFileSync(paths.messy, 'utf8')).toBe(messy);
    expect(vellumFmt(['--check', paths.tidy])).toMatchObject({ status: 0, stdout: '' });
  });

  test('rewrites the files of a directory that are not formatted, and names them', () => {
    const paths = files();
    rmSync(paths.broken);
    const folder = join(paths.tidy, '..');
    expect(vellumFmt([folder])).toMatchObject({ status: 0, stdout: `${paths.messy}\n` });
    expect(readFileSync(paths.messy, 'utf8')).toBe(tidy);
    expect(vellumFmt(['--check', folder]).status).toBe(0);
  });

  test('a file with syntax errors is left as it is, with its errors', () => {
    const paths = files();
    const { status, stderr } = vellumFmt([paths.broken, paths.messy]);
    expect(stderr).toContain(`${paths.broken}:2:13: error V1013: \`;\` expected`);
    expect(status).toBe(1);
    expect(readFileSync(paths.broken, 'utf8')).toBe('collection A {\n  id: string\n}\n');
    expect(readFileSync(paths.messy, 'utf8')).toBe(tidy);
  });

  test('standard input to standard output', () => {
    expect(vellumFmt([], messy)).toMatchObject({ status: 0, stdout: tidy });
    expect(vellumFmt(['-'], messy)).toMatchObject({ status: 0, stdout: tidy });
    const broken = vellumFmt([], 'collection A {');
    expect(broken.status).toBe(1);
    expect(broken.stdout).toBe('');
    expect(broken.stderr).toContain('<stdin>:1:15: error V1013: `}` expected');
  });
});
