// `vellum generate client <schema files or directories...> [--out file.ts]`: writes a typed TypeScript client for
// the collections of the schema files (src/codegen); a directory means every `*.polylang` file under it, as for
// `vellum check`. Errors in a schema are printed as `vellum check` prints them and nothing is written (exit 1);
// without --out the code goes to stdout; --out creates its folder. An --out that is one of the schema files is
// refused, not overwritten. --watch writes the client again whenever a schema file changes.
import { mkdirSync, statSync, watch as watchFs, writeFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { Command } from 'commander';
import { DEFAULT_CLIENT_IMPORT, generateClient, type SchemaSource } from '../codegen/index.ts';
// The bounded reader straight from its module: the service's index.ts would load fastify, pg and the store.
import { FileReadError, MAX_SCHEMA_FILE_BYTES, readBoundedText } from '../files/index.ts';
import { expandPaths } from './check.ts';

interface ClientFlags {
  out?: string;
  clientImport: string;
  watch?: boolean;
}

export function registerGenerate(program: Command): void {
  const generate = program.command('generate').description('generate code from schema files');
  generate
    .command('client')
    .description('write a typed TypeScript client for the collections of schema files')
    .argument('<paths...>', 'schema files or directories (each collection declared once among them)')
    .option('--out <file.ts>', 'write the client to this file, creating its folder (default: standard output)')
    .option('--client-import <specifier>', 'the module the client imports its runtime from', DEFAULT_CLIENT_IMPORT)
    .option('--watch', 'keep running and write the client again whenever a schema file changes (needs --out)')
    .action((paths: string[], flags: ClientFlags) => {
      if (flags.watch && flags.out === undefined) return fail(['error: --watch needs --out <file.ts>: the client is written again on every change']);
      const ok = generateOnce(paths, flags);
      if (flags.watch) watch(paths, flags);
      else if (!ok) process.exitCode = 1;
    });
}

/** Reads, checks and generates once, and writes the client; prints what went wrong and returns false if anything did. */
function generateOnce(paths: string[], flags: ClientFlags): boolean {
  const sources: SchemaSource[] = [];
  for (const { file, error } of expandPaths(paths)) {
    if (error !== undefined) return report([`${file}: error: ${error}`]);
    try {
      sources.push({ file, text: readBoundedText(file, MAX_SCHEMA_FILE_BYTES, file) });
    } catch (error) {
      if (!(error instanceof FileReadError)) throw error;
      return report([`error: ${error.message}`]);
    }
  }
  if (flags.out !== undefined && isOneOf(flags.out, sources)) {
    return report([`error: --out ${flags.out} is one of the schema files read; choose another file for the client`]);
  }
  const { code, errors, warnings } = generateClient(sources, { clientImport: flags.clientImport });
  if (warnings.length > 0) process.stderr.write(`${warnings.join('\n\n')}\n`);
  if (code === null) return report(errors);
  if (flags.out === undefined) {
    process.stdout.write(code);
    return true;
  }
  try {
    mkdirSync(dirname(flags.out), { recursive: true });
    writeFileSync(flags.out, code);
  } catch (error) {
    return report([`error: cannot write ${flags.out}: ${(error as Error).message}`]);
  }
  process.stderr.write(`wrote ${flags.out} (${sources.length} schema file${sources.length === 1 ? '' : 's'})\n`);
  return true;
}

/**
 * Watches the folders of the files named and the directories named (recursively), and generates again 100 ms after
 * the last change to a `*.polylang` file there (an editor's save is often several events). Watching folders, not
 * files, sees a file an editor replaces on save. Errors are printed and the last good client is left in place.
 */
function watch(paths: string[], flags: ClientFlags): void {
  let timer: NodeJS.Timeout | undefined;
  const regenerate = (file: string | null) => {
    if (file !== null && !file.endsWith('.polylang')) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      process.stderr.write('change seen: generating again\n');
      generateOnce(paths, flags);
    }, 100);
  };
  for (const path of paths) {
    const isFolder = statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
    const folder = isFolder ? path : dirname(path);
    const name = basename(path);
    try {
      watchFs(folder, { recursive: isFolder }, (_event, changed) => {
        if (isFolder) regenerate(changed === null ? null : String(changed));
        else if (changed === null || String(changed) === name) regenerate(path);
      });
    } catch (error) {
      fail([`error: cannot watch ${folder}: ${(error as Error).message}`]);
      process.exit();
    }
  }
  process.stderr.write(`watching ${paths.join(', ')} (Ctrl-C to stop)\n`);
}

/** Prints errors to stderr and returns false. */
function report(errors: string[]): boolean {
  process.stderr.write(`${errors.join('\n\n')}\n`);
  return false;
}

/** Whether `out` is, under any name (a link, another spelling), one of the files read: writing it would destroy that schema. */
function isOneOf(out: string, sources: readonly SchemaSource[]): boolean {
  const target = statSync(out, { throwIfNoEntry: false });
  if (target === undefined) return false;
  return sources.some(({ file }) => {
    const source = statSync(file, { throwIfNoEntry: false });
    return source !== undefined && source.dev === target.dev && source.ino === target.ino;
  });
}

function fail(errors: string[]): void {
  report(errors);
  process.exitCode = 1;
}
