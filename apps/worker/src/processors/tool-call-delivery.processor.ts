import { Injectable } from '@nestjs/common';
import type { Job } from 'bullmq';
import { DeliverQueuedAttempt, type DeliverySlot } from '../../../../libs/domain/src/index.js';
import { Metrics } from '../../../../libs/observability/src/index.js';
import { DELIVER_TOOL_CALL_JOB, type DeliverToolCallJob } from '../../../../libs/queue/src/index.js';
import type { JobProcessor } from '../job-processor.js';

/** One job, one attempt: the use case records it and queues the next one at its offset. */
@Injectable()
export class ToolCallDeliveryProcessor implements JobProcessor {
  readonly jobName = DELIVER_TOOL_CALL_JOB;

  constructor(
    private readonly deliverQueuedAttempt: DeliverQueuedAttempt,
    private readonly metrics: Metrics,
  ) {}

  async process(job: Job<DeliverToolCallJob>, slot: DeliverySlot): Promise<string> {
    // The consumer's gate (DeliveryGate) gave this job its slot. Due when queued plus its delay
    // (a job sent back to wait for its app's slot keeps its first due time).
    this.metrics.attemptLateness.observe(Math.max(0, Date.now() - (job.timestamp + (job.opts.delay ?? 0))) / 1000);
    const call = await this.deliverQueuedAttempt.execute(job.data, slot);
    return call ? call.status : 'not due';
  }
}
