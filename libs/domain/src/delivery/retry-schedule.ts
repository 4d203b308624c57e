import type { RetryWindow } from '../../../persistence/src/index.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Offsets of each attempt from the first one (docs/webhooks.md); the first is always 0. */
const OFFSETS_MS: Record<RetryWindow, readonly number[]> = {
  '5m': [0, 15 * SECOND, 1 * MINUTE, 3 * MINUTE, 5 * MINUTE],
  '3h': [0, 1 * MINUTE, 5 * MINUTE, 15 * MINUTE, 30 * MINUTE, 1 * HOUR, 2 * HOUR, 3 * HOUR],
  '1d': [
    0,
    1 * MINUTE,
    5 * MINUTE,
    15 * MINUTE,
    30 * MINUTE,
    1 * HOUR,
    2 * HOUR,
    4 * HOUR,
    8 * HOUR,
    12 * HOUR,
    18 * HOUR,
    24 * HOUR,
  ],
};

export function retryOffsetsMs(window: RetryWindow): readonly number[] {
  return OFFSETS_MS[window];
}

/** How many attempts a call gets: 1 for instant, else its window's schedule length. */
export function attemptCount(window: RetryWindow | null): number {
  return window === null ? 1 : OFFSETS_MS[window].length;
}

/** When attempt `n` (1-based) is due, given when the first attempt started. */
export function attemptDueAt(window: RetryWindow, firstAttemptAt: Date, n: number, timeScale: number): Date {
  return new Date(firstAttemptAt.getTime() + OFFSETS_MS[window][n - 1] * timeScale);
}

/**
 * The slot of the attempt after failed attempt `n`, or null when none is left. A `Retry-After`
 * moves it to the first slot not earlier than `failedAt + retryAfter` (scaled like the offsets);
 * the offsets themselves never move.
 */
export function nextAttempt(
  window: RetryWindow | null,
  firstAttemptAt: Date,
  n: number,
  timeScale: number,
  retryAfter?: { failedAt: Date; afterMs: number },
): { n: number; dueAt: Date } | null {
  if (window === null) return null;
  const offsets = OFFSETS_MS[window];
  const notBefore = retryAfter ? retryAfter.failedAt.getTime() + retryAfter.afterMs * timeScale : -Infinity;
  for (let next = n + 1; next <= offsets.length; next += 1) {
    const dueAt = attemptDueAt(window, firstAttemptAt, next, timeScale);
    if (dueAt.getTime() >= notBefore) return { n: next, dueAt };
  }
  return null;
}

/** A `Retry-After` header in milliseconds (delta-seconds or an HTTP date), or undefined. */
export function parseRetryAfter(value: string | undefined, now: Date): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now.getTime());
}

/** A failed attempt, as far as its schedule needs it: how it ended, when it went out, and a `Retry-After` in ms. */
export interface FailedAttempt {
  outcome: string;
  n: number;
  sentAt: Date;
  retryAfterMs?: number;
}

/**
 * The attempt after a failed one, for every kind of delivery: none after 410 (`gone`) or a cancel, else the next slot
 * of the window (offsets run from the first attempt; a `Retry-After` counts from when the failed attempt went out).
 */
export function nextAttemptAfter(
  failed: FailedAttempt,
  window: RetryWindow | null,
  firstAttemptAt: Date,
  timeScale: number,
): { n: number; dueAt: Date } | null {
  if (failed.outcome === 'gone' || failed.outcome === 'cancelled') return null;
  const retryAfter =
    failed.retryAfterMs !== undefined ? { failedAt: failed.sentAt, afterMs: failed.retryAfterMs } : undefined;
  return nextAttempt(window, firstAttemptAt, failed.n, timeScale, retryAfter);
}
