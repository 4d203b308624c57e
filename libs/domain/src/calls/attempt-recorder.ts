import { Inject, Injectable, Logger } from '@nestjs/common';
import { ENV, type Env } from '../../../config/src/index.js';
import {
  type AttemptRecord,
  type CallTransition,
  type ToolCall,
  ToolCallLedger,
  isTerminal,
} from '../../../persistence/src/index.js';
import { Metrics } from '../../../observability/src/index.js';
import { CallEvents } from '../../../broadcast/src/index.js';
import { DeliveryQueue } from '../../../queue/src/index.js';
import { newId } from '../ids.js';
import {
  type AttemptFailure,
  type AttemptSuccess,
  type MadeAttempt,
  failureTransition,
  progressMessage,
  successTransition,
} from './call-transitions.js';
import { FinishedCalls } from './finished-calls.js';
import { attemptCount } from './retry-schedule.js';

/**
 * Records an attempt of an HTTP or MCP call, in one statement with where the call moves next, then
 * does what follows: the end announced, or the next attempt queued at its offset. Success and
 * failure are two steps (Svix's worker: handle success, handle failure). Every attempt, whichever
 * process made it, passes here once, and is logged here once (ids, numbers and the outcome only).
 */
@Injectable()
export class AttemptRecorder {
  private readonly logger = new Logger('Attempts');

  constructor(
    @Inject(ENV) private readonly env: Env,
    private readonly calls: ToolCallLedger,
    private readonly queue: DeliveryQueue,
    private readonly events: CallEvents,
    private readonly metrics: Metrics,
    private readonly finished: FinishedCalls,
  ) {}

  /** The answer becomes the call's result; the call ends succeeded. */
  async handleSuccess(made: MadeAttempt, success: AttemptSuccess): Promise<ToolCall> {
    const row = { outcome: 'success' as const, error: null, ...pickRow(success) };
    return (await this.record(made, row, successTransition(made, success, new Date()))).call;
  }

  /** The call waits for its next attempt, queued at its offset, or ends failed (cancelled when its caller cancelled). */
  async handleFailure(made: MadeAttempt, failure: AttemptFailure): Promise<ToolCall> {
    const row = { outcome: failure.outcome, error: failure.reason, ...pickRow(failure) };
    const transition = failureTransition(made, failure, this.env.RETRY_TIME_SCALE, new Date());
    const { call, moved } = await this.record(made, row, transition);
    const { nextAttemptN, nextAttemptAt } = transition;
    if (!moved || nextAttemptN === null || nextAttemptAt === null) return call;
    const total = attemptCount(made.call.retryWindow);
    const message = progressMessage(made.n, total, failure, nextAttemptAt.getTime() - Date.now());
    await this.events.publishProgress(call.id, { n: made.n, total, message }).catch(() => undefined);
    // The job's delay is taken at enqueue time, so the progress event's round trip does not make it late.
    await this.queue.enqueueAttempt(call, nextAttemptN, nextAttemptAt);
    return call;
  }

  /** The attempt's row and the call's move, in one statement; a call cancelled meanwhile stays cancelled. */
  private async record(
    { call, n, sentAt, durationMs }: MadeAttempt,
    row: Pick<AttemptRecord, 'outcome' | 'error' | 'httpStatus' | 'responseExcerpt'>,
    transition: CallTransition,
  ): Promise<{ call: ToolCall; moved: boolean }> {
    const attempt: AttemptRecord = {
      id: newId('att'),
      callId: call.id,
      round: call.round,
      n,
      startedAt: sentAt,
      durationMs,
      outcome: row.outcome,
      error: row.error,
      httpStatus: row.httpStatus,
      responseExcerpt: row.responseExcerpt,
    };
    const moved = await this.calls.record(attempt, transition, call);
    this.metrics.recordAttempt(row.outcome, durationMs);
    this.logger.log(attemptLine(call, attempt), attemptText(call, attempt));
    if (!moved) return { call: (await this.calls.getById(call.id)) ?? call, moved: false };
    if (isTerminal(moved.status)) this.finished.announce(moved, moved.status);
    return { call: moved, moved: true };
  }
}

function pickRow({ httpStatus, responseExcerpt }: { httpStatus: number | null; responseExcerpt: string | null }) {
  return { httpStatus, responseExcerpt };
}

/** An attempt's log fields: never a body, an argument, an error text or a secret. */
function attemptLine(call: Pick<ToolCall, 'appId' | 'toolName' | 'toolKind' | 'test'>, attempt: AttemptRecord) {
  return {
    call_id: attempt.callId,
    app_id: call.appId,
    tool: call.toolName,
    tool_kind: call.toolKind,
    round: attempt.round,
    attempt: attempt.n,
    outcome: attempt.outcome,
    http_status: attempt.httpStatus,
    duration_ms: attempt.durationMs,
    ...(call.test ? { test: true } : {}),
  };
}

/** The same, as a line a person reads: `attempt 2 of call_… (app_…, find_customer): http_status 404 in 35 ms`. */
function attemptText(call: Pick<ToolCall, 'appId' | 'toolName' | 'test'>, attempt: AttemptRecord): string {
  const round = attempt.round > 1 ? ` (round ${attempt.round})` : '';
  const status = attempt.httpStatus === null ? '' : ` ${attempt.httpStatus}`;
  const test = call.test ? ', a test call' : '';
  return (
    `attempt ${attempt.n}${round} of ${attempt.callId} (${call.appId}, ${call.toolName}${test}): ` +
    `${attempt.outcome}${status} in ${attempt.durationMs} ms`
  );
}
