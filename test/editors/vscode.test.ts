// The VS Code extension is packaged by the build (scripts/build-vscode.mjs, with @vscode/vsce, offline) into a .vsix
// holding the bundled language client, the TextMate grammar and the language configuration; and the grammar's
// patterns are regular expressions that compile.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('editors/vscode', () => {
  it('is packaged as a .vsix with its client, grammar and language configuration', () => {
    execFileSync(process.execPath, ['scripts/build-vscode.mjs'], { cwd: root, stdio: 'pipe' });
    const listing = execFileSync('unzip', ['-l', 'editors/vscode/dist/vellum-polylang.vsix'], { cwd: root, encoding: 'utf8' });
    for (const file of ['extension/package.json', 'extension/dist/extension.js', 'extension/syntaxes/polylang.tmLanguage.json', 'extension/language-configuration.json']) {
      expect(listing).toContain(file);
    }
    expect(listing).not.toContain('extension/dist/vellum-polylang.vsix');
    const client = readFileSync(`${root}editors/vscode/dist/extension.js`, 'utf8');
    expect(client).toMatch(/getConfiguration\(["']vellum["']\)/);
    expect(client).toContain('LanguageClient');
  }, 120_000);

  it('has a grammar whose patterns compile and match a schema', () => {
    const grammar = JSON.parse(readFileSync(`${root}editors/vscode/syntaxes/polylang.tmLanguage.json`, 'utf8'));
    const patterns: { name: string; match?: string; begin?: string }[] = [
      ...grammar.patterns.filter((p: { match?: string }) => p.match),
      ...grammar.repository.comments.patterns,
      ...grammar.repository.strings.patterns,
    ];
    const line = "/// doc\n@public collection Account { id: string; f() { this.x = 'a'; } } // c";
    const matched = patterns.filter((p) => new RegExp(p.match ?? p.begin!, 'm').test(line)).map((p) => p.name);
    expect(matched).toEqual(
      expect.arrayContaining([
        'storage.type.collection.polylang',
        'entity.name.type.collection.polylang',
        'storage.modifier.decorator.polylang',
        'support.type.primitive.polylang',
        'variable.language.polylang',
        'comment.line.documentation.polylang',
        'string.quoted.single.polylang',
      ]),
    );
  });
});
