// A schema type as TypeScript text, in one of two directions:
//   - 'record': what the service sends (bytes as base64 text, PublicKey as a JWK, references as
//     { collectionId, id }), the types of records;
//   - 'argument': what a call or a constructor accepts (bytes also as a Uint8Array, PublicKey also as `0x` hex,
//     a reference without its collectionId), the types of parameters.
// The runtime's names come from the client module, imported as `vellum`.
import type { Type } from '../lang/index.ts';
import { propertyKey, stringLiteral } from './names.ts';

export type Direction = 'record' | 'argument';

export function typeText(type: Type, direction: Direction): string {
  switch (type.kind) {
    case 'number':
      // A sized type by its name in the client (`vellum.U32`: a number, documented with its range).
      return type.size ? `vellum.${type.size.toUpperCase()}` : 'number';
    case 'string':
    case 'boolean':
      return type.kind;
    case 'bytes':
      return direction === 'record' ? 'vellum.Base64Bytes' : 'vellum.BytesInput';
    case 'publicKey':
      return direction === 'record' ? 'vellum.PublicKeyJwk' : 'vellum.PublicKeyInput';
    case 'array':
      return `${typeText(type.element, direction)}[]`;
    case 'map':
      return `{ [key: ${type.key.kind === 'number' ? 'number' : 'string'}]: ${typeText(type.value, direction)} }`;
    case 'object':
      if (type.fields.length === 0) return '{}';
      return `{ ${type.fields.map((field) => `${propertyKey(field.name)}${field.optional ? '?' : ''}: ${typeText(field.type, direction)};`).join(' ')} }`;
    case 'reference':
      return `${direction === 'record' ? 'vellum.RecordReference' : 'vellum.ReferenceInput'}<${stringLiteral(type.collection)}>`;
    case 'record':
      // A parameter typed with a collection's name (or `record`): the client sends a reference, the service loads it.
      return `vellum.ReferenceInput<${stringLiteral(type.collection)}>`;
    default:
      // Fields and parameters have none of the other kinds (they type expressions in function bodies).
      return 'unknown';
  }
}
