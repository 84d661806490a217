// Test support for generated clients: generating one into a temporary ES module folder, importing the runtime
// from this checkout's src/client, and type-checking files with the TypeScript compiler API as a user's strict
// NodeNext project would.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { generateClient } from '../../src/codegen/index.ts';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const CLIENT_MODULE = join(ROOT, 'src/client/index.ts');

/** A new folder under the system's temporary one, marked as ES modules (as generated clients are). */
export function moduleFolder(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  return dir;
}

/** Generates a client for schema files of this checkout (paths relative to it); throws with the errors if any. */
export function generateFor(files: readonly string[], clientImport: string = CLIENT_MODULE): string {
  const result = generateClient(
    files.map((file) => ({ file, text: readFileSync(join(ROOT, file), 'utf8') })),
    { clientImport },
  );
  if (result.code === null) throw new Error(`generation failed:\n${result.errors.join('\n')}`);
  return result.code;
}

export function writeInto(dir: string, name: string, text: string): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** `tsc --strict` with NodeNext modules over these files: every diagnostic as `file:line:col: TSxxxx message`. */
export function typeCheck(files: readonly string[]): string[] {
  const program = ts.createProgram(files, {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
    types: [],
    // The runtime is imported from the TypeScript sources of this checkout.
    allowImportingTsExtensions: true,
    verbatimModuleSyntax: true,
    skipLibCheck: true,
  });
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const message = ts.flattenDiagnosticMessageText(d.messageText, '\n');
    if (!d.file || d.start === undefined) return `TS${d.code} ${message}`;
    const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
    return `${basename(d.file.fileName)}:${line + 1}:${character + 1}: TS${d.code} ${message}`;
  });
}
