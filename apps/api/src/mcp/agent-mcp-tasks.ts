import { Inject, Injectable } from '@nestjs/common';
import {
  ProtocolError,
  ProtocolErrorCode,
  RELATED_TASK_META_KEY,
  type ServerCapabilities,
  type Task,
  type TaskStatus,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import { ENV, type Env } from '../../../../libs/config/src/index.js';
import {
  type AgentRef,
  CancelToolCall,
  ErrorCode,
  GetAgentToolCall,
  isTerminal,
} from '../../../../libs/domain/src/index.js';
import type { ToolCall } from '../../../../libs/persistence/src/index.js';
import { type McpCallResult, finishedCallResult, textResult, withCallId } from './agent-mcp-results.js';
import { refusalError } from './mcp-refusals.js';

/** What the endpoint tells a 2025-11-25 client of its tasks: `tools/call` as a task, and `tasks/cancel`. */
export const TASK_CAPABILITIES: NonNullable<ServerCapabilities['tasks']> = {
  cancel: {},
  requests: { tools: { call: {} } },
};

/** How often a client is asked to poll `tasks/get`: a task is a call row read once per poll. */
export const TASK_POLL_INTERVAL_MS = 2000;

/** The params of `tasks/get`, `tasks/result` and `tasks/cancel`: the task's id is the call's id. */
export const TaskIdParams = z.object({ taskId: z.string().min(1) });
export type TaskIdParams = z.infer<typeof TaskIdParams>;

/** Whether a `tools/call` asks to run as a task (2025-11-25: `params.task`, its metadata). */
export function asksForTask(params: { task?: unknown }): boolean {
  return params.task !== null && typeof params.task === 'object' && !Array.isArray(params.task);
}

const TASK_STATUS: Record<ToolCall['status'], TaskStatus> = {
  queued: 'working',
  in_progress: 'working',
  succeeded: 'completed',
  failed: 'failed',
  cancelled: 'cancelled',
};

/** A call seen as a task: the call row is the task, so it lives (and survives restarts) as long as the call. */
export function taskOf(call: ToolCall): Task {
  const status = TASK_STATUS[call.status];
  return {
    taskId: call.id,
    status,
    statusMessage: statusMessage(call),
    createdAt: call.acceptedAt.toISOString(),
    lastUpdatedAt: call.updatedAt.toISOString(),
    ttl: null,
    ...(status === 'working' ? { pollInterval: TASK_POLL_INTERVAL_MS } : {}),
  };
}

function statusMessage(call: ToolCall): string {
  if (!isTerminal(call.status)) return `The call is ${call.status === 'queued' ? 'queued' : 'in progress'}.`;
  if (call.status === 'succeeded') return 'The call succeeded.';
  const error = (call.error ?? {}) as { message?: unknown };
  const reason = typeof error.message === 'string' ? error.message : 'no details';
  return call.status === 'cancelled' ? `The call was cancelled: ${reason}` : `The call failed: ${reason}`;
}

/**
 * The answer to a `tools/call` run as a task: the task, plus the text a task-unaware reader sees (the SDK checks
 * every `tools/call` answer as a tool result, which needs `content`; the 2025-11-25 CreateTaskResult allows more keys).
 */
export function createdTaskResult(call: ToolCall): McpCallResult {
  const text =
    `Accepted as task ${call.id}: it runs (with its retries) until it ends; ` +
    `read its status with tasks/get and its result with tasks/result.`;
  return { ...withCallId(textResult(text), call.id), task: taskOf(call) };
}

/**
 * `tasks/get`, `tasks/result` and `tasks/cancel` of an agent's MCP endpoint, over the call ledger (no task store of
 * its own: the call in Postgres is the task). Only the agent's own calls are its tasks; any other id is not found.
 */
@Injectable()
export class AgentMcpTasks {
  constructor(
    @Inject(ENV) private readonly env: Env,
    private readonly getAgentToolCall: GetAgentToolCall,
    private readonly cancelToolCall: CancelToolCall,
  ) {}

  async get(agent: AgentRef, { taskId }: TaskIdParams): Promise<Task> {
    return taskOf(await this.ownCall(agent, taskId));
  }

  /**
   * The result a plain call would have given once the call ended; a call still running is waited on up to
   * MCP_WAIT_DEADLINE_S (one of the agent's wait slots), then refused with what to do instead.
   */
  async result(agent: AgentRef, { taskId }: TaskIdParams, signal: AbortSignal): Promise<McpCallResult> {
    const call = await this.ownCall(agent, taskId, this.env.MCP_WAIT_DEADLINE_S * 1000, signal);
    if (!isTerminal(call.status)) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidRequest,
        `Task ${taskId} is still working after ${this.env.MCP_WAIT_DEADLINE_S} s: poll tasks/get until its status ` +
          'is completed, failed or cancelled, then ask tasks/result again.',
      );
    }
    const { _meta: meta, ...result } = finishedCallResult(call); // MCP's field beside the answer, the call's id in it
    return { ...result, _meta: { ...(meta as object), [RELATED_TASK_META_KEY]: { taskId } } };
  }

  /** Stops the call's further attempts; a task that already ended cannot be cancelled (-32602, as 2025-11-25 says). */
  async cancel(agent: AgentRef, { taskId }: TaskIdParams): Promise<Task> {
    try {
      return taskOf(await this.cancelToolCall.execute(agent, taskId, 'cancelled by the MCP client (tasks/cancel)'));
    } catch (error) {
      throw refusalError(error, { ...TASK_NOT_FOUND, [ErrorCode.Conflict]: `Cannot cancel task ${taskId}` });
    }
  }

  private async ownCall(agent: AgentRef, taskId: string, waitMs = 0, signal?: AbortSignal): Promise<ToolCall> {
    try {
      return await this.getAgentToolCall.execute(agent, taskId, waitMs, signal);
    } catch (error) {
      throw refusalError(error, TASK_NOT_FOUND);
    }
  }
}

const TASK_NOT_FOUND = { [ErrorCode.NotFound]: 'Task not found' };
