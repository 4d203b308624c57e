import { describe, expect, it } from 'vitest';
import { parseEnv } from '../../../libs/config/src/index.js';
import { AppDeliveryLimiter } from './app-delivery-limiter.js';

const limiter = (cap: number) => new AppDeliveryLimiter(parseEnv({ APP_DELIVERY_CONCURRENCY: String(cap) }));

describe('AppDeliveryLimiter', () => {
  it('lets at most the cap of one app in flight, and other apps freely', () => {
    const l = limiter(2);
    expect([l.tryAcquire('a', '1'), l.tryAcquire('a', '2'), l.tryAcquire('a', '3')]).toEqual([true, true, false]);
    expect(l.tryAcquire('b', '4')).toBe(true);
    l.release('a', 10);
    expect(l.tryAcquire('a', '3')).toBe(true);
  });

  it('makes a job of a slow app wait long and a job of a fast app wait short, longer the longer its line', () => {
    const l = limiter(1);
    l.tryAcquire('slow', 's0');
    for (let i = 0; i < 20; i += 1) {
      l.release('slow', 10_000);
      l.tryAcquire('slow', `s${i + 1}`);
    }
    l.tryAcquire('fast', 'f0');
    for (let i = 0; i < 20; i += 1) {
      l.release('fast', 2);
      l.tryAcquire('fast', `f${i + 1}`);
    }
    expect(l.waitMs('slow', 'x')).toBeGreaterThanOrEqual(3750);
    const first = l.waitMs('fast', 'y1');
    expect(first).toBeLessThan(20);
    for (let i = 0; i < 50; i += 1) l.waitMs('fast', `z${i}`);
    expect(l.waitMs('fast', 'y2')).toBeGreaterThan(first * 5);
  });
});
