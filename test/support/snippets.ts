// The code blocks of the docs, for the tests that run them (test/docs/snippets.test.ts against the sources,
// test/package/consumer.test.ts against the packed package).
import { readdirSync, readFileSync } from 'node:fs';

const root = new URL('../../', import.meta.url);

export interface Snippet {
  /** `README.md:123`: where the snippet starts. */
  place: string;
  code: string;
}

/** README.md and every docs/*.md, as paths from the repository's root. */
export const DOCUMENTS: readonly string[] = [
  'README.md',
  ...readdirSync(new URL('docs/', root))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
];

/** The ```ts blocks of a document. */
export function snippetsOf(document: string): Snippet[] {
  const lines = readFileSync(new URL(document, root), 'utf8').split('\n');
  const snippets: Snippet[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.trim() !== '```ts') continue;
    const end = lines.indexOf('```', i + 1);
    if (end === -1) throw new Error(`${document}:${i + 1}: a \`\`\`ts block that never ends`);
    snippets.push({ place: `${document}:${i + 1}`, code: lines.slice(i + 1, end).join('\n') });
    i = end;
  }
  return snippets;
}

/** A file name for a snippet: `README-md-123.ts`. */
export function snippetFileName(snippet: Snippet): string {
  return `${snippet.place.replace(/[/:.]/g, '-')}.ts`;
}

/** The plain code block that follows `marker` in the README (the worked example's schema file). */
export function readmeBlockAfter(marker: string): string {
  const readme = readFileSync(new URL('README.md', root), 'utf8');
  const at = readme.indexOf(marker);
  if (at === -1) throw new Error(`README.md no longer says ${JSON.stringify(marker)}`);
  const start = readme.indexOf('```\n', at) + 4;
  return readme.slice(start, readme.indexOf('```', start));
}

/** Whether a snippet is itself a vitest test file. */
export function isTestSnippet(snippet: Snippet): boolean {
  return snippet.code.includes("from 'vitest'");
}
