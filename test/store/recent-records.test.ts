// The store's cache of the records it committed last (recent-records.ts): newest version kept, bounded size.
import { describe, expect, it } from 'vitest';
import { RecentRecords } from '../../src/store/recent-records.ts';

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
    const recent = new RecentRecords(1000);
    for (let i = 0; i < 100; i++) recent.committed('ns/A', `r${i}`, 'x'.repeat(100), i + 1);
    expect(recent.size).toBe(1000);
    expect(recent.get('ns/A', 'r99')).toBeDefined();
    expect(recent.get('ns/A', 'r90')).toBeDefined();
    expect(recent.get('ns/A', 'r89')).toBeUndefined();
    const large = new RecentRecords();
    large.committed('ns/A', 'big', 'x'.repeat(20_000), 1);
    expect(large.get('ns/A', 'big')).toBeUndefined();
    expect(large.size).toBe(0);
  });
});
