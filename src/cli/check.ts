// `vellum check <paths...>`: parses and checks schema files, for people and for CI.
//
// Output goes to stdout, like tsc and eslint: the diagnostics are the command's result, not a failure of
// the command itself (stderr is left to usage errors). Text output is one `file:line:col: error CODE:
// message` block with a code frame per diagnostic (coloured on a terminal, see colour.ts), then a summary line;
// `--format json` prints a single JSON document instead, `--format github` workflow annotations
// (report-github.ts), `--format sarif` a SARIF 2.1.0 log (report-sarif.ts). Exit status: 0 when every file is valid, 1 when any file has an error (or cannot
// be read), 2 on bad usage.
import { readdirSync, readFileSync, statSync, type Dirent, type Stats } from 'node:fs';
import { join } from 'node:path';
import { Option, type Command } from 'commander';
import { checkSchema, hasErrors, renderText, toJson, type DiagnosticJson } from '../lang/index.ts';
// The bounded reader straight from its module: the service's index.ts would load fastify, pg and the store.
import { FileReadError, MAX_SCHEMA_FILE_BYTES, readBoundedText } from '../files/index.ts';
import { colourWanted } from './colour.ts';
import { formatGithub, type ReportedFile } from './report-github.ts';
import { formatSarif } from './report-sarif.ts';

export type Format = 'text' | 'json' | 'github' | 'sarif';

/** `error` is set when the file could not be read or checked at all; then there are no diagnostics. */
type FileResult = ReportedFile;

export interface CheckFileJson {
  file: string;
  valid: boolean;
  error?: string;
  diagnostics: DiagnosticJson[];
}

export function registerCheck(program: Command): void {
  program
    .command('check')
    .description('parse and check schema files; a directory means every *.polylang file under it, except in node_modules and hidden folders')
    .argument('<paths...>', 'schema files or directories')
    .addOption(
      new Option('--format <format>', 'output format: text, json, github (workflow annotations) or sarif (SARIF 2.1.0)')
        .choices(['text', 'json', 'github', 'sarif'])
        .default('text'),
    )
    .action((paths: string[], flags: { format: Format }) => {
      const colour = colourWanted(process.env, process.stdout.isTTY === true);
      const report = checkReport(paths, flags.format, { colour });
      process.stdout.write(report.output);
      process.exitCode = report.failed ? 1 : 0;
    });
}

/** What `vellum check <paths>` prints, and whether any file failed (exit status 1). */
export function checkReport(paths: string[], format: Format, options: { colour?: boolean } = {}): { output: string; failed: boolean } {
  const results = expandPaths(paths).map(({ file, error }) => (error === undefined ? checkFile(file) : { file, error, diagnostics: [] }));
  const output =
    format === 'json'
      ? formatJson(results)
      : format === 'github'
        ? formatGithub(results)
        : format === 'sarif'
          ? formatSarif(results, version())
          : formatText(results, options.colour === true);
  return { output, failed: results.some(failed) };
}

function version(): string {
  return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

export interface Target {
  file: string;
  /** Why this path yields nothing to check (an unreadable or empty directory). */
  error?: string;
}

/** Files to check, in the order given, each once; a directory expands to its `*.polylang` files, sorted. */
export function expandPaths(paths: string[]): Target[] {
  const targets = new Map<string, Target>();
  const add = (target: Target) => {
    if (!targets.has(target.file)) targets.set(target.file, target);
  };
  for (const path of paths) {
    if (!isDirectory(path)) {
      add({ file: path }); // a missing path is reported by checkFile, with the reason
      continue;
    }
    const found = targetsUnder(path);
    if (found.length === 0) add({ file: path, error: 'no .polylang files in this directory' });
    for (const target of found) add(target);
  }
  return [...targets.values()];
}

/**
 * A walk does not enter installed packages or hidden folders (.git, .cache, …): `vellum check .` in a project
 * means the project's own schemas. Such a folder named on the command line is checked like any other.
 */
function skippedFolder(name: string): boolean {
  return name === 'node_modules' || name.startsWith('.');
}

/**
 * The `*.polylang` files under a directory, sorted, with a folder that cannot be read as a target of its own (so
 * one unreadable folder neither hides the rest of the tree nor is blamed on the directory named). Symbolic links to
 * folders are not followed. Only files are opened: a pipe, socket or device named `*.polylang` is reported instead,
 * since opening a pipe waits for a writer that may never come.
 */
function targetsUnder(directory: string): Target[] {
  const targets: Target[] = [];
  const visit = (folder: string) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch (error) {
      targets.push({ file: folder, error: `cannot read directory: ${reason(error)}` });
      return;
    }
    for (const entry of entries) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) {
        if (!skippedFolder(entry.name)) visit(path);
      } else if (entry.name.endsWith('.polylang')) {
        const kind = fileKind(path);
        if (kind === 'file') targets.push({ file: path });
        else if (kind === 'other') targets.push({ file: path, error: 'not a regular file (a pipe, socket or device)' });
      }
    }
  };
  visit(directory);
  return targets.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
}

/**
 * What a path is once links are followed; a link that leads nowhere (missing, a loop) counts as a file, so that
 * checking it reports why it cannot be read.
 */
function fileKind(path: string): 'file' | 'directory' | 'other' {
  let stats: Stats;
  try {
    stats = statSync(path);
  } catch {
    return 'file';
  }
  return stats.isFile() ? 'file' : stats.isDirectory() ? 'directory' : 'other';
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function checkFile(file: string): FileResult {
  let text: string;
  try {
    text = readBoundedText(file, MAX_SCHEMA_FILE_BYTES, 'file');
  } catch (error) {
    if (!(error instanceof FileReadError)) throw error;
    return { file, error: error.message, diagnostics: [] };
  }
  try {
    const { diagnostics, source } = checkSchema(text, file);
    return { file, diagnostics, source };
  } catch (error) {
    // A bug in the checker must not take the whole run down with it; report it against the file.
    return { file, error: `internal error while checking: ${reason(error)}`, diagnostics: [] };
  }
}

function failed(result: FileResult): boolean {
  return result.error !== undefined || hasErrors(result.diagnostics);
}

function formatText(results: FileResult[], colour: boolean): string {
  const blocks: string[] = [];
  for (const result of results) {
    if (result.error !== undefined) blocks.push(`${result.file}: error: ${result.error}`);
    for (const diagnostic of result.diagnostics) blocks.push(renderText(diagnostic, result.source!, { colour }));
  }
  blocks.push(summary(results));
  return blocks.join('\n\n') + '\n';
}

function summary(results: FileResult[]): string {
  const count = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  const errors = results.reduce(
    (sum, r) => sum + (r.error !== undefined ? 1 : 0) + r.diagnostics.filter((d) => d.severity === 'error').length,
    0,
  );
  const warnings = results.reduce((sum, r) => sum + r.diagnostics.filter((d) => d.severity === 'warning').length, 0);
  const failing = results.filter(failed).length;
  const warningText = warnings > 0 ? `, ${count(warnings, 'warning')}` : '';
  if (errors === 0) return `no errors in ${count(results.length, 'file')}${warningText}`;
  return `${count(errors, 'error')} in ${failing} of ${count(results.length, 'file')}${warningText}`;
}

function formatJson(results: FileResult[]): string {
  const files: CheckFileJson[] = results.map((result) => ({
    file: result.file,
    valid: !failed(result),
    ...(result.error !== undefined ? { error: result.error } : {}),
    diagnostics: result.diagnostics.map((diagnostic) => toJson(diagnostic, result.source!)),
  }));
  return JSON.stringify({ files }, null, 2) + '\n';
}

function reason(error: unknown): string {
  const code = error instanceof Error ? (error as NodeJS.ErrnoException).code : undefined;
  if (code === 'ENOENT') return 'no such file or directory';
  if (code === 'EACCES') return 'permission denied';
  if (code === 'EISDIR') return 'is a directory';
  return error instanceof Error ? error.message : String(error);
}
