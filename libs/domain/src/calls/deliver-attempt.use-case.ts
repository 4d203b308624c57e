import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Dispatcher } from 'undici';
import { ENV, type Env } from '../../../config/src/index.js';
import { type AttemptResult, USER_AGENT, WEBHOOK_DISPATCHER, sendWebhook } from '../../../delivery/src/index.js';
import { AppsRepository, type CallTransition, type ToolCall, ToolCallsRepository, ToolInstancesRepository } from '../../../persistence/src/index.js';
import { CallEvents, DeliveryQueue } from '../../../queue/src/index.js';
import { SecretBox } from '../../../secrets/src/index.js';
import { Metrics } from '../../../observability/src/index.js';
import { signWebhook } from '../../../signing/src/index.js';
import { newId } from '../ids.js';
import type { RetryWindow } from '../tools/http-tool.js';
import { attemptCount, nextAttempt, parseRetryAfter } from './retry-schedule.js';
import { resultOf, toolCallBody } from './tool-call-body.js';

/** Margin past the attempt timeout after which an in-progress attempt counts as lost (a crash). */
export const ATTEMPT_DEADLINE_MARGIN_MS = 5_000;

class InstanceGoneError extends Error {}

/** "attempt 2 of 5 failed: 503, next in 1 min": what an MCP client is told while a call is retried. */
export function progressMessage(n: number, total: number, attempt: Pick<AttemptResult, 'outcome' | 'httpStatus'>, nextInMs: number): string {
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
    @Inject(WEBHOOK_DISPATCHER) private readonly dispatcher: Dispatcher,
    private readonly calls: ToolCallsRepository,
    private readonly apps: AppsRepository,
    private readonly instances: ToolInstancesRepository,
    private readonly secrets: SecretBox,
    private readonly queue: DeliveryQueue,
    private readonly events: CallEvents,
    private readonly metrics: Metrics,
  ) {}

  /** Returns the call after the attempt, or null when the attempt was not due (stale or duplicate job). */
  async execute(callId: string, round: number, n: number): Promise<ToolCall | null> {
    const startedAt = new Date();
    const stored = await this.calls.getById(callId);
    if (!stored) return null;
    const deadline = new Date(startedAt.getTime() + stored.attemptTimeoutS * 1000 + ATTEMPT_DEADLINE_MARGIN_MS);
    const call = await this.calls.claim(callId, round, n, deadline);
    if (!call) return null;

    let attempt: AttemptResult;
    let transition: CallTransition;
    let sentAt = startedAt;
    try {
      const { secrets, ...request } = await this.prepare(call);
      // Offsets run from the moment attempt 1 goes out, not from the bookkeeping before it.
      sentAt = new Date();
      const signature = signWebhook(secrets, call.eventId, Math.floor(sentAt.getTime() / 1000), request.body);
      attempt = await sendWebhook(this.dispatcher, { ...request, headers: { ...request.headers, ...signature } });
      transition = this.transitionAfter(call, n, attempt, sentAt);
    } catch (error) {
      if (!(error instanceof InstanceGoneError)) throw error;
      attempt = { outcome: 'network', durationMs: 0, error: error.message };
      transition = { status: 'cancelled', error: { kind: 'cancelled', message: error.message }, finishedAt: new Date(), nextAttemptN: null, nextAttemptAt: null, attemptDeadline: null };
    }

    const moved = await this.calls.recordAttempt(
      callId,
      round,
      n,
      {
        startedAt: sentAt,
        durationMs: attempt.durationMs,
        outcome: attempt.outcome,
        httpStatus: attempt.httpStatus ?? null,
        error: attempt.error ?? null,
        responseExcerpt: attempt.excerpt ?? null,
      },
      transition,
      newId('att'),
    );
    this.metrics.recordAttempt(attempt.outcome, attempt.durationMs);
    if (moved && transition.status !== 'queued') this.metrics.callsFinished.inc({ mode: call.executionMode, status: transition.status as string });
    if (moved && transition.status === 'queued') {
      const dueAt = transition.nextAttemptAt as Date;
      const total = attemptCount(call.retryWindow as RetryWindow | null);
      await this.events
        .publishProgress(callId, { n, total, message: progressMessage(n, total, attempt, dueAt.getTime() - Date.now()) })
        .catch(() => undefined);
      await this.queue
        .enqueue({ callId, appId: call.appId, round, n: transition.nextAttemptN as number }, dueAt.getTime() - Date.now())
        .catch((error: Error) => this.logger.warn(`call ${callId}: next attempt not queued (${error.message}); the reconciler will`));
    }
    if (moved && transition.status !== 'queued') {
      await this.events.publishFinished(callId).catch(() => undefined);
    }
    return this.calls.getById(callId);
  }

  /** Everything an attempt needs but its timestamp and signature: the body, the URL and the live secrets. */
  private async prepare(call: ToolCall) {
    const app = await this.apps.getById(call.appId);
    if (!app) throw new InstanceGoneError('the app was deleted before delivery');
    const body = await this.bodyOf(call);
    const now = new Date();
    const secrets = [await this.secrets.decrypt(app.webhookSecretEnc)];
    if (app.previousWebhookSecretEnc && app.previousSecretValidUntil && app.previousSecretValidUntil > now) {
      secrets.push(await this.secrets.decrypt(app.previousWebhookSecretEnc));
    }
    return {
      url: call.handlerUrl as string,
      body,
      secrets,
      timeoutMs: call.attemptTimeoutS * 1000,
      allowPrivateNetwork: this.env.ALLOW_PRIVATE_NETWORK,
      headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT },
    };
  }

  /** The call's body: built (with private data decrypted) at its first attempt, then the same bytes every time. */
  private async bodyOf(call: ToolCall): Promise<string> {
    if (call.bodyEnc) return this.secrets.decrypt(call.bodyEnc);
    const instance = await this.instances.getWithTool(call.toolInstanceId);
    if (!instance) throw new InstanceGoneError('the tool instance was removed before delivery');
    const privateData = instance.privateDataEnc ? await this.secrets.decryptJson(instance.privateDataEnc) : {};
    const body = toolCallBody(call, instance.configuration, privateData);
    await this.calls.storeBody(call.id, await this.secrets.encrypt(body));
    return body;
  }

  /** Where the call goes after attempt `n`, which went out at `sentAt`. */
  private transitionAfter(call: ToolCall, n: number, attempt: AttemptResult, sentAt: Date): CallTransition {
    const now = new Date();
    const firstAttemptAt = n === 1 ? sentAt : (call.firstAttemptAt ?? sentAt);
    const ended = { nextAttemptN: null, nextAttemptAt: null, attemptDeadline: null, finishedAt: now, firstAttemptAt };
    if (attempt.outcome === 'success') {
      const { result, resultText } = resultOf(attempt.body ?? Buffer.alloc(0));
      return { ...ended, status: 'succeeded', result: result as never, resultText };
    }
    const error = {
      kind: attempt.outcome,
      message: attempt.error ?? attempt.outcome,
      ...(attempt.httpStatus !== undefined ? { http_status: attempt.httpStatus } : {}),
    };
    if (attempt.outcome !== 'gone') {
      const retryAfterMs = parseRetryAfter(attempt.retryAfter, now);
      // Retry-After counts from when the attempt went out, like the offsets themselves.
      const next = nextAttempt(
        call.retryWindow as RetryWindow | null,
        firstAttemptAt,
        n,
        this.env.RETRY_TIME_SCALE,
        retryAfterMs !== undefined ? { failedAt: sentAt, afterMs: retryAfterMs } : undefined,
      );
      if (next) return { status: 'queued', nextAttemptN: next.n, nextAttemptAt: next.dueAt, attemptDeadline: null, error, firstAttemptAt };
    }
    return { ...ended, status: 'failed', error };
  }
}
