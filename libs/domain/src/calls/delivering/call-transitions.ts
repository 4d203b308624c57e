import type { AttemptOutcome, CallTransition, ToolCall } from '../../../../persistence/src/index.js';
import { nextAttemptAfter } from '../../delivery/retry-schedule.js';

/** Margin past the attempt timeout after which an in-progress attempt counts as lost (a crash). */
export const ATTEMPT_DEADLINE_MARGIN_MS = 5_000;

/** When an attempt that starts now with this timeout counts as lost. */
export function attemptDeadline(timeoutMs: number, now = Date.now()): Date {
  return new Date(now + timeoutMs + ATTEMPT_DEADLINE_MARGIN_MS);
}

/** Attempt `n` of a call, made: when it went out and how long it took. */
export interface MadeAttempt {
  /** The call as it was when the attempt went out (in progress). */
  call: ToolCall;
  n: number;
  sentAt: Date;
  durationMs: number;
}

/** What a successful attempt brought back: the tool result, and the attempt row's details. */
export interface AttemptSuccess {
  result: unknown;
  resultText: string;
  httpStatus: number | null;
  responseExcerpt: string | null;
}

/** Why an attempt failed: the attempt row's details, and what the call's error tells the agent. */
export interface AttemptFailure {
  outcome: Exclude<AttemptOutcome, 'success'>;
  /** The attempt row's `error`: what went wrong, as the sender says it. */
  reason: string | null;
  /** The call's `error.message`: the reason, with what the handler said about it. */
  message: string;
  httpStatus: number | null;
  responseExcerpt: string | null;
  /** A `Retry-After` of the answer, in ms from when the attempt went out. */
  retryAfterMs?: number;
  /** What the tool answered along with its error (an MCP `isError` result), kept as the call's result. */
  result?: unknown;
  resultText?: string;
}

/** The call's error after a failed attempt, as stored and answered. */
export function callError(failure: AttemptFailure): { kind: AttemptOutcome; message: string; http_status?: number } {
  return {
    kind: failure.outcome,
    message: failure.message,
    ...(failure.httpStatus !== null ? { http_status: failure.httpStatus } : {}),
  };
}

/** Offsets run from the moment attempt 1 went out. */
function firstAttemptAt({ call, n, sentAt }: MadeAttempt): Date {
  return n === 1 ? sentAt : (call.firstAttemptAt ?? sentAt);
}

/** After a successful attempt the call ends succeeded with the answer as its result. */
export function successTransition(made: MadeAttempt, success: AttemptSuccess, now: Date): CallTransition {
  return {
    status: 'succeeded',
    nextAttemptN: null,
    nextAttemptAt: null,
    firstAttemptAt: firstAttemptAt(made),
    result: success.result,
    resultText: success.resultText,
    error: null,
    finishedAt: now,
  };
}

/**
 * After a failed attempt the call waits for its next slot (the first one not earlier than a
 * `Retry-After`, which counts from when the attempt went out, like the offsets), or ends: `failed`
 * after 410 or the last slot, `cancelled` when its caller cancelled it.
 */
export function failureTransition(
  made: MadeAttempt,
  failure: AttemptFailure,
  timeScale: number,
  now: Date,
): CallTransition {
  const first = firstAttemptAt(made);
  const failed = { outcome: failure.outcome, n: made.n, sentAt: made.sentAt, retryAfterMs: failure.retryAfterMs };
  const next = nextAttemptAfter(failed, made.call.retryWindow, first, timeScale);
  return {
    status: next ? 'queued' : failure.outcome === 'cancelled' ? 'cancelled' : 'failed',
    nextAttemptN: next?.n ?? null,
    nextAttemptAt: next?.dueAt ?? null,
    firstAttemptAt: first,
    result: failure.result ?? null,
    resultText: failure.resultText ?? null,
    error: callError(failure),
    finishedAt: next ? null : now,
  };
}

/** "attempt 2 of 5 failed: 503, next in 1 min": what an MCP client is told while a call is retried. */
export function progressMessage(
  n: number,
  total: number,
  failure: { outcome: AttemptOutcome; httpStatus?: number | null },
  nextInMs: number,
): string {
  const why = failure.outcome === 'http_status' ? String(failure.httpStatus) : failure.outcome.replace(/_/g, ' ');
  return `attempt ${n} of ${total} failed: ${why}, next in ${humanDuration(nextInMs)}`;
}

function humanDuration(ms: number): string {
  const seconds = Math.max(0, ms) / 1000;
  if (seconds < 1) return `${Math.round(seconds * 1000)} ms`;
  if (seconds < 60) return `${Math.round(seconds)} s`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min`;
  return `${Math.round(seconds / 360) / 10} h`;
}
