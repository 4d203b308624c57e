import { describe, expect, it } from 'vitest';
import type { ToolCall } from '../../../../persistence/src/index.js';
import {
  type AttemptFailure,
  type MadeAttempt,
  attemptDeadline,
  failureTransition,
  successTransition,
} from './call-transitions.js';

const first = new Date('2026-12-01T12:00:00.000Z');
const now = new Date('2026-12-01T12:00:01.000Z');
const call = (fields: Partial<ToolCall>) => ({ firstAttemptAt: null, retryWindow: '5m', ...fields }) as ToolCall;
const made = (n: number, fields: Partial<ToolCall> = {}, sentAt = first): MadeAttempt => ({
  call: call({ firstAttemptAt: n === 1 ? null : first, ...fields }),
  n,
  sentAt,
  durationMs: 12,
});
const failure = (fields: Partial<AttemptFailure> = {}): AttemptFailure => ({
  outcome: 'http_status',
  reason: 'answered 503',
  message: 'answered 503: busy',
  httpStatus: 503,
  responseExcerpt: 'busy',
  ...fields,
});

describe('successTransition', () => {
  it('ends the call succeeded with the answer, offsets counted from attempt 1', () => {
    const success = { result: { ok: true }, resultText: '{"ok":true}', httpStatus: 200, responseExcerpt: null };
    expect(successTransition(made(1), success, now)).toEqual({
      status: 'succeeded',
      nextAttemptN: null,
      nextAttemptAt: null,
      firstAttemptAt: first,
      result: { ok: true },
      resultText: '{"ok":true}',
      error: null,
      finishedAt: now,
    });
    const later = new Date(first.getTime() + 60_000);
    expect(successTransition(made(3, {}, later), success, now).firstAttemptAt).toEqual(first);
  });
});

describe('failureTransition', () => {
  it('queues the next slot of the window, measured from attempt 1', () => {
    expect(failureTransition(made(1), failure(), 1, now)).toEqual({
      status: 'queued',
      nextAttemptN: 2,
      nextAttemptAt: new Date(first.getTime() + 15_000),
      firstAttemptAt: first,
      result: null,
      resultText: null,
      error: { kind: 'http_status', message: 'answered 503: busy', http_status: 503 },
      finishedAt: null,
    });
  });

  it('moves the next attempt to the first slot not earlier than Retry-After', () => {
    const next = failureTransition(made(1), failure({ retryAfterMs: 120_000 }), 1, now);
    expect(next).toMatchObject({
      status: 'queued',
      nextAttemptN: 4,
      nextAttemptAt: new Date(first.getTime() + 180_000),
    });
  });

  it('ends failed after the last slot, after 410, and for an instant call', () => {
    expect(failureTransition(made(5), failure(), 1, now)).toMatchObject({ status: 'failed', finishedAt: now });
    const gone = failure({ outcome: 'gone', httpStatus: 410 });
    expect(failureTransition(made(1), gone, 1, now)).toMatchObject({ status: 'failed', nextAttemptN: null });
    const instant = made(1, { retryWindow: null, executionMode: 'instant' });
    expect(failureTransition(instant, failure({ httpStatus: null }), 1, now)).toMatchObject({
      status: 'failed',
      error: { kind: 'http_status', message: 'answered 503: busy' },
    });
  });

  it('ends cancelled when the caller cancelled, and keeps what an MCP tool answered with its error', () => {
    const mcp = made(1, { retryWindow: null, toolKind: 'mcp' });
    const cancelled = failure({ outcome: 'cancelled', message: 'the caller cancelled the call', httpStatus: null });
    expect(failureTransition(mcp, cancelled, 1, now)).toMatchObject({ status: 'cancelled', finishedAt: now });
    const toolError = failure({ outcome: 'tool_error', httpStatus: null, result: { isError: true }, resultText: 'no' });
    expect(failureTransition(mcp, toolError, 1, now)).toMatchObject({
      status: 'failed',
      result: { isError: true },
      resultText: 'no',
      error: { kind: 'tool_error' },
    });
  });
});

describe('attemptDeadline', () => {
  it('is the timeout plus the margin away', () => {
    expect(attemptDeadline(30_000, first.getTime())).toEqual(new Date(first.getTime() + 35_000));
  });
});
