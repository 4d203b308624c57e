import { Injectable } from '@nestjs/common';
import { DelayedError, type Job } from 'bullmq';
import { DeliverAttempt } from '../../../../libs/domain/src/index.js';
import { DELIVER_TOOL_CALL_JOB, type DeliverToolCallJob } from '../../../../libs/queue/src/index.js';
import { AppDeliveryLimiter } from '../app-delivery-limiter.js';
import type { JobProcessor } from '../job-processor.js';

/** How long a job of an app at its cap waits before it asks again (jittered so they do not return together). */
const CAP_RETRY_MS = 1000;

/** One job, one attempt: the use case records it and queues the next one at its offset. */
@Injectable()
export class ToolCallDeliveryProcessor implements JobProcessor {
  readonly jobName = DELIVER_TOOL_CALL_JOB;

  constructor(
    private readonly deliverAttempt: DeliverAttempt,
    private readonly limiter: AppDeliveryLimiter,
  ) {}

  async process(job: Job<DeliverToolCallJob>, token?: string): Promise<string> {
    const { appId } = job.data;
    if (!this.limiter.tryAcquire(appId)) {
      // Give the worker slot back instead of waiting in it: other apps' jobs run meanwhile.
      await job.moveToDelayed(Date.now() + CAP_RETRY_MS / 2 + Math.random() * CAP_RETRY_MS, token);
      throw new DelayedError();
    }
    try {
      const call = await this.deliverAttempt.execute(job.data);
      return call ? call.status : 'not due';
    } finally {
      this.limiter.release(appId);
    }
  }
}
