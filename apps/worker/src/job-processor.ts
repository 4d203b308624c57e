import type { Job } from 'bullmq';
import type { DeliverySlot } from '../../../libs/domain/src/index.js';

/** Runs one kind of job; registered with the worker under its job name. */
export interface JobProcessor {
  readonly jobName: string;
  /** `slot` is the job's place at the worker's DeliveryGate, released by the processor once it is no longer needed. */
  process(job: Job, slot: DeliverySlot): Promise<unknown>;
}

/** Injection token of the list of registered processors. */
export const JOB_PROCESSORS = Symbol('JOB_PROCESSORS');
