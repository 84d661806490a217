// docs/diagnostics.md lists every diagnostic code of the catalogue; this keeps it up to date
// (UPDATE_DOCS=1 regenerates the table).
import { readFileSync, writeFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { catalogue } from '../../src/lang/index.ts';

const DOC = new URL('../../docs/diagnostics.md', import.meta.url);
const BEGIN = '<!-- diagnostics:begin -->';
const END = '<!-- diagnostics:end -->';

function renderTable(): string {
  const rows = Object.values(catalogue)
    .slice()
    .sort((a, b) => a.code.localeCompare(b.code))
    .map((t) => `| ${t.code} | ${t.severity} | ${t.message.replace(/\|/g, '\\|').replace(/\{(\d)\}/g, '‹$1›')} |`);
  return ['| code | severity | message (‹n› is filled in) |', '| --- | --- | --- |', ...rows].join('\n') + '\n';
}

it('codes are unique', () => {
  const codes = Object.values(catalogue).map((t) => t.code);
  expect(new Set(codes).size).toBe(codes.length);
});

it('docs/diagnostics.md lists every code of the catalogue', () => {
  const doc = readFileSync(DOC, 'utf8');
  const start = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  expect(start).toBeGreaterThanOrEqual(0);
  expect(end).toBeGreaterThan(start);
  const expected = `${BEGIN}\n${renderTable()}${END}`;
  if (process.env.UPDATE_DOCS === '1') writeFileSync(DOC, doc.slice(0, start) + expected + doc.slice(end + END.length));
  else {
    expect(doc.slice(start, end + END.length), 'docs/diagnostics.md is stale: run UPDATE_DOCS=1 npx vitest run test/lang/diagnostics-doc.test.ts').toBe(expected);
  }
});
