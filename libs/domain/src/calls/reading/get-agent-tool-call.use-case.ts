import { Injectable } from '@nestjs/common';
import { type ToolCall, ToolCallLedger } from '../../../../persistence/src/index.js';
import type { AgentRef } from '../../agents/agent-ref.js';
import { DomainError } from '../../errors.js';
import { AgentWaits } from './agent-waits.js';
import { AwaitToolCall } from './await-tool-call.use-case.js';
import { isTerminal } from '../../../../persistence/src/index.js';

/**
 * One of the agent's calls; with `waitMs`, answers as soon as it finishes or the time is up. A
 * wait on an unfinished call takes one of the agent's wait slots (429 when none is free).
 */
@Injectable()
export class GetAgentToolCall {
  constructor(
    private readonly calls: ToolCallLedger,
    private readonly awaitToolCall: AwaitToolCall,
    private readonly waits: AgentWaits,
  ) {}

  async execute(agent: AgentRef, callId: string, waitMs = 0, signal?: AbortSignal): Promise<ToolCall> {
    const call = await this.calls.getForAgent(agent.projectId, agent.agentId, callId);
    if (!call) throw DomainError.notFound(`Tool call "${callId}"`);
    if (waitMs <= 0 || isTerminal(call.status)) return call;
    const release = this.waits.acquire(agent);
    try {
      return await this.awaitToolCall.execute(call, { deadlineMs: waitMs, signal });
    } finally {
      release();
    }
  }
}
