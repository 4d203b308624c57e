import { describe, expect, it } from 'vitest';
import { StatementBatcher } from './statement-batcher.js';

class Refused extends Error {}

/** A fake statement runner: records each statement and holds it until released. */
function runner() {
  const statements: { items: number[]; release: () => void; fail: (error: Error) => void }[] = [];
  const run = (items: number[], answer: () => number[]) =>
    new Promise<number[]>((resolve, reject) => {
      statements.push({
        items,
        release: () => void Promise.resolve().then(answer).then(resolve, reject),
        fail: (error: Error) => reject(error),
      });
    });
  const refusing = new Set<number>();
  const answerOf = (items: number[]) => () => {
    if (items.some((item) => refusing.has(item))) throw new Refused(`refused ${items.join(',')}`);
    return items.map((item) => item * 10);
  };
  const batcher = (
    maxInFlight: number,
    maxBatch: number,
    retryAlone = (e: unknown): boolean => e instanceof Refused,
    maxWaitMs = 60_000,
    another?: { waiting: number; afterMs: number },
  ) =>
    new StatementBatcher<number, number>(
      {
        maxInFlight,
        maxBatch,
        another,
        retryAlone,
        failsAll: (e) => e instanceof Error && e.message === 'away',
        // Items 1 and 101 write the same row.
        key: (item) => item % 100,
        maxWaitMs,
        waitedTooLong: () => new Error('waited too long'),
      },
      async (item) => (await run([item], answerOf([item])))[0],
      (items) => run(items, answerOf(items)),
    );
  const tick = () => new Promise((resolve) => setImmediate(resolve));
  return { statements, refusing, batcher, tick };
}

describe('StatementBatcher', () => {
  it('sends a lone item at once, alone', async () => {
    const { statements, batcher, tick } = runner();
    const answer = batcher(2, 10).run(1);
    await tick();
    expect(statements.map((s) => s.items)).toEqual([[1]]);
    statements[0]?.release();
    expect(await answer).toBe(10);
  });

  it('sends what arrives while the statements in flight run as one statement, in order, up to maxBatch', async () => {
    const { statements, batcher, tick } = runner();
    const batches = batcher(2, 3);
    const answers = [1, 2, 3, 4, 5, 6, 7].map((item) => batches.run(item));
    await tick();
    // Two statements at most: 1 and 2 alone, the rest waits.
    expect(statements.map((s) => s.items)).toEqual([[1], [2]]);
    statements[0]?.release();
    await tick();
    expect(statements.map((s) => s.items)).toEqual([[1], [2], [3, 4, 5]]);
    statements[1]?.release();
    await tick();
    expect(statements.map((s) => s.items)).toEqual([[1], [2], [3, 4, 5], [6, 7]]);
    statements[2]?.release();
    statements[3]?.release();
    expect(await Promise.all(answers)).toEqual([10, 20, 30, 40, 50, 60, 70]);
  });

  it('starts a statement beside a running one only once `another.waiting` items wait', async () => {
    const { statements, batcher, tick } = runner();
    const batches = batcher(2, 10, undefined, undefined, { waiting: 3, afterMs: 60_000 });
    const answers = [batches.run(1)];
    await tick();
    answers.push(batches.run(2), batches.run(3));
    await tick();
    // 1 runs alone; 2 and 3 wait for it rather than going as a second statement.
    expect(statements.map((s) => s.items)).toEqual([[1]]);
    answers.push(batches.run(4));
    await tick();
    expect(statements.map((s) => s.items)).toEqual([[1], [2, 3, 4]]);
    answers.push(batches.run(5));
    await tick();
    statements[0]?.release();
    await tick();
    // 5 waits while [2, 3, 4] runs: one item is not enough for a second statement, even after one ended.
    expect(statements.map((s) => s.items)).toEqual([[1], [2, 3, 4]]);
    statements[1]?.release();
    await tick();
    expect(statements.map((s) => s.items)).toEqual([[1], [2, 3, 4], [5]]);
    statements[2]?.release();
    expect(await Promise.all(answers)).toEqual([10, 20, 30, 40, 50]);
  });

  it('starts a statement beside a slow one for fewer items once the oldest has waited `another.afterMs`', async () => {
    const { statements, batcher, tick } = runner();
    const batches = batcher(2, 10, undefined, undefined, { waiting: 25, afterMs: 30 });
    const answers = [batches.run(1)];
    await tick();
    answers.push(batches.run(2));
    await tick();
    expect(statements.map((s) => s.items)).toEqual([[1]]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    // 1 still runs; 2 waited 30 ms, so it goes beside it.
    expect(statements.map((s) => s.items)).toEqual([[1], [2]]);
    statements[1]?.release();
    statements[0]?.release();
    expect(await Promise.all(answers)).toEqual([10, 20]);
  });

  it('runs each item of a refused batch alone: only the item refused fails', async () => {
    const { statements, refusing, batcher, tick } = runner();
    refusing.add(3);
    const batches = batcher(1, 10);
    const answers = [1, 2, 3, 4].map((item) => batches.run(item).catch((error: Error) => error.message));
    await tick();
    statements[0]?.release(); // 1 alone
    await tick();
    expect(statements[1]?.items).toEqual([2, 3, 4]);
    statements[1]?.release(); // refused whole
    // Each alone, one after the other: a kind never has more statements running than maxInFlight.
    for (const item of [2, 3, 4]) {
      await tick();
      expect(statements.at(-1)?.items).toEqual([item]);
      statements.at(-1)?.release();
    }
    expect(statements).toHaveLength(5);
    expect(await Promise.all(answers)).toEqual([10, 20, 'refused 3', 40]);
  });

  it("gives every item of a batch the batch's failure when no item's values caused it", async () => {
    const { statements, refusing, batcher, tick } = runner();
    refusing.add(3);
    const batches = batcher(1, 10, () => false);
    const answers = [1, 2, 3].map((item) => batches.run(item).catch((error: Error) => error.message));
    await tick();
    statements[0]?.release();
    await tick();
    statements[1]?.release();
    expect(await Promise.all(answers)).toEqual([10, 'refused 2,3', 'refused 2,3']);
    expect(statements).toHaveLength(2); // nothing ran again
  });

  it('never puts two items of one key in a statement: the second waits for the next one', async () => {
    const { statements, batcher, tick } = runner();
    const batches = batcher(1, 10);
    const answers = [5, 1, 2, 101, 3].map((item) => batches.run(item));
    await tick();
    statements[0]?.release(); // 5 alone
    await tick();
    expect(statements[1]?.items).toEqual([1, 2, 3]);
    statements[1]?.release();
    await tick();
    expect(statements[2]?.items).toEqual([101]);
    statements[2]?.release();
    expect(await Promise.all(answers)).toEqual([50, 10, 20, 1010, 30]);
  });

  it('fails an item that waited longer than maxWaitMs for a statement, and sends the others later', async () => {
    const { statements, batcher, tick } = runner();
    const batches = batcher(1, 10, undefined, 50);
    const first = batches.run(1);
    await tick();
    const late = batches.run(2).catch((error: Error) => error.message);
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(await late).toBe('waited too long');
    const next = batches.run(3);
    statements[0]?.release();
    await tick();
    expect(statements.map((s) => s.items)).toEqual([[1], [3]]);
    statements[1]?.release();
    expect([await first, await next]).toEqual([10, 30]);
  });

  it('fails the waiting items at once with a statement that found Postgres away', async () => {
    const { statements, batcher, tick } = runner();
    const batches = batcher(1, 10);
    const answers = [1, 2, 3].map((item) => batches.run(item).catch((error: Error) => error.message));
    await tick();
    expect(statements.map((s) => s.items)).toEqual([[1]]);
    statements[0]?.fail(new Error('away'));
    expect(await Promise.all(answers)).toEqual(['away', 'away', 'away']);
    expect(statements).toHaveLength(1); // 2 and 3 never went
  });
});
