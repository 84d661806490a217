import { describe, expect, it } from 'vitest';
import { parse } from '../../src/lang/index.ts';
import { layoutOf, StoreError, type Layout } from '../../src/store/index.ts';
import { collection, personLayout } from './schemas.ts';

const shape = (layout: Layout) => layout.indexes.map((index) => index.fields.map((f) => (f.direction === 'asc' ? f.path : `${f.path} desc`)).join(', '));

describe('layoutOf', () => {
  it('indexes every top-level indexable field automatically, adds declared indexes with id last, shortest first', () => {
    expect(shape(personLayout)).toEqual([
      'id',
      'name, id',
      'age, id',
      'active, id',
      'owner, id',
      'boss, id',
      'name, age desc, id',
      'info.city, age, id',
    ]);
    expect(personLayout.indexes[0]!.primary).toBe(true);
    expect(personLayout.indexes.slice(1).every((index) => !index.primary)).toBe(true);
  });

  it('records the type of every field path, nested ones included', () => {
    expect(personLayout.fields['info.city']).toEqual({ path: 'info.city', typeText: 'string', indexable: { kind: 'string' } });
    expect(personLayout.fields['boss']!.indexable).toEqual({ kind: 'reference', collection: 'Person' });
    expect(personLayout.fields['tags']!.indexable).toBeNull();
    expect(personLayout.fields['photo']!.indexable).toBeNull();
    expect(personLayout.fields['info']!.typeText).toBe('{ info.city: string; info.zip?: number; }');
  });

  it('keeps a declared single-field index instead of the automatic one, and drops duplicates', () => {
    const layout = layoutOf(collection('A', { id: 'string', n: 'number', m: 'number' }, [['n desc'], ['n desc'], ['m', 'id'], ['id desc']]));
    expect(shape(layout)).toEqual(['id', 'n desc, id', 'm, id']);
  });

  it('names indexes by their fields, directions and types, so a changed index gets a new name', () => {
    const a = layoutOf(collection('A', { id: 'string', n: 'number' }, [['n', 'id desc']]));
    const b = layoutOf(collection('A', { id: 'string', n: 'number' }, [['n desc', 'id desc']]));
    const c = layoutOf(collection('A', { id: 'string', n: 'string' }, [['n', 'id desc']]));
    const names = [a, b, c].map((layout) => layout.indexes.find((i) => i.fields[0]!.path === 'n' && i.fields.length === 2 && i.fields[1]!.direction === 'desc')!.id);
    expect(new Set(names).size).toBe(3);
    expect(names.every((name) => /^[0-9a-f]{16}$/.test(name))).toBe(true);
  });

  it('indexes an array of indexable values element by element, only where an @index names it', () => {
    const layout = layoutOf(collection('A', { id: 'string', tags: 'string[]', n: 'number' }, [['tags', 'n desc']]));
    expect(layout.fields.tags).toMatchObject({ indexable: null, element: { kind: 'string' } });
    const declared = layout.indexes.find((index) => index.fields[0]!.path === 'tags')!;
    expect(declared.fields.map((f) => [f.path, f.direction, f.array ?? false])).toEqual([
      ['tags', 'asc', true],
      ['n', 'desc', false],
      ['id', 'asc', false],
    ]);
    // No automatic index for an array (every element is an entry holding a copy of the record).
    expect(layout.indexes.filter((index) => index.fields.some((f) => f.array))).toHaveLength(1);
  });

  it('rejects an index on a missing or unindexable field with a typed error, not a crash', () => {
    const missing = () => layoutOf(collection('A', { id: 'string' }, [['nope']]));
    expect(missing).toThrow(StoreError);
    expect(missing).toThrow('index field "nope" not found in schema');
    expect(() => layoutOf(collection('A', { id: 'string', tags: 'string[]', more: 'string[]' }, [['tags', 'more']]))).toThrow(
      'an index may hold at most one array field, got "tags" and "more"',
    );
    expect(() => layoutOf(collection('A', { id: 'string', m: 'map<string, number>' }, [['m']]))).toThrow('cannot index field "m" of type map<string, number>');
    expect(() => layoutOf(collection('A', { id: 'string', o: { object: { a: 'string' } } }, [['o']]))).toThrow('cannot index field "o" of type { o.a: string; }');
    // A type inside a map prints on one line too (schema text lays object types out over several lines).
    const mapOfObjects = parse('collection A { id: string; m: map<string, { a: string; b?: number; }>; @index(m); }').program!.collections[0]!;
    expect(() => layoutOf(mapOfObjects)).toThrow('cannot index field "m" of type map<string, { a: string; b?: number; }>');
    try {
      missing();
    } catch (error) {
      expect((error as StoreError).reason).toBe('collection/invalid-schema');
    }
  });

  it('derives the same layout from parsed schema text', () => {
    const text = `collection Person {
      id: string;
      name: string;
      age?: number;
      active?: boolean;
      owner?: PublicKey;
      boss?: Person;
      info?: { city: string; zip?: number; };
      tags?: string[];
      photo?: bytes;
      @index(name, [age, desc]);
      @index(info.city, age);
    }`;
    const { program, diagnostics } = parse(text);
    expect(diagnostics).toEqual([]);
    expect(layoutOf(program!.collections[0]!)).toEqual(personLayout);
  });

  it('copes with field names that are Object.prototype properties', () => {
    const fields = JSON.parse('{"id": "string", "__proto__": "number", "constructor": "string"}') as Record<string, 'string' | 'number'>;
    const layout = layoutOf(collection('A', fields, [['__proto__', 'constructor']]));
    expect(Object.keys(layout.fields).sort()).toEqual(['__proto__', 'constructor', 'id']);
    expect(layout.indexes.map((i) => i.fields.length)).toEqual([1, 2, 2, 3]);
  });

  it('is plain JSON', () => {
    expect(JSON.parse(JSON.stringify(personLayout))).toEqual(personLayout);
  });
});
