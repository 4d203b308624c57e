import { describe, expect, it } from 'vitest';
import type { ToolCall } from '../../../../libs/persistence/src/index.js';
import { TASK_POLL_INTERVAL_MS, asksForTask, createdTaskResult, taskOf } from './agent-mcp-tasks.js';

const acceptedAt = new Date('2026-12-06T10:00:00Z');
const updatedAt = new Date('2026-12-06T10:05:00Z');
const call = (fields: Partial<ToolCall>) =>
  ({ id: 'call_1', status: 'queued', error: null, acceptedAt, updatedAt, ...fields }) as ToolCall;

describe('taskOf', () => {
  it('sees an active call as a working task to poll, named by the call id, kept as long as the call', () => {
    for (const status of ['queued', 'in_progress'] as const) {
      expect(taskOf(call({ status }))).toMatchObject({
        taskId: 'call_1',
        status: 'working',
        ttl: null,
        pollInterval: TASK_POLL_INTERVAL_MS,
        createdAt: '2026-12-06T10:00:00.000Z',
        lastUpdatedAt: '2026-12-06T10:05:00.000Z',
      });
    }
  });

  it('maps the ended calls to completed, failed and cancelled, saying why, with no poll interval', () => {
    expect(taskOf(call({ status: 'succeeded' }))).toMatchObject({ status: 'completed' });
    const failed = taskOf(call({ status: 'failed', error: { kind: 'http_status', message: 'HTTP 500' } }));
    expect(failed).toMatchObject({ status: 'failed', statusMessage: 'The call failed: HTTP 500' });
    expect(failed.pollInterval).toBeUndefined();
    const cancelled = taskOf(call({ status: 'cancelled', error: { message: 'cancelled by the agent' } }));
    expect(cancelled).toMatchObject({
      status: 'cancelled',
      statusMessage: 'The call was cancelled: cancelled by the agent',
    });
  });
});

describe('asksForTask', () => {
  it('is true only for an object in params.task (2025-11-25 task metadata)', () => {
    expect(asksForTask({ task: {} })).toBe(true);
    expect(asksForTask({ task: { ttl: 60_000 } })).toBe(true);
    for (const task of [undefined, null, true, 'yes', []]) expect(asksForTask({ task })).toBe(false);
  });
});

describe('createdTaskResult', () => {
  it('carries the task and a text part (the SDK checks it as a tool result), naming the call', () => {
    const result = createdTaskResult(call({}));
    expect(result.task).toMatchObject({ taskId: 'call_1', status: 'working' });
    expect(result.content).toEqual([{ type: 'text', text: expect.stringMatching(/^Accepted as task call_1/) }]);
    expect(result).toMatchObject({ _meta: { 'toolgate/call_id': 'call_1' } });
  });
});
