// The resolver (src/lang/resolver.ts): every name of a body tied to its declaration, each local's slot, the dead
// zone, and `this.x` and collection names tied to their declarations; one pass read by checker and compiler.
import { describe, expect, it } from 'vitest';
import { check, parse, resolveFunction, resolveProgram, type FunctionDeclaration, type FunctionResolution, type IdentifierExpression, type Program } from '../../src/lang/index.ts';

function program(text: string): Program {
  const parsed = parse(text, 'test.polylang');
  if (!parsed.program) throw new Error(parsed.diagnostics.map((d) => d.message).join('\n'));
  return parsed.program;
}

/** The identifier expressions of a body in source order. */
function identifiers(fn: FunctionDeclaration): IdentifierExpression[] {
  const found: IdentifierExpression[] = [];
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (value === null || typeof value !== 'object') return;
    if ((value as { kind?: string }).kind === 'identifierExpression') found.push(value as IdentifierExpression);
    for (const child of Object.values(value)) if (typeof child === 'object') visit(child);
  };
  visit(fn.body);
  return found.sort((a, b) => a.span.start - b.span.start);
}

/** Each identifier of the function `f` as `name@line:what`, what being `slot N`, `early N` (dead zone), a built-in or `?`. */
function uses(body: string, params = ''): string[] {
  const text = `collection A {\n  id: string;\n  f(${params}) {\n${body}\n  }\n}`;
  const fn = program(text).collections[0]!.items.find((i) => i.kind === 'function') as FunctionDeclaration;
  const resolution = resolveFunction(fn);
  return identifiers(fn).map((e) => {
    const line = text.slice(0, e.span.start).split('\n').length - 3;
    const resolved = resolution.uses.get(e);
    const what =
      resolved === undefined ? '?'
      : resolved.kind === 'local' ? `slot ${resolved.local.slot}`
      : resolved.kind === 'uninitialised' ? `early ${resolved.local.slot}`
      : resolved.kind === 'global' ? resolved.builtin.id
      : resolved.kind === 'namespace' ? `namespace ${resolved.receiver}`
      : 'undefined';
    return `${e.name}@${line}:${what}`;
  });
}

describe('resolver', () => {
  it('numbers parameters first, then variables in the order their scopes open, never reusing a slot', () => {
    const fn = program(`collection A { id: string; f(a: number, b: number) { let x = a; { let y = x; } { let z = b; } for (let i = 0; i < 1; i++) {} for (const v of [1]) {} } }`)
      .collections[0]!.items[1] as FunctionDeclaration;
    const resolution = resolveFunction(fn);
    expect(resolution.locals.map((l) => `${l.kind} ${l.name} slot ${l.slot} depth ${l.depth}`)).toEqual([
      'parameter a slot 0 depth 0',
      'parameter b slot 1 depth 0',
      'variable x slot 2 depth 0',
      'variable y slot 3 depth 1',
      'variable z slot 4 depth 1',
      'variable i slot 5 depth 1',
      'variable v slot 6 depth 1',
    ]);
    expect(resolution.slotCount).toBe(7);
  });

  it('ties each use to the innermost declaration, with the dead zone of a block', () => {
    expect(uses(`let x = 1;\n{ x; let x = x + 1; x; }\nx;`)).toEqual(['x@2:early 1', 'x@2:early 1', 'x@2:slot 1', 'x@3:slot 0']);
  });

  it('reads a for…of iterable outside the loop, and the loop variable inside it', () => {
    expect(uses(`let v = [1];\nfor (const v of v) { v; }`)).toEqual(['v@2:slot 0', 'v@2:slot 1']);
  });

  it('names built-ins when no local does; a called `Number` is the function, `Number` alone the namespace', () => {
    expect(uses(`let n = Number(s) + Number.MAX_SAFE_INTEGER;\nerror(undefined);\nlet Math = 1; Math;\nnope;`, 's: string')).toEqual([
      'Number@1:global.Number',
      's@1:slot 0',
      'Number@1:namespace Number',
      'error@2:global.error',
      'undefined@2:undefined',
      'Math@3:slot 2',
      'nope@4:?',
    ]);
  });

  it('declares no local for a redeclaration: the name keeps naming the first', () => {
    const fn = program(`collection A { id: string; f(a: number, a: string) { let a = 1; let b = 1; let b = 2; b; a; } }`).collections[0]!.items[1] as FunctionDeclaration;
    const resolution = resolveFunction(fn);
    const [, first, second] = fn.body.body;
    expect(resolution.declared.has(fn.body.body[0] as never)).toBe(false); // `let a` beside the parameter a
    expect(resolution.declared.has(first as never)).toBe(true);
    expect(resolution.declared.has(second as never)).toBe(false);
    expect(identifiers(fn).map((e) => resolution.uses.get(e))).toEqual([
      resolution.declared.get(first as never)!.use,
      resolution.declared.get(fn.parameters[0]!)!.use, // the first of two parameters named a
    ]);
    expect(resolution.slotCount).toBe(3); // both parameters have slots (arguments fill them by position)
  });

  it('keeps the locals visible at an unknown name for "did you mean", innermost first', () => {
    const fn = program(`collection A { id: string; f(count: number) { let total = 0; { let items = 1; totl; } } }`).collections[0]!.items[1] as FunctionDeclaration;
    const resolution = resolveFunction(fn);
    const unknown = identifiers(fn).find((e) => e.name === 'totl')!;
    expect(resolution.visibleAt.get(unknown)?.()).toEqual(['items', 'count', 'total']);
  });

  it("ties `this.x` to the collection's field or function, and collection names used as types to the collection", () => {
    const parsed = program(`collection A { id: string; n: number; other: B; f(b: B): B { this.n = this.g(); return b; } g(): number { return 1; } }\ncollection B { id: string; }`);
    const resolution = resolveProgram(parsed);
    const [a, b] = parsed.collections;
    const f = a!.items.find((i) => i.kind === 'function' && i.name.name === 'f') as FunctionDeclaration;
    const members = [...resolution.functions.get(f)!.members.values()].map((m) => `${m.kind} ${m.name.name}`);
    expect(members).toEqual(['field n', 'function g']);
    expect([...resolution.typeReferences.values()]).toEqual([b, b, b]);
  });

  it('is one pass: the checker reads the program resolution, and the compiler\'s resolveFunction gives the same slots', () => {
    const parsed = program(`collection A { id: string; constructor(id: string) { let x = id; { const y = x; this.id = y; } } }`);
    const { checked } = check(parsed);
    const fn = parsed.collections[0]!.items[1] as FunctionDeclaration;
    const slots = (r: FunctionResolution) => [r.slotCount, r.locals.map((l) => `${l.kind} ${l.name}#${l.slot}@${l.depth}`)];
    expect(slots(resolveFunction(fn))).toEqual(slots(checked.resolution.functions.get(fn)!));
    expect(resolveFunction(fn)).toBe(resolveFunction(fn));
  });

  it('costs one walk for many unknown names among many locals', () => {
    const locals = Array.from({ length: 20_000 }, (_, i) => `let v${i} = ${i};`).join('\n');
    const unknown = 'nope;\n'.repeat(20_000);
    const fn = program(`collection A { id: string; f() { ${locals}\n${unknown} } }`).collections[0]!.items[1] as FunctionDeclaration;
    const resolution = resolveFunction(fn);
    expect(resolution.visibleAt.size).toBe(20_000);
    expect(resolution.locals).toHaveLength(20_000);
  });
});

describe('names in decorator and index arguments', () => {
  it('ties @call arguments and index paths to the fields they name, inner segments to the object type\'s fields', () => {
    const text = `collection A {
  id: string;
  owner: PublicKey;
  age: number;
  info: { city: string; };
  @index(owner, [age, desc], info.city, nope, info.nope);
  @call(owner, missing)
  f () {}
}`;
    const resolution = resolveProgram(program(text));
    const named = [...resolution.fieldReferences].map(([name, field]) => `${name.name}@${name.span.start}->${field.name.name}@${field.name.span.start}`);
    const at = (word: string, from = 0) => text.indexOf(word, from);
    const index = at('@index');
    expect(named).toEqual([
      `owner@${at('owner', index)}->owner@${at('owner')}`,
      `age@${at('age', index)}->age@${at('age')}`,
      `info@${at('info', index)}->info@${at('info')}`,
      `city@${at('city', index)}->city@${at('city')}`,
      `info@${at('info.nope')}->info@${at('info')}`,
      `owner@${at('owner', at('@call'))}->owner@${at('owner')}`,
    ]);
  });
});
