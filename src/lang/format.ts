// `vellum fmt`'s formatter: the canonical layout of the printer (printer.ts) with the source's comments kept
// (comments.ts). Only a schema that parses is formatted; checker errors do not matter, the layout does not change
// what the program means.

import { attachComments } from './comments.ts';
import { hasErrors, type Diagnostic } from './diagnostics.ts';
import { parse } from './parse.ts';
import { print } from './printer.ts';
import type { SourceFile } from './source.ts';

export interface FormatResult {
  /** The formatted text; undefined when the schema has syntax errors (they are in `diagnostics`). */
  formatted: string | undefined;
  diagnostics: Diagnostic[];
  source: SourceFile;
}

export function formatSchema(text: string, fileName?: string): FormatResult {
  const { program, diagnostics, source } = parse(text, fileName);
  if (program === undefined || hasErrors(diagnostics)) return { formatted: undefined, diagnostics, source };
  return { formatted: print(program, attachComments(program, text)), diagnostics, source };
}
