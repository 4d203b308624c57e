import { describe, expect, it } from 'vitest';
import { isoTimestamp } from './iso-timestamp.js';

describe('isoTimestamp', () => {
  it('writes what toISOString writes', () => {
    const edges = [0, -1, 1, 999, 59_999, 60_000, -60_001, Date.UTC(2026, 11, 3, 23, 59, 59, 999), 8.64e15, -8.64e15];
    const spread = Array.from({ length: 5000 }, () => Math.round((Math.random() - 0.3) * 4e14));
    const near = Array.from({ length: 2000 }, (_, i) => Date.UTC(2026, 11, 3) + i * 37);
    for (const ms of [...edges, ...spread, ...near]) {
      expect(isoTimestamp(new Date(ms))).toBe(new Date(ms).toISOString());
    }
  });

  it('throws on an invalid date, as toISOString does', () => {
    expect(() => isoTimestamp(new Date(Number.NaN))).toThrow(RangeError);
  });
});
