// Writes grammar/diagrams.html: railroad diagrams of the schema structure grammar, drawn from the
// chevrotain parser itself so that they cannot drift from what Vellum parses.
//
//   npm run grammar               the page loads chevrotain's diagram scripts from unpkg (works anywhere)
//   npm run grammar -- --local    the page loads them from ../node_modules/chevrotain/diagrams/ (offline,
//                                 for a checkout with node_modules installed)

import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createSyntaxDiagramsCode } from 'chevrotain';
import { schemaParser } from '../src/lang/grammar.ts';

const LOCAL_RESOURCES = '../node_modules/chevrotain/diagrams/';

export function diagramsHtml(local: boolean): string {
  const productions = schemaParser().getSerializedGastProductions();
  const options = local ? { resourceBase: LOCAL_RESOURCES, css: `${LOCAL_RESOURCES}diagrams.css` } : {};
  return createSyntaxDiagramsCode(productions, options);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const local = process.argv.includes('--local');
  const target = fileURLToPath(new URL('./diagrams.html', import.meta.url));
  writeFileSync(target, diagramsHtml(local));
  console.log(`wrote ${target}${local ? ' (local resources)' : ''}`);
}
