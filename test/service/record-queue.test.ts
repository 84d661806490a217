import { describe, expect, it } from 'vitest';
import { RecordQueue } from '../../src/service/record-queue.ts';

const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

describe('RecordQueue', () => {
  it('runs operations on one key one at a time, in arrival order', async () => {
    const queue = new RecordQueue();
    const events: string[] = [];
    let running = 0;
    const operation = (name: string) => async () => {
      running++;
      expect(running).toBe(1);
      events.push(`start ${name}`);
      await tick();
      events.push(`end ${name}`);
      running--;
      return name;
    };
    const results = await Promise.all(['a', 'b', 'c'].map((name) => queue.run('k', operation(name))));
    expect(results).toEqual(['a', 'b', 'c']);
    expect(events).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
  });

  it('runs operations on different keys at the same time', async () => {
    const queue = new RecordQueue();
    let running = 0;
    let most = 0;
    const operation = async () => {
      most = Math.max(most, ++running);
      await tick();
      running--;
    };
    await Promise.all(['a', 'b', 'c'].map((key) => queue.run(key, operation)));
    expect(most).toBe(3);
  });

  it('a failed operation fails alone and does not stop the ones queued after it', async () => {
    const queue = new RecordQueue();
    const failed = queue.run('k', async () => {
      await tick();
      throw new Error('boom');
    });
    const next = queue.run('k', async () => 'next');
    await expect(failed).rejects.toThrow('boom');
    await expect(next).resolves.toBe('next');
  });

  it('keeps no entry for a key once its operations have settled', async () => {
    const queue = new RecordQueue();
    await Promise.allSettled([queue.run('a', async () => 1), queue.run('a', async () => Promise.reject(new Error('x'))), queue.run('b', async () => 2)]);
    await tick();
    expect(queue.size).toBe(0);
  });
});
