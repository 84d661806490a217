// The folders of src/ are the architecture (lang, runtime, auth, store, service, cli, ...), and each folder's
// index.ts is its public face: an import from one folder into another goes through that index.ts, never into a
// file behind it, and no folder imports src/index.ts (the package's entry, which gathers them). The explorer
// (explorer/) reaches src/ the same way. This test reads every import and export specifier (static, `import type`
// and dynamic `import()`, with TypeScript's own scanner) and fails on any that goes around an index.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { AuthError } from '../src/auth/index.ts';
import { toErrorResponse } from '../src/service/index.ts';
import { StoreError } from '../src/store/index.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const src = join(root, 'src');

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(ts|tsx|js|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** The top-level folder of src/ a path is in ('' for src/index.ts itself), or undefined outside src/. */
function folderOf(path: string): string | undefined {
  const inside = relative(src, path);
  if (inside.startsWith('..')) return undefined;
  const parts = inside.split(sep);
  return parts.length === 1 ? '' : parts[0];
}

/** Every relative import of `file` that enters a folder of src/ other than its own, other than by its index.ts. */
function importsAroundAnIndex(file: string, text = readFileSync(file, 'utf8')): string[] {
  const own = folderOf(file);
  const found: string[] = [];
  for (const { fileName: specifier } of ts.preProcessFile(text, true, true).importedFiles) {
    if (!specifier.startsWith('.')) continue;
    const target = resolve(dirname(file), specifier);
    const folder = folderOf(target);
    if (folder === undefined || folder === own) continue;
    // src/index.ts gathers the folders' faces for the package: a folder importing it would import itself back.
    const allowed = folder === '' ? own === undefined && target === join(src, 'index.ts') : target === join(src, folder, 'index.ts');
    if (!allowed) found.push(`${relative(root, file)}: '${specifier}'`);
  }
  return found;
}

describe('layering', () => {
  it('every import across folders of src/ (and from explorer/ into src/) goes through the folder\'s index.ts', () => {
    const files = [...sourceFiles(src), ...sourceFiles(join(root, 'explorer'))];
    expect(files.length).toBeGreaterThan(100);
    expect(files.flatMap((file) => importsAroundAnIndex(file))).toEqual([]);
  });

  it('finds an import that goes around an index', () => {
    // The scanner itself: a file of the CLI reaching into the service's internals is caught, by every form.
    const file = join(src, 'cli', 'example.ts');
    const found = (text: string) => importsAroundAnIndex(file, text).length;
    expect(found(`import { readBoundedText } from '../service/read-file.ts';`)).toBe(1);
    expect(found(`import type { X } from '../auth/jwk.ts';\nexport { Y } from '../store/where.ts';`)).toBe(2);
    expect(found(`const m = await import('../lsp/server.ts');`)).toBe(1);
    expect(found(`import { checkSchema } from '../lang/index.ts';\nimport { x } from './main.ts';`)).toBe(0);
    // The package's own index from inside a folder, and a file beside it at the top of src/.
    expect(found(`import { checkSchema } from '../index.ts';\nimport { y } from '../helpers.ts';`)).toBe(2);
  });

  it('lets a file outside src/ import the package\'s index, and nothing else at the top of src/', () => {
    const file = join(root, 'explorer', 'src', 'example.ts');
    const found = (text: string) => importsAroundAnIndex(file, text).length;
    expect(found(`import type { X } from '../../src/index.ts';\nimport type { StableType } from '../../src/lang/index.ts';`)).toBe(0);
    expect(found(`import { y } from '../../src/helpers.ts';\nimport { z } from '../../src/lang/parse.ts';`)).toBe(2);
  });

  it('keeps presentation out of the store and auth: their errors carry no HTTP status, the service maps their codes', () => {
    const unavailable = new StoreError('unavailable', 'store/unavailable', 'the database is down');
    const refused = new AuthError('expired', 't', 'the signature expired');
    expect('status' in unavailable).toBe(false);
    expect('status' in refused).toBe(false);
    expect(toErrorResponse(unavailable)).toMatchObject({ status: 503, body: { error: { code: 'unavailable', reason: 'store/unavailable' } } });
    expect(toErrorResponse(new StoreError('not-found', 'collection/not-found', 'no such collection')).status).toBe(404);
    expect(toErrorResponse(refused)).toMatchObject({ status: 400, body: { error: { code: 'invalid-argument', reason: 'auth/invalid-signature' } } });
  });
});
