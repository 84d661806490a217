// Syntax highlighting for schema text: each token (tokenize.ts) becomes a span with a class per kind.
import { h } from './dom.ts';
import { tokenize } from './tokenize.ts';

/** The text as spans, one per token (`tok-keyword`, `tok-string`, …); plain text for spaces and names. */
export function highlighted(text: string): DocumentFragment {
  const fragment = document.createDocumentFragment();
  for (const token of tokenize(text)) {
    fragment.append(token.kind === 'space' || token.kind === 'name' ? document.createTextNode(token.text) : h('span', { class: `tok-${token.kind}` }, token.text));
  }
  return fragment;
}
