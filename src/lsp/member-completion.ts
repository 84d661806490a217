// Completion after a value and a dot (`this.name.`, `items.`, `to.`, `Math.`): the members of the type the checker
// gives the expression before the dot. Built-in methods and properties of strings, numbers, arrays and public keys
// (src/lang/builtins.ts), the fields of a record or an object, `id` and `collectionId` of a stored reference, the
// members of a namespace. Maps have no members (their entries are read with `m[key]`).
//
// While the dot is being typed the schema does not parse (`x.` is not an expression), so the text is checked once
// without the dot and what follows it on the line: the expression that then ends where the dot was is the one
// being completed, with its exact type. `this.` alone is completion.ts's (the fields and functions of the collection).
import { CompletionItemKind, type CompletionItem } from 'vscode-languageserver';
import { checkSchema, membersOf, signatureOf, typeToString, type CheckedProgram, type Expression, type Type } from '../lang/index.ts';

/** The members to offer at `offset` of `text` when it follows `expression.`, or undefined when it does not. */
export function memberCompletions(text: string, offset: number): CompletionItem[] | undefined {
  const typed = /\.\s*[A-Za-z_$]?[\w$]*$/.exec(text.slice(Math.max(0, offset - 200), offset));
  if (!typed) return undefined;
  const dot = offset - typed[0].length;
  const before = text.slice(Math.max(0, dot - 40), dot);
  if (/(^|[^\w$.])this\s*$/.test(before) || /(^|[^\w$])\d+$/.test(before)) return undefined; // `this.`, or a number's decimal point
  // The partial name after the dot up to the end of its word goes too, so the rest of the line stays as it was.
  let end = offset;
  while (end < text.length && /[\w$]/.test(text[end]!)) end++;
  const { checked } = checkSchema(text.slice(0, dot) + text.slice(end));
  if (!checked) return undefined;
  const type = typeEndingAt(checked, dot);
  return type === undefined ? undefined : membersOfType(checked, type);
}

/** The type of the innermost expression ending at `offset`: the one that starts latest (`a.b` in `x + a.b`). */
function typeEndingAt(checked: CheckedProgram, offset: number): Type | undefined {
  let found: { expression: Expression; type: Type } | undefined;
  for (const [expression, type] of checked.types) {
    if (expression.span.end !== offset) continue;
    if (found === undefined || expression.span.start > found.expression.span.start) found = { expression, type };
  }
  return found?.type;
}

function membersOfType(checked: CheckedProgram, type: Type): CompletionItem[] {
  switch (type.kind) {
    case 'record': {
      const collection = checked.collectionsByName.get(type.collection);
      return (collection?.fields ?? []).map((f) => ({ label: f.name, kind: CompletionItemKind.Field, detail: typeToString(f.type), documentation: f.node.doc }));
    }
    case 'reference':
      return ['id', 'collectionId'].map((label) => ({ label, kind: CompletionItemKind.Field, detail: 'string' }));
    case 'object':
      return type.fields.map((f) => ({ label: f.name, kind: CompletionItemKind.Field, detail: typeToString(f.type) }));
    default:
      return membersOf(type).map((b) => ({
        label: b.name,
        kind: b.kind === 'method' || b.kind === 'function' ? CompletionItemKind.Method : CompletionItemKind.Property,
        detail: signatureOf(b),
        documentation: b.description,
      }));
  }
}
