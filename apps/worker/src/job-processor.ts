import type { Job } from 'bullmq';

/** Runs one kind of job; registered with the worker under its job name. */
export interface JobProcessor {
  readonly jobName: string;
  /** `handlerDone` frees the job's delivery slot before the job ends: once its handler answered, say. */
  process(job: Job, token?: string, handlerDone?: () => void): Promise<unknown>;
}

/** Injection token of the list of registered processors. */
export const JOB_PROCESSORS = Symbol('JOB_PROCESSORS');
