// One parse and check per version of a document, shared by every request on it (diagnostics, hover, definition,
// symbols): the language server's view of a schema. Each version is checked from the previous one, redoing only
// what the edit can have changed (incremental.ts); only the latest version of a document is kept.
import { resolveProgram, type ProgramResolution } from '../lang/index.ts';
import { checkIncrementally, type IncrementalResult } from './incremental.ts';

export interface Analysis extends IncrementalResult {
  version: number;
  /** Names tied to declarations (resolutionOf); the checker's, or the program's own when it did not check. */
  resolution?: ProgramResolution;
}

/** The resolution of an analysed version: the checker's, or (a schema with errors the checker did not run on)
 *  resolved on first use, so that definition and references work while a line is being typed. */
export function resolutionOf(analysis: Analysis): ProgramResolution | undefined {
  if (analysis.resolution === undefined && analysis.program !== undefined) analysis.resolution = analysis.checked?.resolution ?? resolveProgram(analysis.program);
  return analysis.resolution;
}

export class Analyses {
  private readonly byUri = new Map<string, Analysis>();

  /** The analysis of this text, computed once per version (the previous version's is no longer valid after). */
  get(uri: string, version: number, text: string): Analysis {
    const known = this.byUri.get(uri);
    if (known !== undefined && known.version === version) return known;
    const analysis = { ...checkIncrementally(known, text, uri), version };
    this.byUri.set(uri, analysis);
    return analysis;
  }

  forget(uri: string): void {
    this.byUri.delete(uri);
  }
}
