import { Injectable } from '@nestjs/common';
import { ToolCallsRepository } from '../../../persistence/src/index.js';
import { CallEvents, DeliveryQueue } from '../../../queue/src/index.js';
import { Metrics } from '../../../observability/src/index.js';

/**
 * Nothing is lost: re-queues calls whose attempt is overdue (Redis lost the job) or stuck in
 * progress past its deadline (a worker died). Job ids are deterministic, so a job still waiting
 * in Redis is not doubled. An instant call stuck in progress ends failed: instant never retries.
 */
@Injectable()
export class ReconcileToolCalls {
  constructor(
    private readonly calls: ToolCallsRepository,
    private readonly queue: DeliveryQueue,
    private readonly events: CallEvents,
    private readonly metrics: Metrics,
  ) {}

  async execute(graceMs = 2000, limit = 500): Promise<{ requeued: number; failed: number }> {
    const now = new Date();
    let requeued = 0;
    let failed = 0;
    for (const call of await this.calls.findOverdue(now, graceMs, limit)) {
      if (call.executionMode === 'instant') {
        const message = 'the API process stopped before the attempt finished; instant calls are not retried';
        if (await this.calls.failStuck(call.id, { kind: 'timeout', message }, now, graceMs)) {
          failed += 1;
          this.metrics.reconcilerFailed.inc();
          this.metrics.callsFinished.inc({ mode: 'instant', status: 'failed' });
          await this.events.publishFinished(call.id).catch(() => undefined);
        }
        continue;
      }
      if (call.nextAttemptN === null) continue;
      await this.queue.enqueue({ callId: call.id, appId: call.appId, timeoutS: call.attemptTimeoutS, round: call.round, n: call.nextAttemptN }, 0);
      requeued += 1;
      this.metrics.reconcilerRequeued.inc();
    }
    return { requeued, failed };
  }
}
