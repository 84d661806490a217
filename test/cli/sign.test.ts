// `vellum sign` as a curl user runs it: the printed header verifies, and bad input is a clear error.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import vectors from '../../fixtures/vectors/signatures.json' with { type: 'json' };
import { verifySignatureHeader } from '../../src/auth/index.ts';
import { CLI_TIMEOUT_MS, VELLUM } from '../support/cli.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'vellum-sign-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function vellum(args: string[], input?: string) {
  const result = spawnSync(process.execPath, [...VELLUM, 'sign', ...args], { cwd: root, input, encoding: 'utf8', timeout: CLI_TIMEOUT_MS });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('vellum sign', () => {
  it('prints the header value ethers made for the same key, body and time, with --pk the key too', () => {
    const vector = vectors.valid[3]!; // a body with non-ASCII text
    const plain = vellum(['--key', vector.privateKey, '--body', vector.body, '--t', String(vector.t)]);
    expect(plain).toMatchObject({ status: 0, stdout: `${vector.header}\n`, stderr: '' });
    const withPk = vellum(['--key', vector.privateKey, '--body', vector.body, '--t', String(vector.t), '--pk']);
    expect(withPk.stdout).toBe(`${vector.headerWithPk}\n`);
  });

  it('reads the key and the exact body bytes from files, or the body from standard input', () => {
    const vector = vectors.valid[1]!;
    writeFileSync(join(scratch, 'key'), `${vector.privateKey}\n`);
    writeFileSync(join(scratch, 'body.json'), vector.body);
    const fromFiles = vellum(['--key-file', join(scratch, 'key'), '--body-file', join(scratch, 'body.json'), '--t', String(vector.t)]);
    expect(fromFiles).toMatchObject({ status: 0, stdout: `${vector.header}\n` });
    const fromStdin = vellum(['--key-file', join(scratch, 'key'), '--body-file', '-', '--t', String(vector.t)], vector.body);
    expect(fromStdin.stdout).toBe(`${vector.header}\n`);
  });

  it('signs an empty body at the current time by default, which the server accepts now', () => {
    const vector = vectors.valid[0]!;
    const before = Date.now();
    const { status, stdout } = vellum(['--key', vector.privateKey]);
    expect(status).toBe(0);
    const t = Number(/t=(\d+)/.exec(stdout)![1]);
    expect(t).toBeGreaterThanOrEqual(before);
    expect(verifySignatureHeader(stdout.trim(), '', { method: 'GET' }).toHex()).toBe(vector.expected.publicKeyHex);
  });

  it('refuses a bad key, a bad time or a missing file with exit code 1, without echoing the key', () => {
    const badKey = vellum(['--key', '0x1234', '--t', '1']);
    expect(badKey.status).toBe(1);
    expect(badKey.stderr).toBe('vellum sign: a private key must be "0x" followed by 64 hex digits\n');
    const badTime = vellum(['--key', vectors.valid[0]!.privateKey, '--t', '12x']);
    expect(badTime).toMatchObject({ status: 1, stdout: '' });
    expect(badTime.stderr).toContain('--t must be milliseconds since 1970 as a decimal integer, got "12x"');
    expect(badTime.stderr).not.toContain(vectors.valid[0]!.privateKey.slice(2));
    const missing = vellum(['--key-file', join(scratch, 'no-such-file')]);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain('no-such-file');
  });

  it('is a usage error (exit code 2) without a key, or with two bodies', () => {
    const noKey = vellum([]);
    expect(noKey.status).toBe(2);
    expect(noKey.stderr).toContain('one of --key or --key-file is required');
    const twoBodies = vellum(['--key', vectors.valid[0]!.privateKey, '--body', 'a', '--body-file', 'b']);
    expect(twoBodies.status).toBe(2);
    expect(twoBodies.stderr).toContain("cannot be used with option '--body-file <path>'");
  });
});
