// The store's cache of the records it committed last (recent-records.ts): newest version kept, bounded size.
import { describe, expect, it } from 'vitest';
import { RECENT_ENTRY_OVERHEAD_CHARS, RECENT_KEY_OVERHEAD_CHARS, RecentRecords } from '../../src/store/recent-records.ts';

describe('recent records', () => {
  it('keeps the newest version of a record, whatever order the commits are reported in, and forgets deleted ones', () => {
    const recent = new RecentRecords();
    recent.committed('ns/A', 'x', '{"id":"x","v":2}', 20);
    recent.committed('ns/A', 'x', '{"id":"x","v":1}', 10);
    expect(recent.get('ns/A', 'x')).toMatchObject({ text: '{"id":"x","v":2}', version: 20 });
    recent.committed('ns/A', 'x', '{"id":"x","v":3}', 30);
    expect(recent.get('ns/A', 'x')?.version).toBe(30);
    expect(recent.get('ns/B', 'x')).toBeUndefined();
    recent.deleted('ns/A', 'x');
    expect(recent.get('ns/A', 'x')).toBeUndefined();
    expect(recent.size).toBe(0);
  });

  it('tells apart pairs that would join to the same text', () => {
    const recent = new RecentRecords();
    recent.committed('a', 'b\u0000c', '1', 1);
    recent.committed('a\u0000b', 'c', '2', 2);
    expect(recent.get('a', 'b\u0000c')?.text).toBe('1');
    expect(recent.get('a\u0000b', 'c')?.text).toBe('2');
  });

  it('stays within its budget, evicting the least recently committed, and keeps no record longer than 16 Ki', () => {
    // Ten entries' worth: each costs its text, its key ('4:ns/A', a NUL and the id) and the fixed overhead.
    const recent = new RecentRecords(10 * (100 + 'N:ns/A\u0000r99'.length + RECENT_ENTRY_OVERHEAD_CHARS));
    for (let i = 0; i < 100; i++) recent.committed('ns/A', `r${i}`, 'x'.repeat(100), i + 1);
    expect(recent.size).toBe(10 * (100 + 'N:ns/A\u0000r99'.length + RECENT_ENTRY_OVERHEAD_CHARS));
    expect(recent.get('ns/A', 'r99')).toBeDefined();
    expect(recent.get('ns/A', 'r90')).toBeDefined();
    expect(recent.get('ns/A', 'r89')).toBeUndefined();
    const large = new RecentRecords();
    large.committed('ns/A', 'big', 'x'.repeat(20_000), 1);
    expect(large.get('ns/A', 'big')).toBeUndefined();
    expect(large.size).toBe(0);
  });
});

describe('recent records: the budget', () => {
  it('counts each entry\'s key and overhead, not only its text: tiny records of a long collection id stay bounded', () => {
    // 256-byte collection ids and records of a dozen characters: by their texts alone, 50 of them would be
    // 600 characters, within a budget of 1000, while the keys held would be 13 KB.
    const recent = new RecentRecords(1000);
    const collectionId = `ns/${'c'.repeat(252)}`;
    for (let i = 0; i < 50; i++) recent.committed(collectionId, `r${i}`, `{"id":"r${i}"}`, i + 1);
    expect(recent.size).toBeLessThanOrEqual(1000);
    expect(recent.get(collectionId, 'r49')).toBeDefined();
    expect(recent.get(collectionId, 'r0')).toBeUndefined();
    let kept = 0;
    for (let i = 0; i < 50; i++) if (recent.get(collectionId, `r${i}`)) kept++;
    expect(kept).toBeLessThanOrEqual(4);
  });
});

describe('recent records: index entry keys', () => {
  it('keeps a record\'s entry keys with it, counts them against the budget, and drops a record whose keys are too large', () => {
    const recent = new RecentRecords();
    const layout = {};
    recent.committed('ns/A', 'x', '{"id":"x"}', 1, { layout, keys: ['k1', 'key2'] });
    expect(recent.get('ns/A', 'x')?.entries).toEqual({ layout, keys: ['k1', 'key2'] });
    const keyChars = 'k1'.length + 'key2'.length + 2 * RECENT_KEY_OVERHEAD_CHARS;
    expect(recent.size).toBe('{"id":"x"}'.length + keyChars + '4:ns/A\u0000x'.length + RECENT_ENTRY_OVERHEAD_CHARS);
    // A newer version without keys replaces the entry whole: no keys of the older one stay with it.
    recent.committed('ns/A', 'x', '{"id":"x"}', 2);
    expect(recent.get('ns/A', 'x')?.entries).toBeUndefined();
    recent.committed('ns/A', 'x', '{"id":"x"}', 3, { layout, keys: Array.from({ length: 100 }, () => 'k'.repeat(200)) });
    expect(recent.get('ns/A', 'x')).toBeUndefined();
    expect(recent.size).toBe(0);
  });
});
