// Comments and docs cite files of this repository. The design notes and the reference digests this project was
// started from (the language and record-service digests, the design document) live outside it, in a folder a clone
// does not have, so a citation of them, or of that folder, points a reader at nothing. This test reads every source,
// doc and fixture file and fails on any such citation.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const FOLDERS = ['src', 'test', 'fixtures', 'docs', 'bench', 'mutation', 'explorer', 'editors', 'scripts', 'grammar', 'packages'];
const TEXT = /\.(ts|tsx|js|mjs|cjs|md|polylang|html|css)$/;
const SKIPPED = /(^|\/)(node_modules|dist|out)(\/|$)/;

// A document named bare (not as a path inside this repository), or the folder outside it. Written in pieces, so
// that this file does not cite them itself.
const OUTSIDE = new RegExp(
  [
    `(?<![\\w/.-])(${['polylang', 'polylang-later', 'record-service', 'landscape', 'design'].join('|')})\\.md\\b`,
    `\\.\\./${'shared'}\\b`,
    `/work/${'shared'}\\b`,
  ].join('|'),
  'g',
);

function textFiles(): string[] {
  const files = ['README.md'];
  for (const folder of FOLDERS) {
    for (const entry of readdirSync(join(root, folder), { withFileTypes: true, recursive: true })) {
      const path = relative(root, join(entry.parentPath, entry.name));
      if (entry.isFile() && TEXT.test(entry.name) && !SKIPPED.test(path)) files.push(path);
    }
  }
  return files;
}

/** Every citation of a file outside the repository in `text`, as `path:line: match`. */
function citationsOutside(path: string, text: string): string[] {
  return text.split('\n').flatMap((line, index) => [...line.matchAll(OUTSIDE)].map((match) => `${path}:${index + 1}: ${match[0]}`));
}

describe('citations', () => {
  it('comments, docs and fixtures cite only files of this repository', () => {
    const files = textFiles();
    expect(files.length).toBeGreaterThan(500);
    expect(files.flatMap((path) => citationsOutside(path, readFileSync(join(root, path), 'utf8')))).toEqual([]);
  });

  it('finds a citation of a document outside the repository, and not one inside it', () => {
    const found = (text: string) => citationsOutside('x.ts', text).length;
    expect(found(`// ported from ${'polylang'}.md §3.2`)).toBe(1);
    expect(found(`// see ${'record-service'}.md and ../${'shared'}/vectors/x.json`)).toBe(2);
    expect(found(`// see docs/service.md, docs/${'design'}.md and fixtures/README.md`)).toBe(0);
  });
});
