import { Injectable } from '@nestjs/common';
import type { Job } from 'bullmq';
import { DeliverCallEvent, type DeliverySlot } from '../../../../libs/domain/src/index.js';
import { DELIVER_CALL_EVENT_JOB, type DeliverCallEventJob } from '../../../../libs/queue/src/index.js';
import type { JobProcessor } from '../job-processor.js';

/** One job, one attempt of a tool_call.finished event: the use case records it and queues the next one. */
@Injectable()
export class CallEventDeliveryProcessor implements JobProcessor {
  readonly jobName = DELIVER_CALL_EVENT_JOB;

  constructor(private readonly deliverCallEvent: DeliverCallEvent) {}

  process(job: Job<DeliverCallEventJob>, slot: DeliverySlot): Promise<string> {
    return this.deliverCallEvent.execute(job.data, slot);
  }
}
