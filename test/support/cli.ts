// How tests start the `vellum` command line: Node with tsx's loader on the TypeScript sources, so that a test
// always runs the code it tests, never a dist/ left from an older build. (bin/vellum.js runs the build; the
// consumer test, test/package/consumer.test.ts, runs it from the packed tarball.)
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
