// The one tokeniser of full-text search, used for what is stored (SQLite FTS5 rows, PostgreSQL tsvectors) and for
// every query, so that both backends match the same records: neither database splits or folds any text itself.
//
// A text is folded (Unicode compatibility decomposition NFKD, combining marks removed, lower-cased; twice, since
// lower-casing can give a character that decomposes and a decomposition can give an upper-case letter; the final
// sigma ς is σ), then split
// at every run of characters that are neither letters nor digits (Unicode categories L and N). A token is cut to
// its first MAX_TOKEN_CHARS code points. So "Crème BRÛLÉE" and "creme brulee" are the same tokens, "ﬁ" is "fi",
// "Ǆ" is "dz", and "e-mail" is "e" and "mail".

/** The most code points a token keeps: a longer word is stored and searched by its first 64. */
export const MAX_TOKEN_CHARS = 64;

const MARKS = /\p{M}+/gu;
const SEPARATORS = /[^\p{L}\p{N}]+/u;

function fold(text: string): string {
  // `toLowerCase` writes a Greek sigma at the end of a word as the final form ς: folded to σ (as Unicode case
  // folding does), so that a word is the same token wherever it stands.
  return text.normalize('NFKD').replace(MARKS, '').toLowerCase().replaceAll('ς', 'σ');
}

/** The search tokens of a text, in order, duplicates kept. */
export function searchTokens(text: string): string[] {
  const tokens: string[] = [];
  for (const word of fold(fold(text)).split(SEPARATORS)) {
    if (word === '') continue;
    tokens.push(cut(word));
  }
  return tokens;
}

function cut(word: string): string {
  if (word.length <= MAX_TOKEN_CHARS) return word;
  const points = Array.from(word);
  return points.length <= MAX_TOKEN_CHARS ? word : points.slice(0, MAX_TOKEN_CHARS).join('');
}

/** The tokens of a record's searched fields (string fields; a missing or non-string value has none). */
export function recordSearchTokens(record: Readonly<Record<string, unknown>>, fields: readonly string[]): string[] {
  const tokens: string[] = [];
  for (const field of fields) {
    const value = Object.hasOwn(record, field) ? record[field] : undefined;
    if (typeof value === 'string') for (const token of searchTokens(value)) tokens.push(token);
  }
  return tokens;
}

/** A parsed search query: every term must match a whole token, except the last, which matches a token's prefix. */
export interface SearchTerms {
  /** Distinct terms matched whole, in the order given. */
  readonly whole: readonly string[];
  /** The last term, matched as a prefix (also a whole token of that text). */
  readonly prefix: string;
}

/** The most characters of a query (before tokenising). */
export const MAX_QUERY_CHARS = 256;
/** The most terms of a query. */
export const MAX_QUERY_TERMS = 16;

/** The query's terms, or a message saying why it cannot be searched for. */
export function searchTerms(query: string): SearchTerms | string {
  if (query.length > MAX_QUERY_CHARS) return `the search query has ${query.length} characters; at most ${MAX_QUERY_CHARS} are allowed`;
  const tokens = searchTokens(query);
  if (tokens.length === 0) return 'the search query has no words to search for (letters or digits)';
  if (tokens.length > MAX_QUERY_TERMS) return `the search query has ${tokens.length} words; at most ${MAX_QUERY_TERMS} are allowed`;
  const prefix = tokens.at(-1)!;
  const whole = [...new Set(tokens.slice(0, -1))];
  return { whole, prefix };
}

/** Whether a record with these tokens matches the terms (the definition both backends implement). */
export function matchesTerms(tokens: readonly string[], terms: SearchTerms): boolean {
  const set = new Set(tokens);
  return terms.whole.every((term) => set.has(term)) && tokens.some((token) => token.startsWith(terms.prefix));
}
