// Every place a symbol is named, for find references and rename: the symbol at the offset (symbol-at.ts), then
// every name the resolver (src/lang/resolver.ts) tied to the same declaration: the uses of a parameter or variable,
// `this.x` for a field or function, a field's name in decorators and indexes (`@call(owner)`, `@index(name)`), the
// types naming a collection; and the declaration itself.
import type { CheckedProgram, Program, ProgramResolution, Span } from '../lang/index.ts';
import { symbolAt } from './symbol-at.ts';

export function references(
  program: Program,
  checked: CheckedProgram | undefined,
  offset: number,
  resolution: ProgramResolution | undefined = checked?.resolution,
): Span[] | undefined {
  const symbol = symbolAt(program, checked, offset, resolution);
  const target = symbol?.declaration;
  if (symbol === undefined || target === undefined || resolution === undefined) return undefined;
  const declares = (span: Span) => span.start === target.start && span.end === target.end;
  const found: Span[] = [target];
  switch (symbol.kind) {
    case 'parameter':
    case 'variable':
      for (const [use, resolved] of resolution.uses) {
        if ((resolved.kind === 'local' || resolved.kind === 'uninitialised') && declares(resolved.local.node.name.span)) found.push(use.span);
      }
      break;
    case 'field':
    case 'function':
      for (const [member, declaration] of resolution.members) if (declares(declaration.name.span)) found.push(member.property.span);
      for (const [name, field] of resolution.fieldReferences) if (declares(field.name.span)) found.push(name.span);
      break;
    case 'collection':
      for (const [name, collection] of resolution.typeReferences) if (declares(collection.name.span)) found.push(name.span);
      break;
    default:
      return undefined;
  }
  return found.sort((a, b) => a.start - b.start);
}
