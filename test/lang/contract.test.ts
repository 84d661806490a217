// `contract` (Polylang after 0.6): a top-level keyword beside `collection`, meaning the same, and still an
// ordinary name everywhere else, as in Polylang 0.6 (schemas on Polybase's testnet had fields named `contract`).
import { describe, expect, it } from 'vitest';
import { checkSchema, parse, print, toStableAst } from '../../src/lang/index.ts';
import { errors, reported } from './check-helpers.ts';
import { stripSpans } from './strip-spans.ts';

const account = (keyword: string) => `@public
${keyword} Account {
  id: string;
  balance: number;
  constructor (id: string) { this.id = id; this.balance = 0; }
  deposit(amount: number) { this.balance += amount; }
}`;

describe('contract as the keyword of a collection', () => {
  it('parses to the same collection as `collection`, marked only by contractKeyword', () => {
    const asContract = parse(account('contract'));
    const asCollection = parse(account('collection'));
    expect(asContract.diagnostics).toEqual([]);
    const { contractKeyword, ...rest } = stripSpans(asContract.program!.collections[0]!);
    expect(contractKeyword).toBe(true);
    expect(rest).toEqual(stripSpans(asCollection.program!.collections[0]!));
    expect('contractKeyword' in asCollection.program!.collections[0]!).toBe(false);
  });

  it('the stable AST (what Polybase stores and its client reads) says collection', () => {
    const asContract = parse(account('contract'));
    const asCollection = parse(account('collection'));
    const stable = toStableAst(asContract.program!, asContract.source, 'ns');
    expect(stable[0]!.kind).toBe('collection');
    // The method code is the same text, so the whole stable AST is the same.
    expect(JSON.stringify(stable)).toBe(JSON.stringify(toStableAst(asCollection.program!, asCollection.source, 'ns')));
  });

  it('checks like a collection, and prints back as a contract', () => {
    expect(reported(account('contract'))).toEqual([]);
    const { program } = parse(account('contract'));
    const printed = print(program!);
    expect(printed).toMatch(/^contract Account \{/m);
    expect(stripSpans(parse(printed).program)).toEqual(stripSpans(program));
    expect(errors('contract T { name: string; }')[0]).toMatchObject({ code: 'V2003' });
  });

  it('collections and contracts mix in one schema and reference each other', () => {
    const text = `@public contract User { id: string; }
collection Post { id: string; author: User; constructor (id: string, author: User) { this.id = id; this.author = author; } }`;
    expect(reported(text)).toEqual([]);
  });
});

describe('contract is still a name everywhere else', () => {
  it('as a field, parameter, function, variable, decorator argument, collection name and type', () => {
    const text = `collection contract {
  id: string;
}
collection Deal {
  id: string;
  @delegate
  contract: PublicKey;
  other: contract;
  @call(contract)
  constructor (id: string, contract: PublicKey, other: contract) {
    this.id = id;
    this.contract = contract;
    this.other = other;
  }
  signed(): contract { let contract = this.other; return contract; }
}
@private contract in { id: string; of: number; }`;
    expect(reported(text)).toEqual([]);
    const deal = parse(text).program!.collections[1]!;
    expect(deal.items[1]).toMatchObject({ kind: 'field', name: { name: 'contract' } });
    expect(deal.items[2]).toMatchObject({ kind: 'field', type: { kind: 'referenceType', collection: { name: 'contract' } } });
  });

  it('a function named contract, with a contract parameter', () => {
    expect(reported('collection T { id: string; contract(contract: string): string { return contract; } }')).toEqual([]);
  });

  it('what a 0.6 schema using contract as a name parses to is unchanged', () => {
    const text = 'collection T { id: string; contract: string; contract2: number; }';
    const { program } = parse(text);
    expect(program!.collections[0]!.items.map((item) => item.kind === 'field' && item.name.name)).toEqual(['id', 'contract', 'contract2']);
  });
});

describe('errors', () => {
  it('a contract without a name says a name is expected', () => {
    expect(reported('contract 5')).toMatchObject([{ code: 'V1004', message: 'unexpected `5`, expected identifier', at: '1:10' }]);
    expect(reported('contract')).toMatchObject([{ code: 'V1005', message: 'unexpected end of file, expected identifier' }]);
  });

  it('a stray word at the top level still suggests `collection`', () => {
    expect(reported('colection T { id: string; }')[0]).toMatchObject({ code: 'V1004', message: 'unexpected `colection`, expected `collection`' });
  });

  it('a root function named contract is reported as a root function', () => {
    expect(checkSchema('contract() {}').diagnostics.map((d) => d.code)).toEqual(['V1007']);
  });
});
