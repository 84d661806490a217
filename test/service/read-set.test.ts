// The read set of one write attempt (read-set.ts): what its commit expects besides the records it writes.
import { describe, expect, it } from 'vitest';
import { ReadSet } from '../../src/service/read-set.ts';
import { ConflictError } from '../../src/store/index.ts';

describe('ReadSet', () => {
  it('expects each record read once, at the version read (null: missing), leaving out the ones written', () => {
    const reads = new ReadSet();
    reads.saw('ns/User', 'u', 7);
    reads.saw('ns/User', 'ghost', null);
    reads.saw('ns/Counter', 'c', 3);
    reads.saw('ns/User', 'u', 7);
    expect(reads.size).toBe(3);
    expect(reads.versionOf('ns/User', 'ghost')).toBeNull();
    expect(reads.versionOf('ns/User', 'nobody')).toBeUndefined();
    expect(reads.expectationsBesides([{ collectionId: 'ns/Counter', id: 'c', version: 3 }])).toEqual([
      { collectionId: 'ns/User', id: 'u', version: 7 },
      { collectionId: 'ns/User', id: 'ghost', version: null },
    ]);
  });

  it('a record read again at another version is a conflict at once (the reads are not one state)', () => {
    const reads = new ReadSet();
    reads.saw('ns/User', 'u', null);
    expect(() => reads.saw('ns/User', 'u', 9)).toThrow(ConflictError);
    expect(() => reads.saw('ns/User', 'u', 9)).toThrow('record "u" in collection "ns/User" changed while the write was reading it (read at version null, then 9)');
  });

  it('tells apart collection and record ids whatever characters they hold', () => {
    const reads = new ReadSet();
    reads.saw('a\u0000b', 'c', 1);
    reads.saw('a', 'b\u0000c', 2);
    expect(reads.size).toBe(2);
  });

  it('nothing read: nothing expected', () => {
    expect(new ReadSet().expectationsBesides([{ collectionId: 'ns/Counter', id: 'c', version: 1 }])).toEqual([]);
  });
});
