import { describe, expect, it } from 'vitest';
import { parseEnv } from '../../../libs/config/src/index.js';
import type { ReconcilePage, ReconcileToolCalls } from '../../../libs/domain/src/index.js';
import { Reconciler } from './reconciler.js';

/** A backlog of `pages` full pages; records where each page was asked to start. */
function backlog(pages: number) {
  const asked: (string | null)[] = [];
  const reconcile = {
    async execute(after: string | null): Promise<ReconcilePage> {
      asked.push(after);
      const index = after === null ? 0 : Number(after.slice(1)) + 1;
      return { requeued: 1, failed: 0, next: index + 1 < pages ? `p${index}` : null };
    },
  } as unknown as ReconcileToolCalls;
  const reconciler = new Reconciler(parseEnv({}), reconcile) as unknown as { run(): Promise<void> };
  return { asked, run: () => reconciler.run() };
}

describe('Reconciler', () => {
  it('pages through every overdue call in one run, then starts over', async () => {
    const { asked, run } = backlog(3);
    await run();
    expect(asked).toEqual([null, 'p0', 'p1']);
    await run();
    expect(asked.slice(3)).toEqual([null, 'p0', 'p1']);
  });

  it('goes on where the last run stopped when a backlog is longer than one run takes', async () => {
    const { asked, run } = backlog(25);
    await run();
    expect(asked).toHaveLength(20);
    await run();
    expect(asked[20]).toBe('p19');
    expect(asked).toHaveLength(25);
  });
});
