import { Injectable } from '@nestjs/common';
import type { Job } from 'bullmq';
import { DeliveryEngine, type DeliverySlot } from '../../../../libs/domain/src/index.js';
import { Metrics } from '../../../../libs/observability/src/index.js';
import { DELIVER_JOB, deliveryJobOf } from '../../../../libs/queue/src/index.js';
import type { JobProcessor } from '../job-processor.js';

/**
 * How long a job waits in the worker for a slot of its app's delivery limits before it goes back to the queue (it
 * holds its place at the worker's gate meanwhile, never a slot of another app's).
 */
const LIMIT_WAIT_MS = 1000;

/** One job, one attempt of a delivery of any kind: the engine records it and queues the next one at its offset. */
@Injectable()
export class DeliveryProcessor implements JobProcessor {
  readonly jobName = DELIVER_JOB;

  constructor(
    private readonly engine: DeliveryEngine,
    private readonly metrics: Metrics,
  ) {}

  async process(job: Job, slot: DeliverySlot): Promise<string> {
    const delivery = deliveryJobOf(job.data);
    // Not a delivery's payload: nothing to do, and nothing a retry would change.
    if (!delivery) return 'not a delivery';
    // The consumer's gate (DeliveryGate) gave this job its slot. Due when queued plus its delay
    // (a job sent back to wait for its lane's slot keeps its first due time).
    const lateMs = Math.max(0, Date.now() - (job.timestamp + (job.opts.delay ?? 0)));
    this.metrics.attemptLateness.observe({ delivery: delivery.kind }, lateMs / 1000);
    return this.engine.deliverQueued(delivery, slot, LIMIT_WAIT_MS);
  }
}
