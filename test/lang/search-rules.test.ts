// `@search(field, ...)`: parsed, printed, checked like `@index` (string fields only, known fields, no duplicates,
// one per collection), left out of Polylang 0.6's stable AST, and turned into the layout's search index.

import { describe, expect, it } from 'vitest';
import { checkSchema, parse, print, toStableAst } from '../../src/lang/index.ts';
import { layoutOf } from '../../src/store/index.ts';
import { located, reported } from './check-helpers.ts';

const schema = (search: string) => `collection Post {
  id: string;
  title: string;
  body?: string;
  views: number;
  tags: string[];
  ${search}
  constructor (id: string, title: string) { this.id = id; this.title = title; this.views = 0; this.tags = []; }
}`;

describe('@search', () => {
  it('accepts top-level string fields, optional ones too, with a trailing comma', () => {
    expect(located(schema('@search(title, body);'))).toEqual([]);
    expect(located(schema('@search(title,);'))).toEqual([]);
  });

  it('V2033–V2037: unknown, non-string, repeated fields; a second @search; no field', () => {
    expect(located(schema('@search(title, nope);'))).toEqual(['V2033 7:18 nope']);
    expect(located(schema('@search(views, tags);'))).toEqual(['V2034 7:11 views', 'V2034 7:18 tags']);
    expect(reported(schema('@search(views);'))[0]!.message).toBe('cannot search field "views" of type number; @search covers top-level string fields only');
    expect(located(schema('@search(title, title);'))).toEqual(['V2035 7:18 title']);
    expect(located(schema('@search(title); @search(body);'))).toEqual(['V2036 7:19 @search(body);']);
    expect(located(schema('@search();'))).toEqual(['V2037 7:3 @search();']);
  });

  it('prints back to itself and stays out of the stable AST', () => {
    const { program } = parse(schema('@search(title, body);'));
    const printed = print(program!);
    expect(printed).toContain('@search(title, body);');
    expect(print(parse(printed).program!)).toBe(printed);
    const stable = (text: string) => JSON.stringify(toStableAst(parse(text).program!, text, 'ns').map((c) => c.attributes.filter((a) => a.kind !== 'method')));
    expect(stable(schema('@search(title, body);'))).toBe(stable(schema('')));
  });

  it('gives the layout a search index whose id follows its fields', () => {
    const layout = (text: string) => layoutOf(checkSchema(text).program!.collections[0]!);
    const a = layout(schema('@search(title, body);'));
    expect(a.search?.fields).toEqual(['title', 'body']);
    expect(layout(schema('@search(title, body);')).search).toEqual(a.search);
    expect(layout(schema('@search(body, title);')).search!.id).not.toBe(a.search!.id);
    expect(layout(schema('')).search).toBeUndefined();
    expect('search' in layout(schema(''))).toBe(false); // layouts without @search are unchanged
  });
});
