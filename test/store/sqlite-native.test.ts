// A missing or mismatched native build of better-sqlite3 is one clear error naming the package and the fix,
// not "Could not locate the bindings file". The errors here are the real ones: made by the `bindings` package
// better-sqlite3 loads its addon with, and by Node loading a file that is not an addon. (The consumer test,
// test/package/consumer.test.ts, removes the build from an installed copy and opens a store.)
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { explainNativeLoadError, NativeModuleError } from '../../src/store/sqlite-native.ts';

const scratch = mkdtempSync(join(tmpdir(), 'vellum-native-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function thrownBy(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
}

describe('explainNativeLoadError', () => {
  it('explains a build that is missing', () => {
    // better-sqlite3 resolves the bindings package from its own folder: do the same.
    const requireFromSqlite = createRequire(createRequire(import.meta.url).resolve('better-sqlite3'));
    const bindings = requireFromSqlite('bindings') as (options: { bindings: string; module_root: string }) => unknown;
    const cause = thrownBy(() => bindings({ bindings: 'better_sqlite3.node', module_root: scratch }));
    expect(String((cause as Error).message)).toContain('Could not locate the bindings file');
    const explained = explainNativeLoadError(cause);
    expect(explained).toBeInstanceOf(NativeModuleError);
    expect(explained!.message).toMatch(/^better-sqlite3's native module is not built \(Node\.js v\d+/);
    expect(explained!.message).toContain("Run 'npm rebuild better-sqlite3'");
    expect(explained!.cause).toBe(cause);
  });

  it('explains a build Node cannot load (another Node version, platform, or a damaged file)', () => {
    const file = join(scratch, 'better_sqlite3.node');
    writeFileSync(file, 'not a shared library');
    const cause = thrownBy(() => process.dlopen({ exports: {} } as NodeJS.Module, file));
    expect((cause as NodeJS.ErrnoException).code).toBe('ERR_DLOPEN_FAILED');
    expect(explainNativeLoadError(cause)!.message).toMatch(/^better-sqlite3's native module was built for another Node\.js version or platform/);
  });

  it('leaves every other error alone', () => {
    expect(explainNativeLoadError(new Error('SQLITE_CANTOPEN: unable to open database file'))).toBeUndefined();
    expect(explainNativeLoadError('not an error')).toBeUndefined();
  });
});
