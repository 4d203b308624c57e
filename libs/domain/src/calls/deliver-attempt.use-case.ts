import { Inject, Injectable, Logger } from '@nestjs/common';
import { ENV, type Env } from '../../../config/src/index.js';
import { AppDispatchers, USER_AGENT } from '../../../outbound-http/src/index.js';
import { type AttemptResult, sendWebhook } from '../../../webhook-sender/src/index.js';
import {
  type AgentToolInstance,
  type App,
  type CallOutcome,
  type ToolCall,
  ToolCallsRepository,
} from '../../../persistence/src/index.js';
import { CallEvents } from '../../../broadcast/src/index.js';
import { DeliveryQueue } from '../../../queue/src/index.js';
import { SecretBox } from '../../../secrets/src/index.js';
import { Metrics } from '../../../observability/src/index.js';
import { signWebhook } from '../../../signing/src/index.js';
import { newId } from '../ids.js';
import type { RetryWindow } from '../tools/http-tool.js';
import { signingSecretsOf } from '../apps/webhook-secrets.js';
import { attemptCount, nextAttempt, parseRetryAfter } from './retry-schedule.js';
import { handlerSaid, resultOf, toolCallBody } from './tool-call-body.js';
import { whyCallStops } from './why-call-stops.js';

/** Margin past the attempt timeout after which an in-progress attempt counts as lost (a crash). */
export const ATTEMPT_DEADLINE_MARGIN_MS = 5_000;

/** "attempt 2 of 5 failed: 503, next in 1 min": what an MCP client is told while a call is retried. */
export function progressMessage(
  n: number,
  total: number,
  attempt: Pick<AttemptResult, 'outcome' | 'httpStatus'>,
  nextInMs: number,
): string {
  const why = attempt.outcome === 'http_status' ? String(attempt.httpStatus) : attempt.outcome.replace(/_/g, ' ');
  return `attempt ${n} of ${total} failed: ${why}, next in ${humanDuration(nextInMs)}`;
}

function humanDuration(ms: number): string {
  const seconds = Math.max(0, ms) / 1000;
  if (seconds < 1) return `${Math.round(seconds * 1000)} ms`;
  if (seconds < 60) return `${Math.round(seconds)} s`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min`;
  return `${Math.round(seconds / 360) / 10} h`;
}

/**
 * Makes one attempt of a call: claims it, signs the exact body bytes with the app's secret(s)
 * at send time, sends, records the attempt and moves the call on (next attempt queued at its
 * offset, or a terminal status). Used by the API for instant calls and by the worker for queued ones.
 */
@Injectable()
export class DeliverAttempt {
  private readonly logger = new Logger('Delivery');

  constructor(
    @Inject(ENV) private readonly env: Env,
    private readonly dispatchers: AppDispatchers,
    private readonly calls: ToolCallsRepository,
    private readonly secrets: SecretBox,
    private readonly queue: DeliveryQueue,
    private readonly events: CallEvents,
    private readonly metrics: Metrics,
  ) {}

  /**
   * A queued attempt (the worker's job): claims it (reading in the same statement the app,
   * installation, instance and tool as they are now, and taking the tool's current handler URL and
   * timeout), checks that what the call calls is still there and on, then makes it. Returns the call
   * after the attempt, or null when the attempt was not due (a stale or duplicate job).
   */
  async execute(job: { callId: string; round: number; n: number }): Promise<ToolCall | null> {
    const claimed = await this.calls.claimForDelivery(job.callId, job.round, job.n, ATTEMPT_DEADLINE_MARGIN_MS);
    if (!claimed) return null;
    const { call, app, instance } = claimed;
    const stops = whyCallStops(claimed);
    // No attempt is made, so none is recorded: the call just ends, saying what changed.
    if (stops || !app || !instance) return this.cancelClaimed(call, stops ?? 'the tool instance was deleted');
    return this.deliverClaimed(call, app, await this.bodyOf(call, instance), job.n);
  }

  private async cancelClaimed(call: ToolCall, message: string): Promise<ToolCall> {
    const now = new Date();
    const error = { kind: 'cancelled', message: `cancelled before attempt ${call.nextAttemptN}: ${message}` };
    if (!(await this.calls.cancel(call.id, error, now))) return (await this.calls.getById(call.id)) ?? call;
    this.metrics.callsFinished.inc({ mode: call.executionMode, status: 'cancelled' });
    await this.events.publishFinished(call.id).catch(() => undefined);
    const ended = {
      status: 'cancelled',
      error,
      finishedAt: now,
      nextAttemptAt: null,
      nextAttemptN: null,
      attemptDeadline: null,
    };
    return { ...call, ...ended, updatedAt: now };
  }

  /**
   * Makes attempt `n` of a call already in progress (claimed by the worker, or created in
   * progress by the API for an instant call): signs the exact body bytes with the app's live
   * secret(s) at send time, sends, records, and moves the call on.
   */
  async deliverClaimed(call: ToolCall, app: App, body: string, n: number): Promise<ToolCall> {
    const secrets = await Promise.all(signingSecretsOf(app, new Date()).map((secret) => this.secrets.decrypt(secret)));
    // Offsets run from the moment attempt 1 goes out, not from the bookkeeping before it.
    const sentAt = new Date();
    const signature = signWebhook(secrets, call.eventId, Math.floor(sentAt.getTime() / 1000), body);
    const attempt = await sendWebhook(this.dispatchers.forApp(call.appId), {
      url: call.handlerUrl as string,
      body,
      timeoutMs: call.attemptTimeoutS * 1000,
      allowPrivateNetwork: this.env.ALLOW_PRIVATE_NETWORK,
      headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT, ...signature },
    });
    return this.finish(call, n, attempt, sentAt, this.outcomeAfter(call, n, attempt, sentAt));
  }

  /** Records the attempt with where the call goes next, then queues the next attempt or announces the end. */
  private async finish(
    call: ToolCall,
    n: number,
    attempt: AttemptResult,
    sentAt: Date,
    next: Pick<CallOutcome, 'status' | 'error'> & Partial<CallOutcome>,
  ): Promise<ToolCall> {
    const terminal = next.status !== 'queued';
    const outcome: CallOutcome = {
      nextAttemptN: null,
      nextAttemptAt: null,
      result: null,
      resultText: null,
      ...next,
      firstAttemptAt: n === 1 ? sentAt : (call.firstAttemptAt ?? sentAt),
      finishedAt: terminal ? new Date() : null,
    };
    const moved = await this.calls.recordAttempt(
      call.id,
      call.round,
      n,
      {
        startedAt: sentAt,
        durationMs: attempt.durationMs,
        outcome: attempt.outcome,
        httpStatus: attempt.httpStatus ?? null,
        error: attempt.error ?? null,
        responseExcerpt: attempt.excerpt ?? null,
      },
      outcome,
      newId('att'),
    );
    this.metrics.recordAttempt(attempt.outcome, attempt.durationMs);
    if (!moved) return (await this.calls.getById(call.id)) ?? call; // cancelled meanwhile: it stays so
    if (terminal) {
      this.metrics.callsFinished.inc({ mode: call.executionMode, status: outcome.status });
      await this.events.publishFinished(call.id).catch(() => undefined);
    } else {
      const dueAt = outcome.nextAttemptAt as Date;
      const total = attemptCount(call.retryWindow as RetryWindow | null);
      await this.events
        .publishProgress(call.id, {
          n,
          total,
          message: progressMessage(n, total, attempt, dueAt.getTime() - Date.now()),
        })
        .catch(() => undefined);
      await this.queue
        .enqueue(
          { callId: call.id, appId: call.appId, round: call.round, n: outcome.nextAttemptN as number },
          dueAt.getTime() - Date.now(),
        )
        .catch((error: Error) =>
          this.logger.warn(`call ${call.id}: next attempt not queued (${error.message}); the reconciler will`),
        );
    }
    return { ...call, ...outcome, attemptDeadline: null, updatedAt: new Date() } as ToolCall;
  }

  /** The call's body: built (with private data decrypted) at its first attempt, then the same bytes every time. */
  private async bodyOf(call: ToolCall, instance: AgentToolInstance): Promise<string> {
    if (call.bodyEnc) return this.secrets.decrypt(call.bodyEnc);
    const privateData = instance.privateDataEnc ? await this.secrets.decryptJson(instance.privateDataEnc) : {};
    const body = toolCallBody(call, instance.configuration, privateData);
    await this.calls.storeBody(call.id, await this.secrets.encrypt(body));
    return body;
  }

  /** Where the call goes after attempt `n`, which went out at `sentAt`. */
  private outcomeAfter(
    call: ToolCall,
    n: number,
    attempt: AttemptResult,
    sentAt: Date,
  ): Pick<CallOutcome, 'status' | 'error'> & Partial<CallOutcome> {
    const answer = {
      body: attempt.body ?? Buffer.alloc(0),
      contentType: attempt.contentType,
      contentEncoding: attempt.contentEncoding,
    };
    if (attempt.outcome === 'success') {
      const { result, resultText } = resultOf(answer);
      return { status: 'succeeded', result, resultText, error: null };
    }
    // What the handler said with a 4xx/5xx is what lets the model understand why it failed.
    const said = attempt.outcome === 'http_status' || attempt.outcome === 'gone' ? handlerSaid(answer) : null;
    const error = {
      kind: attempt.outcome,
      message: `${attempt.error ?? attempt.outcome}${said ? `: ${said}` : ''}`,
      ...(attempt.httpStatus !== undefined ? { http_status: attempt.httpStatus } : {}),
    };
    if (attempt.outcome !== 'gone') {
      const retryAfterMs = parseRetryAfter(attempt.retryAfter, new Date());
      // Retry-After counts from when the attempt went out, like the offsets themselves.
      const next = nextAttempt(
        call.retryWindow as RetryWindow | null,
        n === 1 ? sentAt : (call.firstAttemptAt ?? sentAt),
        n,
        this.env.RETRY_TIME_SCALE,
        retryAfterMs !== undefined ? { failedAt: sentAt, afterMs: retryAfterMs } : undefined,
      );
      if (next) return { status: 'queued', nextAttemptN: next.n, nextAttemptAt: next.dueAt, error };
    }
    return { status: 'failed', error };
  }
}
