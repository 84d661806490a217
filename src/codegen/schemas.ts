// Reading the schemas a client is generated from: each file is parsed and checked on its own (as `vellum serve
// --schema` installs each), and their collections are gathered. A file with errors, or a collection declared in
// two files, stops generation: a client generated from a schema the service would refuse would lie about it.
import { checkSchema, hasErrors, renderText, type CheckedCollection, type Diagnostic } from '../lang/index.ts';

export interface SchemaSource {
  /** The file's name, as diagnostics and the generated header show it. */
  file: string;
  text: string;
}

export interface SchemaCollection {
  collection: CheckedCollection;
  file: string;
  /** 1-based line of the `collection` keyword. */
  line: number;
}

export interface ReadSchemas {
  collections: SchemaCollection[];
  /** Errors, rendered as `file:line:col: error CODE: message` with a code frame. */
  errors: string[];
  /** Warnings, rendered the same way. */
  warnings: string[];
}

export function readSchemas(sources: readonly SchemaSource[]): ReadSchemas {
  const collections: SchemaCollection[] = [];
  const errors: string[] = [];
  const warnings: string[] = [];
  const declaredIn = new Map<string, SchemaCollection>();
  for (const { file, text } of sources) {
    const { checked, diagnostics, source } = checkSchema(text, file);
    const render = (d: Diagnostic) => renderText(d, source);
    errors.push(...diagnostics.filter((d) => d.severity === 'error').map(render));
    warnings.push(...diagnostics.filter((d) => d.severity === 'warning').map(render));
    if (!checked || hasErrors(diagnostics)) continue;
    for (const collection of checked.collections) {
      const start = source.position(collection.node.name.span.start);
      const entry: SchemaCollection = { collection, file, line: start.line };
      const earlier = declaredIn.get(collection.name);
      if (earlier) {
        errors.push(
          `${file}:${start.line}:${start.column}: error: collection ${collection.name} is also declared in ${earlier.file}:${earlier.line}; ` +
            'a client has one type per collection name, so generate from files that declare each collection once',
        );
        continue;
      }
      declaredIn.set(collection.name, entry);
      collections.push(entry);
    }
  }
  if (sources.length === 0) errors.push('error: no schema files given');
  else if (errors.length === 0 && collections.length === 0) errors.push(`error: the schema files declare no collection: ${sources.map((s) => s.file).join(', ')}`);
  return { collections, errors, warnings };
}

