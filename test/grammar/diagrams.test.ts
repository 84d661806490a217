import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { diagramsHtml } from '../../grammar/generate-diagrams.ts';

describe('grammar/diagrams.html', () => {
  it('is up to date with src/lang/grammar.ts (regenerate with `npm run grammar`)', () => {
    const committed = readFileSync(new URL('../../grammar/diagrams.html', import.meta.url), 'utf8');
    expect(committed).toBe(diagramsHtml(false));
  });

  it('draws every rule of the structure grammar', () => {
    const html = diagramsHtml(false);
    for (const rule of ['program', 'collection', 'decorator', 'field', 'index', 'functionDeclaration', 'parameter', 'type', 'mapType', 'objectType', 'body']) {
      expect(html).toContain(`"name": "${rule}"`);
    }
  });

  it('can load its scripts from node_modules instead of a CDN', () => {
    const html = diagramsHtml(true);
    expect(html).toContain("src='../node_modules/chevrotain/diagrams/vendor/railroad-diagrams.js'");
    expect(html).not.toContain('unpkg.com');
  });
});
