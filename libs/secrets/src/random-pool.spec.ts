import { describe, expect, it } from 'vitest';
import { pooledRandomBytes } from './random-pool.js';

describe('pooledRandomBytes', () => {
  it('gives the asked length, each draw its own buffer', () => {
    const a = pooledRandomBytes(12);
    const b = pooledRandomBytes(12);
    expect(a).toHaveLength(12);
    expect(a.equals(b)).toBe(false);
    a.fill(0);
    expect(b.some((byte) => byte !== 0)).toBe(true);
  });

  it('never hands out the same bytes twice, across many refills of the pool', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 20_000; i++) seen.add(pooledRandomBytes(16).toString('hex'));
    expect(seen.size).toBe(20_000);
  });

  it('draws that do not fit what is left of the pool come whole from a refill', () => {
    const sizes = [7, 13, 64, 1, 33];
    for (let i = 0; i < 2_000; i++) {
      const n = sizes[i % sizes.length];
      expect(pooledRandomBytes(n)).toHaveLength(n);
    }
  });

  it('spreads its bytes evenly: no value of a byte is twice as common as another', () => {
    const counts = new Array<number>(256).fill(0);
    for (let i = 0; i < 4_000; i++) for (const byte of pooledRandomBytes(16)) counts[byte] += 1;
    // 64,000 bytes: 250 expected per value; a fair source stays well within 150-350.
    expect(Math.min(...counts)).toBeGreaterThan(150);
    expect(Math.max(...counts)).toBeLessThan(350);
  });

  it('gives large draws too (straight from randomBytes)', () => {
    expect(pooledRandomBytes(200)).toHaveLength(200);
  });
});
