import { Inject, Injectable } from '@nestjs/common';
import { ENV, type Env } from '../../../../config/src/index.js';
import {
  type AttemptRecord,
  type CallTransition,
  type ToolCall,
  ToolCallLedger,
  isTerminal,
} from '../../../../persistence/src/index.js';
import { CallSignals } from '../../../../broadcast/src/index.js';
import { newId } from '../../ids.js';
import {
  type AttemptFailure,
  type AttemptSuccess,
  type MadeAttempt,
  failureTransition,
  progressMessage,
  successTransition,
} from './call-transitions.js';
import { FinishedCalls } from './finished-calls.js';
import type { AttemptLogEntry } from '../../delivery/delivery-kind.js';
import { attemptCount } from '../../delivery/retry-schedule.js';

/** An attempt as recorded: the call as it moved (or as it is, when it no longer moved), and its next attempt. */
export interface RecordedAttempt {
  call: ToolCall;
  attempt: AttemptRecord;
  /** The attempt queued next, at its offset: set only when this record moved the call to it. */
  next: { n: number; dueAt: Date } | null;
}

/**
 * Records an attempt of an HTTP or MCP call, in one statement with where the call moves next, then does what
 * follows for the call: its end announced, or the retry told to whoever waits (the engine queues it). Success and
 * failure are two steps (Svix's worker: handle success, handle failure).
 */
@Injectable()
export class AttemptRecorder {
  constructor(
    @Inject(ENV) private readonly env: Env,
    private readonly calls: ToolCallLedger,
    private readonly signals: CallSignals,
    private readonly finished: FinishedCalls,
  ) {}

  /** The answer becomes the call's result; the call ends succeeded. */
  async handleSuccess(made: MadeAttempt, success: AttemptSuccess): Promise<RecordedAttempt> {
    const row = { outcome: 'success' as const, error: null, ...pickRow(success) };
    const { call, attempt } = await this.record(made, row, successTransition(made, success, new Date()));
    return { call, attempt, next: null };
  }

  /** The call waits for its next attempt, at its offset, or ends failed (cancelled when its caller cancelled). */
  async handleFailure(made: MadeAttempt, failure: AttemptFailure): Promise<RecordedAttempt> {
    const row = { outcome: failure.outcome, error: failure.reason, ...pickRow(failure) };
    const transition = failureTransition(made, failure, this.env.RETRY_TIME_SCALE, new Date());
    const { call, attempt, moved } = await this.record(made, row, transition);
    const { nextAttemptN, nextAttemptAt } = transition;
    if (!moved || nextAttemptN === null || nextAttemptAt === null) return { call, attempt, next: null };
    const total = attemptCount(made.call.retryWindow);
    const message = progressMessage(made.n, total, failure, nextAttemptAt.getTime() - Date.now());
    await this.signals.publishProgress(call.id, { n: made.n, total, message }).catch(() => undefined);
    return { call, attempt, next: { n: nextAttemptN, dueAt: nextAttemptAt } };
  }

  /** The attempt's row and the call's move, in one statement; a call cancelled meanwhile stays cancelled. */
  private async record(
    { call, n, sentAt, durationMs }: MadeAttempt,
    row: Pick<AttemptRecord, 'outcome' | 'error' | 'httpStatus' | 'responseExcerpt'>,
    transition: CallTransition,
  ): Promise<{ call: ToolCall; attempt: AttemptRecord; moved: boolean }> {
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
    if (!moved) return { call: (await this.calls.getById(call.id)) ?? call, attempt, moved: false };
    if (isTerminal(moved.status)) this.finished.announce(moved, moved.status);
    return { call: moved, attempt, moved: true };
  }
}

function pickRow({ httpStatus, responseExcerpt }: { httpStatus: number | null; responseExcerpt: string | null }) {
  return { httpStatus, responseExcerpt };
}

/** A call's attempt as the attempt log tells it (AttemptLog): ids, numbers and the outcome only. */
export function callAttemptEntry(
  call: Pick<ToolCall, 'appId' | 'toolName' | 'toolKind' | 'test'>,
  attempt: AttemptRecord,
): AttemptLogEntry {
  return {
    delivery: 'tool_call',
    fields: {
      call_id: attempt.callId,
      app_id: call.appId,
      tool: call.toolName,
      tool_kind: call.toolKind,
      ...(call.test ? { test: true } : {}),
    },
    subject: `${attempt.callId} (${call.appId}, ${call.toolName}${call.test ? ', a test call' : ''})`,
    round: attempt.round,
    n: attempt.n,
    outcome: attempt.outcome,
    httpStatus: attempt.httpStatus,
    durationMs: attempt.durationMs,
  };
}
