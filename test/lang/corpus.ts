// The fixture corpus (fixtures/schemas, fixtures/rejected, fixtures/extensions) as data, with the header
// comments parsed. Shared by the fixture test, the differential test, the CLI test and the `lang` benchmark.
// The header format is documented in fixtures/README.md.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export type FixtureSet = 'schemas' | 'rejected' | 'extensions' | 'divergent';

/** Why a fixture in fixtures/rejected is rejected, as seen from Polybase (see fixtures/README.md). */
export type RejectionReason = 'both' | 'polybase-runtime';

export interface FixtureHeaders {
  about?: string;
  source?: string;
  note?: string;
  extension?: string;
  /** The diagnostic code the first error must carry (fixtures/rejected only). */
  expect?: string;
  reason?: RejectionReason;
  /**
   * A known gap: Vellum does not detect this mistake yet. The tests then assert that it still does not
   * (so the gap stays visible, and the header must go when the checker learns it).
   */
  gap?: string;
  /** The 1-based line the first error must be reported on, when given. */
  line?: number;
}

export interface Fixture {
  set: FixtureSet;
  /** The file name, e.g. `missing-id.polylang`. */
  name: string;
  /** Path relative to the repository root, e.g. `fixtures/rejected/missing-id.polylang`. */
  path: string;
  absolutePath: string;
  text: string;
  headers: FixtureHeaders;
}

export const fixturesRoot = fileURLToPath(new URL('../../fixtures/', import.meta.url));

export function loadFixtures(set: FixtureSet): Fixture[] {
  const directory = `${fixturesRoot}${set}`;
  return readdirSync(directory)
    .filter((name) => name.endsWith('.polylang'))
    .sort()
    .map((name) => {
      const absolutePath = `${directory}/${name}`;
      const text = readFileSync(absolutePath, 'utf8');
      return { set, name, path: `fixtures/${set}/${name}`, absolutePath, text, headers: parseHeaders(text, name) };
    });
}

const headerLine = /^\/\/\s*([a-z]+):\s*(.*?)\s*$/;

/** Reads the `// key: value` lines at the top of a fixture, up to the first line that is not one. */
export function parseHeaders(text: string, name = '<text>'): FixtureHeaders {
  const headers: FixtureHeaders = {};
  for (const line of text.split(/\r?\n/)) {
    const match = headerLine.exec(line);
    if (!match) break;
    const [, key, value] = match as unknown as [string, string, string];
    switch (key) {
      case 'about':
      case 'source':
      case 'note':
      case 'extension':
      case 'expect':
      case 'gap':
        headers[key] = value;
        break;
      case 'reason':
        if (value !== 'both' && value !== 'polybase-runtime') {
          throw new Error(`${name}: reason must be "both" or "polybase-runtime", not "${value}"`);
        }
        headers.reason = value;
        break;
      case 'line': {
        const line = Number(value);
        if (!Number.isInteger(line) || line < 1) throw new Error(`${name}: line must be a positive integer, not "${value}"`);
        headers.line = line;
        break;
      }
      default:
        throw new Error(`${name}: unknown header "${key}"`);
    }
  }
  return headers;
}
