// better-sqlite3 is a native addon, compiled or downloaded when it is installed. When that step failed or was
// skipped (npm's --ignore-scripts, install scripts not allowed, no C++ toolchain) or was done for another Node
// version, opening a database fails with a message about a "bindings file" or a module version that does not
// say what to do. This module turns those into one error that names the package and the fix.
import { createRequire } from 'node:module';
import type Database from 'better-sqlite3';

// Loaded on the first open, so a program that imports the library without opening a SQLite store does not load it.
const load = createRequire(import.meta.url);
let betterSqlite3: typeof Database | undefined;

export class NativeModuleError extends Error {
  override readonly name = 'NativeModuleError';
}

/** Opens a database file with better-sqlite3; a missing or mismatched native build becomes a NativeModuleError. */
export function openDatabase(path: string): Database.Database {
  try {
    betterSqlite3 ??= load('better-sqlite3') as typeof Database;
    return new betterSqlite3(path);
  } catch (error) {
    throw explainNativeLoadError(error) ?? error;
  }
}

/** The clear error for a failure to load better-sqlite3's native build, or undefined for any other failure. */
export function explainNativeLoadError(error: unknown): NativeModuleError | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = (error as NodeJS.ErrnoException).code;
  const missing = error.message.includes('Could not locate the bindings file');
  const mismatched = code === 'ERR_DLOPEN_FAILED' && /better_sqlite3|NODE_MODULE_VERSION/.test(error.message);
  if (!missing && !mismatched) return undefined;
  const problem = missing ? 'is not built' : `was built for another Node.js version or platform`;
  return new NativeModuleError(
    `better-sqlite3's native module ${problem} (Node.js ${process.version}, ${process.platform}-${process.arch}). ` +
      "Its install step failed or did not run (npm's --ignore-scripts, or install scripts not allowed for it). " +
      "Run 'npm rebuild better-sqlite3' (it needs python3, make and a C++ compiler when no prebuilt binary can be downloaded). " +
      `Cause: ${error.message.split('\n')[0]}`,
    { cause: error },
  );
}
