// The typing rules of operators and stores (src/lang/type-rules.ts), each as a table over the types
// it decides between. The checker tests reach these rules through schemas; `npm run mutation`
// (mutation/README.md) found branches no schema test told apart, so every branch has its own row here.
import { describe as group, expect, it } from 'vitest';
import {
  arithmeticResult,
  comparable,
  describe,
  eitherOf,
  fits,
  hasUnboundParameters,
  isKeyLike,
  isNumeric,
  isTextLike,
  orderable,
  plural,
  plusAssignable,
  plusResult,
  sizeOf,
  variableType,
} from '../../src/lang/type-rules.ts';
import {
  anyType,
  arrayOf,
  booleanType,
  bytesType,
  mapOf,
  namespaceType,
  neverType,
  nullType,
  numberType,
  publicKeyType,
  recordOf,
  referenceTo,
  sizedNumber,
  stringType,
  typeParameter,
  typeToString,
  undefinedType,
  voidType,
  type Type,
} from '../../src/lang/types.ts';

const u32 = sizedNumber('u32');
const i32 = sizedNumber('i32');
const strings = arrayOf(stringType);
const show = (type: Type | undefined) => (type === undefined ? 'undefined' : typeToString(type));

group('fits: whether a value of one type may be stored where another is declared', () => {
  it.each<[Type, Type, boolean, boolean]>([
    [anyType, stringType, false, true],
    [neverType, stringType, false, true],
    [numberType, anyType, false, true],
    [nullType, anyType, false, true],
    [nullType, stringType, true, true],
    [nullType, stringType, false, false],
    [undefinedType, numberType, true, true],
    [undefinedType, numberType, false, false],
    [numberType, stringType, true, false],
    [stringType, stringType, false, true],
    [u32, numberType, false, true],
  ])('%o into %o (nullable %s): %s', (found, target, nullable, expected) => {
    expect(fits(found, target, nullable)).toBe(expected);
  });
});

group('kinds of operand', () => {
  const all: Type[] = [stringType, numberType, u32, booleanType, bytesType, publicKeyType, strings, nullType, anyType, neverType];
  it('numeric: numbers, and any and never (which stand for whatever the program has)', () => {
    expect(all.filter(isNumeric).map(show)).toEqual(['number', 'u32', 'any', 'never']);
  });
  it('key-like: strings and the numeric ones', () => {
    expect(all.filter(isKeyLike).map(show)).toEqual(['string', 'number', 'u32', 'any', 'never']);
  });
  it('text-like: strings, booleans and the numeric ones', () => {
    expect(all.filter(isTextLike).map(show)).toEqual(['string', 'number', 'u32', 'boolean', 'any', 'never']);
  });
});

group('plusResult: the type of a + b', () => {
  it.each<[Type, Type, Type | undefined]>([
    [stringType, numberType, stringType],
    [numberType, stringType, stringType],
    [stringType, booleanType, stringType],
    [booleanType, stringType, stringType],
    [stringType, anyType, stringType],
    [anyType, stringType, stringType],
    [stringType, strings, undefined],
    [strings, stringType, undefined],
    [stringType, publicKeyType, undefined],
    [numberType, numberType, numberType],
    [u32, numberType, u32],
    [numberType, u32, u32],
    [u32, i32, undefined],
    [anyType, numberType, anyType],
    [numberType, anyType, anyType],
    [anyType, booleanType, anyType],
    [anyType, strings, undefined],
    [strings, anyType, undefined],
    [booleanType, booleanType, undefined],
    [booleanType, numberType, undefined],
    [numberType, booleanType, undefined],
  ])('%o + %o', (left, right, expected) => {
    expect(show(plusResult(left, right))).toBe(show(expected));
  });
});

group('arithmeticResult and sizeOf: sized arithmetic', () => {
  it.each<[Type, Type, Type | undefined]>([
    [numberType, numberType, numberType],
    [u32, numberType, u32],
    [numberType, u32, u32],
    [u32, u32, u32],
    [u32, i32, undefined],
  ])('%o with %o', (left, right, expected) => {
    expect(show(arithmeticResult(left, right))).toBe(show(expected));
  });

  it('sizeOf names the size of a sized number only', () => {
    expect([u32, i32, numberType, stringType, anyType].map(sizeOf)).toEqual(['u32', 'i32', undefined, undefined, undefined]);
  });
});

group('plusAssignable: what `x += v` accepts', () => {
  it.each<[Type, Type, boolean]>([
    [stringType, numberType, true],
    [stringType, booleanType, true],
    [stringType, strings, false],
    [anyType, stringType, true],
    [anyType, strings, false],
    [numberType, numberType, true],
    [numberType, anyType, true],
    [numberType, stringType, false],
    [u32, numberType, true],
    [numberType, u32, true],
    [u32, i32, false],
    [booleanType, booleanType, false],
    [strings, stringType, false],
  ])('%o += %o: %s', (target, value, expected) => {
    expect(plusAssignable(target, value)).toBe(expected);
  });
});

group('orderable: what `<` compares', () => {
  it.each<[Type, Type, boolean]>([
    [numberType, numberType, true],
    [u32, i32, true],
    [stringType, stringType, true],
    [numberType, stringType, false],
    [stringType, numberType, false],
    [booleanType, booleanType, false],
    [anyType, stringType, true],
    [stringType, anyType, true],
    [anyType, strings, false],
    [strings, anyType, false],
    [strings, strings, false],
  ])('%o < %o: %s', (left, right, expected) => {
    expect(orderable(left, right)).toBe(expected);
  });
});

group('comparable: whether `==` can ever be true', () => {
  it.each<[Type, Type, boolean]>([
    [anyType, strings, true],
    [strings, anyType, true],
    [neverType, stringType, true],
    [stringType, neverType, true],
    [nullType, stringType, true],
    [stringType, undefinedType, true],
    [referenceTo('A'), recordOf('A'), true],
    [recordOf('A'), referenceTo('A'), true],
    [referenceTo('A'), referenceTo('B'), false],
    [referenceTo('A'), stringType, false],
    [stringType, recordOf('A'), false],
    [stringType, stringType, true],
    [stringType, numberType, false],
    [u32, numberType, true],
  ])('%o == %o: %s', (left, right, expected) => {
    expect(comparable(left, right)).toBe(expected);
  });
});

group('eitherOf: the type of a || b, a ?? b and c ? a : b', () => {
  it.each<[Type, Type, Type | undefined, Type]>([
    // Where the value is stored, a side that does not fit is the result, whichever side it is.
    [numberType, stringType, stringType, numberType],
    [stringType, numberType, stringType, numberType],
    [nullType, numberType, stringType, numberType],
    [anyType, numberType, stringType, numberType],
    [neverType, stringType, stringType, stringType],
    [numberType, stringType, anyType, anyType],
    // Otherwise the common type.
    [stringType, stringType, undefined, stringType],
    [nullType, stringType, undefined, stringType],
    [neverType, numberType, undefined, numberType],
    [stringType, undefinedType, undefined, stringType],
    [numberType, neverType, undefined, numberType],
    [arrayOf(anyType), strings, undefined, strings],
    [strings, arrayOf(anyType), undefined, strings],
    [strings, arrayOf(numberType), undefined, anyType],
    [strings, numberType, undefined, anyType],
    [numberType, strings, undefined, anyType],
    [stringType, numberType, undefined, anyType],
  ])('%o or %o stored as %o', (left, right, expected, result) => {
    expect(show(eitherOf(left, right, expected))).toBe(show(result));
  });
});

group('variableType: what a `let` may hold from its initial value', () => {
  it('nothing, null, undefined, void or never: anything; otherwise the initial type', () => {
    expect([nullType, undefinedType, voidType, neverType, stringType, u32, strings].map((t) => show(variableType(t)))).toEqual([
      'any',
      'any',
      'any',
      'any',
      'string',
      'u32',
      'string[]',
    ]);
  });
});

group('hasUnboundParameters: whether a generic parameter is still unknown', () => {
  const T = typeParameter('T');
  it.each<[Type, ReadonlyMap<string, Type>, boolean]>([
    [T, new Map(), true],
    [T, new Map([['T', stringType]]), false],
    [arrayOf(T), new Map(), true],
    [arrayOf(T), new Map([['T', stringType]]), false],
    [mapOf(stringType, T), new Map(), true],
    [mapOf(T, stringType), new Map(), true],
    [mapOf(T, T), new Map([['T', numberType]]), false],
    [mapOf(stringType, numberType), new Map(), false],
    [stringType, new Map(), false],
  ])('%o with %o: %s', (type, bindings, expected) => {
    expect(hasUnboundParameters(type, bindings)).toBe(expected);
  });
});

group('wording', () => {
  it('describe names a namespace by its name and other types as written', () => {
    expect(describe(namespaceType('Math'))).toBe('Math');
    expect(describe(strings)).toBe('string[]');
  });
  it('plural', () => {
    expect([0, 1, 2].map((n) => plural(n, 'argument'))).toEqual(['0 arguments', '1 argument', '2 arguments']);
  });
});
