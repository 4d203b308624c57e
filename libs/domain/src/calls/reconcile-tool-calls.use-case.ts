import { Injectable } from '@nestjs/common';
import { type OverdueCall, ToolCallLedger } from '../../../persistence/src/index.js';
import { DeliveryQueue } from '../../../queue/src/index.js';
import { Metrics } from '../../../observability/src/index.js';
import { FinishedCalls } from './finished-calls.js';

export interface ReconcilePage {
  requeued: number;
  failed: number;
  /** Where the next page starts; null after the last page (the next sweep starts over). */
  next: string | null;
}

/**
 * Nothing is lost: re-queues calls whose attempt is overdue and whose job Redis no longer holds (an
 * emptied Redis, a failed enqueue), or stuck in progress past its deadline (a worker died). A call
 * that is only late (its job waits behind a backlog) is left in its place: job ids are deterministic,
 * and only the missing ones are added. An instant call stuck in progress ends failed: instant never retries.
 * Works a page at a time in id order: a caller pages on, so no backlog hides a call behind it.
 */
@Injectable()
export class ReconcileToolCalls {
  constructor(
    private readonly calls: ToolCallLedger,
    private readonly queue: DeliveryQueue,
    private readonly finished: FinishedCalls,
    private readonly metrics: Metrics,
  ) {}

  /** One page of overdue calls after `after` (null: from the start). */
  async execute(after: string | null = null, { graceMs = 2000, pageSize = 500 } = {}): Promise<ReconcilePage> {
    const now = new Date();
    const page = await this.calls.findOverdue(now, graceMs, pageSize, after);
    let failed = 0;
    const due: { call: OverdueCall; n: number }[] = [];
    for (const call of page) {
      if (call.executionMode === 'instant') {
        const message = 'the API process stopped before the attempt finished; instant calls are not retried';
        if (await this.calls.failStuck(call.id, { kind: 'timeout', message }, now, graceMs)) {
          failed += 1;
          this.metrics.reconcilerFailed.inc();
          this.finished.announce(call, 'failed');
        }
        continue;
      }
      if (call.nextAttemptN !== null) due.push({ call, n: call.nextAttemptN });
    }
    const requeued = await this.queue.enqueueMissingAttempts(due);
    this.metrics.reconcilerRequeued.inc(requeued);
    return { requeued, failed, next: page.length === pageSize ? page[page.length - 1].id : null };
  }
}
