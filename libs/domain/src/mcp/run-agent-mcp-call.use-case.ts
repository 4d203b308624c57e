import { Injectable } from '@nestjs/common';
import { type ToolCall, isTerminal } from '../../../persistence/src/index.js';
import type { AgentRef } from '../agents/agent-ref.js';
import type { AgentTool } from '../agents/agent-tool.js';
import { AcceptToolCall, type ToolCallInput } from '../calls/accepting/accept-tool-call.use-case.js';
import { AgentWaits } from '../calls/reading/agent-waits.js';
import { AwaitToolCall } from '../calls/reading/await-tool-call.use-case.js';
import { CancelToolCall } from '../calls/delivering/cancel-tool-call.use-case.js';
import { DomainError } from '../errors.js';

/** One progress step of an agent's MCP call: an MCP tool's own progress, or a retry of an HTTP tool. */
export interface AgentMcpProgress {
  progress: number;
  total?: number;
  message?: string;
}

export interface AgentMcpCallOptions {
  /** The agent's toolset as this request loaded it: the call is found in it, not in a second load. */
  toolset: readonly AgentTool[];
  /** Whether the tool is a `wait` tool: the call then holds one of the agent's wait slots while it blocks. */
  holdsWaitSlot: boolean;
  deadlineMs: number;
  /** The client gave up (closed the request or cancelled it): the call's further attempts stop. */
  signal: AbortSignal;
  onProgress?: (progress: AgentMcpProgress) => void;
}

/** How an agent's MCP call ended for the client. */
export type AgentMcpCallOutcome =
  | { kind: 'refused'; error: DomainError }
  | { kind: 'finished'; call: ToolCall }
  | { kind: 'background'; call: ToolCall }
  | { kind: 'task'; call: ToolCall }
  | { kind: 'still-running'; call: ToolCall };

/**
 * An agent's `tools/call` over MCP: accept the call (as the REST route does), wait for a `wait` call
 * until it ends or the deadline, and cancel it when the client gives up while it waits. The MCP
 * server only maps the outcome to an MCP result.
 */
@Injectable()
export class RunAgentMcpCall {
  constructor(
    private readonly acceptToolCall: AcceptToolCall,
    private readonly awaitToolCall: AwaitToolCall,
    private readonly cancelToolCall: CancelToolCall,
    private readonly waits: AgentWaits,
  ) {}

  /**
   * A `wait` call run as an MCP task: accepted, and answered at once with the call (its task); its attempts go on
   * whatever becomes of the request, until the call ends or `tasks/cancel` stops it.
   */
  async startTask(agent: AgentRef, input: ToolCallInput, toolset: readonly AgentTool[]): Promise<AgentMcpCallOutcome> {
    try {
      return { kind: 'task', call: await this.acceptToolCall.execute(agent, input, {}, toolset) };
    } catch (error) {
      if (error instanceof DomainError) return { kind: 'refused', error };
      throw error;
    }
  }

  async execute(agent: AgentRef, input: ToolCallInput, options: AgentMcpCallOptions): Promise<AgentMcpCallOutcome> {
    const { signal, onProgress } = options;
    let releaseWait: () => void = () => undefined;
    try {
      let call: ToolCall;
      try {
        if (options.holdsWaitSlot) releaseWait = this.waits.acquire(agent);
        call = await this.acceptToolCall.execute(agent, input, { signal, onprogress: onProgress }, options.toolset);
      } catch (error) {
        if (error instanceof DomainError) return { kind: 'refused', error };
        throw error;
      }
      if (isTerminal(call.status)) return { kind: 'finished', call };
      if (call.executionMode === 'background') return { kind: 'background', call };
      call = await this.awaitToolCall.execute(call, {
        deadlineMs: options.deadlineMs,
        signal,
        onProgress: onProgress && ((p) => onProgress({ progress: p.n, total: p.total, message: p.message })),
      });
      if (isTerminal(call.status)) return { kind: 'finished', call };
      if (signal.aborted) {
        const cancelled = await this.cancelToolCall
          .execute(agent, call.id, 'cancelled by the MCP client')
          .catch(() => call);
        return { kind: 'finished', call: cancelled };
      }
      return { kind: 'still-running', call };
    } finally {
      releaseWait();
    }
  }
}
