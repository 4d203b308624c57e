import { describe, expect, it } from 'vitest';
import { RoundTripBatches } from './round-trip-batches.js';

/** A batcher whose runs are recorded and end when `finish` is called (or at once, with `settleAtOnce`). */
function recorder({ fail, settleAtOnce = true }: { fail?: Error; settleAtOnce?: boolean } = {}) {
  const runs: number[][] = [];
  const pending: (() => void)[] = [];
  const run = (items: number[]) => {
    runs.push(items);
    if (settleAtOnce) return fail ? Promise.reject(fail) : Promise.resolve();
    return new Promise<void>((resolve, reject) => pending.push(() => (fail ? reject(fail) : resolve())));
  };
  const batches = new RoundTripBatches<number>(
    (item) => run([item]),
    (items) => run(items),
  );
  const finish = () => pending.shift()?.();
  return { batches, runs, finish };
}

const ticks = (n: number) => new Promise<void>((resolve) => setTimeout(resolve, n));

describe('RoundTripBatches', () => {
  it('runs a lone item alone', async () => {
    const { batches, runs } = recorder();
    await batches.run(1);
    expect(runs).toEqual([[1]]);
  });

  it('runs the items of one tick in one go, with the callers that one answer resumed', async () => {
    const { batches, runs } = recorder();
    const answered = Promise.resolve();
    // Three callers resumed by the same answer hand in their items from separate microtasks of one tick.
    await Promise.all([1, 2, 3].map((item) => answered.then(() => batches.run(item))));
    expect(runs).toEqual([[1, 2, 3]]);
  });

  it('keeps one batch in flight: what comes in meanwhile waits, then goes together', async () => {
    const { batches, runs, finish } = recorder({ settleAtOnce: false });
    const first = batches.run(1);
    await ticks(1);
    const later = [batches.run(2), batches.run(3)];
    await ticks(1);
    const another = batches.run(4);
    await ticks(1);
    expect(runs).toEqual([[1]]);
    finish();
    await first;
    await ticks(1);
    expect(runs).toEqual([[1], [2, 3, 4]]);
    finish();
    await Promise.all([...later, another]);
  });

  it('fails every item of a batch that failed, and a lone item with its own failure', async () => {
    const failure = new Error('Redis is away');
    const { batches } = recorder({ fail: failure });
    const results = await Promise.allSettled([batches.run(1), batches.run(2)]);
    expect(results).toEqual([
      { status: 'rejected', reason: failure },
      { status: 'rejected', reason: failure },
    ]);
    await expect(batches.run(3)).rejects.toBe(failure);
  });
});
