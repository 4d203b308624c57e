import { Injectable } from '@nestjs/common';
import { DelayedError, type Job } from 'bullmq';
import { DeliverQueuedAttempt } from '../../../../libs/domain/src/index.js';
import { Metrics } from '../../../../libs/observability/src/index.js';
import { DELIVER_TOOL_CALL_JOB, type DeliverToolCallJob } from '../../../../libs/queue/src/index.js';
import { AppDeliveryLimiter } from '../app-delivery-limiter.js';
import type { JobProcessor } from '../job-processor.js';

/** One job, one attempt: the use case records it and queues the next one at its offset. */
@Injectable()
export class ToolCallDeliveryProcessor implements JobProcessor {
  readonly jobName = DELIVER_TOOL_CALL_JOB;

  constructor(
    private readonly deliverQueuedAttempt: DeliverQueuedAttempt,
    private readonly limiter: AppDeliveryLimiter,
    private readonly metrics: Metrics,
  ) {}

  async process(job: Job<DeliverToolCallJob>, token?: string): Promise<string> {
    const { appId } = job.data;
    const jobId = job.id as string;
    if (!this.limiter.tryAcquire(appId, jobId)) {
      // Give the worker slot back instead of waiting in it: other apps' jobs run meanwhile.
      await job.moveToDelayed(Date.now() + this.limiter.waitMs(appId, jobId), token);
      throw new DelayedError();
    }
    // Due when it was queued plus its delay (a job the app's share put back keeps its first due time).
    this.metrics.attemptLateness.observe(Math.max(0, Date.now() - (job.timestamp + (job.opts.delay ?? 0))) / 1000);
    const started = performance.now();
    try {
      const call = await this.deliverQueuedAttempt.execute(job.data);
      return call ? call.status : 'not due';
    } finally {
      this.limiter.release(appId, performance.now() - started);
    }
  }
}
