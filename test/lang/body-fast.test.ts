// The fast body parser (body-fast.ts) against acorn + body.ts: whenever the fast path answers, the
// statements (spans included) are exactly those the acorn path gives, and the acorn path reports
// nothing. Where it gives up, acorn decides, so diagnostics never depend on which path ran.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseBody } from '../../src/lang/body.ts';
import { parseBodyFast } from '../../src/lang/body-fast.ts';
import { parse } from '../../src/lang/index.ts';
import { loadFixtures } from './corpus.ts';

/** Both paths on one body (its text from `{` to `}`, at file offset `start`); whether the fast one answered. */
function agree(block: string, start: number): boolean {
  const fast = parseBodyFast(block, start);
  if (fast === undefined) return false;
  const slow = parseBody(block.slice(1, -1), start + 1);
  expect(slow.diagnostics).toEqual([]);
  expect(fast).toEqual(slow.statements);
  return true;
}

const whitespace = fc.constantFrom('', ' ', '\n', ' /* c */ ', '// c\n', '\r\n', '\t');
const leaf = fc.constantFrom('a', 'b', 'this.x', 'this', '1', '0', '2.5', '1e2', "'s'", '"t"', 'null', 'true', 'undefined', 'xs', 'of', 'let');
const binaryOperators = ['+', '-', '*', '/', '%', '**', '==', '!==', '<', '>=', '&', '|', '^', '<<', '>>>', '&&', '||', '??', 'in'];
const { expression } = fc.letrec((tie) => ({
  expression: fc.oneof(
    { depthSize: 'small' },
    leaf,
    fc.tuple(tie('expression'), fc.constantFrom(...binaryOperators), tie('expression'), whitespace).map(([a, o, b, w]) => `${a}${w}${o} ${b}`),
    fc.tuple(fc.constantFrom('!', '-', '+', '~', 'delete ', '++', '--', '- '), tie('expression')).map(([o, a]) => `${o}${a}`),
    fc.tuple(tie('expression'), fc.constantFrom('++', '--'), whitespace).map(([a, o, w]) => `${a}${w}${o}`),
    fc.tuple(tie('expression'), whitespace).map(([a, w]) => `(${w}${a}${w})`),
    fc.tuple(tie('expression'), fc.constantFrom('.length', '.default', '[0]', '[a]', '(1)', '(a, b)', '()', '(a,)', '?.x')).map(([a, s]) => `${a}${s}`),
    fc.tuple(tie('expression'), tie('expression'), tie('expression')).map(([a, b, c]) => `${a} ? ${b} : ${c}`),
    fc.tuple(tie('expression'), fc.constantFrom('=', '+=', '%=', '**=', '<<='), tie('expression')).map(([a, o, b]) => `${a} ${o} ${b}`),
    fc.array(tie('expression'), { maxLength: 3 }).map((items) => `[${items.join(', ')}]`),
    fc.array(fc.tuple(fc.constantFrom('a', 'default', 'x'), tie('expression')), { maxLength: 3 }).map((entries) => `{ ${entries.map(([k, v]) => `${k}: ${v}`).join(', ')} }`),
  ),
}));
const statement = fc.tuple(fc.constantFrom('', 'let v = ', 'const w = ', 'return ', 'return\n', 'throw ', 'if', 'while', 'for', 'forOf'), expression, whitespace).map(([kind, e, w]) => {
  switch (kind) {
    case 'if':
      return `if (${e})${w}{ a = 1; } else b = 2;`;
    case 'while':
      return `while (${e}) break;`;
    case 'for':
      return `for (let i = ${e}; i < 3; i++) { continue; }`;
    case 'forOf':
      return `for (const x of ${e}) {}`;
    default:
      return `${kind}${e}${w};`;
  }
});
const body = fc.array(statement, { minLength: 1, maxLength: 4 }).map((statements) => `{\n${statements.join('\n')}\n}`);

describe('the fast body parser', () => {
  it('agrees with acorn on every body of the fixtures it takes, and takes most of them', () => {
    let taken = 0;
    let total = 0;
    for (const fixture of [...loadFixtures('schemas'), ...loadFixtures('extensions'), ...loadFixtures('rejected')]) {
      const { program } = parse(fixture.text);
      for (const collection of program?.collections ?? []) {
        for (const item of collection.items) {
          if (item.kind !== 'function') continue;
          total++;
          if (agree(fixture.text.slice(item.body.span.start, item.body.span.end), item.body.span.start)) taken++;
        }
      }
    }
    expect(taken).toBeGreaterThan(total / 2);
  });

  it('agrees with acorn on generated bodies', () => {
    let taken = 0;
    fc.assert(
      fc.property(body, fc.nat({ max: 1000 }), (block, start) => {
        if (agree(block, start)) taken++;
      }),
      { numRuns: 3000 },
    );
    // The generator is meant to reach the fast path often, not only its refusals.
    expect(taken).toBeGreaterThan(300);
  });

  it('gives up, rather than guessing, where acorn inserts semicolons or reads regular expressions', () => {
    for (const block of ['{ return\nx; }', '{ a\n++b; }', '{ let x = 1 }', '{ x = /a/g; }', "{ x = 'a\\'b'; }", '{ x = 07; }', '{ a ?? b || c; }']) {
      expect(parseBodyFast(block, 0), block).toBeUndefined();
    }
  });

  it('gives up at a spread, which acorn then reports', () => {
    for (const block of ['{ f(...a); }', '{ x = [...a]; }', '{ x = { ...a }; }']) {
      expect(parseBodyFast(block, 0), block).toBeUndefined();
      expect(parseBody(block.slice(1, -1), 1).diagnostics, block).not.toEqual([]);
    }
  });
});
