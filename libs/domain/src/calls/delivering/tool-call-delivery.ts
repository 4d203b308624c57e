import { Injectable } from '@nestjs/common';
import { type ToolCall, ToolCallLedger } from '../../../../persistence/src/index.js';
import { Metrics } from '../../../../observability/src/index.js';
import { type DeliveryJob, appLane, toolCallJob } from '../../../../queue/src/index.js';
import type {
  DeliveryKind,
  OverduePage,
  PreparedDelivery,
  SentDelivery,
  SettledDelivery,
  SigningSecrets,
} from '../../delivery/delivery-kind.js';
import { parseRetryAfter } from '../../delivery/retry-schedule.js';
import { AttemptRecorder, type RecordedAttempt, callAttemptEntry } from './attempt-recorder.js';
import { ATTEMPT_DEADLINE_MARGIN_MS, type MadeAttempt } from './call-transitions.js';
import { FinishedCalls } from './finished-calls.js';
import { handlerSaid, resultOf } from './handler-answer.js';
import { ToolCallBodies } from '../accepting/tool-call-request.js';
import { whyCallStops } from './why-call-stops.js';

/**
 * The `tool_call` webhook of an HTTP tool's call, as one kind of delivery: attempt `n` is claimed in one statement
 * that also reads the app, installation, instance and tool as they are now (taking the tool's current handler URL
 * and timeout); a call whose tool is gone or off ends cancelled without a request; else its body, built and stored
 * when the call was accepted, goes to the handler signed with the app's secret(s). The answer becomes the call's
 * result, or its failure is retried on the tool's window (AttemptRecorder).
 */
@Injectable()
export class ToolCallDelivery implements DeliveryKind<ToolCall, ToolCall> {
  readonly name = 'tool_call' as const;

  constructor(
    private readonly calls: ToolCallLedger,
    private readonly bodies: ToolCallBodies,
    private readonly recorder: AttemptRecorder,
    private readonly finished: FinishedCalls,
    private readonly metrics: Metrics,
  ) {}

  /** Attempt `n` of a call on record in progress (stored so, or claimed), ready to go. */
  prepared(call: ToolCall, app: SigningSecrets, body: string, n: number): PreparedDelivery<ToolCall> {
    const target = {
      url: call.handlerUrl ?? '',
      signing: app,
      webhookId: call.eventId,
      timeoutMs: call.attemptTimeoutS * 1000,
      lane: appLane(call.appId),
    };
    return { parent: call, n, body, target };
  }

  async prepare(job: DeliveryJob): Promise<PreparedDelivery<ToolCall> | { stopped: string } | null> {
    const { id: callId, round, n } = job;
    const claimed = await this.calls.claim({ callId, round, n, marginMs: ATTEMPT_DEADLINE_MARGIN_MS });
    if (!claimed) return null;
    const { call, app } = claimed;
    // Every call's body is built and stored when it is accepted: one without has nothing to send.
    const stops = whyCallStops(claimed) ?? (call.bodyEnc ? null : 'the call has no stored webhook body');
    // No attempt is made, so none is recorded: the call just ends, saying what changed.
    if (stops || !app || !call.bodyEnc) return { stopped: (await this.cancel(call, stops ?? 'gone')).status };
    return this.prepared(call, app, await this.bodies.stored(call.bodyEnc), n);
  }

  async settle(prepared: PreparedDelivery<ToolCall>, sent: SentDelivery): Promise<SettledDelivery<ToolCall>> {
    const recorded = await this.record(prepared, sent);
    const { call, attempt, next } = recorded;
    return { result: call, status: call.status, next, logged: callAttemptEntry(call, attempt) };
  }

  job(call: ToolCall, n: number): DeliveryJob {
    return toolCallJob(call, n);
  }

  /** Overdue calls to queue again; an instant call stuck in progress ends failed instead: instant never retries. */
  async overdue(after: string | null, { graceMs, pageSize }: { graceMs: number; pageSize: number }) {
    const now = new Date();
    const page = await this.calls.findOverdue(now, graceMs, pageSize, after);
    const result: OverduePage = { due: [], ended: 0, next: page.length === pageSize ? page[page.length - 1].id : null };
    for (const call of page) {
      if (call.executionMode === 'instant') {
        const message = 'the API process stopped before the attempt finished; instant calls are not retried';
        if (await this.calls.failStuck(call.id, { kind: 'timeout', message }, now, graceMs)) {
          result.ended += 1;
          this.metrics.reconcilerFailed.inc();
          this.finished.announce(call, 'failed');
        }
        continue;
      }
      if (call.nextAttemptN !== null) result.due.push(toolCallJob(call, call.nextAttemptN));
    }
    return result;
  }

  /** The handler's answer, read: a 2xx is the call's result; anything else a failure, with what the handler said. */
  private record({ parent: call, n }: PreparedDelivery<ToolCall>, sent: SentDelivery): Promise<RecordedAttempt> {
    const made: MadeAttempt = { call, n, sentAt: sent.sentAt, durationMs: sent.durationMs };
    const details = { httpStatus: sent.httpStatus ?? null, responseExcerpt: sent.excerpt ?? null };
    const answer = {
      body: sent.body ?? Buffer.alloc(0),
      contentType: sent.contentType,
      contentEncoding: sent.contentEncoding,
    };
    const { outcome } = sent;
    // Assigned, not spread: keys a second spread adds to the first one's clone take V8's slow path.
    if (outcome === 'success') return this.recorder.handleSuccess(made, Object.assign(resultOf(answer), details));
    // What the handler said with a 4xx/5xx is what lets the model understand why it failed.
    const said = outcome === 'http_status' || outcome === 'gone' ? handlerSaid(answer) : null;
    return this.recorder.handleFailure(made, {
      outcome,
      reason: sent.error ?? null,
      message: `${sent.error ?? outcome}${said ? `: ${said}` : ''}`,
      retryAfterMs: parseRetryAfter(sent.retryAfter, new Date()),
      ...details,
    });
  }

  private async cancel(call: ToolCall, why: string): Promise<ToolCall> {
    const error = { kind: 'cancelled', message: `cancelled before attempt ${call.nextAttemptN}: ${why}` };
    const cancelled = await this.calls.cancel(call.id, error, new Date());
    if (!cancelled) return (await this.calls.getById(call.id)) ?? call;
    this.finished.announce(cancelled, 'cancelled');
    return cancelled;
  }
}
