// Doc comments in the AST: `///` lines and `/** */` blocks right before a collection, field or function.
import { describe, expect, it } from 'vitest';
import { formatSchema, parse, type Collection } from '../../src/lang/index.ts';

function collection(text: string): Collection {
  return parse(text).program!.collections[0]!;
}

describe('doc comments', () => {
  const text = [
    '/// An account.',
    '/// Holds a balance.',
    '@public',
    'collection Account {',
    '  /** The key. */',
    '  id: string;',
    '  // not documentation',
    '  balance: number;',
    '  /**',
    '   * Adds to the balance.',
    '   *',
    '   * Never below zero.',
    '   */',
    '  @call(owner)',
    '  deposit (amount: number) {}',
    '  /// among the decorators',
    '  owner: PublicKey;',
    '  /// documents x, not y on the same line',
    '  x: string; y: string;',
    '}',
  ].join('\n');

  it('are kept on collections, fields and functions as plain text', () => {
    const account = collection(text);
    expect(account.doc).toBe('An account.\nHolds a balance.');
    const docs = Object.fromEntries(account.items.map((item) => [item.kind === 'index' || item.kind === 'search' ? item.kind : item.name.name, item.kind === 'index' || item.kind === 'search' ? undefined : item.doc]));
    expect(docs).toEqual({
      id: 'The key.',
      balance: undefined,
      deposit: 'Adds to the balance.\n\nNever below zero.',
      owner: 'among the decorators',
      x: 'documents x, not y on the same line',
      y: undefined,
    });
  });

  it('between a decorator and its node, and survive formatting', () => {
    const between = '@public\n/// Notes.\ncollection Note {\n  id: string;\n  @read\n  /** the writer */\n  writer: PublicKey;\n}\n';
    const note = collection(between);
    expect(note.doc).toBe('Notes.');
    const formatted = formatSchema(between).formatted!;
    expect(collection(formatted).doc).toBe('Notes.');
    expect(collection(formatted).items.map((i) => (i.kind === 'field' ? i.doc : null))).toEqual([undefined, 'the writer']);
  });

  it('ordinary comments, `////` and an empty `/**/` are not doc comments', () => {
    expect(collection('// plain\ncollection A { id: string; }').doc).toBeUndefined();
    expect(collection('//// banner\ncollection A { id: string; }').doc).toBeUndefined();
    expect(collection('/**/\ncollection A { id: string; }').doc).toBeUndefined();
    expect(collection('/// a\n\n/// b\ncollection A { id: string; }').doc).toBe('a\nb');
  });
});
