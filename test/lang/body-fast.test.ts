// The fast body parser (body-fast.ts) against acorn + body.ts: whenever the fast path answers, the
// statements (spans included) are exactly those the acorn path gives, and the acorn path reports
// nothing. Where it gives up, acorn decides, so diagnostics never depend on which path ran.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseBody } from '../../src/lang/body.ts';
import { parseBodyFast, readBodyFast } from '../../src/lang/body-fast.ts';
import { scanBody } from '../../src/lang/body-scanner.ts';
import { MAX_NESTING_DEPTH, parse } from '../../src/lang/index.ts';
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

/**
 * readBodyFast on the body whose `{` is at `open` in `text`: whenever it answers, body-scanner.ts finds the same end
 * and no problem, and the statements are parseBodyFast's on the body alone, which agree with acorn's. Whether it answered.
 */
function readAgrees(text: string, open: number): boolean {
  const read = readBodyFast(text, open, MAX_NESTING_DEPTH);
  if (read === undefined) return false;
  const scan = scanBody(text, open, MAX_NESTING_DEPTH);
  expect({ end: scan.end, closed: scan.closed, problems: scan.problems }).toEqual({ end: read.end, closed: true, problems: [] });
  expect(agree(text.slice(open, read.end), open)).toBe(true);
  expect(read.statements).toEqual(parseBodyFast(text.slice(open, read.end), open));
  return true;
}

/** Every function body of the fixtures: the whole text and the offset of the body's `{`. */
const fixtureBodies = [...loadFixtures('schemas'), ...loadFixtures('extensions'), ...loadFixtures('rejected')].flatMap((fixture) =>
  (parse(fixture.text).program?.collections ?? []).flatMap((collection) =>
    collection.items.flatMap((item) => (item.kind === 'function' ? [{ text: fixture.text, open: item.body.span.start, end: item.body.span.end }] : [])),
  ),
);

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

  it('reads every body of the fixtures in place as the scanner and acorn do', () => {
    let taken = 0;
    for (const { text, open } of fixtureBodies) if (readAgrees(text, open)) taken++;
    expect(taken).toBeGreaterThan(fixtureBodies.length / 2);
  });

  it('agrees with acorn and the scanner on mutated bodies of the fixtures', () => {
    // Edits that make tokens the tokenizer must split exactly as acorn does: operators glued together, keywords and
    // names glued to words, numbers, strings and comments cut open, line breaks where acorn inserts semicolons.
    const piece = fc.constantFrom(
      ...'{}()[];,.?:=<>+-*/%&|^!~\'"`#@ \n\r\t0123456789_$aeiz'.split(''),
      '=>', '===', '!==', '>>>=', '**', '?.', '??', '...', '<!--', '-->', '//', '/*', '*/', '\u2028', 'é', '\\',
      'if', 'else', 'let', 'const', 'of', 'in', 'this', 'null', 'true', 'delete', 'return', '__proto__', 'eval', 'iff', 'lets',
      '12345678901234567', '0.1', '1e5', '07', '.5', '1_0',
    );
    const edit = fc.record({ at: fc.nat(), length: fc.nat({ max: 3 }), insert: fc.array(piece, { maxLength: 2 }) });
    let taken = 0;
    fc.assert(
      fc.property(fc.nat(fixtureBodies.length - 1), fc.array(edit, { minLength: 1, maxLength: 3 }), (which, edits) => {
        const { text, open, end } = fixtureBodies[which]!;
        let body = text.slice(open + 1, end - 1);
        for (const { at, length, insert } of edits) {
          const position = at % (body.length + 1);
          body = body.slice(0, position) + insert.join('') + body.slice(position + length);
        }
        const mutated = `${text.slice(0, open)}{${body}}${text.slice(end)}`;
        if (readAgrees(mutated, open)) taken++;
        agree(`{${body}}`, open);
      }),
      { numRuns: 3000 },
    );
    // Most single edits leave a body plain, so the fast path answers often.
    expect(taken).toBeGreaterThan(300);
  });

  it('agrees with acorn on names: keywords, words near them, long ones and many distinct ones', () => {
    // Names are remembered between bodies (a table of limited size, by a hash), so the same text must mean the same
    // word whatever came before: thousands of names, then keywords and names again.
    const words = ['if', 'else', 'while', 'for', 'return', 'let', 'const', 'of', 'in', 'this', 'null', 'true', 'false', 'delete', 'eval', 'yield', '__proto__', 'constructor', 'iff', 'lets', 'thiss', 'nul', 'x'];
    const many = Array.from({ length: 6000 }, (_, i) => `n${(i * 7919).toString(36)}`);
    const long = ['a'.repeat(40), 'b'.repeat(41), `${'c'.repeat(60)}1`, 'abcdefghijklmnopqrstuvwxyz_$0123456789ABCDEFGH'];
    for (const names of [many, words, long, words.map((word) => `${word}$`), many.slice(0, 100), long, words]) {
      const block = `{\n${names.map((name) => `  x.${name} = ${name} + this.${name};\n  let ${name} = 1;`).join('\n')}\n}`;
      agree(block, 3);
      for (const name of names) agree(`{ ${name} = ${name}; f(${name}.${name}); }`, 0);
    }
    const name = fc.stringMatching(/^[A-Za-z_$][A-Za-z0-9_$]{0,50}$/);
    fc.assert(
      fc.property(fc.array(fc.oneof(name, fc.constantFrom(...words)), { minLength: 1, maxLength: 6 }), (names) => {
        agree(`{ ${names.map((n) => `a = ${n}; b.${n} = { ${n}: ${n} };`).join(' ')} }`, 0);
      }),
      { numRuns: 2000 },
    );
  });

  it('agrees with acorn on numbers', () => {
    const digits = fc.stringMatching(/^[0-9]{1,22}$/);
    const number = fc.tuple(digits, fc.option(fc.stringMatching(/^\.[0-9]{0,20}$/)), fc.option(fc.stringMatching(/^[eE][+-]?[0-9]{0,4}$/))).map(([whole, fraction, exponent]) => `${whole}${fraction ?? ''}${exponent ?? ''}`);
    let taken = 0;
    fc.assert(
      fc.property(number, (text) => {
        if (agree(`{ x = ${text}; y = -${text} * 2; }`, 0)) taken++;
      }),
      { numRuns: 2000 },
    );
    expect(taken).toBeGreaterThan(500);
    for (const text of ['9007199254740993', '99523177559339470', '69561209032316024', '999999999999999', '9999999999999999', '123456789012345678901234567890', '1.7976931348623157e308', '1e400', '0.1', '0']) {
      expect(agree(`{ x = ${text}; }`, 0), text).toBe(true);
    }
  });

  it('splits runs of operator characters as acorn does, or gives up', () => {
    const operatorCharacter = fc.constantFrom(...'=<>!+-*/%&|^~?:.'.split(''));
    let taken = 0;
    fc.assert(
      fc.property(fc.array(operatorCharacter, { minLength: 1, maxLength: 5 }), fc.constantFrom('a', '1', '(b)', 'c.d'), (operators, operand) => {
        if (agree(`{ x = a ${operators.join('')} ${operand}; a${operators.join('')}${operand}; }`, 0)) taken++;
      }),
      { numRuns: 3000 },
    );
    expect(taken).toBeGreaterThan(100);
  });
});
