// `vellum check --format sarif`: the diagnostics as a SARIF 2.1.0 log (OASIS's Static Analysis Results Interchange
// Format), which GitHub code scanning and other CI tools read. One run; a rule per diagnostic code that occurs, with
// the catalogue's message template; a result per diagnostic with its region (lines and UTF-16 columns, 1-based, the
// end exclusive) and its notes as related locations; an unreadable file as a tool notification. Validated against
// the SARIF schema in test/cli/check-formats.test.ts.
import { catalogue } from '../lang/index.ts';
import type { ReportedFile } from './report-github.ts';

const templates = new Map<string, string>(Object.values(catalogue).map((t) => [t.code, t.message]));

export function formatSarif(results: ReportedFile[], version: string): string {
  const ruleIds = [...new Set(results.flatMap((r) => r.diagnostics.map((d) => d.code)))].sort();
  const ruleIndex = new Map(ruleIds.map((id, i) => [id, i]));
  const artifact = (file: string) => ({ uri: encodeURI(file.replace(/\\/g, '/')) });
  const sarifResults = results.flatMap((result) =>
    result.diagnostics.map((d) => {
      const source = result.source!;
      const region = (span: { start: number; end: number }) => {
        const start = source.position(span.start);
        const end = source.position(span.end);
        return { startLine: start.line, startColumn: start.column, endLine: end.line, endColumn: end.column };
      };
      const related = d.notes.flatMap((note, i) =>
        note.span ? [{ id: i, message: { text: note.message }, physicalLocation: { artifactLocation: artifact(result.file), region: region(note.span) } }] : [],
      );
      const unplaced = d.notes.filter((note) => !note.span).map((note) => note.message);
      return {
        ruleId: d.code,
        ruleIndex: ruleIndex.get(d.code)!,
        level: d.severity === 'error' ? 'error' : 'warning',
        message: { text: [d.message, ...unplaced].join('\n') },
        locations: [{ physicalLocation: { artifactLocation: artifact(result.file), region: region(d.span) } }],
        ...(related.length > 0 ? { relatedLocations: related } : {}),
      };
    }),
  );
  const unreadable = results.filter((r) => r.error !== undefined);
  const log = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'vellum',
            version,
            rules: ruleIds.map((id) => ({ id, shortDescription: { text: templates.get(id) ?? id } })),
          },
        },
        invocations: [
          {
            executionSuccessful: true,
            toolExecutionNotifications: unreadable.map((r) => ({
              level: 'error',
              message: { text: r.error! },
              locations: [{ physicalLocation: { artifactLocation: artifact(r.file) } }],
            })),
          },
        ],
        results: sarifResults,
      },
    ],
  };
  return JSON.stringify(log, null, 2) + '\n';
}
