/** The queue every tool-call delivery goes through. */
export const TOOL_CALL_DELIVERY_QUEUE = 'tool-call-delivery';

/**
 * Every job name a Toolgate queue may carry. The worker refuses to start unless each has a
 * processor, so a job can never sit in Redis with nobody to run it.
 */
export const JOB_NAMES: readonly string[] = ['deliver-tool-call'];

/** Delivers one attempt of a tool call. The payload carries ids only: never a secret. */
export const DELIVER_TOOL_CALL_JOB = 'deliver-tool-call';

export interface DeliverToolCallJob {
  callId: string;
  /** Lets the worker cap each app's deliveries in flight before it touches the database. */
  appId: string;
  round: number;
  n: number;
}

/** The job of attempt `n` of a call's current round: the one place its payload is made. */
export function attemptJob(call: { id: string; appId: string; round: number }, n: number): DeliverToolCallJob {
  return { callId: call.id, appId: call.appId, round: call.round, n };
}

/** Deterministic: enqueueing the same attempt twice is harmless. */
export function deliveryJobId(job: Pick<DeliverToolCallJob, 'callId' | 'round' | 'n'>): string {
  return `${job.callId}-r${job.round}-a${job.n}`;
}

/** The job names that have no processor among the registered ones. */
export function jobNamesWithoutProcessor(jobNames: readonly string[], processorJobNames: readonly string[]): string[] {
  const handled = new Set(processorJobNames);
  return jobNames.filter((name) => !handled.has(name));
}
