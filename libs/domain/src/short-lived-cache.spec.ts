import { describe, expect, it } from 'vitest';
import { ShortLivedCache } from './short-lived-cache.js';

describe('ShortLivedCache', () => {
  it('reads a key once within its time, again after it or once forgotten, and keeps no failed read', async () => {
    const cache = new ShortLivedCache<number>(30);
    let reads = 0;
    const read = async () => ++reads;
    expect(await cache.get('a', read)).toBe(1);
    expect(await cache.get('a', read)).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(await cache.get('a', read)).toBe(2);
    cache.forget('a');
    expect(await cache.get('a', read)).toBe(3);

    await expect(cache.get('b', () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect(await cache.get('b', read)).toBe(4);
  });

  it('starts afresh at its size cap', async () => {
    const cache = new ShortLivedCache<string>(60_000, 2);
    await cache.get('a', async () => 'a1');
    await cache.get('b', async () => 'b1');
    await cache.get('c', async () => 'c1');
    expect(await cache.get('a', async () => 'a2')).toBe('a2');
  });
});
