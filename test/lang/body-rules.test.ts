// Rules of the body checker (check-body.ts) that `npm run mutation` found undefended: a value that may be
// undefined as an operand of unary operators, updates and compound assignments (but not of concatenation or
// comparison), sized types kept by `-x`, `x++` and assignments used as values, mixed sized types in
// arithmetic and compound assignment, literals checked against a sized target, return values that may be
// missing, a constructor returning before it assigns the id, and where a wrong argument count points.
import { describe, expect, it } from 'vitest';
import { inFunction, located, reported } from './check-helpers.ts';

const parameters = 's: string, n: number, o?: number, t?: string, u?: boolean';
/** `code line:column text | message` of each diagnostic of a body placed in `f` (body line 1 is line 11). */
const diagnostics = (body: string) => reported(inFunction(body, parameters)).map((d) => `${d.code} ${d.at} ${d.text} | ${d.message}`);
const maybe = (name: string) => `the optional parameter "${name}", which may be undefined`;

describe('operands that may be undefined (V3012)', () => {
  it.each([
    ['this.count = -o;', [`V3012 11:15 o | operator unary - cannot be applied to ${maybe('o')}`]],
    ['this.count = ~o;', [`V3012 11:15 o | operator unary ~ cannot be applied to ${maybe('o')}`]],
    ['this.count = +o;', [`V3012 11:15 o | operator unary + cannot be applied to ${maybe('o')}`]],
    ['this.count = +t;', [`V3012 11:15 t | operator unary + cannot be applied to ${maybe('t')}`]],
    ['o++;', [`V3012 11:1 o | operator ++ cannot be applied to ${maybe('o')}`]],
    ['this.count += o;', [`V3012 11:15 o | operator += cannot be applied to ${maybe('o')}`]],
    ['this.count -= o;', [`V3012 11:15 o | operator -= cannot be applied to ${maybe('o')}`]],
    ['this.count = n + o;', [`V3012 11:18 o | operator + cannot be applied to ${maybe('o')}`]],
    ['this.count = o * 2;', [`V3012 11:14 o | operator * cannot be applied to ${maybe('o')}`]],
    // Not computations: negation, comparison and concatenation of a value that may be undefined are JavaScript's.
    ['let b = !o;', []],
    ['let b = o < n;\nlet c = o == n;', []],
    ['this.name += t;\nthis.name = s + t;', []],
    ['this.name += o;\nthis.name = n + t;', []],
  ])('%s', (body, expected) => {
    expect(diagnostics(body)).toEqual(expected);
  });

  it('an operand of the wrong type is reported once, for its type', () => {
    expect(diagnostics('this.count = -s;')).toEqual(['V3012 11:14 -s | operator unary - cannot be applied to string']);
    expect(diagnostics('this.count = ~s;')).toEqual(['V3012 11:14 ~s | operator unary ~ cannot be applied to string']);
    expect(diagnostics('this.count = +true;')).toEqual(['V3012 11:14 +true | operator unary + cannot be applied to boolean']);
    // A wrong type that may also be undefined: the type, not both.
    expect(diagnostics('this.count = -t;')).toEqual(['V3012 11:14 -t | operator unary - cannot be applied to string']);
    expect(diagnostics('this.count = +u;')).toEqual(['V3012 11:14 +u | operator unary + cannot be applied to boolean']);
    expect(diagnostics('this.count = o * s;')).toEqual(['V3012 11:14 o * s | operator * cannot be applied to number and string']);
  });

  it('an update of what cannot be assigned is reported once, and the check goes on', () => {
    expect(diagnostics('Math.PI++;')).toEqual(['V3015 11:1 Math.PI | cannot assign to Math.PI']);
    expect(diagnostics('let q = Math;')).toEqual(['V3026 11:9 Math | Math cannot be used as a value']);
  });
});

describe('sized numbers through operators', () => {
  it.each([
    // -x, x++ and an assignment used as a value keep the sized type, so it is checked where it goes.
    ['let a: i32 = 1;\nlet b: u32 = -a;', ['V3006 12:14 -a | cannot assign i32 to "b" (u32)']],
    ['let a: i32 = 1;\nlet b: u32 = a++;', ['V3006 12:14 a++ | cannot assign i32 to "b" (u32)']],
    ['let v: u32 = 1;\nlet w: i32 = (v = 2);', ['V3006 12:15 v = 2 | cannot assign u32 to "w" (i32)']],
    ['let y: string = (this.count = n);', ['V3006 11:18 this.count = n | cannot assign number to "y" (string)']],
    // Arithmetic on two different sized types is refused; bitwise operators give a plain number.
    ['let a: u32 = 1;\nlet b: i32 = 2;\nlet c = a * b;', ['V3012 13:9 a * b | operator * cannot be applied to u32 and i32']],
    ['let a: u32 = 1;\nlet c: i32 = a * 1;', ['V3006 12:14 a * 1 | cannot assign u32 to "c" (i32)']],
    ['let a: u32 = 1;\nlet b: i32 = 2;\nlet c: i32 = a & b;', []],
    ['let a: u32 = 1;\nlet b: i32 = 1;\na -= b;', ['V3012 13:1 a -= b | operator -= cannot be applied to u32 and i32']],
    // A literal operand must be a value of the sized type, in compound assignments too.
    ['let a: u32 = 1;\na *= 0.5;', ['V3031 12:6 0.5 | 0.5 is not a u32: not a whole number']],
    ['let a: u32 = 1;\na -= 0.5;', ['V3031 12:6 0.5 | 0.5 is not a u32: not a whole number']],
    ['let a: u32 = 1;\nlet b: u32 = a + 0.5;', ['V3031 12:18 0.5 | 0.5 is not a u32: not a whole number']],
    ['let a: u32 = 1;\nlet b = a - -1;', ['V3031 12:13 -1 | -1 is out of range for u32 (whole numbers from 0 to 4294967295)']],
  ])('%s', (body, expected) => {
    expect(diagnostics(body)).toEqual(expected);
  });
});

describe('what a test proves present', () => {
  const schema = (body: string) => `collection T { id: string; age?: number; n: number; f(o?: number) { ${body} } }`;

  it('delete undoes it (V3012 after delete); an optional target may take a value that may be undefined', () => {
    expect(located(schema('if (this.age) { this.n = this.age + 1; }'))).toEqual([]);
    expect(located(schema('if (this.age) { delete this.age; this.n = this.age + 1; }'))).toEqual(['V3012 1:111 this.age']);
    expect(located(schema('this.age = o;'))).toEqual([]);
  });
});

describe('return values', () => {
  const messages = (schema: string) => reported(schema).map((d) => `${d.code} ${d.at} ${d.text} | ${d.message}`);
  const storable = 'only optional fields, optional parameters and variables can hold null or undefined';

  it('V3011: a return value that may be undefined', () => {
    expect(messages('collection T { id: string; f(o?: string): string { return o; } }')).toEqual([
      `V3011 1:59 o | cannot assign ${maybe('o')}, to the return value of "f" (string): ${storable}`,
    ]);
    expect(messages('collection T { id: string; n?: number; f(): number { return this.n; } }')).toEqual([
      `V3011 1:61 this.n | cannot assign this.n, an optional field the constructor never sets, which may be undefined, to the return value of "f" (number): ${storable}`,
    ]);
  });

  it('a function without a return type may return what it likes', () => {
    expect(messages('collection T { id: string; f(o?: string) { return o; } }')).toEqual([]);
  });

  it('V3008: null or undefined returned where a value is declared', () => {
    expect(located('collection T { id: string; f(): string { return null; } }')).toEqual(['V3008 1:49 null']);
    expect(located('collection T { id: string; f(): string { return undefined; } }')).toEqual(['V3008 1:49 undefined']);
  });

  it('V2024: a constructor that returns before assigning the id, not one that returns after', () => {
    expect(located('collection T { id: string; constructor (id: string) { if (id == "") { return; } this.id = id; } }')).toEqual([
      'V2024 1:71 return;',
    ]);
    expect(located('collection T { id: string; constructor (id: string) { this.id = id; return; } }')).toEqual([]);
  });
});

describe('V3010: argument counts', () => {
  it('too many arguments: the extra ones are pointed at', () => {
    expect(diagnostics('s.slice(1, 2, 3);')).toEqual(['V3010 11:15 3 | string.slice expects 0 to 2 arguments, found 3']);
    expect(diagnostics('s.slice(1, 2, 3, 4);')).toEqual(['V3010 11:15 3, 4 | string.slice expects 0 to 2 arguments, found 4']);
  });

  it('too few: the call is pointed at', () => {
    expect(diagnostics('s.startsWith();')).toEqual(['V3010 11:1 s.startsWith() | string.startsWith expects 1 to 2 arguments, found 0']);
    expect(diagnostics('error();')).toEqual(['V3010 11:1 error() | error expects 1 argument, found 0']);
  });
});
