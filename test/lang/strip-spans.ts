// Removes position information from an AST so that trees parsed from different texts compare equal
// when they have the same structure: `span` on every node and a function's `bodyTextSpan`.

const POSITION_KEYS = new Set(['span', 'bodyTextSpan']);

export function stripSpans<T>(node: T): T {
  if (Array.isArray(node)) return node.map(stripSpans) as T;
  if (node === null || typeof node !== 'object') return node;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (!POSITION_KEYS.has(key)) copy[key] = stripSpans(value);
  }
  return copy as T;
}
