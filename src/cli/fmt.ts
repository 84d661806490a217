// `vellum fmt [paths...]`: rewrites schema files in the canonical layout (src/lang/format.ts), comments kept.
//   vellum fmt schema.polylang schemas/   rewrites the files that are not formatted and names each one
//   vellum fmt --check .                  changes nothing; names the files that would change, exit 1 if any
//   vellum fmt < in.polylang > out        no path (or `-`): standard input to standard output
// A file with syntax errors is never changed: its errors are printed as `vellum check` prints them (exit 1).
// Bad usage exits 2.
import { readFileSync, writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { formatSchema, renderText } from '../lang/index.ts';
// The bounded reader straight from its module: the service's index.ts would load fastify, pg and the store.
import { FileReadError, MAX_SCHEMA_FILE_BYTES, readBoundedText } from '../files/index.ts';
import { expandPaths } from './check.ts';

export function registerFmt(program: Command): void {
  program
    .command('fmt')
    .description('format schema files in the canonical layout (comments kept); no path or - means stdin to stdout')
    .argument('[paths...]', 'schema files or directories (every *.polylang file under it, as for check)')
    .option('--check', 'change nothing: list the files that are not formatted and exit 1 if there is any')
    .action((paths: string[], flags: { check?: boolean }) => {
      process.exitCode = paths.length === 0 || (paths.length === 1 && paths[0] === '-') ? formatStdin() : formatFiles(paths, flags.check === true);
    });
}

function formatStdin(): number {
  const text = readFileSync(0, 'utf8');
  const { formatted, diagnostics, source } = formatSchema(text, '<stdin>');
  if (formatted === undefined) {
    process.stderr.write(diagnostics.map((d) => renderText(d, source)).join('\n\n') + '\n');
    return 1;
  }
  process.stdout.write(formatted);
  return 0;
}

function formatFiles(paths: string[], check: boolean): number {
  let failed = false;
  const changed: string[] = [];
  for (const { file, error } of expandPaths(paths)) {
    if (error !== undefined) {
      process.stderr.write(`${file}: error: ${error}\n`);
      failed = true;
      continue;
    }
    let text: string;
    try {
      text = readBoundedText(file, MAX_SCHEMA_FILE_BYTES, 'file');
    } catch (error) {
      if (!(error instanceof FileReadError)) throw error;
      process.stderr.write(`${file}: error: ${error.message}\n`);
      failed = true;
      continue;
    }
    const { formatted, diagnostics, source } = formatSchema(text, file);
    if (formatted === undefined) {
      process.stderr.write(diagnostics.map((d) => renderText(d, source)).join('\n\n') + '\n');
      failed = true;
      continue;
    }
    if (formatted === text) continue;
    changed.push(file);
    if (!check) writeFileSync(file, formatted);
  }
  if (changed.length > 0) process.stdout.write(changed.join('\n') + '\n');
  return failed || (check && changed.length > 0) ? 1 : 0;
}
