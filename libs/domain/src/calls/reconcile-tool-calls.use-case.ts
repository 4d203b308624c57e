import { Injectable } from '@nestjs/common';
import { ToolCallsRepository } from '../../../persistence/src/index.js';
import { CallEvents } from '../../../broadcast/src/index.js';
import { type DeliverToolCallJob, DeliveryQueue } from '../../../queue/src/index.js';
import { Metrics } from '../../../observability/src/index.js';

export interface ReconcilePage {
  requeued: number;
  failed: number;
  /** Where the next page starts; null after the last page (the next sweep starts over). */
  next: string | null;
}

/**
 * Nothing is lost: re-queues calls whose attempt is overdue (Redis lost the job) or stuck in
 * progress past its deadline (a worker died). Job ids are deterministic, so a job still waiting
 * in Redis is not doubled. An instant call stuck in progress ends failed: instant never retries.
 * Works a page at a time in id order: a caller pages on, so no backlog hides a call behind it.
 */
@Injectable()
export class ReconcileToolCalls {
  constructor(
    private readonly calls: ToolCallsRepository,
    private readonly queue: DeliveryQueue,
    private readonly events: CallEvents,
    private readonly metrics: Metrics,
  ) {}

  /** One page of overdue calls after `after` (null: from the start). */
  async execute(after: string | null = null, { graceMs = 2000, pageSize = 500 } = {}): Promise<ReconcilePage> {
    const now = new Date();
    const page = await this.calls.findOverdue(now, graceMs, pageSize, after);
    let failed = 0;
    const jobs: DeliverToolCallJob[] = [];
    for (const call of page) {
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
      const { id: callId, appId, round, nextAttemptN: n } = call;
      jobs.push({ callId, appId, round, n });
    }
    await this.queue.enqueueNow(jobs);
    this.metrics.reconcilerRequeued.inc(jobs.length);
    return { requeued: jobs.length, failed, next: page.length === pageSize ? page[page.length - 1].id : null };
  }
}
