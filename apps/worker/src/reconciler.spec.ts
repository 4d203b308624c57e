import { describe, expect, it } from 'vitest';
import { parseEnv } from '../../../libs/config/src/index.js';
import {
  type DeliveryKinds,
  type ReconcileCursor,
  type ReconcilePage,
  ReconcileDeliveries,
} from '../../../libs/domain/src/index.js';
import type { DeliveryQueue } from '../../../libs/queue/src/index.js';
import type { Metrics } from '../../../libs/observability/src/index.js';
import { Reconciler } from './reconciler.js';

/** A backlog of `pages` full pages of calls; records where each page was asked to start. */
class Backlog extends ReconcileDeliveries {
  readonly asked: (string | null | undefined)[] = [];

  constructor(private readonly pages: number) {
    // Nothing of these is reached: execute is the backlog's own.
    super({} as DeliveryKinds, {} as DeliveryQueue, {} as Metrics);
  }

  override execute(cursor: ReconcileCursor): Promise<ReconcilePage> {
    const after = cursor.tool_call;
    this.asked.push(after);
    const index = after === null || after === undefined ? 0 : Number(after.slice(1)) + 1;
    return Promise.resolve({ requeued: 1, ended: 0, next: index + 1 < this.pages ? { tool_call: `p${index}` } : null });
  }
}

/** The reconciler, with its timer's step callable. */
class ReconcilerRun extends Reconciler {
  runOnce(): Promise<void> {
    return this.run();
  }
}

function backlog(pages: number) {
  const reconcile = new Backlog(pages);
  const reconciler = new ReconcilerRun(parseEnv({}), reconcile);
  return { asked: reconcile.asked, run: () => reconciler.runOnce() };
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
