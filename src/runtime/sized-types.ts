// Which expressions of a body are sized numbers (`u32` …), decided from declarations when a function is
// compiled: parameters, fields (of `this`, of objects, of records passed in), array elements and map values,
// the return types of `this.f()`, variables (typed, or taking the type of their initial value) and sized
// arithmetic on those, by the rule the checker uses (arithmeticSize). Nothing here runs per call.

import {
  arithmeticSize,
  SIZED_ARITHMETIC,
  type Expression,
  type FieldDeclaration,
  type FunctionDeclaration,
  type IdentifierExpression,
  type SizedNumberName,
  type TypeNode,
} from '../lang/index.ts';

/** What the compiler knows of an expression's type: a type node, or the fields of a record. */
export type StaticType = TypeNode | { kind: 'recordFields'; fields: readonly FieldDeclaration[] };

export interface StaticWorld {
  /** The fields of the collection being compiled. */
  fields: readonly FieldDeclaration[];
  /** The fields of a collection of the same program, by name (undefined when it is not declared there). */
  fieldsOf(collection: string): readonly FieldDeclaration[] | undefined;
  functions: ReadonlyMap<string, { declaration: FunctionDeclaration }>;
}

/** A sized type's name, when the type is one. */
export function sizeOfType(type: StaticType | undefined): SizedNumberName | undefined {
  return type?.kind === 'sizedNumberType' ? type.name : undefined;
}

export function sizedNode(name: SizedNumberName): TypeNode {
  return { kind: 'sizedNumberType', name, span: { start: 0, end: 0 } };
}

/** The static type of `e`; `variable` gives the type of the local an identifier names. */
export function staticTypeOf(e: Expression, world: StaticWorld, variable: (name: IdentifierExpression) => StaticType | undefined): StaticType | undefined {
  const typeOf = (x: Expression) => staticTypeOf(x, world, variable);
  switch (e.kind) {
    case 'identifierExpression':
      return variable(e);
    case 'this':
      return { kind: 'recordFields', fields: world.fields };
    case 'member':
      return memberType(typeOf(e.object), e.property.name, world);
    case 'index': {
      const object = typeOf(e.object);
      if (object?.kind === 'arrayType') return object.element;
      if (object?.kind === 'mapType') return object.value;
      return undefined;
    }
    case 'call': {
      const callee = e.callee;
      if (callee.kind !== 'member') return undefined;
      if (callee.object.kind === 'this') return world.functions.get(callee.property.name)?.declaration.returnType ?? undefined;
      // The wrapping operations keep their receiver's type.
      if (callee.property.name.startsWith('wrapping')) return typeOf(callee.object);
      return undefined;
    }
    case 'number':
      return NUMBER;
    case 'string':
      return STRING;
    case 'binary': {
      if (!SIZED_ARITHMETIC.has(e.operator)) return undefined;
      const left = typeOf(e.left);
      const right = typeOf(e.right);
      if (e.operator === '+' && (isString(left) || isString(right))) return STRING;
      // An operand of unknown type counts as a number here: at run time a `+` with a string still concatenates.
      const size = arithmeticSize(sizeOfType(left), sizeOfType(right));
      return size === undefined || size === 'mixed' ? undefined : sizedNode(size);
    }
    case 'unary':
      return e.operator === '-' ? sizedOnly(typeOf(e.argument)) : undefined;
    case 'update':
      return sizedOnly(typeOf(e.argument));
    case 'assignment':
      return typeOf(e.target);
    case 'conditional': {
      const a = sizeOfType(typeOf(e.consequent));
      return a !== undefined && a === sizeOfType(typeOf(e.alternate)) ? sizedNode(a) : undefined;
    }
    default:
      return undefined;
  }
}

const NUMBER: TypeNode = { kind: 'primitiveType', name: 'number', span: { start: 0, end: 0 } };
const STRING: TypeNode = { kind: 'primitiveType', name: 'string', span: { start: 0, end: 0 } };

function isString(type: StaticType | undefined): boolean {
  return type?.kind === 'primitiveType' && type.name === 'string';
}

function sizedOnly(type: StaticType | undefined): StaticType | undefined {
  return type?.kind === 'sizedNumberType' ? type : undefined;
}

function memberType(object: StaticType | undefined, name: string, world: StaticWorld): StaticType | undefined {
  if (!object) return undefined;
  switch (object.kind) {
    case 'recordFields':
      return object.fields.find((f) => f.name.name === name)?.type;
    case 'objectType':
      return object.fields.find((f) => f.name.name === name)?.type;
    case 'recordType':
      return world.fields.find((f) => f.name.name === name)?.type;
    case 'referenceType': {
      // A parameter typed with a collection's name holds the whole record.
      const fields = world.fieldsOf(object.collection.name);
      return fields?.find((f) => f.name.name === name)?.type;
    }
    case 'mapType':
      return object.value;
    default:
      return undefined;
  }
}
