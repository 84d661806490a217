import { describe, expect, it } from 'vitest';
import { castStoredRecord } from '../../src/runtime/index.ts';
import { load } from './helpers.ts';

const SCHEMA = `
collection Thing {
  id: string;
  text: string;
  count: number;
  flag: boolean;
  data: bytes;
  list: number[];
  names: map<string, string>;
  info: { a: number; b?: string; };
  other: Other;
  note?: string;
  constructor (id: string) { this.id = id; }
}
collection Other { id: string; constructor (id: string) { this.id = id; } }
`;
const thing = load(SCHEMA, 'Thing', { check: false });

describe('castStoredRecord', () => {
  it("fills each missing required field with its type's default, as Polybase 0.6 did", () => {
    const cast = castStoredRecord(thing, { id: 't' });
    expect(cast).toEqual({
      ok: true,
      changed: true,
      record: { id: 't', text: '', count: 0, flag: false, data: '', list: [], names: {}, info: { a: 0 }, other: { collectionId: '', id: '' } },
    });
  });

  it('casts values of a changed type where a cast is defined, inside arrays, maps and objects too', () => {
    const cast = castStoredRecord(thing, {
      id: 't',
      text: 12.5,
      count: ' 7 ',
      flag: 'true',
      data: 'AQI=',
      list: ['1', 2, '-3e2'],
      names: { a: 1, b: false },
      info: { a: '4', b: 5 },
      other: { collectionId: '', id: '' },
      note: null,
      dropped: 'x',
    });
    expect(cast.ok && cast.record).toEqual({
      id: 't',
      text: '12.5',
      count: 7,
      flag: true,
      data: 'AQI=',
      list: [1, 2, -300],
      names: { a: '1', b: 'false' },
      info: { a: 4, b: '5' },
      other: { collectionId: '', id: '' },
    });
  });

  it('reports a record that already has its exact form as unchanged', () => {
    const record = { id: 't', text: '', count: 0, flag: false, data: '', list: [], names: {}, info: { a: 0 }, other: { collectionId: '', id: '' } };
    expect(castStoredRecord(thing, record)).toEqual({ ok: true, changed: false, record });
  });

  it('fails, naming the field, where no cast is defined or a required PublicKey is missing', () => {
    const base = { id: 't', text: '', count: 0, flag: false, data: '', list: [], names: {}, info: { a: 0 }, other: { collectionId: '', id: '' } };
    const failures: [Record<string, unknown>, string][] = [
      [{ count: 'seven' }, 'count'],
      [{ count: '' }, 'count'],
      [{ flag: 1 }, 'flag'],
      [{ text: { a: 1 } }, 'text'],
      [{ data: 'not base64!' }, 'data'],
      [{ list: [1, 'x'] }, 'list[1]'],
      [{ info: 3 }, 'info'],
      [{ other: { collectionId: 'ns/Else', id: 'x' } }, 'other'],
    ];
    for (const [change, path] of failures) {
      const cast = castStoredRecord(thing, { ...base, ...change });
      expect(cast.ok, JSON.stringify(change)).toBe(false);
      if (!cast.ok) expect(cast.path).toBe(path);
    }
    const keyed = load('collection K { id: string; owner: PublicKey; constructor (id: string) { this.id = id; this.owner = ctx.publicKey; } }', 'K', { check: false });
    expect(castStoredRecord(keyed, { id: 'k' })).toEqual({ ok: false, path: 'owner', message: 'required field "owner" is missing and type PublicKey has no default' });
  });

  it('casts only decimal number text to a number: hex, binary or octal text is refused, not rewritten', () => {
    const base = { id: 't', text: '', count: 0, flag: false, data: '', list: [], names: {}, info: { a: 0 }, other: { collectionId: '', id: '' } };
    for (const [text, number] of [['12', 12], ['-1.5', -1.5], ['+3', 3], ['.5', 0.5], ['2.', 2], ['1e3', 1000], ['1E-2', 0.01]] as const) {
      const cast = castStoredRecord(thing, { ...base, count: text });
      expect(cast, text).toEqual({ ok: true, changed: true, record: { ...base, count: number } });
    }
    for (const text of ['0x10', '0b11', '0o7', ' 0x10 ', '1_000', 'Infinity', '1e400', '1e', '.']) {
      const cast = castStoredRecord(thing, { ...base, count: text });
      expect(cast.ok, JSON.stringify(text)).toBe(false);
      if (!cast.ok) expect(cast.path).toBe('count');
    }
  });
});
