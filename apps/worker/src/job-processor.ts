import type { Job } from 'bullmq';

/** Runs one kind of job; registered with the worker under its job name. */
export interface JobProcessor {
  readonly jobName: string;
  process(job: Job, token?: string): Promise<unknown>;
}

/** Injection token of the list of registered processors. */
export const JOB_PROCESSORS = Symbol('JOB_PROCESSORS');
