// @private (Polylang after 0.6) and the permission default: Vellum keeps Polybase's private default, so
// @private means what no decorator means, and a contract without any decorator is warned about (the late
// Polylang compiler made it public).
import { describe, expect, it } from 'vitest';
import { checkSchema, parse, toStableAst } from '../../src/lang/index.ts';
import { callableByEveryone, readableByEveryone } from '../../src/runtime/index.ts';
import { load } from '../runtime/helpers.ts';
import { located, reported } from './check-helpers.ts';

const note = (keyword: string, decorators: string) =>
  `${decorators}\n${keyword} Note {\n  id: string;\n  text: string;\n  constructor (id: string) { this.id = id; this.text = ''; }\n  edit(text: string) { this.text = text; }\n}`;

describe('@private', () => {
  it('is accepted on a collection or contract and means no collection-wide read or call', () => {
    expect(reported(note('contract', '@private'))).toEqual([]);
    expect(reported(note('collection', '@private'))).toEqual([]);
    const checked = checkSchema(note('contract', '@private'));
    expect(checked.checked!.collections[0]!.permissions).toEqual({ public: false, read: false, call: false });
    const withPrivate = checkSchema(note('collection', '@private')).checked!.collections[0]!;
    const without = checkSchema(note('collection', '')).checked!.collections[0]!;
    expect(withPrivate.permissions).toEqual(without.permissions);
  });

  it('contradicting @public, @read or @call is an error (the compiler let the first one win)', () => {
    for (const granted of ['public', 'read', 'call']) {
      expect(reported(note('contract', `@${granted} @private`))).toMatchObject([
        { code: 'V2026', message: `@private contradicts @${granted} on the same collection: @private means no collection-wide read or call` },
      ]);
    }
  });

  it('takes no arguments, and belongs on a collection, not a field or function', () => {
    expect(located(note('collection', '@private(text)'))[0]).toMatch(/^V2\d{3} 1:1 @private\(text\)/);
    expect(reported('collection T { id: string; @private owner: PublicKey; }')).toMatchObject([{ code: 'V2028', severity: 'error' }]);
    expect(reported('collection T { id: string; @private f() {} }')).toMatchObject([{ code: 'V2028', severity: 'error' }]);
  });

  it('is kept in the stable AST as a directive', () => {
    const parsed = parse(note('collection', '@private'));
    expect(toStableAst(parsed.program!, parsed.source, 'ns')[0]!.attributes.at(-1)).toEqual({ kind: 'directive', name: 'private', arguments: [] });
  });

  it('an unknown decorator lists @private among the known ones', () => {
    expect(reported(note('collection', '@secret'))[0]!.message).toBe('unknown decorator @secret; expected one of @public, @read, @call, @delegate, @private');
  });
});

describe('the permission default', () => {
  it('a contract with no decorator is warned about, and stays private', () => {
    expect(located(note('contract', ''))).toEqual(['V2027 2:10 Note']);
    expect(reported(note('contract', ''))[0]!.severity).toBe('warning');
    for (const decorators of ['', '@private']) {
      const collection = load(note('contract', decorators), 'Note');
      expect(readableByEveryone(collection)).toBe(false);
      expect(callableByEveryone(collection, 'edit')).toBe(false);
    }
    expect(readableByEveryone(load(note('contract', '@public'), 'Note'))).toBe(true);
  });

  it('a collection (the 0.6 keyword) with no decorator is not warned about; a decorated contract is not either', () => {
    expect(reported(note('collection', ''))).toEqual([]);
    expect(reported(note('contract', '@public'))).toEqual([]);
    expect(reported(note('contract', '@read'))).toEqual([]);
  });
});
