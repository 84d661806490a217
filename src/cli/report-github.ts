// `vellum check --format github`: one GitHub Actions workflow command per diagnostic, which the runner turns into
// an annotation on the line of the pull request's diff (https://docs.github.com/actions/reference/workflow-commands).
// Notes follow the message on lines of their own; an unreadable file is an error on the file.
import type { Diagnostic, SourceFile } from '../lang/index.ts';

export interface ReportedFile {
  file: string;
  error?: string;
  diagnostics: Diagnostic[];
  source?: SourceFile;
}

/** Escapes of a command's message (`%`, CR, LF) and, in its properties, also `:` and `,`. */
function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

export function formatGithub(results: ReportedFile[]): string {
  const lines: string[] = [];
  for (const result of results) {
    if (result.error !== undefined) lines.push(`::error file=${escapeProperty(result.file)}::${escapeData(result.error)}`);
    for (const d of result.diagnostics) {
      const source = result.source!;
      const start = source.position(d.span.start);
      const end = source.position(d.span.end);
      const properties = [
        `file=${escapeProperty(result.file)}`,
        `line=${start.line}`,
        `endLine=${end.line}`,
        // Columns only for a span on one line, as GitHub wants.
        ...(start.line === end.line ? [`col=${start.column}`, `endColumn=${end.column}`] : []),
        `title=${escapeProperty(`${d.code} (vellum)`)}`,
      ];
      const notes = d.notes.map((note) => {
        if (!note.span) return `note: ${note.message}`;
        const at = source.position(note.span.start);
        return `note: ${result.file}:${at.line}:${at.column}: ${note.message}`;
      });
      lines.push(`::${d.severity} ${properties.join(',')}::${escapeData([d.message, ...notes].join('\n'))}`);
    }
  }
  return lines.map((line) => line + '\n').join('');
}
