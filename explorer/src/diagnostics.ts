// The checker's errors in a `collection/invalid-schema` answer, as line, column, code and message.

export interface Diagnostic {
  line: number;
  column: number;
  code: string;
  message: string;
}

// `collection/invalid-schema` messages hold one `ns/Name:line:col: error CODE: message` line per error
// (src/service/meta-collection.ts describeDiagnostics).
const DIAGNOSTIC_LINE = /^.*?:(\d+):(\d+): error (\S+): (.*)$/;

/** The diagnostics in an error message; lines that are not one (such as "… and 3 more errors") are left out. */
export function diagnosticsOf(message: string): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  for (const line of message.split('\n')) {
    const match = DIAGNOSTIC_LINE.exec(line);
    if (match) diagnostics.push({ line: Number(match[1]), column: Number(match[2]), code: match[3]!, message: match[4]! });
  }
  return diagnostics;
}
