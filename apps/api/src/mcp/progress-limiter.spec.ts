import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type Progress, ProgressLimiter, cutMessage } from './progress-limiter.js';

let sent: { at: number; progress: Progress }[];
let limiter: ProgressLimiter;

beforeEach(() => {
  vi.useFakeTimers();
  sent = [];
  limiter = new ProgressLimiter(
    async (progress) => void sent.push({ at: Date.now(), progress }),
    () => Date.now(),
  );
});
afterEach(() => vi.useRealTimers());

/** At most 4 in any second. */
function maxPerSecond(times: number[]): number {
  return Math.max(0, ...times.map((t) => times.filter((u) => u >= t && u < t + 1000).length));
}

describe('ProgressLimiter', () => {
  it('sends at most 4 a second, coalescing a burst into its newest message', async () => {
    const start = Date.now();
    for (let i = 1; i <= 100; i++) limiter.push({ progress: i, total: 100 });
    expect(sent.map((s) => s.progress.progress)).toEqual([1]);
    await vi.advanceTimersByTimeAsync(250);
    expect(sent.map((s) => s.progress.progress)).toEqual([1, 100]);
    await vi.advanceTimersByTimeAsync(2000);
    expect(sent).toHaveLength(2);

    // a steady stream every 10 ms for 3 s
    for (let i = 101; i <= 400; i++) {
      limiter.push({ progress: i });
      await vi.advanceTimersByTimeAsync(10);
    }
    await vi.advanceTimersByTimeAsync(1000);
    const times = sent.map((s) => s.at - start);
    expect(maxPerSecond(times)).toBeLessThanOrEqual(4);
    expect(sent.at(-1)?.progress.progress).toBe(400);
    const values = sent.map((s) => s.progress.progress);
    expect(values).toEqual([...values].sort((a, b) => a - b));
  });

  it('sends a pending final state before the call ends, within 250 ms', async () => {
    limiter.push({ progress: 1, total: 3 });
    limiter.push({ progress: 2, total: 3 });
    limiter.push({ progress: 3, total: 3 });
    const drained = limiter.drain();
    await vi.advanceTimersByTimeAsync(250);
    await drained;
    expect(sent.map((s) => s.progress.progress)).toEqual([1, 3]);
    limiter.push({ progress: 4 });
    await vi.advanceTimersByTimeAsync(1000);
    expect(sent).toHaveLength(2); // nothing after the end
  });

  it('drops what is pending when the client went away', async () => {
    limiter.push({ progress: 1 });
    limiter.push({ progress: 2 });
    const abort = new AbortController();
    abort.abort();
    await limiter.drain(abort.signal);
    await vi.advanceTimersByTimeAsync(1000);
    expect(sent.map((s) => s.progress.progress)).toEqual([1]);
  });

  it('cuts each message to 200 characters', () => {
    limiter.push({ progress: 1, message: 'x'.repeat(500) });
    expect(sent[0].progress.message).toBe(`${'x'.repeat(199)}…`);
    expect(Array.from(cutMessage('😀'.repeat(300)))).toHaveLength(200);
    expect(cutMessage('short')).toBe('short');
  });
});
