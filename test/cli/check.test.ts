// `vellum check` end to end: spawns the real command line (from the sources, see test/support/cli.ts) on fixtures and temporary
// files and asserts what it prints and how it exits.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';
import type { CheckFileJson } from '../../src/cli/check.ts';
import { loadFixtures } from '../lang/corpus.ts';
import { CLI_TIMEOUT_MS, VELLUM, asUnprivilegedUser } from '../support/cli.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const temp = mkdtempSync(join(tmpdir(), 'vellum-check-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

function vellumCheck(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [...VELLUM, 'check', ...args], { cwd: root, encoding: 'utf8', timeout: CLI_TIMEOUT_MS });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function tempFile(name: string, text: string): string {
  const path = join(temp, name);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
  return path;
}

const valid = `@public
collection Note {
  id: string;
  text: string;

  constructor (id: string, text: string) {
    this.id = id;
    this.text = text;
  }
}
`;

// The error is deep in a function body, after non-ASCII text, so the column must be counted on the line.
const typeError = `@public
collection Note {
  id: string;
  text: string;
  words: number;

  constructor (id: string, text: string) {
    this.id = id;
    this.text = 'déjà vu';
    this.words = text;
  }
}
`;

describe('text output', () => {
  test('valid files: exit 0, no diagnostics, a summary line', () => {
    const { status, stdout } = vellumCheck('fixtures/schemas/person-crud.polylang', 'fixtures/schemas/erc20-token.polylang');
    expect(stdout).toBe('no errors in 2 files\n');
    expect(status).toBe(0);
  });

  test('an invalid file: file:line:col: error CODE: message, a code frame, exit 1', () => {
    const file = tempFile('type-error.polylang', typeError);
    const { status, stdout } = vellumCheck(file);
    const lines = stdout.split('\n');
    expect(lines[0]).toMatch(new RegExp(`^${escape(file)}:10:\\d+: error V3006: cannot assign `));
    expect(lines[1]).toBe(' 10 |     this.words = text;');
    expect(lines[2]).toMatch(/^ {4}\| {5}\s*\^+$/);
    expect(stdout.trimEnd().split('\n').at(-1)).toBe('1 error in 1 of 1 file');
    expect(status).toBe(1);
  });

  test('a rejected fixture reports its expected code at its line', () => {
    const fixture = loadFixtures('rejected').find((f) => f.name === 'missing-id.polylang')!;
    const { status, stdout } = vellumCheck(fixture.path);
    expect(stdout).toMatch(new RegExp(`^${escape(fixture.path)}:${fixture.headers.line}:\\d+: error ${fixture.headers.expect}: `));
    expect(status).toBe(1);
  });

  test('valid, invalid and missing files together: every problem reported, exit 1', () => {
    const bad = tempFile('mixed/bad.polylang', typeError);
    const missing = join(temp, 'does-not-exist.polylang');
    const { status, stdout } = vellumCheck('fixtures/schemas/minimal.polylang', bad, missing);
    expect(stdout).toContain(`${bad}:10:`);
    expect(stdout).toContain(`${missing}: error: cannot read file: no such file or directory`);
    expect(stdout.trimEnd().split('\n').at(-1)).toBe('2 errors in 2 of 3 files');
    expect(status).toBe(1);
  });

  test('a parse error in one file does not stop the others from being checked', () => {
    const broken = tempFile('broken.polylang', '@public\ncollection Broken {\n  id: string\n}\n');
    const { status, stdout } = vellumCheck(broken, 'fixtures/rejected/duplicate-field.polylang');
    expect(stdout).toMatch(new RegExp(`^${escape(broken)}:3:13: error V1013: \`;\` expected$`, 'm'));
    expect(stdout).toMatch(/^fixtures\/rejected\/duplicate-field\.polylang:10:\d+: error V2006: /m);
    expect(status).toBe(1);
  });
});

describe('awkward input', () => {
  test('CRLF line ends and a byte order mark: positions are still right', () => {
    const file = tempFile('crlf.polylang', '\uFEFF' + typeError.replace(/\n/g, '\r\n'));
    const { status, stdout } = vellumCheck(file);
    expect(stdout).toMatch(new RegExp(`^${escape(file)}:10:18: error V3006: `));
    expect(status).toBe(1);
  });

  test('binary garbage: diagnostics and exit 1, never a crash', () => {
    const bytes = Buffer.alloc(4096);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7919 + 13) % 256;
    const file = join(temp, 'garbage.polylang');
    writeFileSync(file, bytes);
    const { status, stdout, stderr } = vellumCheck(file);
    expect(stderr).toBe('');
    expect(stdout).toMatch(/\d+ errors? in 1 of 1 file\n$/);
    expect(status).toBe(1);
  });
});

describe('directories', () => {
  test('a directory means every *.polylang file under it, recursively', () => {
    tempFile('tree/a.polylang', valid);
    tempFile('tree/nested/deeper/b.polylang', valid);
    tempFile('tree/nested/notes.txt', 'not a schema');
    const { status, stdout } = vellumCheck(join(temp, 'tree'));
    expect(stdout).toBe('no errors in 2 files\n');
    expect(status).toBe(0);
  });

  test('a walk skips node_modules and hidden folders, which are checked when named', () => {
    tempFile('project/app.polylang', valid);
    tempFile('project/node_modules/dep/broken.polylang', typeError);
    tempFile('project/.cache/broken.polylang', typeError);
    tempFile('project/src/.hidden/broken.polylang', typeError);
    const walked = vellumCheck(join(temp, 'project'));
    expect(walked.stdout).toBe('no errors in 1 file\n');
    expect(walked.status).toBe(0);
    const named = vellumCheck(join(temp, 'project/node_modules'), join(temp, 'project/.cache'));
    expect(named.stdout).toMatch(/errors? in 2 of 2 files\n$/);
    expect(named.status).toBe(1);
  });

  test('a walk reads only files: a named pipe among the schemas is reported, not opened (which would wait for a writer forever)', () => {
    tempFile('piped/a.polylang', valid);
    mkdirSync(join(temp, 'piped'), { recursive: true });
    execFileSync('mkfifo', [join(temp, 'piped/b.polylang')]);
    const { status, stdout } = vellumCheck(join(temp, 'piped'));
    expect(stdout).toContain(`${join(temp, 'piped/b.polylang')}: error: not a regular file`);
    expect(stdout).toMatch(/1 error in 1 of 2 files\n$/);
    expect(status).toBe(1);
  });

  const unprivileged = asUnprivilegedUser();
  test.skipIf(!unprivileged.canRun)('an unreadable folder in a walk is reported by its own name and the rest of the tree is still checked', () => {
    const tree = mkdtempSync(join(tmpdir(), 'vellum-check-unreadable-'));
    try {
      mkdirSync(join(tree, 'locked'));
      writeFileSync(join(tree, 'locked/hidden.polylang'), typeError);
      writeFileSync(join(tree, 'z.polylang'), valid);
      writeFileSync(join(tree, 'a.polylang'), valid);
      chmodSync(tree, 0o755);
      chmodSync(join(tree, 'locked'), 0o000);
      const result = spawnSync(process.execPath, [...VELLUM, 'check', tree], { cwd: root, encoding: 'utf8', timeout: CLI_TIMEOUT_MS, ...unprivileged.options });
      expect(result.stdout).toBe(
        `${join(tree, 'locked')}: error: cannot read directory: permission denied\n\n1 error in 1 of 3 files\n`,
      );
      expect(result.status).toBe(1);
    } finally {
      chmodSync(join(tree, 'locked'), 0o755);
      rmSync(tree, { recursive: true, force: true });
    }
  });

  test('the whole fixtures/schemas folder is valid', () => {
    const count = loadFixtures('schemas').length;
    const { status, stdout } = vellumCheck('fixtures/schemas');
    // Warnings (a reference to a collection declared in another file) are printed but do not fail.
    expect(stdout.trimEnd().split('\n').at(-1)).toMatch(new RegExp(`^no errors in ${count} files(, \\d+ warnings?)?$`));
    expect(stdout).not.toContain(': error ');
    expect(status).toBe(0);
  });

  test('a directory without schemas is an error, so a wrong CI path does not pass silently', () => {
    mkdirSync(join(temp, 'empty'), { recursive: true });
    const { status, stdout } = vellumCheck(join(temp, 'empty'));
    expect(stdout).toContain(`${join(temp, 'empty')}: error: no .polylang files in this directory`);
    expect(status).toBe(1);
  });
});

describe('--format json', () => {
  test('one JSON document with every file, its validity and its diagnostics', () => {
    const bad = tempFile('json/bad.polylang', typeError);
    const missing = join(temp, 'json/missing.polylang');
    const { status, stdout } = vellumCheck('--format', 'json', 'fixtures/schemas/minimal.polylang', bad, missing);
    const { files } = JSON.parse(stdout) as { files: CheckFileJson[] };
    expect(files.map((f) => [f.file, f.valid])).toEqual([
      ['fixtures/schemas/minimal.polylang', true],
      [bad, false],
      [missing, false],
    ]);
    expect(files[0]!.diagnostics).toEqual([]);
    expect(files[1]!.diagnostics[0]).toMatchObject({ file: bad, line: 10, code: 'V3006', severity: 'error' });
    expect(files[1]!.diagnostics[0]!.column).toBeGreaterThan(0);
    expect(files[2]).toMatchObject({ error: 'cannot read file: no such file or directory', diagnostics: [] });
    expect(status).toBe(1);
  });

  test('all valid: exit 0', () => {
    const { status, stdout } = vellumCheck('fixtures/extensions/else-if.polylang', '--format', 'json');
    expect(JSON.parse(stdout)).toEqual({ files: [{ file: 'fixtures/extensions/else-if.polylang', valid: true, diagnostics: [] }] });
    expect(status).toBe(0);
  });
});

describe('bad usage exits 2', () => {
  test('no files', () => {
    const { status, stderr } = vellumCheck();
    expect(stderr).toContain("missing required argument 'paths'");
    expect(status).toBe(2);
  });

  test('an unknown option', () => {
    const { status, stderr } = vellumCheck('--strict', 'fixtures/schemas/minimal.polylang');
    expect(stderr).toContain("unknown option '--strict'");
    expect(status).toBe(2);
  });

  test('an unknown format', () => {
    const { status, stderr } = vellumCheck('--format', 'xml', 'fixtures/schemas/minimal.polylang');
    expect(stderr).toContain('xml');
    expect(status).toBe(2);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
