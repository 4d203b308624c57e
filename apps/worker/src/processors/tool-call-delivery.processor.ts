import { Injectable } from '@nestjs/common';
import type { Job } from 'bullmq';
import { DeliverAttempt } from '../../../../libs/domain/src/index.js';
import { DELIVER_TOOL_CALL_JOB, type DeliverToolCallJob } from '../../../../libs/queue/src/index.js';
import type { JobProcessor } from '../job-processor.js';

/** One job, one attempt: the use case records it and queues the next one at its offset. */
@Injectable()
export class ToolCallDeliveryProcessor implements JobProcessor {
  readonly jobName = DELIVER_TOOL_CALL_JOB;

  constructor(private readonly deliverAttempt: DeliverAttempt) {}

  async process(job: Job<DeliverToolCallJob>): Promise<string> {
    const { callId, round, n } = job.data;
    const call = await this.deliverAttempt.execute(callId, round, n);
    return call ? call.status : 'not due';
  }
}
