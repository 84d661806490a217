// The symbol at an offset, for hover and go to definition: a collection, a field (also where a decorator or an
// index names it), a function, a parameter or a variable, with where it is declared (as the resolver tied it, src/lang/resolver.ts), its type (the checker's) and
// its doc comment; or else the innermost expression and its type.
import {
  typeToString,
  type CheckedCollection,
  type CheckedProgram,
  type Identifier,
  type IdentifierExpression,
  type MemberExpression,
  type Program,
  type ProgramResolution,
  type Span,
} from '../lang/index.ts';
import { printType } from '../lang/index.ts';
import { locate } from './locate.ts';

export interface SymbolAt {
  kind: 'collection' | 'field' | 'function' | 'parameter' | 'variable' | 'expression' | 'builtin';
  name: string;
  /** Where the name is (the range a hover or a rename covers). */
  span: Span;
  /** Where it is declared: its name in the declaration. */
  declaration?: Span;
  /** One line: `(field) Account.balance: number`. */
  signature: string;
  doc?: string;
}

/** `resolution` defaults to the checker's; without a check (a schema that does not parse) pass the program's own. */
export function symbolAt(
  program: Program,
  checked: CheckedProgram | undefined,
  offset: number,
  resolution: ProgramResolution | undefined = checked?.resolution,
): SymbolAt | undefined {
  const { path, collection, fn } = locate(program, offset);
  const names = fn && resolution?.functions.get(fn);
  const node = path[path.length - 1];
  const parent = path[path.length - 2];
  if (node === undefined) return undefined;
  const checkedCollection = collection && checked?.collectionsByName.get(collection.name.name);

  if (node.kind === 'identifier' && parent !== undefined) {
    const name = (node as Identifier).name;
    switch (parent.kind) {
      case 'collection':
        return collectionSymbol(program, name, node.span);
      case 'referenceType':
        return collectionSymbol(program, name, node.span);
      case 'field':
        return memberSymbol(checkedCollection, name, node.span);
      // `@call(owner)`, `@index(name, [info.city, desc])`: the field the resolver tied the name to.
      case 'decorator':
      case 'indexField': {
        const field = resolution?.fieldReferences.get(node as Identifier);
        if (field === undefined) return undefined;
        if (checkedCollection?.fieldsByName.get(name)?.node === field) return memberSymbol(checkedCollection, name, node.span);
        const signature = `(field) ${name}${field.optional ? '?' : ''}: ${printType(field.type)}`;
        return { kind: 'field', name, span: node.span, declaration: field.name.span, signature, doc: field.doc };
      }
      case 'function':
        return memberSymbol(checkedCollection, name, node.span);
      case 'parameter': {
        const parameter = parent as unknown as { name: Identifier; type: Parameters<typeof printType>[0]; optional: boolean };
        return { kind: 'parameter', name, span: node.span, declaration: parameter.name.span, signature: `(parameter) ${name}${parameter.optional ? '?' : ''}: ${printType(parameter.type)}` };
      }
      case 'member': {
        const member = parent as unknown as MemberExpression;
        if (member.object.kind === 'this') return names?.members.has(member) ? memberSymbol(checkedCollection, name, node.span) : undefined;
        const builtin = checked?.properties.get(member);
        const type = checked?.types.get(member);
        if (builtin) return { kind: 'builtin', name, span: node.span, signature: `(built-in) ${builtin.id}: ${typeToString(builtin.returns)}` };
        if (type) return { kind: 'expression', name, span: node.span, signature: `(property) ${name}: ${typeToString(type)}` };
        return undefined;
      }
      case 'variable':
      case 'forOf': {
        const type = checked?.types.get(path[path.length - 2] as never);
        return { kind: 'variable', name, span: node.span, declaration: node.span, signature: `(variable) ${name}${type ? `: ${typeToString(type)}` : ''}` };
      }
      default:
        return undefined;
    }
  }

  if (node.kind === 'identifierExpression') {
    const expression = node as IdentifierExpression;
    const resolved = names?.uses.get(expression);
    const type = checked?.types.get(expression);
    const typeText = type ? `: ${typeToString(type)}` : '';
    if (resolved?.kind === 'local' || resolved?.kind === 'uninitialised') {
      const local = resolved.local;
      const what = local.kind === 'parameter' ? 'parameter' : local.constant ? 'constant' : 'variable';
      return { kind: local.kind, name: expression.name, span: node.span, declaration: local.node.name.span, signature: `(${what}) ${expression.name}${typeText}` };
    }
    if (resolved?.kind === 'global') return { kind: 'builtin', name: expression.name, span: node.span, signature: `(built-in) ${resolved.builtin.id}${typeText}` };
    return { kind: 'expression', name: expression.name, span: node.span, signature: `${expression.name}${typeText}` };
  }

  // Anything else in a body: the innermost expression with a known type.
  for (let i = path.length - 1; i >= 0; i--) {
    const type = checked?.types.get(path[i] as never);
    if (type) return { kind: 'expression', name: path[i]!.kind, span: path[i]!.span, signature: typeToString(type) };
  }
  return undefined;
}

function collectionSymbol(program: Program, name: string, span: Span): SymbolAt {
  const declared = program.collections.find((c) => c.name.name === name);
  return { kind: 'collection', name, span, declaration: declared?.name.span, signature: `collection ${name}`, doc: declared?.doc };
}

function memberSymbol(collection: CheckedCollection | undefined, name: string, span: Span): SymbolAt | undefined {
  if (collection === undefined) return undefined;
  const field = collection.fieldsByName.get(name);
  if (field) {
    return { kind: 'field', name, span, declaration: field.node.name.span, signature: `(field) ${collection.name}.${name}${field.optional ? '?' : ''}: ${typeToString(field.type)}`, doc: field.node.doc };
  }
  const fn = collection.functionsByName.get(name);
  if (fn) {
    const parameters = fn.parameters.map((p) => `${p.name}${p.optional ? '?' : ''}: ${typeToString(p.type)}`).join(', ');
    const returns = fn.returnType ? `: ${typeToString(fn.returnType)}` : '';
    return { kind: 'function', name, span, declaration: fn.node.name.span, signature: `(function) ${collection.name}.${name}(${parameters})${returns}`, doc: fn.node.doc };
  }
  return undefined;
}
