// Completion: after `this.` the fields and functions of the collection being written (after any other value and a
// dot, the members of its type: member-completion.ts); after `@` the decorators;
// after `:` in a declaration the types and the collections; elsewhere the built-in globals and namespaces.
// While a line is being typed the schema usually does not parse, so the names come from the last version that did.
import { CompletionItemKind, type CompletionItem } from 'vscode-languageserver';
import { builtins, typeToString, type CheckedProgram } from '../lang/index.ts';

const DECORATORS = ['public', 'read', 'call', 'delegate', 'index'];
const TYPES = ['string', 'number', 'boolean', 'bytes', 'PublicKey', 'map', 'record'];
const NAMESPACES = ['Math', 'Object', 'Number', 'ctx', '$auth'];

export function completions(textBefore: string, checked: CheckedProgram | undefined): CompletionItem[] {
  if (/@\w*$/.test(textBefore)) return DECORATORS.map((label) => ({ label, kind: CompletionItemKind.Keyword }));
  if (/this\.\w*$/.test(textBefore)) {
    // The collection being written: the last one opened before the cursor.
    const name = [...textBefore.matchAll(/\bcollection\s+([A-Za-z_$][\w$]*)/g)].pop()?.[1];
    const collection = name === undefined ? undefined : checked?.collectionsByName.get(name);
    if (collection === undefined) return [];
    return [
      ...collection.fields.map((f) => ({ label: f.name, kind: CompletionItemKind.Field, detail: typeToString(f.type), documentation: f.node.doc })),
      ...collection.functions
        .filter((f) => f.name !== 'constructor' && !f.migration)
        .map((f) => ({ label: f.name, kind: CompletionItemKind.Method, detail: `(${f.parameters.map((p) => `${p.name}: ${typeToString(p.type)}`).join(', ')})`, documentation: f.node.doc })),
    ];
  }
  if (/:\s*\w*$/.test(textBefore) && !/\)\s*\{[^}]*$/.test(textBefore.slice(-200))) {
    const collections = [...(checked?.collectionsByName.keys() ?? [])];
    return [...TYPES.map((label) => ({ label, kind: CompletionItemKind.TypeParameter })), ...collections.map((label) => ({ label, kind: CompletionItemKind.Class }))];
  }
  return [
    ...builtins.filter((b) => b.receiver === 'global').map((b) => ({ label: b.name, kind: CompletionItemKind.Function, detail: b.id })),
    ...NAMESPACES.map((label) => ({ label, kind: CompletionItemKind.Module })),
  ];
}
