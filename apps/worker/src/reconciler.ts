import { Inject, Injectable } from '@nestjs/common';
import { ENV, type Env } from '../../../libs/config/src/index.js';
import { ReconcileToolCalls } from '../../../libs/domain/src/index.js';
import { PeriodicTask } from './periodic-task.js';

/** Runs the reconciler on a timer, so that calls lost by a crash or an emptied Redis still finish. */
@Injectable()
export class Reconciler extends PeriodicTask {
  protected readonly everyMs: number;

  constructor(
    @Inject(ENV) env: Env,
    private readonly reconcile: ReconcileToolCalls,
  ) {
    super();
    this.everyMs = env.RECONCILE_INTERVAL_MS;
  }

  protected async run(): Promise<void> {
    const { requeued, failed } = await this.reconcile.execute();
    if (requeued + failed > 0) this.logger.log(`re-queued ${requeued} overdue call(s), failed ${failed} stuck instant call(s)`);
  }
}
