import { describe, expect, it } from 'vitest';
import { StatementBatcher } from './statement-batcher.js';

class Refused extends Error {}

/** A fake statement runner: records each statement and holds it until released. */
function runner() {
  const statements: { items: number[]; release: () => void }[] = [];
  const run = (items: number[], answer: () => number[]) =>
    new Promise<number[]>((resolve, reject) => {
      statements.push({ items, release: () => void Promise.resolve().then(answer).then(resolve, reject) });
    });
  const refusing = new Set<number>();
  const answerOf = (items: number[]) => () => {
    if (items.some((item) => refusing.has(item))) throw new Refused(`refused ${items.join(',')}`);
    return items.map((item) => item * 10);
  };
  const batcher = (maxInFlight: number, maxBatch: number, retryAlone = (e: unknown): boolean => e instanceof Refused) =>
    new StatementBatcher<number, number>(
      { maxInFlight, maxBatch, retryAlone },
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
    await tick();
    expect(statements.slice(2).map((s) => s.items)).toEqual([[2], [3], [4]]);
    for (const statement of statements.slice(2)) statement.release();
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
});
