import { describe, expect, it } from 'vitest';
import { IdleHeapRelease, exposedGc } from './idle-heap-release.js';

/** `samples`: each sample's utilization; `collectionCost`: what is read right after a collection (its own time). */
function release(samples: number[], collectionCost = 0) {
  let collected = 0;
  let justCollected = false;
  const queue = [...samples];
  const subject = new IdleHeapRelease({
    utilization: () => {
      if (!justCollected) return queue.shift() ?? 0;
      justCollected = false;
      return collectionCost;
    },
    collect: () => {
      collected += 1;
      justCollected = true;
    },
  });
  const when: number[] = [];
  samples.forEach((_, i) => subject.sample() && when.push(i));
  return { collected, when };
}

describe('IdleHeapRelease', () => {
  it('collects once after two quiet samples that follow work (starting up counts as work)', () => {
    expect(release([0.5, 0.001, 0.001, 0.001, 0.001]).when).toEqual([2]);
    expect(release([0, 0, 0, 0]).when).toEqual([1]);
  });

  it('collects again only after new work, and never while the process is busy', () => {
    expect(release([0.3, 0, 0, 0.2, 0, 0, 0, 0]).when).toEqual([2, 5]);
    expect(release([0.3, 0.5, 0.9, 0.05, 0.02, 0.4]).collected).toBe(0);
  });

  it('does not count its own collection as work: a quiet process collects once per quiet spell', () => {
    expect(release([0.5, 0, 0, 0, 0, 0, 0, 0], 0.5).when).toEqual([2]);
    expect(release([0.5, 0, 0, 0, 0.3, 0, 0, 0], 0.5).when).toEqual([2, 6]);
  });

  it('starts counting quiet samples anew after a busy one', () => {
    expect(release([0.5, 0, 0.1, 0, 0]).when).toEqual([4]);
  });
});

describe('exposedGc', () => {
  it("reaches V8's gc() on this Node without --expose-gc, and a collection frees what nothing holds", async () => {
    const gc = exposedGc();
    expect(gc).toBeTypeOf('function');
    const ref = new WeakRef({ big: new Array(100_000).fill(1) });
    await new Promise((resolve) => setImmediate(resolve)); // a WeakRef keeps its target for the current job
    gc!();
    expect(ref.deref()).toBeUndefined();
  });
});
