import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { ENV, type Env } from '../../../libs/config/src/index.js';
import { ReconcileToolCalls } from '../../../libs/domain/src/index.js';

/** Runs the reconciler on a timer, so that calls lost by a crash or an emptied Redis still finish. */
@Injectable()
export class Reconciler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Reconciler');
  private timer?: NodeJS.Timeout;
  private running = false;

  constructor(
    @Inject(ENV) private readonly env: Env,
    private readonly reconcile: ReconcileToolCalls,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.tick(), this.env.RECONCILE_INTERVAL_MS);
    void this.tick();
  }

  private async tick(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      const { requeued, failed } = await this.reconcile.execute();
      if (requeued + failed > 0) this.logger.log(`re-queued ${requeued} overdue call(s), failed ${failed} stuck instant call(s)`);
    } catch (error) {
      this.logger.warn(`reconcile failed: ${(error as Error).message}`);
    } finally {
      this.running = false;
    }
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }
}
