// Reading schema files for `vellum serve --schema` and `vellum migrate`: each collection of the files as
// `<namespace>/<Name>`, checked, with the file and position that define it.
import { parse } from '../lang/index.ts';
import { checkCollectionSchema, describeDiagnostics, type CheckedCollection } from './meta-collection.ts';
import { MAX_SCHEMA_FILE_BYTES, readBoundedText } from '../files/index.ts';

export interface SchemaFileCollection {
  /** `<namespace>/<Name>`. */
  id: string;
  name: string;
  /** The whole text of the file that defines it (a collection's code is its file, as Polybase stores it). */
  code: string;
  file: string;
  /** `file:line:column` of the collection's name. */
  where: string;
  checked: CheckedCollection;
}

/**
 * Every collection the files define, in order. Throws with `file:line:col` messages when a file cannot be read or
 * parsed, a collection does not check, or two files define the same collection.
 */
export function readSchemaFiles(files: readonly string[], namespace: string): SchemaFileCollection[] {
  const defined = new Map<string, SchemaFileCollection>();
  for (const file of files) {
    const code = readBoundedText(file, MAX_SCHEMA_FILE_BYTES, `schema file ${file}`);
    const parsed = parse(code, file);
    if (!parsed.program) throw new Error(describeDiagnostics(parsed.diagnostics, parsed.source) || `${file}: cannot parse`);
    for (const collection of parsed.program.collections) {
      const name = collection.name.name;
      const id = `${namespace}/${name}`;
      const { line, column } = parsed.source.position(collection.name.span.start);
      const where = `${file}:${line}:${column}`;
      const earlier = defined.get(id);
      if (earlier && earlier.file !== file) throw new Error(`collection ${id} is defined in both ${earlier.where} and ${where}`);
      if (earlier) continue;
      let checked: CheckedCollection;
      try {
        checked = checkCollectionSchema(id, code);
      } catch (error) {
        throw new Error(`${file}: collection ${id}: ${(error as Error).message}`);
      }
      defined.set(id, { id, name, code, file, where, checked });
    }
  }
  return [...defined.values()];
}
