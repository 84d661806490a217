// Statements of the body checker (check-body.ts) that `npm run mutation` found undefended: what a test proves
// present after an `if` whose branch leaves (return, throw, break, continue), loops that check their header and
// body, which statements end a function (V3030), where a constructor can finish without its id (V2024), typed
// `let` with each kind of annotation, and the words of the statement diagnostics.
import { describe, expect, it } from 'vitest';
import { check, parse } from '../../src/lang/index.ts';
import { inFunction, located, reported } from './check-helpers.ts';

const parameters = 's: string, n: number, o?: number, t?: string';
/** `code line:column text | message` of each diagnostic of a body placed in `f` (body line 1 is line 11). */
const diagnostics = (body: string, params = parameters) =>
  reported(inFunction(body, params)).map((d) => `${d.code} ${d.at} ${d.text} | ${d.message}`);
/** Code, position and covered text of each diagnostic of a body placed in `f`. */
const codes = (body: string, params = parameters) => located(inFunction(body, params));
const mayBeUndefined = (at: string) => `V3011 ${at} o`;

describe('what an if proves present after it', () => {
  it.each([
    // A branch that leaves: the other branch's facts hold after the `if`.
    ['if (o == undefined) { return; }\nthis.count = o;', []],
    ['if (o) {} else { return; }\nthis.count = o;', []],
    ['if (!o) { throw error("o"); }\nthis.count = o;', []],
    // In a loop, `continue` and `break` leave the rest of the body as `return` does.
    ['while (n > 0) { if (!o) { break; } this.count = o; }', []],
    ['for (const x of this.tags) { if (!o) { continue; } this.count = o; }', []],
    ['while (n > 0) { if (o) { this.count = o; } else { continue; } this.count = o; }', []],
    // Both branches go on: only what both prove.
    ['if (!o) { this.count = 1; }\nthis.count = o;', [mayBeUndefined('12:14')]],
    ['if (o) { this.count = 1; } else { this.count = 2; }\nthis.count = o;', [mayBeUndefined('12:14')]],
    ['while (n > 0) { if (o) { continue; } this.count = o; }', [mayBeUndefined('11:51')]],
    // Facts of a loop body stay in it.
    ['while (n > 0) { if (!o) { break; } }\nthis.count = o;', [mayBeUndefined('12:14')]],
    // Facts learned in a branch stay in it, after an inner `if` that learned nothing (branches share what is known
    // until they change it: the set shared with the enclosing branch is copied before the first change).
    ['if (n > 0) { if (n > 1) { } o = 1; }\nthis.count = o;', [mayBeUndefined('12:14')]],
    ['if (n > 0) { if (n > 1) { } else { } o = 1; }\nthis.count = o;', [mayBeUndefined('12:14')]],
    ['if (n > 0) { if (s) { } if (!o) { return; } }\nthis.count = o;', [mayBeUndefined('12:14')]],
    ['while (n > 0) { if (n > 1) { } o = 1; }\nthis.count = o;', [mayBeUndefined('12:14')]],
  ])('%s', (body, expected) => {
    expect(codes(body)).toEqual(expected);
  });
});

describe('loops check their header and body', () => {
  it('while: the test proves its subjects present in the body, and the body is checked', () => {
    expect(codes('while (o) { this.count = o; }')).toEqual([]);
    expect(codes('while (n > 0) { this.count = o; }')).toEqual([mayBeUndefined('11:30')]);
    expect(codes('while (n > 0) { this.count = s; }')).toEqual(['V3006 11:30 s']);
  });

  it('for: the initialiser, test, update and body are each checked, any of them may be left out', () => {
    expect(codes('for (let i = 0; i < n; i++) { this.count = s; }')).toEqual(['V3006 11:44 s']);
    expect(codes('for (let i = s; i < n; i++) {}')).toEqual(['V3012 11:17 i < n', 'V3012 11:24 i++']);
    expect(codes('for (; s - 1; ) {}')).toEqual(['V3012 11:8 s - 1']);
    expect(codes('for (this.count = s; ; this.name = n) { break; }')).toEqual(['V3006 11:19 s', 'V3006 11:36 n']);
    expect(codes('for (;;) { break; }\nfor (; o; ) { this.count = o; }')).toEqual([]);
  });

  it('for…of: a variable, constant when declared const; anything untyped may be iterated', () => {
    expect(codes('for (let x of this.tags) { x = "x"; }\nfor (const y of this.tags) { y = "y"; }')).toEqual(['V3016 12:30 y']);
    expect(codes('for (const x of nope) {}')).toEqual(['V3001 11:17 nope']);
    expect(codes('for (const x of this.tags) { this.count = o; }')).toEqual([mayBeUndefined('11:43')]);
  });

  it('break and continue after a loop are outside it again', () => {
    expect(codes('for (const x of this.tags) {}\nbreak;')).toEqual(['V3019 12:1 break;']);
    expect(codes('while (n > 0) { while (n > 1) {} continue; }\ncontinue;')).toEqual(['V3019 12:1 continue;']);
  });
});

describe('V3030: which statements end a function', () => {
  const schema = `collection T {
  id: string;
  n: number;
  declares (): number { let x = 1; }
  conditional (): number { while (this.n > 0) {} }
  never (): number { while (false) { return 1; } }
  forever (): number { for (;;) { if (this.n > 0) { return 1; } } }
  leaves (): number { for (;;) { if (this.n > 0) { break; } } }
  counted (): number { for (let i = 0; i < 2; i++) { return 1; } }
  each (): number { for (const x of [1]) { return x; } }
  spins (): number { while (true) {} }
  ones (): number { while (1) {} }
}`;

  // As in TypeScript, only the literal `true` (or no test in a `for`) makes a loop endless: `while (1)` may end.
  it('only an endless loop without break, a return, a throw or a call of error() ends it', () => {
    expect(located(schema)).toEqual([
      'V3030 4:3 declares',
      'V3030 5:3 conditional',
      'V3030 6:3 never',
      'V3030 8:3 leaves',
      'V3030 9:3 counted',
      'V3030 10:3 each',
      'V3030 12:3 ones',
    ]);
  });
});

describe('V2022 and V2024: a constructor and its id', () => {
  it('points at the closing brace when the body can end without the id', () => {
    const schema = 'collection T { id: string; constructor (id: string) { if (id == "a") { this.id = id; } } }';
    expect(reported(schema).map((d) => `${d.code} ${d.at} ${d.text} | ${d.message}`)).toEqual([
      'V2024 1:88 } | the constructor of "T" can finish here without assigning this.id; creating a record this way fails',
    ]);
  });

  it('an end after a throw is not a way to finish', () => {
    expect(located('collection T { id: string; constructor (id: string) { if (id == "a") { this.id = id; return; } throw error("no"); } }')).toEqual([]);
  });

  it('a constructor that never assigns the id', () => {
    expect(located('collection T { id: string; name: string; constructor (id: string) { this.name = id; } }')).toEqual(['V2022 1:42 constructor']);
  });
});

describe('typed let with each kind of annotation', () => {
  it('checks the initial value against the annotation', () => {
    expect(codes('let k: PublicKey = s;\nlet m: map<string, number> = this.tags;\nlet r: record = s;\nlet b: boolean = 1;')).toEqual([
      'V3006 11:20 s',
      'V3006 12:30 this.tags',
      'V3006 13:17 s',
      'V3006 14:18 1',
    ]);
    expect(codes('let k: PublicKey = ctx.publicKey;\nlet m: map<string, number> = this.m;\nlet r: record = this;')).toEqual([]);
  });

  it('null only where the annotation allows it (V3011, not V3006)', () => {
    expect(diagnostics('let x: string = null;')).toEqual([
      'V3011 11:17 null | cannot assign null to "x" (string): only optional fields, optional parameters and variables can hold null or undefined',
    ]);
  });

  it('a collection name is a reference; an unknown one is an error', () => {
    expect(codes('let y: Other = o;', 'o: Other')).toEqual([]);
    expect(diagnostics('let z: Nope = 1;')).toEqual([
      'V3001 11:8 Nope | cannot find name "Nope" (not a type or a collection of this schema)',
      'V3006 11:15 1 | cannot assign number to "z" (Nope)',
    ]);
  });

  it('a negated literal is checked against a sized type; other unary operators are not literals', () => {
    expect(codes('let a: u32 = -1;')).toEqual(['V3031 11:14 -1']);
    expect(codes('let a: u32 = +1;\nlet b: u32 = ~1;\nlet c: u32 = n - 1;')).toEqual([]);
  });
});

describe('the words of statement diagnostics', () => {
  it.each([
    ['let a = 1;\nlet a = 2;', 'V3017 12:5 a | "a" is already declared in this scope'],
    ['for (const c of n) {}', 'V3020 11:17 n | for…of needs an array or a map, found number'],
    ['continue;', 'V3019 11:1 continue; | "continue" can only be used inside a loop'],
    ['this.f(t, n);', 'V3011 11:8 t | cannot assign the optional parameter "t", which may be undefined, to argument 1 of this.f (string): only optional fields, optional parameters and variables can hold null or undefined'],
    ['this.console = 1;', 'V3002 11:6 console | collection "T" has no field "console"'],
  ])('%s', (body, expected) => {
    expect(diagnostics(body)).toEqual([expected]);
  });

  it('V3018 names the constant (in a hand-built tree; the parser rejects it)', () => {
    const { program } = parse('collection T { id: string; f () { let k; } }');
    const declaration = program!.collections[0]!.items[1]!;
    if (declaration.kind !== 'function' || declaration.body.body[0]!.kind !== 'variable') throw new Error('unexpected tree');
    declaration.body.body[0]!.declarationKind = 'const';
    expect(check(program!).diagnostics.map((d) => d.message)).toEqual(['const "k" must be initialised']);
  });

  it('"did you mean" for the first 25 unknown names of a body, then no more searches', () => {
    const found = diagnostics(Array.from({ length: 26 }, () => 'this.count = sx;').join('\n'));
    expect(found).toHaveLength(26);
    expect(found.slice(0, 25).every((d) => d.endsWith('cannot find name "sx"; did you mean "s"?'))).toBe(true);
    expect(found[25]).toBe('V3001 36:14 sx | cannot find name "sx"');
  });
});

describe('which fields of this may be missing', () => {
  it('a field of another object named like an optional field of this is not that field', () => {
    const schema = `collection T {
  id: string;
  age?: number;
  o: { age: number; };
  n: number;
  constructor (id: string) { this.id = id; }
  f () { this.n = this.o.age + 1; }
  g () { this.n = this.age + 1; }
}`;
    expect(located(schema)).toEqual(['V3012 8:19 this.age']);
  });
});
