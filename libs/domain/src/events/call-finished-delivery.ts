import { Inject, Injectable } from '@nestjs/common';
import { ENV, type Env } from '../../../config/src/index.js';
import { type ClaimedCallEvent, CallEventLedger, type EventAttemptRecord } from '../../../persistence/src/index.js';
import { type DeliveryJob, callFinishedJob, projectEventsLane } from '../../../queue/src/index.js';
import { ATTEMPT_DEADLINE_MARGIN_MS } from '../calls/delivering/call-transitions.js';
import { handlerSaid } from '../calls/delivering/handler-answer.js';
import type {
  AttemptLogEntry,
  DeliveryKind,
  OverduePage,
  PreparedDelivery,
  SentDelivery,
  SettledDelivery,
} from '../delivery/delivery-kind.js';
import { nextAttemptAfter, parseRetryAfter } from '../delivery/retry-schedule.js';
import { newId } from '../ids.js';
import { callEventBody } from './call-event-body.js';

/** An event endpoint answers within 30 s, as a handler with the default attempt timeout must. */
export const EVENT_ATTEMPT_TIMEOUT_MS = 30_000;
/** Events are retried on the 5m schedule (0, 15 s, 1, 3, 5 min). */
const EVENT_RETRY_WINDOW = '5m';

/**
 * The tool_call.finished event a project's event endpoint is sent when a wait or background call ends, as one kind of
 * delivery: claimed in Postgres with the endpoint as it is now (an event whose endpoint was deleted ends cancelled,
 * nothing sent), its body the `call` object stored with the call's end, signed with the endpoint's secret(s); a
 * failure is retried on the 5m schedule, a 410 or the last attempt ends the event failed.
 */
@Injectable()
export class CallFinishedDelivery implements DeliveryKind<ClaimedCallEvent, string> {
  readonly name = 'tool_call.finished' as const;

  constructor(
    @Inject(ENV) private readonly env: Env,
    private readonly events: CallEventLedger,
  ) {}

  async prepare(job: DeliveryJob): Promise<PreparedDelivery<ClaimedCallEvent> | { stopped: string } | null> {
    const now = new Date();
    const claim = {
      eventId: job.id,
      n: job.n,
      timeoutMs: EVENT_ATTEMPT_TIMEOUT_MS,
      marginMs: ATTEMPT_DEADLINE_MARGIN_MS,
      now,
    };
    const event = await this.events.claim(claim);
    if (!event) return null;
    const { endpoint } = event;
    if (!endpoint) {
      await this.events.cancel(
        event.id,
        { kind: 'cancelled', message: 'the project has no event endpoint any more' },
        now,
      );
      return { stopped: 'cancelled' };
    }
    const target = {
      url: endpoint.url,
      signing: { webhookSecretEnc: endpoint.secretEnc, retiredWebhookSecrets: endpoint.retiredSecrets },
      webhookId: event.id,
      timeoutMs: EVENT_ATTEMPT_TIMEOUT_MS,
      lane: projectEventsLane(event.projectId),
    };
    return { parent: event, n: job.n, body: callEventBody(event.payload as Record<string, unknown>), target };
  }

  async settle(prepared: PreparedDelivery<ClaimedCallEvent>, sent: SentDelivery): Promise<SettledDelivery<string>> {
    const { parent: event, n } = prepared;
    const { sentAt, outcome } = sent;
    const firstAttemptAt = event.firstAttemptAt ?? sentAt;
    const failed = { outcome, n, sentAt, retryAfterMs: parseRetryAfter(sent.retryAfter, new Date()) };
    const next =
      outcome === 'success'
        ? null
        : nextAttemptAfter(failed, EVENT_RETRY_WINDOW, firstAttemptAt, this.env.RETRY_TIME_SCALE);
    const status = outcome === 'success' ? 'succeeded' : next ? 'queued' : 'failed';
    const record: EventAttemptRecord = {
      eventId: event.id,
      attempt: {
        id: newId('att'),
        n,
        startedAt: sentAt,
        durationMs: sent.durationMs,
        outcome,
        httpStatus: sent.httpStatus ?? null,
        error: outcome === 'success' ? null : (sent.error ?? outcome),
        responseExcerpt: sent.excerpt ?? null,
      },
      move: {
        status,
        nextAttemptN: next?.n ?? null,
        nextAttemptAt: next?.dueAt ?? null,
        firstAttemptAt,
        error: status === 'queued' ? null : eventError(sent),
        finishedAt: next ? null : new Date(),
      },
    };
    const moved = await this.events.record(record);
    const logged = eventAttemptEntry(event, record);
    // A stale attempt (another one took the event meanwhile) moves nothing and queues nothing.
    return moved
      ? { result: status, status, next, logged }
      : { result: 'not due', status: 'not due', next: null, logged };
  }

  job(event: ClaimedCallEvent, n: number): DeliveryJob {
    return callFinishedJob(event, n);
  }

  async overdue(after: string | null, { graceMs, pageSize }: { graceMs: number; pageSize: number }) {
    const page = await this.events.findOverdue(new Date(), graceMs, pageSize, after);
    const due = page.flatMap((event) =>
      event.nextAttemptN === null ? [] : [callFinishedJob(event, event.nextAttemptN)],
    );
    const result: OverduePage = { due, ended: 0, next: page.length === pageSize ? page[page.length - 1].id : null };
    return result;
  }
}

/** The event's error once it failed: the outcome, what went wrong, and what the endpoint said with it. */
function eventError(sent: SentDelivery): { kind: string; message: string; http_status?: number } | null {
  if (sent.outcome === 'success') return null;
  const said =
    (sent.outcome === 'http_status' || sent.outcome === 'gone') && sent.body
      ? handlerSaid({ body: sent.body, contentType: sent.contentType, contentEncoding: sent.contentEncoding })
      : null;
  const message = `${sent.error ?? sent.outcome}${said ? `: ${said}` : ''}`;
  return { kind: sent.outcome, message, ...(sent.httpStatus ? { http_status: sent.httpStatus } : {}) };
}

/** An event's attempt as the attempt log tells it: ids, numbers and the outcome only. */
function eventAttemptEntry(event: ClaimedCallEvent, record: EventAttemptRecord): AttemptLogEntry {
  return {
    delivery: 'tool_call.finished',
    fields: { event_id: event.id, call_id: event.callId, project_id: event.projectId },
    subject: `tool_call.finished ${event.id} (${event.callId}, project ${event.projectId})`,
    round: 1,
    n: record.attempt.n,
    outcome: record.attempt.outcome,
    httpStatus: record.attempt.httpStatus,
    durationMs: record.attempt.durationMs,
  };
}
