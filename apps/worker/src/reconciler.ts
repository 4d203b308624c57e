import { Inject, Injectable } from '@nestjs/common';
import { ENV, type Env } from '../../../libs/config/src/index.js';
import { RECONCILE_FROM_START, type ReconcileCursor, ReconcileDeliveries } from '../../../libs/domain/src/index.js';
import { PeriodicTask } from './periodic-task.js';

/** Pages one run goes through at most (500 deliveries of each kind each); a longer backlog is continued by the next run. */
const MAX_PAGES_PER_RUN = 20;

/**
 * Runs the reconciler on a timer, so that deliveries of every kind lost by a crash or an emptied Redis still finish.
 * Each run pages on from where the last one stopped: every overdue delivery is reached, however long the backlog in
 * front of it.
 */
@Injectable()
export class Reconciler extends PeriodicTask {
  protected readonly everyMs: number;
  private cursor: ReconcileCursor = RECONCILE_FROM_START;

  constructor(
    @Inject(ENV) env: Env,
    private readonly reconcile: ReconcileDeliveries,
  ) {
    super();
    this.everyMs = env.RECONCILE_INTERVAL_MS;
  }

  protected async run(): Promise<void> {
    let requeued = 0;
    let ended = 0;
    for (let pages = 0; pages < MAX_PAGES_PER_RUN; pages += 1) {
      const page = await this.reconcile.execute(this.cursor);
      requeued += page.requeued;
      ended += page.ended;
      this.cursor = page.next ?? RECONCILE_FROM_START;
      if (page.next === null) break;
    }
    if (requeued + ended > 0)
      this.logger.log(`re-queued ${requeued} overdue delivery attempt(s), failed ${ended} stuck instant call(s)`);
  }
}
