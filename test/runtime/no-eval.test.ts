// The runtime compiles bodies to closures: no eval, Function constructor or vm module anywhere in src/.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

it('src/ uses no eval, new Function or vm', () => {
  const offenders = sources('src').filter((file) => {
    const text = readFileSync(file, 'utf8');
    return /\beval\s*\(|new\s+Function\s*\(|\bFunction\s*\(\s*['"`]|from\s+['"](node:)?vm['"]|require\(\s*['"](node:)?vm['"]\s*\)/.test(text);
  });
  expect(offenders).toEqual([]);
});
