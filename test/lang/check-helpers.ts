// Helpers for the checker tests: diagnostics as `line:column`, the text they cover, and their code.
import { checkSchema } from '../../src/lang/index.ts';

export interface Reported {
  code: string;
  severity: 'error' | 'warning';
  /** 1-based `line:column` of the span's start. */
  at: string;
  /** The source text the span covers. */
  text: string;
  message: string;
}

export function reported(schema: string): Reported[] {
  const result = checkSchema(schema, 'test.polylang');
  return result.diagnostics.map((d) => {
    const { line, column } = result.source.position(d.span.start);
    return { code: d.code, severity: d.severity, at: `${line}:${column}`, text: schema.slice(d.span.start, d.span.end), message: d.message };
  });
}

/** Code, position and covered text only (messages are asserted where they matter). */
export function located(schema: string): string[] {
  return reported(schema).map((d) => `${d.code} ${d.at} ${d.text}`);
}

export function errors(schema: string): Reported[] {
  return reported(schema).filter((d) => d.severity === 'error');
}

/**
 * A collection `T` with one field of each common kind and a function `f` whose body starts on
 * line 11 (not indented, so columns count from the statement); a second collection `Other` follows.
 */
export function inFunction(body: string, parameters = 's: string, n: number'): string {
  return [
    'collection T {',
    '  id: string;',
    '  name: string;',
    '  count: number;',
    '  tags: string[];',
    '  m: map<string, number>;',
    '  owner?: PublicKey;',
    '  info: { a: string; b?: number; };',
    '  constructor (id: string) { this.id = id; }',
    `  f (${parameters}) {`,
    ...body.split("\n"),
    '  }',
    '}',
    '',
    'collection Other {',
    '  id: string;',
    '  balance: number;',
    '  tags: string[];',
    '  g () {}',
    '}',
    '',
  ].join('\n');
}
