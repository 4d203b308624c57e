import { type Lane, appLane, laneOf, projectEventsLane } from './lanes.js';

/** The queue every delivery goes through: a call's webhook, a project's event. */
export const TOOL_CALL_DELIVERY_QUEUE = 'tool-call-delivery';

/** Makes one attempt of one delivery, of whichever kind its payload names. */
export const DELIVER_JOB = 'deliver';

/**
 * Every job name a Toolgate queue may carry. The worker refuses to start unless each has a
 * processor, so a job can never sit in Redis with nobody to run it.
 */
export const JOB_NAMES: readonly string[] = [DELIVER_JOB];

/** The kinds of delivery: a call's `tool_call` webhook to its handler, and its `tool_call.finished` event to a host. */
export const DELIVERY_KINDS = ['tool_call', 'tool_call.finished'] as const;
export type DeliveryKindName = (typeof DELIVERY_KINDS)[number];

/** Attempt `n` of round `round` of a delivery (a call, an event): ids only, never a secret or a body. */
export interface DeliveryJob {
  kind: DeliveryKindName;
  /** The call's id, or the event's. */
  id: string;
  round: number;
  n: number;
  lane: Lane;
}

/** The job of attempt `n` of a call's current round: the one place its payload is made. */
export function toolCallJob(call: { id: string; appId: string; round: number }, n: number): DeliveryJob {
  return { kind: 'tool_call', id: call.id, round: call.round, n, lane: appLane(call.appId) };
}

/** The job of attempt `n` of a tool_call.finished event: its project's event lane. */
export function callFinishedJob(event: { id: string; projectId: string }, n: number): DeliveryJob {
  return { kind: 'tool_call.finished', id: event.id, round: 1, n, lane: projectEventsLane(event.projectId) };
}

/** A call's job ids are the call's own; an event's are prefixed, so that the two never meet. */
const JOB_ID_PREFIX: Record<DeliveryKindName, string> = { tool_call: '', 'tool_call.finished': 'event-' };

/** Deterministic: enqueueing the same attempt twice is harmless. */
export function deliveryJobId(job: Pick<DeliveryJob, 'kind' | 'id' | 'round' | 'n'>): string {
  return `${JOB_ID_PREFIX[job.kind]}${job.id}-r${job.round}-a${job.n}`;
}

/** A job's payload read back from Redis: null when it is not a delivery job. */
export function deliveryJobOf(data: unknown): DeliveryJob | null {
  if (typeof data !== 'object' || data === null) return null;
  const { kind, id, round, n, lane } = data as Record<string, unknown>;
  const known = (DELIVERY_KINDS as readonly unknown[]).includes(kind);
  const parsedLane = laneOf(lane);
  if (!known || typeof id !== 'string' || typeof round !== 'number' || typeof n !== 'number' || !parsedLane) {
    return null;
  }
  return { kind: kind as DeliveryKindName, id, round, n, lane: parsedLane };
}

/** The job names that have no processor among the registered ones. */
export function jobNamesWithoutProcessor(jobNames: readonly string[], processorJobNames: readonly string[]): string[] {
  const handled = new Set(processorJobNames);
  return jobNames.filter((name) => !handled.has(name));
}
