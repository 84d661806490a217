// One parse and check per version of a document, shared by every request on it (diagnostics, hover, definition,
// symbols): the language server's view of a schema.
import { checkSchema, type CheckSchemaResult } from '../lang/index.ts';

export interface Analysis extends CheckSchemaResult {
  version: number;
}

export class Analyses {
  private readonly byUri = new Map<string, Analysis>();

  /** The analysis of this text, computed once per version. */
  get(uri: string, version: number, text: string): Analysis {
    const known = this.byUri.get(uri);
    if (known !== undefined && known.version === version) return known;
    const analysis = { ...checkSchema(text, uri), version };
    this.byUri.set(uri, analysis);
    return analysis;
  }

  forget(uri: string): void {
    this.byUri.delete(uri);
  }
}
