import { Inject, Injectable } from '@nestjs/common';
import { ENV, type Env } from '../../../config/src/index.js';
import { AppDispatchers, USER_AGENT } from '../../../outbound-http/src/index.js';
import { type CallEventRecord, CallEventLedger, type ClaimedCallEvent } from '../../../persistence/src/index.js';
import { DeliveryQueue, type DeliverCallEventJob, eventAttemptJob } from '../../../queue/src/index.js';
import { SecretBox } from '../../../secrets/src/index.js';
import { signWebhook } from '../../../signing/src/index.js';
import { type AttemptResult, sendWebhook } from '../../../webhook-sender/src/index.js';
import { signingSecretsOf } from '../apps/webhook-secrets.js';
import { ATTEMPT_DEADLINE_MARGIN_MS } from '../calls/call-transitions.js';
import type { DeliverySlot } from '../calls/delivery-gate.js';
import { nextAttempt, parseRetryAfter } from '../calls/retry-schedule.js';
import { newId } from '../ids.js';
import { callEventBody } from './call-event-body.js';

/** An event endpoint answers within 30 s, as a handler with the default attempt timeout must. */
export const EVENT_ATTEMPT_TIMEOUT_MS = 30_000;
/** Events are retried on the 5m schedule (0, 15 s, 1, 3, 5 min). */
const EVENT_RETRY_WINDOW = '5m';

/**
 * Attempt `n` of a tool_call.finished event, one more kind of delivery through the calls' core: claimed in Postgres,
 * signed with the endpoint's secret(s) at send time, sent by the webhook sender (SSRF guard, no redirects, 1 MiB cap,
 * 30 s), recorded with the event's move in one statement; a failure queues the next attempt at its 5m offset, a 410
 * or the last attempt ends the event failed.
 */
@Injectable()
export class DeliverCallEvent {
  constructor(
    @Inject(ENV) private readonly env: Env,
    private readonly events: CallEventLedger,
    private readonly dispatchers: AppDispatchers,
    private readonly secrets: SecretBox,
    private readonly queue: DeliveryQueue,
  ) {}

  /** The event's status after the attempt, or 'not due' for a stale or repeated job. */
  async execute(job: Pick<DeliverCallEventJob, 'eventId' | 'n'>, slot?: DeliverySlot): Promise<string> {
    const now = new Date();
    const deadline = new Date(now.getTime() + EVENT_ATTEMPT_TIMEOUT_MS + ATTEMPT_DEADLINE_MARGIN_MS);
    const event = await this.events.claim(job.eventId, job.n, now, deadline);
    if (!event) return 'not due';
    if (!event.endpoint) {
      const why = { kind: 'cancelled', message: 'the project has no event endpoint any more' };
      await this.events.cancel(event.id, why, now);
      return 'cancelled';
    }
    const sent = await this.send(event, event.endpoint);
    slot?.release();
    return this.record(event, sent);
  }

  private async send(
    event: ClaimedCallEvent,
    endpoint: NonNullable<ClaimedCallEvent['endpoint']>,
  ): Promise<AttemptResult & { sentAt: Date }> {
    const signing = { webhookSecretEnc: endpoint.secretEnc, retiredWebhookSecrets: endpoint.retiredSecrets };
    const secrets = await Promise.all(signingSecretsOf(signing, new Date()).map((s) => this.secrets.decrypt(s)));
    const body = callEventBody(event.payload);
    const sentAt = new Date();
    const signature = signWebhook(secrets, event.id, Math.floor(sentAt.getTime() / 1000), body);
    const sent = await sendWebhook(this.dispatchers.forApp(eventAttemptJob(event, event.n).appId), {
      url: endpoint.url,
      body,
      timeoutMs: EVENT_ATTEMPT_TIMEOUT_MS,
      allowPrivateNetwork: this.env.ALLOW_PRIVATE_NETWORK,
      headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT, ...signature },
    });
    return { ...sent, sentAt };
  }

  private async record(event: ClaimedCallEvent, sent: AttemptResult & { sentAt: Date }): Promise<string> {
    const { sentAt, outcome } = sent;
    const firstAttemptAt = event.firstAttemptAt ?? sentAt;
    const retryAfterMs = parseRetryAfter(sent.retryAfter, new Date());
    const retryAfter = retryAfterMs !== undefined ? { failedAt: sentAt, afterMs: retryAfterMs } : undefined;
    const next =
      outcome === 'success' || outcome === 'gone'
        ? null
        : nextAttempt(EVENT_RETRY_WINDOW, firstAttemptAt, event.n, this.env.RETRY_TIME_SCALE, retryAfter);
    const status = outcome === 'success' ? 'succeeded' : next ? 'queued' : 'failed';
    const error =
      outcome === 'success'
        ? null
        : {
            kind: outcome,
            message: sent.error ?? outcome,
            ...(sent.httpStatus ? { http_status: sent.httpStatus } : {}),
          };
    const record: CallEventRecord = {
      attemptId: newId('att'),
      eventId: event.id,
      n: event.n,
      startedAt: sentAt,
      durationMs: sent.durationMs,
      outcome,
      httpStatus: sent.httpStatus ?? null,
      error: outcome === 'success' ? null : (sent.error ?? outcome),
      responseExcerpt: sent.excerpt ?? null,
      status,
      nextAttemptN: next?.n ?? null,
      nextAttemptAt: next?.dueAt ?? null,
      firstAttemptAt,
      eventError: status === 'queued' ? null : error,
      finishedAt: next ? null : new Date(),
    };
    if (!(await this.events.record(record))) return 'not due';
    if (next) await this.queue.enqueueEventAttempt(event, next.n, next.dueAt);
    return status;
  }
}
