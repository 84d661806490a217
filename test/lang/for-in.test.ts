// for…in (Polylang after 0.6): an array gives its indexes as numbers, a map its keys.
import { describe, expect, it } from 'vitest';
import { parse, print } from '../../src/lang/index.ts';
import { execute } from '../../src/runtime/index.ts';
import { load, ok } from '../runtime/helpers.ts';
import { located } from './check-helpers.ts';
import { stripSpans } from './strip-spans.ts';

const schema = `collection T {
  id: string;
  tags: string[];
  scores: map<string, number>;
  byDay: map<number, string>;
  indexes(): number[] { let out: number[] = []; for (let i in this.tags) { out.push(i * 10); } return out; }
  keys(): string { let out = ''; for (const k in this.scores) { out += k + '=' + this.scores[k] + ';'; } return out; }
  days(): number { let total = 0; for (let d in this.byDay) { total += d; } return total; }
  firstTagAt(tag: string): number { for (let i in this.tags) { if (this.tags[i] == tag) { return i; } } return -1; }
}`;

describe('for…in', () => {
  it('parses to a for…of marked forIn, prints back, and leaves for…of exactly as it was', () => {
    const { program, diagnostics } = parse(schema);
    expect(diagnostics).toEqual([]);
    const printed = print(program!);
    expect(printed).toContain('for (let i in this.tags)');
    expect(stripSpans(parse(printed).program)).toEqual(stripSpans(program));
    const forOf = parse('collection T { id: string; xs: number[]; f() { for (let x of this.xs) {} } }').program!;
    expect(JSON.stringify(forOf)).not.toContain('forIn');
  });

  it('types the variable as the index (number) or the map key', () => {
    expect(located(schema)).toEqual([]);
    expect(located("collection T { id: string; tags: string[]; f() { for (let i in this.tags) { let s: string = i; } } }")).toEqual([
      'V3006 1:93 i',
    ]);
    expect(located('collection T { id: string; n: number; f() { for (let i in this.n) {} } }')).toEqual(['V3020 1:59 this.n']);
  });

  it('runs: indexes as numbers, keys in insertion order, number keys as numbers', () => {
    const collection = load(schema, 'T');
    const record = { id: 't', tags: ['a', 'b', 'c'], scores: { x: 1, y: 2 }, byDay: { '3': 'w', '4': 't' } };
    expect(ok(execute(collection, 'indexes', record, [])).returnValue).toEqual([0, 10, 20]);
    expect(ok(execute(collection, 'keys', record, [])).returnValue).toBe('x=1;y=2;');
    expect(ok(execute(collection, 'days', record, [])).returnValue).toBe(7);
    expect(ok(execute(collection, 'firstTagAt', record, ['c'])).returnValue).toBe(2);
  });

  it('var and a bare name are still refused, naming for…in', () => {
    expect(located('collection T { id: string; xs: number[]; f() { let i = 0; for (i in this.xs) {} } }')[0]).toMatch(/^V1009/);
  });
});
