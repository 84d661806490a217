// The fields a collection's `@search(...)` covers, read from its schema text: the `ast` the explorer reads elsewhere
// is Polylang 0.6's format, which has no place for `@search` (docs/service.md, "Full-text search"). The text is
// split by the highlighter's tokenizer (so comments and strings are skipped), and the `@search` looked for at the
// top level of the collection's braces.

import { tokenize } from './tokenize.ts';

export function searchFieldsOf(code: string, collection: string): string[] {
  const tokens = tokenize(code).filter((token) => token.kind !== 'space' && token.kind !== 'comment');
  let depth = 0;
  let current: string | undefined;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.text === '{') {
      if (depth === 0) {
        const name = tokens[i - 1];
        const keyword = tokens[i - 2];
        current = keyword && (keyword.text === 'collection' || keyword.text === 'contract') ? name?.text : undefined;
      }
      depth++;
    } else if (token.text === '}') {
      depth = Math.max(0, depth - 1);
    } else if (depth === 1 && current === collection && token.kind === 'decorator' && token.text === '@search' && tokens[i + 1]?.text.startsWith('(')) {
      // The names up to the closing parenthesis (the tokenizer may join punctuation such as `);`).
      const fields: string[] = [];
      for (let j = i + 2; j < tokens.length; j++) {
        const next = tokens[j]!;
        if (next.kind === 'punctuation') {
          if (next.text.includes(')')) break;
          continue;
        }
        fields.push(next.text);
      }
      return fields;
    }
  }
  return [];
}
