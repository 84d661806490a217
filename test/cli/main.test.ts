// `vellum` itself: the overview lists every command without loading it, `help <command>` and `<command> --help`
// load the one named, a misspelt command gets a suggestion. (Its speed is measured in bench/cli.ts, not here.)
import { spawnSync } from 'node:child_process';
import { describe, expect, test } from 'vitest';
import { CLI_TIMEOUT_MS, VELLUM } from '../support/cli.ts';

function vellum(...args: string[]) {
  const result = spawnSync(process.execPath, [...VELLUM, ...args], { encoding: 'utf8', timeout: CLI_TIMEOUT_MS });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('vellum', () => {
  test('--help lists every command with its summary', () => {
    const { status, stdout } = vellum('--help');
    expect(status).toBe(0);
    for (const name of ['call', 'check', 'fmt', 'generate', 'serve', 'sign']) expect(stdout).toMatch(new RegExp(`^  ${name} +\\S`, 'm'));
    expect(stdout).toContain('parse and check schema files');
  });

  test('help <command> and <command> --help show the command\'s own usage and options', () => {
    for (const args of [['help', 'check'], ['check', '--help']]) {
      const { status, stdout } = vellum(...args);
      expect(status).toBe(0);
      expect(stdout).toContain('Usage: vellum check [options] <paths...>');
      expect(stdout).toContain('--format <format>');
    }
  });

  test('a misspelt command: a suggestion, exit 2', () => {
    const { status, stderr } = vellum('chek', 'x.polylang');
    expect(stderr).toContain("unknown command 'chek'");
    expect(stderr).toContain('Did you mean check?');
    expect(status).toBe(2);
  });
});
