// Typed `let`/`const` (Polylang after 0.6): `let i: u32 = 0;`. The checker holds the variable to its type;
// a sized type is also checked at run time; a 0.6 body parses exactly as before.
import { describe, expect, it } from 'vitest';
import { parse, print } from '../../src/lang/index.ts';
import { execute } from '../../src/runtime/index.ts';
import { fails, load, ok } from '../runtime/helpers.ts';
import { located, reported } from './check-helpers.ts';
import { stripSpans } from './strip-spans.ts';

const inBody = (statements: string) => `collection T {\n  id: string;\n  n: u32;\n  f(k: number, s: string) {\n${statements}\n  }\n}`;

describe('typed let and const', () => {
  it('parse with their type; the rest of the declaration is unchanged', () => {
    const typed = parse(inBody("let i: u32 = 0; const names: string[] = []; let m: map<string, u32[]> = {}; let p: PublicKey;"));
    expect(typed.diagnostics).toEqual([]);
    const statements = typed.program!.collections[0]!.items[2]!.kind === 'function' ? (typed.program!.collections[0]!.items[2] as { body: { body: unknown[] } }).body.body : [];
    expect(statements.map((s) => stripSpans((s as { typeAnnotation: unknown }).typeAnnotation))).toEqual([
      { kind: 'sizedNumberType', name: 'u32' },
      { kind: 'arrayType', element: { kind: 'primitiveType', name: 'string' } },
      { kind: 'mapType', key: { kind: 'primitiveType', name: 'string' }, value: { kind: 'arrayType', element: { kind: 'sizedNumberType', name: 'u32' } } },
      { kind: 'publicKeyType' },
    ]);
    const untyped = parse(inBody('let i = 0; const names = [];'));
    const typedAgain = parse(inBody('let i: u32 = 0; const names: string[] = [];'));
    const strip = (p: typeof untyped) => (stripSpans(p.program) as any).collections[0].items[2].body.body.map(({ typeAnnotation, ...rest }: any) => rest);
    expect(strip(typedAgain)).toEqual(strip(untyped));
    expect('typeAnnotation' in (stripSpans(untyped.program) as any).collections[0].items[2].body.body[0]).toBe(false);
  });

  it('prints back with the type', () => {
    const { program } = parse(inBody('let i: u32 = 0;\nfor (let j: i32 = 0; j < 3; j++) {}'));
    const printed = print(program!);
    expect(printed).toContain('let i: u32 = 0;');
    expect(printed).toContain('for (let j: i32 = 0; j < 3; j++)');
    expect(stripSpans(parse(printed).program)).toEqual(stripSpans(program));
  });

  it('the initial value must fit the type, and so must later assignments', () => {
    expect(located(inBody("let a: u32 = 1.5;\nlet b: string = 5;\nlet c: number = 's';\nlet d: u32 = 3; d = s;"))).toEqual([
      'V3031 5:14 1.5',
      'V3006 6:17 5',
      "V3006 7:17 's'",
      'V3006 8:21 s',
    ]);
    expect(reported(inBody("let a: u32 = 1.5;"))[0]!.message).toBe('1.5 is not a u32: not a whole number');
    expect(reported(inBody("let b: string = 5;"))[0]!.message).toBe('cannot assign number to "b" (string)');
  });

  it('the type decides the arithmetic: a u32 variable is checked, a number one is not', () => {
    const collection = load(inBody('let i: u32 = 1; let j: number = 1; i -= 1; j -= 2; this.n = i; if (k > 0) { i -= 1; }'), 'T');
    expect(ok(execute(collection, 'f', { id: 't', n: 0 }, [0, ''])).record).toEqual({ id: 't', n: 0 });
    expect(fails(execute(collection, 'f', { id: 't', n: 0 }, [1, '']))).toMatchObject({ reason: 'function/arithmetic-error', message: expect.stringMatching(/^u32 overflow: 0 - 1 = -1/) });
  });

  it('a sized variable is checked when it starts from a plain number', () => {
    const collection = load(inBody('let i: u32 = k; this.n = i;'), 'T');
    expect(ok(execute(collection, 'f', { id: 't', n: 0 }, [7, ''])).record).toEqual({ id: 't', n: 7 });
    expect(fails(execute(collection, 'f', { id: 't', n: 0 }, [-2, '']))).toMatchObject({
      reason: 'function/arithmetic-error',
      message: 'let i: u32 = -2 is out of range for u32 (whole numbers from 0 to 4294967295)',
    });
  });

  it('a type that cannot be read is a clear error; an unknown type name is reported', () => {
    expect(reported(inBody('let a: = 1;'))).toMatchObject([{ code: 'V1008', message: 'expected a type after `:` in the declaration of "a"' }]);
    expect(located(inBody('let a: Nope = k;'))[0]).toMatch(/^V3001 5:8 Nope/);
  });

  it('text that looks like an annotation inside strings and comments is left alone', () => {
    expect(reported(inBody("let t = 'let x: u32 = 1'; // let y: u32\n/* const z: string */ this.n = 1;"))).toEqual([]);
  });
});
