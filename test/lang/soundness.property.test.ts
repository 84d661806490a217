// Soundness of the checker against the runtime: expressions built to have a type (from parameters,
// literals, operators and built-ins) are accepted by the checker with no diagnostic, and running
// them in Vellum's runtime gives a value of that type (or a clean runtime error such as out of
// gas). Catches false positives of the checker and type rules that disagree with execution.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkSchema } from '../../src/lang/index.ts';
import { compileCollection, execute } from '../../src/runtime/index.ts';

type Kind = 'number' | 'string' | 'boolean' | 'string[]' | 'number[]';

const PARAMETERS = 's: string, t: string, n: number, m: number, b: boolean, xs: string[], ns: number[], mp: map<string, number>';

const smallInt = fc.integer({ min: -5, max: 20 }).map(String).map((v) => (v.startsWith('-') ? `(${v})` : v));
const stringLiteral = fc.constantFrom("''", "'a'", "'Hello'", "' x y '", "','", "'42'", "'3.5e2'");

const built = new Map<string, fc.Arbitrary<string>>();

/** Expressions of `kind` nested at most `depth` deep (each arbitrary built once). */
function expression(kind: Kind, depth: number): fc.Arbitrary<string> {
  const key = `${kind}/${depth}`;
  let arbitrary = built.get(key);
  if (!arbitrary) {
    arbitrary = buildExpression(kind, depth);
    built.set(key, arbitrary);
  }
  return arbitrary;
}

function buildExpression(kind: Kind, depth: number): fc.Arbitrary<string> {
  const leaves: Record<Kind, fc.Arbitrary<string>> = {
    number: fc.oneof(smallInt, fc.constantFrom('n', 'm', 's.length', 'xs.length', 'ns.length', 'Math.PI', 'NaN')),
    string: fc.oneof(stringLiteral, fc.constantFrom('s', 't')),
    boolean: fc.constantFrom('true', 'false', 'b'),
    'string[]': fc.constantFrom('xs', '[]', "['a', s]"),
    'number[]': fc.constantFrom('ns', '[]', '[n, 1]'),
  };
  if (depth <= 0) return leaves[kind];
  const num = () => expression('number', depth - 1);
  const str = () => expression('string', depth - 1);
  const bool = () => expression('boolean', depth - 1);
  const strs = () => expression('string[]', depth - 1);
  const nums = () => expression('number[]', depth - 1);
  const any = () => fc.oneof(num(), str(), bool());
  const composite: Record<Kind, fc.Arbitrary<string>[]> = {
    number: [
      fc.tuple(num(), fc.constantFrom('+', '-', '*', '/', '%', '**', '&', '|', '^', '<<', '>>', '>>>'), num()).map(([a, op, c]) => `(${a} ${op} ${c})`),
      num().map((a) => `(-${a})`),
      str().map((a) => `${a}.length`),
      fc.tuple(str(), str()).map(([a, c]) => `${a}.indexOf(${c})`),
      fc.tuple(fc.constantFrom('floor', 'ceil', 'abs', 'sqrt', 'trunc', 'sign'), num()).map(([f, a]) => `Math.${f}(${a})`),
      fc.tuple(num(), num()).map(([a, c]) => `Math.max(${a}, ${c})`),
      str().map((a) => `parseInt(${a}, 10)`),
      any().map((a) => `Number(${a})`),
      fc.tuple(bool(), num(), num()).map(([c, a, d]) => `(${c} ? ${a} : ${d})`),
      fc.tuple(strs(), str()).map(([a, c]) => `${a}.push(${c})`),
      nums().map((a) => `${a}.length`),
      fc.tuple(nums(), num()).map(([a, c]) => `${a}.indexOf(${c})`),
      fc.tuple(str(), num()).map(([a, c]) => `${a}.charCodeAt(${c})`),
      fc.tuple(num(), num()).map(([a, c]) => `(${a} ?? ${c})`),
      fc.tuple(str(), str()).map(([a, c]) => `${a}.split(${c}).length`),
    ],
    string: [
      fc.tuple(str(), str()).map(([a, c]) => `(${a} + ${c})`),
      fc.tuple(str(), fc.oneof(num(), bool())).map(([a, c]) => `(${a} + ${c})`),
      fc.tuple(str(), fc.constantFrom('toUpperCase', 'toLowerCase', 'trim', 'trimStart', 'trimEnd')).map(([a, f]) => `${a}.${f}()`),
      fc.tuple(str(), smallInt, smallInt).map(([a, i, j]) => `${a}.slice(${i}, ${j})`),
      fc.tuple(str(), fc.integer({ min: 0, max: 3 })).map(([a, k]) => `${a}.repeat(${k})`),
      fc.tuple(str(), str(), str()).map(([a, c, d]) => `${a}.replaceAll(${c}, ${d})`),
      fc.tuple(strs(), str()).map(([a, c]) => `${a}.join(${c})`),
      any().map((a) => `String(${a})`),
      num().map((a) => `(${a}).toString()`),
      fc.tuple(str(), fc.integer({ min: 0, max: 8 }), str()).map(([a, k, c]) => `${a}.padEnd(${k}, ${c})`),
      fc.tuple(bool(), str(), str()).map(([c, a, d]) => `(${c} ? ${a} : ${d})`),
      fc.tuple(str(), str()).map(([a, c]) => `(${a} || ${c})`),
      fc.tuple(str(), smallInt, smallInt).map(([a, i, j]) => `${a}.substring(${i}, ${j})`),
      fc.tuple(str(), num()).map(([a, c]) => `${a}.charAt(${c})`),
      fc.tuple(str(), str()).map(([a, c]) => `${a}.concat(${c}, 'z')`),
    ],
    boolean: [
      any().map((a) => `!${a}`),
      fc.tuple(num(), fc.constantFrom('<', '<=', '>', '>=', '==', '!=', '===', '!=='), num()).map(([a, op, c]) => `(${a} ${op} ${c})`),
      fc.tuple(str(), fc.constantFrom('<', '>=', '==', '!=='), str()).map(([a, op, c]) => `(${a} ${op} ${c})`),
      fc.tuple(bool(), fc.constantFrom('&&', '||'), bool()).map(([a, op, c]) => `(${a} ${op} ${c})`),
      fc.tuple(strs(), str()).map(([a, c]) => `${a}.includes(${c})`),
      fc.tuple(str(), str()).map(([a, c]) => `${a}.startsWith(${c})`),
      num().map((a) => `isNaN(${a})`),
      num().map((a) => `Number.isInteger(${a})`),
    ],
    'string[]': [
      fc.tuple(str(), str()).map(([a, c]) => `[${a}, ${c}]`),
      fc.tuple(str(), str()).map(([a, c]) => `${a}.split(${c})`),
      fc.tuple(strs(), strs()).map(([a, c]) => `${a}.concat(${c})`),
      fc.tuple(strs(), smallInt).map(([a, i]) => `${a}.slice(${i})`),
      strs().map((a) => `${a}.reverse()`),
      fc.constant('Object.keys(mp)'),
    ],
    'number[]': [
      fc.tuple(num(), num()).map(([a, c]) => `[${a}, ${c}]`),
      fc.tuple(nums(), nums()).map(([a, c]) => `${a}.concat(${c})`),
      fc.tuple(nums(), smallInt, smallInt).map(([a, i, j]) => `${a}.splice(${i}, ${j})`),
      fc.constant('Object.values(mp)'),
      fc.tuple(nums(), num()).map(([a, c]) => `${a}.fill(${c})`),
    ],
  };
  return fc.oneof({ weight: 1, arbitrary: leaves[kind] }, { weight: 3, arbitrary: fc.oneof(...composite[kind]) });
}

const kinds: Kind[] = ['number', 'string', 'boolean', 'string[]', 'number[]'];
const typed = fc.oneof(...kinds.map((kind) => expression(kind, 3).map((text) => ({ kind, text }))));

const args = fc.tuple(
  fc.string({ maxLength: 6 }),
  fc.constantFrom('', ',', 'a', 'x,y'),
  fc.double({ noNaN: false }),
  fc.integer({ min: -3, max: 3 }),
  fc.boolean(),
  fc.array(fc.string({ maxLength: 3 }), { maxLength: 3 }),
  fc.array(fc.integer({ min: -9, max: 9 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 3 }), fc.integer({ min: -9, max: 9 }), { maxKeys: 3 }),
);

function hasKind(value: unknown, kind: Kind): boolean {
  switch (kind) {
    case 'number':
    case 'string':
    case 'boolean':
      return typeof value === kind;
    case 'string[]':
      return Array.isArray(value) && value.every((v) => typeof v === 'string');
    case 'number[]':
      return Array.isArray(value) && value.every((v) => typeof v === 'number');
  }
}

describe('typed expressions', () => {
  it('check without diagnostics and evaluate to their type', () => {
    fc.assert(
      fc.property(typed, args, ({ kind, text }, values) => {
        const schema = `collection T {\n  id: string;\n  f (${PARAMETERS}): ${kind} {\n    return ${text};\n  }\n}\n`;
        const checked = checkSchema(schema);
        expect(checked.diagnostics.map((d) => `${d.code} ${d.message}`), schema).toEqual([]);
        const collection = compileCollection(checked, 'T', { collectionId: 'ns/T' });
        const result = execute(collection, 'f', { id: 'r' }, values);
        if (!result.ok) {
          // A clean runtime failure (a RangeError from a built-in, gas, NaN or Infinity, which no
          // record or response can hold) is fine; a return value of another type is not.
          if (result.error.reason === 'function/invalid-return') {
            expect(result.error.message, schema).toMatch(/NaN|Infinity/);
          }
          return;
        }
        expect(hasKind(result.transition.returnValue, kind), `${schema}\nreturned ${JSON.stringify(result.transition.returnValue)}`).toBe(true);
      }),
      { numRuns: Number(process.env.SOUNDNESS_RUNS ?? 400) },
    );
  });

  it('assigned to fields of their type, give records the runtime accepts', () => {
    const fields = fc.record({
      a: expression('number', 2),
      b: expression('string', 2),
      c: expression('boolean', 2),
      d: expression('string[]', 2),
      e: expression('number[]', 2),
    });
    fc.assert(
      fc.property(fields, args, (exprs, values) => {
        const schema = `collection T {
  id: string;
  a: number;
  b: string;
  c: boolean;
  d: string[];
  e?: number[];
  constructor (id: string, ${PARAMETERS}) {
    this.id = id;
    this.a = ${exprs.a};
    this.b = ${exprs.b};
    this.c = ${exprs.c};
    this.d = ${exprs.d};
    this.e = ${exprs.e};
  }
}
`;
        const checked = checkSchema(schema);
        expect(checked.diagnostics.map((d) => `${d.code} ${d.message}`), schema).toEqual([]);
        const collection = compileCollection(checked, 'T', { collectionId: 'ns/T' });
        const result = execute(collection, 'constructor', null, ['r', ...values]);
        if (!result.ok) {
          if (result.error.reason.startsWith('record/')) expect(result.error.message, schema).toMatch(/NaN|Infinity/);
          return;
        }
        const record = result.transition.record as Record<string, unknown>;
        expect(typeof record.a).toBe('number');
        expect(typeof record.b).toBe('string');
        expect(typeof record.c).toBe('boolean');
        expect(hasKind(record.d, 'string[]')).toBe(true);
        expect(hasKind(record.e, 'number[]')).toBe(true);
      }),
      { numRuns: Number(process.env.SOUNDNESS_RUNS ?? 200) },
    );
  });
});
