import { Inject, Injectable } from '@nestjs/common';
import { ENV, type Env } from '../../../libs/config/src/index.js';
import { ReconcileToolCalls } from '../../../libs/domain/src/index.js';
import { PeriodicTask } from './periodic-task.js';

/** Pages one run goes through at most (500 calls each); a longer backlog is continued by the next run. */
const MAX_PAGES_PER_RUN = 20;

/**
 * Runs the reconciler on a timer, so that calls lost by a crash or an emptied Redis still finish.
 * Each run pages on from where the last one stopped: every overdue call is reached, however long
 * the backlog in front of it.
 */
@Injectable()
export class Reconciler extends PeriodicTask {
  protected readonly everyMs: number;
  private cursor: string | null = null;

  constructor(
    @Inject(ENV) env: Env,
    private readonly reconcile: ReconcileToolCalls,
  ) {
    super();
    this.everyMs = env.RECONCILE_INTERVAL_MS;
  }

  protected async run(): Promise<void> {
    let requeued = 0;
    let failed = 0;
    for (let pages = 0; pages < MAX_PAGES_PER_RUN; pages += 1) {
      const page = await this.reconcile.execute(this.cursor);
      requeued += page.requeued;
      failed += page.failed;
      this.cursor = page.next;
      if (page.next === null) break;
    }
    if (requeued + failed > 0)
      this.logger.log(`re-queued ${requeued} overdue call(s), failed ${failed} stuck instant call(s)`);
  }
}
