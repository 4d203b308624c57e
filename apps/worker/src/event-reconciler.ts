import { Inject, Injectable } from '@nestjs/common';
import { ENV, type Env } from '../../../libs/config/src/index.js';
import { ReconcileCallEvents } from '../../../libs/domain/src/index.js';
import { PeriodicTask } from './periodic-task.js';

/** Pages one run goes through at most (500 events each), as for calls. */
const MAX_PAGES_PER_RUN = 20;

/** Runs the events' reconciler on the calls' timer: events lost by a crash or an emptied Redis are still sent. */
@Injectable()
export class EventReconciler extends PeriodicTask {
  protected readonly everyMs: number;
  private cursor: string | null = null;

  constructor(
    @Inject(ENV) env: Env,
    private readonly reconcile: ReconcileCallEvents,
  ) {
    super();
    this.everyMs = env.RECONCILE_INTERVAL_MS;
  }

  protected async run(): Promise<void> {
    let requeued = 0;
    for (let pages = 0; pages < MAX_PAGES_PER_RUN; pages += 1) {
      const page = await this.reconcile.execute(this.cursor);
      requeued += page.requeued;
      this.cursor = page.next;
      if (page.next === null) break;
    }
    if (requeued > 0) this.logger.log(`re-queued ${requeued} overdue event(s)`);
  }
}
