// How names from a schema appear in TypeScript text. Schema identifiers are already valid TypeScript names;
// index paths (`info.name`) and anything else are written as string literals.

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A property key: the bare name when it is an identifier, else a string literal. */
export function propertyKey(name: string): string {
  return IDENTIFIER.test(name) ? name : stringLiteral(name);
}

/** A single-quoted TypeScript string literal of any text. */
export function stringLiteral(text: string): string {
  // JSON's escapes are TypeScript's; only the quote character differs.
  const json = JSON.stringify(text);
  return `'${json.slice(1, -1).replace(/\\"/g, '"').replace(/'/g, "\\'")}'`;
}

/** Text safe inside a comment: no line breaks, no end of a block comment. */
export function commentText(text: string): string {
  return text.replace(/[\r\n\u2028\u2029]+/g, ' ').replace(/\*\//g, '*\\/');
}

// JavaScript's reserved words (with strict mode's): not allowed as tuple labels, which are bare identifiers.
const RESERVED = new Set(
  (
    'break case catch class const continue debugger default delete do else enum export extends false finally for function if ' +
    'import in instanceof new null return super switch this throw true try typeof var void while with ' +
    'implements interface let package private protected public static yield await'
  ).split(' '),
);

/** A parameter's name as the label of a tuple element: a reserved word gets a trailing `_` (labels are only documentation). */
export function tupleLabel(name: string): string {
  return RESERVED.has(name) || !IDENTIFIER.test(name) ? `${name.replace(/[^A-Za-z0-9_$]/g, '_')}_` : name;
}
