// A small tokenizer for schema text (comments, strings, numbers, words, decorators), for highlighting. It only
// sorts characters into kinds; the server's checker is what judges the text, so an unfinished string or comment
// simply runs to the end. The tokens' texts, joined, are the input exactly.

export type TokenKind = 'comment' | 'string' | 'number' | 'keyword' | 'type' | 'decorator' | 'name' | 'punctuation' | 'space';

export interface Token {
  kind: TokenKind;
  text: string;
}

const KEYWORDS = new Set([
  'collection', 'constructor', 'function', 'let', 'const', 'if', 'else', 'for', 'of', 'in', 'while', 'break', 'continue',
  'return', 'this', 'true', 'false', 'null', 'ctx', 'error', 'selfdestruct',
]);
const TYPES = new Set(['string', 'number', 'boolean', 'bytes', 'PublicKey', 'map', 'record', 'i32', 'u32', 'i64', 'u64', 'f32', 'f64']);

// One alternative per token kind, tried in this order at each position (sticky, so no text is skipped).
const TOKEN = /(\/\/[^\n]*|\/\*[\s\S]*?(?:\*\/|$))|("(?:[^"\\\n]|\\.)*"?|'(?:[^'\\\n]|\\.)*'?)|(\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|(@[A-Za-z_$][\w$]*)|([A-Za-z_$][\w$]*)|(\s+)|([^])/y;

export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  TOKEN.lastIndex = 0;
  let match: RegExpExecArray | null;
  while (TOKEN.lastIndex < text.length && (match = TOKEN.exec(text)) !== null) {
    const [whole, comment, string, number, decorator, word, space] = match;
    const kind: TokenKind =
      comment !== undefined ? 'comment'
      : string !== undefined ? 'string'
      : number !== undefined ? 'number'
      : decorator !== undefined ? 'decorator'
      : word !== undefined ? (KEYWORDS.has(word) ? 'keyword' : TYPES.has(word) ? 'type' : 'name')
      : space !== undefined ? 'space'
      : 'punctuation';
    // Neighbouring tokens of the same kind (spaces, punctuation) make one span.
    const last = tokens[tokens.length - 1];
    if (last && last.kind === kind && (kind === 'space' || kind === 'punctuation')) last.text += whole;
    else tokens.push({ kind, text: whole });
  }
  return tokens;
}
