// `vellum generate client <schema files or directories...> [--out file.ts]`: writes a typed TypeScript client for
// the collections of the schema files (src/codegen); a directory means every `*.polylang` file under it, as for
// `vellum check`. Errors in a schema are printed as `vellum check` prints them and nothing is written (exit 1);
// without --out the code goes to stdout. An --out that is one of the schema files is refused, not overwritten.
import { statSync, writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { DEFAULT_CLIENT_IMPORT, generateClient, type SchemaSource } from '../codegen/index.ts';
// The bounded reader straight from its module: the service's index.ts would load fastify, pg and the store.
import { FileReadError, MAX_SCHEMA_FILE_BYTES, readBoundedText } from '../service/read-file.ts';
import { expandPaths } from './check.ts';

interface ClientFlags {
  out?: string;
  clientImport: string;
}

export function registerGenerate(program: Command): void {
  const generate = program.command('generate').description('generate code from schema files');
  generate
    .command('client')
    .description('write a typed TypeScript client for the collections of schema files')
    .argument('<paths...>', 'schema files or directories (each collection declared once among them)')
    .option('--out <file.ts>', 'write the client to this file (default: standard output)')
    .option('--client-import <specifier>', 'the module the client imports its runtime from', DEFAULT_CLIENT_IMPORT)
    .action((paths: string[], flags: ClientFlags) => {
      const sources: SchemaSource[] = [];
      for (const { file, error } of expandPaths(paths)) {
        if (error !== undefined) return fail([`${file}: error: ${error}`]);
        try {
          sources.push({ file, text: readBoundedText(file, MAX_SCHEMA_FILE_BYTES, file) });
        } catch (error) {
          if (!(error instanceof FileReadError)) throw error;
          return fail([`error: ${error.message}`]);
        }
      }
      if (flags.out !== undefined && isOneOf(flags.out, sources)) {
        return fail([`error: --out ${flags.out} is one of the schema files read; choose another file for the client`]);
      }
      const { code, errors, warnings } = generateClient(sources, { clientImport: flags.clientImport });
      if (warnings.length > 0) process.stderr.write(`${warnings.join('\n\n')}\n`);
      if (code === null) return fail(errors);
      if (flags.out === undefined) {
        process.stdout.write(code);
        return;
      }
      try {
        writeFileSync(flags.out, code);
      } catch (error) {
        return fail([`error: cannot write ${flags.out}: ${(error as Error).message}`]);
      }
      process.stderr.write(`wrote ${flags.out} (${sources.length} schema file${sources.length === 1 ? '' : 's'})\n`);
    });
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
  process.stderr.write(`${errors.join('\n\n')}\n`);
  process.exitCode = 1;
}
