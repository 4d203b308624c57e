/** The queue every tool-call delivery goes through. */
export const TOOL_CALL_DELIVERY_QUEUE = 'tool-call-delivery';

/**
 * Every job name a Toolgate queue may carry. The worker refuses to start unless each has a
 * processor, so a job can never sit in Redis with nobody to run it.
 */
export const JOB_NAMES: readonly string[] = ['deliver-tool-call', 'deliver-call-event'];

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

/** Delivers one attempt of a tool_call.finished event to its project's event endpoint. Ids only, as for calls. */
export const DELIVER_CALL_EVENT_JOB = 'deliver-call-event';

export interface DeliverCallEventJob {
  eventId: string;
  /** The delivery lane the worker caps (as an app's): one per project's event endpoint. */
  appId: string;
  n: number;
}

/** The job of attempt `n` of an event: its project's endpoint is its lane at the worker's gate. */
export function eventAttemptJob(event: { id: string; projectId: string }, n: number): DeliverCallEventJob {
  return { eventId: event.id, appId: `events-${event.projectId}`, n };
}

/** Deterministic, as for calls. */
export function eventJobId(job: Pick<DeliverCallEventJob, 'eventId' | 'n'>): string {
  return `event-${job.eventId}-a${job.n}`;
}

/** The job names that have no processor among the registered ones. */
export function jobNamesWithoutProcessor(jobNames: readonly string[], processorJobNames: readonly string[]): string[] {
  const handled = new Set(processorJobNames);
  return jobNames.filter((name) => !handled.has(name));
}
