// Semantic types: how they print and which values fit where.
import { describe, expect, it } from 'vitest';
import {
  anyType,
  arrayOf,
  bindTypeParameters,
  booleanType,
  instantiate,
  isAssignable,
  isAuthenticable,
  isIndexable,
  mapOf,
  neverType,
  nullType,
  numberType,
  objectOf,
  publicKeyType,
  recordOf,
  referenceTo,
  stringType,
  typeParameter,
  typeToString,
  typesEqual,
  type Type,
} from '../../src/lang/index.ts';

const info = objectOf([
  { name: 'a', optional: false, type: stringType },
  { name: 'b', optional: true, type: numberType },
]);

describe('typeToString', () => {
  it('prints types as they are written in a schema', () => {
    expect(typeToString(arrayOf(stringType))).toBe('string[]');
    expect(typeToString(mapOf(stringType, mapOf(numberType, booleanType)))).toBe('map<string, map<number, boolean>>');
    expect(typeToString(info)).toBe('{ a: string; b?: number; }');
    expect(typeToString(objectOf([]))).toBe('{}');
    expect(typeToString(arrayOf(referenceTo('User')))).toBe('User[]');
    expect(typeToString(publicKeyType)).toBe('PublicKey');
    expect(typeToString(mapOf(typeParameter('K'), typeParameter('V')))).toBe('map<K, V>');
  });
});

describe('isAssignable', () => {
  const cases: [Type, Type, boolean][] = [
    [numberType, stringType, false],
    [stringType, stringType, true],
    [arrayOf(numberType), arrayOf(stringType), false],
    [arrayOf(anyType), arrayOf(stringType), true],
    [recordOf('User'), referenceTo('User'), true],
    [referenceTo('User'), referenceTo('User'), true],
    [referenceTo('User'), recordOf('User'), false],
    [recordOf('Org'), referenceTo('User'), false],
    [objectOf([{ name: 'a', optional: false, type: stringType }]), info, true],
    [objectOf([{ name: 'b', optional: false, type: numberType }]), info, false],
    [objectOf([{ name: 'a', optional: false, type: stringType }, { name: 'c', optional: false, type: stringType }]), info, false],
    [objectOf([{ name: 'x', optional: false, type: numberType }]), mapOf(stringType, numberType), true],
    [objectOf([{ name: 'x', optional: false, type: stringType }]), mapOf(stringType, numberType), false],
    [mapOf(stringType, stringType), objectOf([{ name: 'a', optional: true, type: stringType }]), false],
    [nullType, stringType, false],
    [neverType, stringType, true],
    [anyType, publicKeyType, true],
  ];
  it.each(cases)('%o to %o is %s', (source, target, expected) => {
    expect(isAssignable(source, target)).toBe(expected);
  });
});

describe('classifications and generics', () => {
  it('knows which types identify a caller and which can be indexed', () => {
    expect([publicKeyType, referenceTo('U'), arrayOf(publicKeyType), arrayOf(referenceTo('U'))].every(isAuthenticable)).toBe(true);
    expect([stringType, arrayOf(stringType), mapOf(stringType, publicKeyType)].some(isAuthenticable)).toBe(false);
    expect([stringType, numberType, booleanType, publicKeyType, referenceTo('U')].every(isIndexable)).toBe(true);
    expect([arrayOf(stringType), mapOf(stringType, stringType), info, { kind: 'bytes' } as Type].some(isIndexable)).toBe(false);
  });

  it('binds and substitutes type parameters', () => {
    const bindings = new Map<string, Type>();
    bindTypeParameters(mapOf(typeParameter('K'), typeParameter('V')), mapOf(stringType, arrayOf(numberType)), bindings);
    expect(typeToString(instantiate(arrayOf(typeParameter('V')), bindings))).toBe('number[][]');
    expect(instantiate(typeParameter('T'), bindings)).toEqual(anyType);
    expect(typesEqual(info, objectOf([...info.fields].reverse()))).toBe(true);
  });
});
