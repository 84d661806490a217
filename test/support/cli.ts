// How tests start the `vellum` command line: Node with tsx's loader on the TypeScript sources, so that a test
// always runs the code it tests, never a dist/ left from an older build. (bin/vellum.js runs the build; the
// consumer test, test/package/consumer.test.ts, runs it from the packed tarball.)
import { execFileSync, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/** The source file of the command line's entry point. */
export const CLI_MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

/** Node's arguments before the command's own: `spawn(process.execPath, [...VELLUM, 'check', file])`. */
export const VELLUM: readonly string[] = ['--import', createRequire(import.meta.url).resolve('tsx'), CLI_MAIN];

/**
 * How long a test lets one run of the command line take before it is killed: a safety net, not a speed check. A
 * run takes about 2 s through tsx, but in CI the first runs of a fresh clone transpile every module while the
 * consumer test compiles better-sqlite3 on the other core, and 20 s was not always enough there.
 */
export const CLI_TIMEOUT_MS = 60_000;

/**
 * How a permission test runs the command line: as root every folder is readable and writable, so the command runs
 * as `nobody` then. That user must be able to read the checkout (a clone in a private temporary folder is not), so
 * `canRun` says whether the test means anything here; it is skipped where it does not.
 */
export function asUnprivilegedUser(): { options: { uid?: number; gid?: number }; canRun: boolean } {
  const options =
    process.getuid?.() === 0
      ? { uid: Number(execFileSync('id', ['-u', 'nobody']).toString()), gid: Number(execFileSync('id', ['-g', 'nobody']).toString()) }
      : {};
  const probe = `require('node:fs').accessSync(${JSON.stringify(CLI_MAIN)}, require('node:fs').constants.R_OK)`;
  const canRun = spawnSync(process.execPath, ['-e', probe], { cwd: '/', ...options }).status === 0;
  return { options, canRun };
}
