// The public face of src/codegen: typed TypeScript clients generated from schemas (`vellum generate client`).
// The generated code runs on `vellum/client` (src/client); docs/codegen.md says why and how to use it.
import { emitClient } from './emit.ts';
import { readSchemas, type SchemaSource } from './schemas.ts';

export type { SchemaSource } from './schemas.ts';

export interface GenerateClientOptions {
  /** The module the generated code imports the runtime from (default `vellum/client`). */
  clientImport?: string;
}

export interface GeneratedClient {
  /** The TypeScript text; null when a schema has an error. */
  code: string | null;
  /** Every error, rendered as `file:line:col: error CODE: message` with a code frame; empty when `code` is set. */
  errors: string[];
  /** The schemas' warnings, rendered the same way. */
  warnings: string[];
}

export const DEFAULT_CLIENT_IMPORT = 'vellum/client';

/** A typed client for the collections of these schema files (each checked on its own, as `vellum serve` installs them). */
export function generateClient(sources: readonly SchemaSource[], options: GenerateClientOptions = {}): GeneratedClient {
  const clientImport = options.clientImport ?? DEFAULT_CLIENT_IMPORT;
  if (typeof clientImport !== 'string' || clientImport.trim() === '') {
    return { code: null, errors: [`error: clientImport must be a module specifier such as "${DEFAULT_CLIENT_IMPORT}", got ${JSON.stringify(clientImport)}`], warnings: [] };
  }
  const malformed = malformedSources(sources);
  if (malformed !== undefined) return { code: null, errors: [`error: ${malformed}`], warnings: [] };
  const { collections, errors, warnings } = readSchemas(sources);
  if (errors.length > 0) return { code: null, errors, warnings };
  const code = emitClient(
    collections,
    sources.map((s) => s.file),
    { clientImport },
  );
  return { code, errors: [], warnings };
}

/** Why `sources` is not a list of `{ file, text }` strings, for callers from plain JavaScript; undefined when it is. */
function malformedSources(sources: unknown): string | undefined {
  if (!Array.isArray(sources)) return `sources must be an array of { file, text }, got ${sources === null ? 'null' : typeof sources}`;
  const index = sources.findIndex((s: unknown) => typeof (s as SchemaSource)?.file !== 'string' || typeof (s as SchemaSource)?.text !== 'string');
  return index === -1 ? undefined : `sources[${index}] must be { file: string, text: string }`;
}
