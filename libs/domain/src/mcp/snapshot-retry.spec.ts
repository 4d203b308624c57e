import { describe, expect, it } from 'vitest';
import { snapshotRetryAt } from './snapshot-retry.js';

const at = new Date('2026-01-01T00:00:00Z');
const delayS = (failures: number, ttlS = 300) => (snapshotRetryAt(failures, at, ttlS).getTime() - at.getTime()) / 1000;

describe('snapshotRetryAt', () => {
  it('doubles the wait after each failure in a row, from 30 s to at most an hour', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => delayS(n))).toEqual([30, 60, 120, 240, 480, 960, 1920, 3600, 3600]);
    expect(delayS(10_000)).toBe(3600);
  });

  it('starts from the TTL when it is shorter, and allows the TTL when it is longer than an hour', () => {
    expect([1, 2, 3].map((n) => delayS(n, 5))).toEqual([5, 10, 20]);
    expect(delayS(20, 86_400)).toBe(86_400);
  });
});
