import { describe, expect, it } from 'vitest';
import { attemptCount, attemptDueAt, nextAttempt, parseRetryAfter, retryOffsetsMs } from './retry-schedule.js';

const first = new Date('2026-01-01T00:00:00.000Z');
const at = (ms: number) => new Date(first.getTime() + ms);
const min = 60_000;

describe('retry schedules', () => {
  it('have the exact offsets of docs/webhooks.md', () => {
    expect(retryOffsetsMs('5m')).toEqual([0, 15_000, min, 3 * min, 5 * min]);
    expect(retryOffsetsMs('3h').map((o) => o / min)).toEqual([0, 1, 5, 15, 30, 60, 120, 180]);
    expect(retryOffsetsMs('1d').map((o) => o / min)).toEqual([0, 1, 5, 15, 30, 60, 120, 240, 480, 720, 1080, 1440]);
    expect([attemptCount('5m'), attemptCount('3h'), attemptCount('1d'), attemptCount(null)]).toEqual([5, 8, 12, 1]);
  });

  it('measures every offset from the first attempt, scaled by RETRY_TIME_SCALE', () => {
    expect(attemptDueAt('5m', first, 2, 1)).toEqual(at(15_000));
    expect(attemptDueAt('1d', first, 12, 0.001)).toEqual(at(24 * 60 * min * 0.001));
    expect(nextAttempt('3h', first, 1, 1)).toEqual({ n: 2, dueAt: at(min) });
    expect(nextAttempt('3h', first, 7, 0.5)).toEqual({ n: 8, dueAt: at(90 * min) });
  });

  it('ends after the last attempt, and at once for instant tools', () => {
    expect(nextAttempt('5m', first, 5, 1)).toBeNull();
    expect(nextAttempt(null, first, 1, 1)).toBeNull();
  });

  it('moves to the first slot not earlier than Retry-After, never moving the offsets', () => {
    // Attempt 2 (at 15 s) failed with Retry-After: 120 → 15 s + 120 s = 135 s → slot 4 at 3 min.
    expect(nextAttempt('5m', first, 2, 1, { failedAt: at(15_000), afterMs: 120_000 })).toEqual({
      n: 4,
      dueAt: at(3 * min),
    });
    // Exactly on a slot keeps it.
    expect(nextAttempt('5m', first, 1, 1, { failedAt: at(0), afterMs: 60_000 })).toEqual({ n: 3, dueAt: at(min) });
    // Scaled: Retry-After 120 s at scale 0.01 is 1.2 s → slot 3 at 0.6 s is earlier, slot 4 at 1.8 s is not.
    expect(nextAttempt('5m', first, 1, 0.01, { failedAt: at(0), afterMs: 120_000 })).toEqual({
      n: 4,
      dueAt: at(1_800),
    });
    // Past the last slot: no attempt left.
    expect(nextAttempt('5m', first, 2, 1, { failedAt: at(15_000), afterMs: 3600_000 })).toBeNull();
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});
