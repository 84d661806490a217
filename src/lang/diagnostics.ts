// Diagnostics are data: a stable code, a message, a span and optional notes. Presentation (text with
// a code frame, or JSON) is separate and lives in render.ts. Every diagnostic the language front end
// can produce is declared once in `catalogue` below, so codes are stable and greppable.

import type { Span } from './ast.ts';

export type Severity = 'error' | 'warning';

export interface DiagnosticNote {
  message: string;
  span?: Span;
}

export interface Diagnostic {
  code: string;
  severity: Severity;
  message: string;
  span: Span;
  notes: DiagnosticNote[];
}

export interface DiagnosticTemplate {
  code: string;
  severity: Severity;
  /** Message with `{0}`, `{1}`… placeholders filled by `diagnostic()`. */
  message: string;
}

// Codes: V1xxx syntax (lexer and parser), V2xxx schema rules (collections, fields, indexes,
// decorators, functions), V3xxx names and types in function bodies.
// Keep each section sorted by code; never reuse or renumber a code once it has shipped.
export const catalogue = {
  // --- V1xxx: syntax ---------------------------------------------------------------------------
  invalidCharacter: { code: 'V1001', severity: 'error', message: 'invalid character {0}' },
  unterminatedString: { code: 'V1002', severity: 'error', message: 'unterminated string literal' },
  unterminatedComment: { code: 'V1003', severity: 'error', message: 'unterminated block comment' },
  unexpectedToken: { code: 'V1004', severity: 'error', message: 'unexpected {0}, expected {1}' },
  unexpectedEndOfFile: { code: 'V1005', severity: 'error', message: 'unexpected end of file, expected {0}' },
  unknownDecorator: {
    code: 'V1006',
    severity: 'error',
    message: 'unknown decorator @{0}; expected one of @public, @read, @call, @delegate',
  },
  rootFunction: {
    code: 'V1007',
    severity: 'error',
    message: 'functions are not supported at the root level; declare {0} inside a collection',
  },
  bodySyntaxError: { code: 'V1008', severity: 'error', message: '{0}' },
  unsupportedConstruct: {
    code: 'V1009',
    severity: 'error',
    message: 'not supported in collection functions: {0}',
  },
  invalidAssignmentTarget: {
    code: 'V1010',
    severity: 'error',
    message: 'invalid assignment target: only variables, fields and elements can be assigned',
  },
  nestingTooDeep: { code: 'V1011', severity: 'error', message: 'nesting too deep: at most {0} levels of {1}' },
  // (parser: add further V10xx codes here)

  // --- V2xxx: schema rules ---------------------------------------------------------------------
  // (checker: add V2xxx codes here)

  // --- V3xxx: names and types ------------------------------------------------------------------
  // (checker: add V3xxx codes here)
} as const satisfies Record<string, DiagnosticTemplate>;

export type DiagnosticKind = keyof typeof catalogue;

export function diagnostic(
  kind: DiagnosticKind,
  span: Span,
  args: readonly (string | number)[] = [],
  notes: DiagnosticNote[] = [],
): Diagnostic {
  const template: DiagnosticTemplate = catalogue[kind];
  const message = template.message.replace(/\{(\d+)\}/g, (_, index: string) => String(args[Number(index)] ?? ''));
  return { code: template.code, severity: template.severity, message, span, notes };
}

export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === 'error');
}
